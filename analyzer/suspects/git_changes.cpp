// The commits of a range that touch the weighed functions: one path-limited
// `git log -p -U0` over the files the functions are defined in (at both ends, so that a
// file renamed or a function moved in the range is followed), and for each changed
// line the function it falls in, found in that commit's version of the file (before it
// for removed lines, after it for added ones) by the same scan as the index. So a
// function is followed through the lines moving around it, as `git log -L :FUNC:FILE`
// does, for all functions in one pass over the history.
//
// - A function renamed (its old name gone from the file where the new one appears, the
//   changed lines joining them) is followed under its old name in older commits.
// - A function moved between files unchanged (its body deleted from one and added to
//   another in one commit) is no change: the commit is listed as a move and ranked last.
//   A file renamed unchanged has no changed lines at all.
// - A merge counts the lines of its own resolution only (its combined diff): what it
//   brought in is counted on the commits that made it.
#include "git_changes.hpp"

#include <algorithm>
#include <list>
#include <memory>
#include <set>
#include <unordered_map>

#include "definitions.hpp"
#include "git_log.hpp"
#include "git_process.hpp"
#include "unified_diff.hpp"

namespace hangscope::suspects_detail {

namespace {

struct ScannedBlob {
  std::string text;
  std::vector<Definition> defs;
  std::vector<std::string_view> lines;  // lines[0] is line 1
};

// The scanned versions of files, the most recently used kept.
class BlobCache {
 public:
  explicit BlobCache(const std::string& git_dir) : cat_(git_dir) {}
  const ScannedBlob* get(const std::string& id) {
    if (id.empty()) return &empty_;
    auto it = index_.find(id);
    if (it != index_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return it->second->second.get();
    }
    auto blob = std::make_unique<ScannedBlob>();
    if (std::optional<std::string> text = cat_.read(id)) blob->text = std::move(*text);
    blob->defs = scan_definitions(blob->text);
    std::string_view t(blob->text);
    for (size_t p = 0; p < t.size();) {
      size_t e = t.find('\n', p);
      if (e == std::string_view::npos) e = t.size();
      blob->lines.push_back(t.substr(p, e - p));
      p = e + 1;
    }
    order_.emplace_front(id, std::move(blob));
    index_[id] = order_.begin();
    if (order_.size() > kKeep) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return order_.front().second.get();
  }
  bool ok() const { return cat_.ok(); }

