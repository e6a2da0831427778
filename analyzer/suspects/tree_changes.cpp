// Without history, a change is a function whose body differs: its lines in the newer
// tree against those of the same name in the older one, found in the same file where it
// is defined there (else where the older tree's own resolution put it: a function moved
// between files). Blanks are folded before comparing, so that re-indenting is no change;
// the diff shows the lines as they are.
#include "tree_changes.hpp"

#include <algorithm>
#include <unordered_map>

#include "unified_diff.hpp"

namespace hangscope::suspects_detail {

namespace {

class FileLines {
 public:
  explicit FileLines(const KernelTree& tree) : tree_(tree) {}
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
    if (std::optional<std::string> text = tree_.read(file)) {
      size_t p = 0;
      while (p < text->size()) {
        size_t e = text->find('\n', p);
        if (e == std::string::npos) e = text->size();
        v.push_back(text->substr(p, e - p));
        p = e + 1;
      }
    }
    return v;
  }
  const KernelTree& tree_;
  std::unordered_map<std::string, std::vector<std::string>> files_;
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

}  // namespace

TreeChanges tree_changes(const TreeChangesInput& in) {
  TreeChanges out;
  FileLines old_lines(in.old_tree), new_lines(in.new_tree);
  for (const auto& [name, weight] : in.weights) {
    auto nr = in.new_res.find(name);
    std::vector<Location> newer = nr == in.new_res.end() ? std::vector<Location>{} : nr->second.chosen;
    std::vector<Location> before = older(name, newer, in);
    if (newer.empty() && before.empty()) continue;
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
    t.deleted = newer.empty();
    std::vector<std::string> plus, minus;
    for (size_t p = 0; p < d.text.size();) {
      size_t e = d.text.find('\n', p);
      std::string l = d.text.substr(p, e - p);
      p = e + 1;
      if (l.starts_with("+")) plus.push_back(l.substr(1));
      if (l.starts_with("-")) minus.push_back(l.substr(1));
    }
    weigh_calls(t, in.callees, minus, plus, &a);
    s.frames.push_back(std::move(t));
    total(s);
    out.suspects.push_back(std::move(s));
  }
  return out;
}

}  // namespace hangscope::suspects_detail
