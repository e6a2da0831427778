// The rule file loader: TOML (read with toml++) into a RuleSet. Every mistake is one
// RuleError naming the file, line and column, so that a user's rule file is fixed in
// one look: bad TOML, an unknown key, a value of the wrong type, a bad pattern, a
// duplicate group. The format is described in docs/rules.md.
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <unordered_map>

#include "hangscope/classify.hpp"

namespace hangscope {

namespace {

enum class PatternKind { frame, comm };

class Loader {
 public:
  explicit Loader(const std::string& name) : name_(name) {}

  RuleSet load(std::string_view text) {
    toml::table doc;
    try {
      doc = toml::parse(text, name_);
    } catch (const toml::parse_error& e) {
      throw RuleError(fmt::format("{}: {}", at(e.source()), e.description()));
    }
    check_keys(doc, {"format", "frames", "aliases", "group"}, "the rule file");
    if (const toml::node* f = doc.get("format")) {
      const auto* v = f->as_integer();
      if (!v || v->get() != 1) fail(f->source(), "format must be 1 (the only format there is)");
    }
    RuleSet set;
    if (const toml::node* n = doc.get("frames")) frames(table(*n, "frames"), set);
    if (const toml::node* n = doc.get("aliases")) aliases(table(*n, "aliases"), set);
    if (const toml::node* n = doc.get("group")) {
      const toml::array* groups = n->as_array();
      if (!groups) fail(n->source(), "group must be an array of tables: write [[group]]");
      std::unordered_map<std::string, std::string> seen;  // name -> where first defined
      for (const toml::node& g : *groups) {
        GroupRule rule = group(table(g, "[[group]]"));
        auto [it, inserted] = seen.try_emplace(rule.name, rule.origin);
        if (!inserted)
          fail(g.source(),
               fmt::format("duplicate group '{}' (first defined at {})", rule.name, it->second));
        set.groups.push_back(std::move(rule));
      }
    }
    return set;
  }

 private:
  [[noreturn]] void fail(const toml::source_region& where, std::string_view message) const {
    throw RuleError(fmt::format("{}: {}", at(where), message));
  }

  std::string at(const toml::source_region& r) const {
    return fmt::format("{}:{}:{}", name_, r.begin.line, r.begin.column);
  }

  const toml::table& table(const toml::node& n, std::string_view what) const {
    const toml::table* t = n.as_table();
    if (!t) fail(n.source(), fmt::format("{} must be a table", what));
    return *t;
  }

  void check_keys(const toml::table& t, std::initializer_list<std::string_view> allowed,
                  std::string_view what) const {
    for (auto&& [key, value] : t) {
      bool known = false;
      for (std::string_view a : allowed) known = known || key.str() == a;
      if (known) continue;
      fail(key.source(), fmt::format("unknown key '{}' in {} (expected one of: {})", key.str(),
                                     what, fmt::join(allowed, ", ")));
    }
  }

  std::string text(const toml::table& t, std::string_view key, std::string_view what,
                   bool required = false) const {
    const toml::node* n = t.get(key);
    if (!n) {
      if (required) fail(t.source(), fmt::format("{} needs '{}'", what, key));
      return {};
    }
    const auto* s = n->as_string();
    if (!s) fail(n->source(), fmt::format("{} must be a string", key));
    if (required && s->get().empty()) fail(n->source(), fmt::format("{} must not be empty", key));
    return s->get();
  }

  bool flag(const toml::table& t, std::string_view key) const {
    const toml::node* n = t.get(key);
    if (!n) return false;
    const auto* b = n->as_boolean();
    if (!b) fail(n->source(), fmt::format("{} must be true or false", key));
    return b->get();
  }

  // One of `choices`, or the first when the key is absent.
  std::string choice(const toml::table& t, std::string_view key,
                     std::initializer_list<std::string_view> choices) const {
    const toml::node* n = t.get(key);
    if (!n) return std::string(*choices.begin());
    const auto* s = n->as_string();
    if (s)
      for (std::string_view c : choices)
        if (s->get() == c) return s->get();
    fail(n->source(), fmt::format("{} must be one of \"{}\"", key, fmt::join(choices, "\", \"")));
  }