 private:
  static constexpr size_t kKeep = 64;
  CatFile cat_;
  ScannedBlob empty_;
  std::list<std::pair<std::string, std::unique_ptr<ScannedBlob>>> order_;
  std::unordered_map<std::string, decltype(order_)::iterator> index_;
};

const Definition* containing(const ScannedBlob& b, uint32_t line) {
  for (const Definition& d : b.defs)
    if (d.begin <= line && line <= d.end) return &d;
  return nullptr;
}

bool defines(const ScannedBlob& b, std::string_view name) {
  return std::any_of(b.defs.begin(), b.defs.end(),
                     [&](const Definition& d) { return d.name == name; });
}

// The lines of a function's definitions in a version of a file.
std::vector<std::string> lines_of(const ScannedBlob& b, std::string_view name) {
  std::vector<std::string> out;
  for (const Definition& d : b.defs)
    if (d.name == name)
      for (uint32_t l = d.begin; l <= d.end && l <= b.lines.size(); ++l)
        out.emplace_back(b.lines[l - 1]);
  return out;
}

// A function's body with blanks folded: what a move must keep.
std::string body(const ScannedBlob& b, std::string_view name) {
  std::string out;
  for (const Definition& d : b.defs) {
    if (d.name != name) continue;
    for (uint32_t l = d.begin; l <= d.end && l <= b.lines.size(); ++l) {
      bool space = false;
      for (char c : b.lines[l - 1]) {
        if (c == ' ' || c == '\t') {
          space = true;
          continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += c;
      }
      out += '\n';
    }
  }
  return out;
}

// What one commit did to one weighed function.
struct Touch {
  TouchedFrame frame;
  std::vector<std::string_view> removed, added;
  std::string created_body, deleted_body;  // where it appeared in / left a file
  std::string diff;
};

class HistoryReader {
 public:
  HistoryReader(const GitChangesInput& in) : in_(in), blobs_(in.git_dir) {
    for (const auto& [frame, files] : in.files) tracked_[frame] = frame;
  }

  std::vector<Suspect> read(const std::vector<LogCommit>& commits) {
    std::vector<Suspect> out;
    for (const LogCommit& c : commits) {
      std::map<std::string, Touch> touches;
      for (const FileChange& f : c.files) file_change(f, c.merge, touches);
      if (touches.empty()) continue;
      out.push_back(suspect(c, touches));
    }
    return out;
  }

 private:
  bool allowed(const std::string& frame, const std::string& path) const {
    auto it = in_.files.find(frame);
    return it != in_.files.end() && it->second.count(path);
  }

  void file_change(const FileChange& f, bool merge, std::map<std::string, Touch>& touches) {
    const ScannedBlob& before = *blobs_.get(f.old_blob);
    const ScannedBlob& after = *blobs_.get(f.new_blob);
    std::set<std::string> touched_here;
    auto touch = [&](const std::string& frame, const std::string& path) -> Touch& {
      Touch& t = touches[frame];
      if (t.frame.function.empty()) {
        t.frame.function = frame;
        t.frame.file = path;
        auto w = in_.weights.find(frame);
        t.frame.weight = w == in_.weights.end() ? 0 : w->second;
      }
      if (touched_here.insert(frame).second) t.diff += "@@ " + path + ": " + frame + " @@\n";
      return t;
    };
    // Renames: a function gone from the file where a weighed one appeared, joined by the
    // lines of one change and keeping most of its lines. Known first, so that the old
    // name's removed lines count too.
    if (!merge) {
      std::set<std::string_view> gone, appeared;
      for (const ChangedLine& l : f.removed)
        if (const Definition* d = containing(before, l.line);
            d && !tracked_.count(std::string(d->name)) && !defines(after, d->name))
          gone.insert(d->name);
      for (const ChangedLine& l : f.added)
        if (const Definition* d = containing(after, l.line);
            d && tracked_.count(std::string(d->name)) && !defines(before, d->name))
          appeared.insert(d->name);
      for (std::string_view name : appeared) {
        std::string_view best;
        double best_share = kRenameShare;
        for (std::string_view old_name : gone) {
          const double share =
              kept_share(lines_of(before, old_name), lines_of(after, name), old_name, name);
          if (share >= best_share) best_share = share, best = old_name;
        }
        if (!best.empty()) tracked_[std::string(best)] = tracked_[std::string(name)];
      }
    }
    for (const ChangedLine& l : f.removed) {
      const Definition* d = containing(before, l.line);
      auto it = d ? tracked_.find(std::string(d->name)) : tracked_.end();
      if (it == tracked_.end() || !allowed(it->second, f.old_path)) continue;
      Touch& t = touch(it->second, f.old_path);
      ++t.frame.removed;
      t.removed.push_back(l.text);
      t.diff += "-" + std::string(l.text) + "\n";
    }
    for (const ChangedLine& l : f.added) {
      const Definition* d = containing(after, l.line);
      auto it = d ? tracked_.find(std::string(d->name)) : tracked_.end();
      if (it == tracked_.end() || !allowed(it->second, f.new_path)) continue;
      Touch& t = touch(it->second, f.new_path);
      t.frame.file = f.new_path;
      ++t.frame.added;
      t.added.push_back(l.text);
      t.diff += "+" + std::string(l.text) + "\n";
    }
    for (const std::string& name : touched_here) {
      for (const auto& [alias, frame] : tracked_) {
        if (frame != name) continue;
        Touch& t = touches[name];
        if (merge) continue;  // no one version before a merge
        if (defines(after, alias) && !defines(before, alias)) t.created_body = body(after, alias);
        if (defines(before, alias) && !defines(after, alias)) t.deleted_body = body(before, alias);
      }
    }
  }

  Suspect suspect(const LogCommit& c, std::map<std::string, Touch>& touches) {
    Suspect s;
    s.kind = SuspectKind::commit;
    s.commit = c.id;
    s.subject = c.subject;
    s.author = c.author;
    s.date = c.date;
    s.merge = c.merge;
    size_t moved = 0;
    for (auto& [name, t] : touches) {
      const bool move = !t.created_body.empty() && t.created_body == t.deleted_body;
      moved += move;
      t.frame.created = !t.created_body.empty() && t.deleted_body.empty();
      t.frame.deleted = !t.deleted_body.empty() && t.created_body.empty();
      const std::vector<std::string_view> none;
      weigh_calls(t.frame, in_.callees, t.removed, t.added, t.frame.created ? &none : nullptr,
                  &tracked_);
    }
    s.moved_only = moved == touches.size();
    for (auto& [name, t] : touches) {
      const bool move = !t.created_body.empty() && t.created_body == t.deleted_body;
      if (move && !s.moved_only) continue;
      s.frames.push_back(t.frame);
      s.diff += t.diff;
    }
    total(s);
    return s;
  }

  const GitChangesInput& in_;
  BlobCache blobs_;
  Aliases tracked_;  // a name in the history -> the frame
};

}  // namespace

GitChanges git_changes(const GitChangesInput& in) {
  GitChanges out;
  std::set<std::string> paths;
  for (const auto& [frame, files] : in.files) paths.insert(files.begin(), files.end());
  if (paths.empty()) return out;
  std::vector<std::string> args = {"log",
                                   "--topo-order",
                                   "-M",
                                   "--cc",
                                   "-U0",
                                   "--no-color",
                                   "--no-ext-diff",
                                   "--full-index",
                                   "--date=short",
                                   "--format=" + std::string(log_format()),
                                   in.a_id + ".." + in.b_id,
                                   "--"};
  args.insert(args.end(), paths.begin(), paths.end());
  ProcessResult log = run_git(in.git_dir, args);
  if (log.status != 0) {
    out.error = first_line(log.err);
    return out;
  }
  std::vector<LogCommit> commits = parse_log(log.out);
  out.examined = commits.size();
  HistoryReader reader(in);
  out.suspects = reader.read(commits);
  return out;
}

}  // namespace hangscope::suspects_detail
