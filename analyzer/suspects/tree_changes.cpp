// Without history, a change is a function whose body differs: its lines in the newer
// tree against those of the same name in the older one, found in the same file where it
// is defined there (else where the older tree's own resolution put it: a function moved
// between files). Blanks are folded before comparing, so that re-indenting is no change;
// the diff shows the lines as they are.
#include "tree_changes.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <unordered_map>

#include "definitions.hpp"
#include "unified_diff.hpp"

namespace hangscope::suspects_detail {

namespace {

class FileLines {
 public:
  explicit FileLines(const KernelTree& tree) : tree_(tree) {}
  const std::string& text(const std::string& file) {
    auto it = texts_.find(file);
    if (it != texts_.end()) return it->second;
    return texts_[file] = tree_.read(file).value_or("");
  }
  // The lines of `loc`'s definition.
  std::vector<std::string> body(const Location& loc) {
    const std::vector<std::string>& all = lines(loc.file);
    std::vector<std::string> out;
    for (uint32_t l = loc.begin; l <= loc.end && l <= all.size(); ++l) out.push_back(all[l - 1]);
    return out;
  }

 private:
  const std::vector<std::string>& lines(const std::string& file) {
    auto it = files_.find(file);
    if (it != files_.end()) return it->second;
    std::vector<std::string>& v = files_[file];
    const std::string& t = text(file);
    for (size_t p = 0; p < t.size();) {
      size_t e = t.find('\n', p);
      if (e == std::string::npos) e = t.size();
      v.push_back(t.substr(p, e - p));
      p = e + 1;
    }
    return v;
  }
  const KernelTree& tree_;
  std::unordered_map<std::string, std::vector<std::string>> files_;
  std::unordered_map<std::string, std::string> texts_;
};

std::string folded(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) {
    bool space = false;
    for (char c : l) {
      if (c == ' ' || c == '\t' || c == '\r') {
        space = true;
        continue;
      }
      if (space && !out.empty() && out.back() != '\n') out += ' ';
      space = false;
      out += c;
    }
    out += '\n';
  }
  return out;
}

// The older tree's definitions to compare with: those in the newer one's files where
// there are some, else the older tree's own choice.
std::vector<Location> older(const std::string& name, const std::vector<Location>& newer,
                            const TreeChangesInput& in) {
  std::vector<Location> out;
  auto all = in.old_defs.find(name);
  if (all != in.old_defs.end())
    for (const Location& l : all->second)
      for (const Location& n : newer)
        if (l.file == n.file) {
          out.push_back(l);
          break;
        }
  if (!out.empty()) return out;
  auto r = in.old_res.find(name);
  return r == in.old_res.end() ? out : r->second.chosen;
}

// Where a weighed function absent from the older tree came from: the function of the
// same file that the newer tree no longer has and whose lines it mostly keeps (a rename).
struct Rename {
  std::string old_name;
  Location location;
};

std::optional<Rename> renamed_from(const std::string& name, const Location& newer,
                                   FileLines& old_lines, FileLines& new_lines) {
  const std::string& before_text = old_lines.text(newer.file);
  const std::string& after_text = new_lines.text(newer.file);
  std::vector<Definition> after_defs = scan_definitions(after_text);
  const std::vector<std::string> mine = new_lines.body(newer);
  std::optional<Rename> best;
  double best_share = kRenameShare;
  for (const Definition& d : scan_definitions(before_text)) {
    if (std::any_of(after_defs.begin(), after_defs.end(),
                    [&](const Definition& a) { return a.name == d.name; }))
      continue;
    Location at{newer.file, d.begin, d.end, d.is_static};
    const double share = kept_share(old_lines.body(at), mine, d.name, name);
    if (share >= best_share) {
      best_share = share;
      best = Rename{std::string(d.name), at};
    }
  }
  return best;
}

}  // namespace

TreeChanges tree_changes(const TreeChangesInput& in) {
  TreeChanges out;
  FileLines old_lines(in.old_tree), new_lines(in.new_tree);
  // Where each function is in both trees; a function new to its file may be a rename.
  std::map<std::string, std::pair<std::vector<Location>, std::vector<Location>>> places;
  Aliases aliases;
  for (const auto& [name, weight] : in.weights) {
    auto nr = in.new_res.find(name);
    std::vector<Location> newer =
        nr == in.new_res.end() ? std::vector<Location>{} : nr->second.chosen;
    std::vector<Location> before = older(name, newer, in);
    if (before.empty() && newer.size() == 1)
      if (std::optional<Rename> r = renamed_from(name, newer.front(), old_lines, new_lines)) {
        before = {r->location};
        aliases[r->old_name] = name;
      }
    places[name] = {std::move(before), std::move(newer)};
  }
  for (const auto& [name, weight] : in.weights) {
    const auto& [before, newer] = places[name];
    if (newer.empty() && before.empty()) continue;
    auto renamed = std::find_if(aliases.begin(), aliases.end(),
                                [&name = name](const auto& a) { return a.second == name; });
    ++out.examined;
    std::vector<std::string> a, b;
    for (const Location& l : before)
      for (std::string& s : old_lines.body(l)) a.push_back(std::move(s));
    for (const Location& l : newer)
      for (std::string& s : new_lines.body(l)) b.push_back(std::move(s));
    if (folded(a) == folded(b)) continue;  // unchanged, or moved unchanged
    Suspect s;
    s.kind = SuspectKind::function;
    s.function = name;
    s.old_file = before.empty() ? "" : before.front().file;
    s.new_file = newer.empty() ? "" : newer.front().file;
    const uint32_t a_first = before.empty() ? 1 : before.front().begin;
    const uint32_t b_first = newer.empty() ? 1 : newer.front().begin;
    LineDiff d = unified_diff(a, b, a_first, b_first);
    s.diff = "--- " + in.old_tree.name() + "/" + (s.old_file.empty() ? s.new_file : s.old_file) +
             "\n+++ " + in.new_tree.name() + "/" + (s.new_file.empty() ? s.old_file : s.new_file) +
             "\n" + d.text;
    TouchedFrame t;
    t.function = name;
    t.file = s.new_file.empty() ? s.old_file : s.new_file;
    t.weight = weight;
    t.added = d.added;
    t.removed = d.removed;
    t.created = before.empty();
    if (renamed != aliases.end()) s.old_function = renamed->first;
    t.deleted = newer.empty();
    std::vector<std::string> plus, minus;
    for (size_t p = 0; p < d.text.size();) {
      size_t e = d.text.find('\n', p);
      std::string l = d.text.substr(p, e - p);
      p = e + 1;
      if (l.starts_with("+")) plus.push_back(l.substr(1));
      if (l.starts_with("-")) minus.push_back(l.substr(1));
    }
    weigh_calls(t, in.callees, minus, plus, &a, &aliases);
    s.frames.push_back(std::move(t));
    total(s);
    out.suspects.push_back(std::move(s));
  }
  return out;
}

}  // namespace hangscope::suspects_detail