  std::vector<std::string> strings(const toml::node& n, std::string_view key) const {
    const toml::array* a = n.as_array();
    if (!a) fail(n.source(), fmt::format("{} must be an array of strings", key));
    std::vector<std::string> out;
    for (const toml::node& e : *a) {
      const auto* s = e.as_string();
      if (!s) fail(e.source(), fmt::format("{} must be an array of strings", key));
      out.push_back(s->get());
    }
    return out;
  }

  std::vector<FramePattern> patterns(const toml::table& t, std::string_view key,
                                     PatternKind kind = PatternKind::frame) const {
    const toml::node* n = t.get(key);
    if (!n) return {};
    std::vector<FramePattern> out;
    const toml::array* a = n->as_array();
    for (size_t i = 0; a && i < a->size(); ++i) {
      const toml::node& e = *a->get(i);
      const auto* s = e.as_string();
      if (!s) break;  // reported by strings() below
      std::string problem = kind == PatternKind::frame ? frame_pattern_problem(s->get())
                                                       : comm_pattern_problem(s->get());
      if (!problem.empty())
        fail(e.source(), fmt::format("bad pattern '{}' in {}: {}", s->get(), key, problem));
    }
    for (const std::string& s : strings(*n, key)) out.push_back(FramePattern::parse(s));
    return out;
  }

  void frames(const toml::table& t, RuleSet& set) const {
    check_keys(t, {"scheduler", "lock", "spin", "entry"}, "[frames]");
    set.scheduler_frames = patterns(t, "scheduler");
    set.lock_frames = patterns(t, "lock");
    set.spin_frames = patterns(t, "spin");
    set.entry_frames = patterns(t, "entry");
  }

  void aliases(const toml::table& t, RuleSet& set) const {
    for (auto&& [key, value] : t) {
      const auto* s = value.as_string();
      if (!s) fail(value.source(), "an alias maps an old function name to a string");
      for (std::string_view name : {std::string_view(key.str()), std::string_view(s->get())}) {
        std::string problem = frame_pattern_problem(name);
        if (problem.empty() && name.find('*') != std::string_view::npos)
          problem = "aliases name functions, not patterns";
        if (!problem.empty())
          fail(value.source(),
               fmt::format("bad alias '{}' = '{}': {}", key.str(), s->get(), problem));
      }
      set.aliases[std::string(key.str())] = s->get();
    }
  }

  MatchRule match(const toml::table& t) const {
    check_keys(t, {"frames", "below", "innermost", "in_d"}, "[[group.match]]");
    MatchRule m;
    m.frames = patterns(t, "frames");
    if (m.frames.empty()) fail(t.source(), "a match needs 'frames' (the blocking frame)");
    m.below = patterns(t, "below");
    m.innermost = flag(t, "innermost");
    m.in_d = text(t, "in_d", "[[group.match]]");
    return m;
  }

  HolderRule holder(const toml::table& t) const {
    check_keys(t,
               {"label", "groups", "frames", "not_frames", "comm", "workqueue", "fuse_daemon",
                "scope", "confidence", "fallback", "unseen"},
               "[group.holder]");
    HolderRule h;
    h.label = text(t, "label", "[group.holder]");
    if (const toml::node* n = t.get("groups")) {
      h.groups = strings(*n, "groups");
      h.origin = at(n->source());
    }
    h.frames = patterns(t, "frames");
    h.not_frames = patterns(t, "not_frames");
    h.comm = patterns(t, "comm", PatternKind::comm);
    h.workqueue = flag(t, "workqueue");
    h.fuse_daemon = flag(t, "fuse_daemon");
    std::string scope = choice(t, "scope", {"device", "process", "system"});
    h.scope = scope == "device"    ? HolderScope::device
              : scope == "process" ? HolderScope::process
                                   : HolderScope::system;
    h.confidence = choice(t, "confidence", {"strong", "assumed"}) == "strong" ? Confidence::strong
                                                                              : Confidence::assumed;
    std::string fallback = choice(t, "fallback", {"none", "device", "unseen"});
    h.fallback = fallback == "none"     ? HolderFallback::none
                 : fallback == "device" ? HolderFallback::device
                                        : HolderFallback::unseen;
    h.unseen = text(t, "unseen", "[group.holder]");
    if (h.fallback == HolderFallback::unseen && h.unseen.empty())
      fail(t.source(), "fallback = \"unseen\" needs 'unseen': words for the holder nobody saw");
    if (h.empty())
      fail(t.source(), "a holder needs groups, frames, comm, workqueue, fuse_daemon or a fallback");
    if (!h.not_frames.empty() && h.frames.empty())
      fail(t.source(), "not_frames only narrow 'frames': give frames too");
    return h;
  }

  GroupRule group(const toml::table& t) const {
    check_keys(t,
               {"name", "title", "subsystem", "resource", "phrase", "subject", "tier", "named_by",
                "idle", "root", "filesystems", "match", "holder"},
               "[[group]]");
    GroupRule g;
    g.origin = at(t.source());
    g.name = text(t, "name", "a group", true);
    for (char c : g.name)
      if (c == ' ' || c == '\t' || c == ';')
        fail(t.get("name")->source(),
             fmt::format("group name '{}' must not hold blanks or ';'", g.name));
    if (g.name.starts_with("other:"))
      fail(t.get("name")->source(),
           "group names starting with 'other:' are kept for unmatched stacks");
    g.subsystem = text(t, "subsystem", fmt::format("group '{}'", g.name), true);
    g.title = text(t, "title", "[[group]]");
    if (g.title.empty()) g.title = g.name;
    g.resource = text(t, "resource", "[[group]]");
    if (g.resource.empty()) g.resource = "unknown";
    g.phrase = text(t, "phrase", "[[group]]");
    if (g.phrase.empty()) g.phrase = "in " + g.title;
    g.subject = text(t, "subject", "[[group]]");
    std::string tier = choice(t, "tier", {"specific", "generic", "role", "primitive"});
    g.tier = tier == "specific"    ? Tier::specific
             : tier == "generic"   ? Tier::generic
             : tier == "primitive" ? Tier::primitive
                                   : Tier::role;
    const std::string named_by = choice(t, "named_by", {"caller", "frame", "user-caller"});
    g.by_frame = named_by == "frame";
    g.by_user_caller = named_by == "user-caller";
    if (g.by_frame && g.tier != Tier::generic)
      fail(t.get("named_by")->source(), "named_by is for generic groups (tier = \"generic\")");
    g.idle = flag(t, "idle");
    if (g.tier == Tier::primitive && (g.by_user_caller || g.idle))
      fail(t.get("tier")->source(),
           "primitive groups are named by the kernel map: no named_by, never idle");
    g.root = flag(t, "root");
    if (g.root && g.tier != Tier::role)
      fail(t.get("root")->source(), "root is for role groups (tier = \"role\")");
    g.filesystems = patterns(t, "filesystems", PatternKind::comm);
    const toml::node* m = t.get("match");
    if (!m) fail(t.source(), fmt::format("group '{}' needs at least one [[group.match]]", g.name));
    const toml::array* ms = m->as_array();
    if (!ms || ms->empty())
      fail(m->source(), "match must be an array of tables: write [[group.match]]");
    for (const toml::node& one : *ms) {
      const toml::table& mt = table(one, "[[group.match]]");
      g.matches.push_back(match(mt));
      if (!g.matches.back().in_d.empty() && !g.idle)
        fail(mt.get("in_d")->source(), "in_d is for the matches of idle groups (idle = true)");
    }
    if (const toml::node* h = t.get("holder")) g.holder = holder(table(*h, "[group.holder]"));
    return g;
  }

  const std::string& name_;
};

}  // namespace

RuleSet parse_rules(std::string_view toml_text, const std::string& name) {
  return Loader(name).load(toml_text);
}

RuleSet load_rules_file(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw RuleError(fmt::format("{}: {}", path, std::strerror(errno)));
  std::string text;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      throw RuleError(fmt::format("{}: {}", path, std::strerror(err)));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return parse_rules(text, path);
}

}  // namespace hangscope
