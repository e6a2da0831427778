// The verdict. Every waiting group follows its heaviest edges to where its waits end
// (its primary path); the last waiting group on that path is the culprit, and the
// culprit's rule names the subject in words ("the jbd2 journal of {device}"). The groups
// whose culprit has that subject make one finding: those with the same subject wait on
// it directly (named by their phrase and holder), the others wait behind them. Each
// group counts in one finding only. Role groups (the commit thread, the checkpointer)
// are the subject's own threads, not its victims; idle threads are nobody's victims
// (unclassified stacks are: every blocked thread counts). A group behind the subject is named with its holder where a
// task holds it: that task is itself blocked on the way to the subject (a reader holding
// a page lock while it waits for the FUSE daemon). A chain that ends at a root role (the
// freezer) names its task and what that task waits for itself.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "graph_context.hpp"

namespace hangscope::graph_impl {

namespace {

class VerdictWriter {
 public:
  explicit VerdictWriter(Context& c) : c_(c), g_(c.graph) {
    in_deadlock_.assign(g_.nodes.size(), 0);
    for (const Deadlock& d : g_.deadlocks)
      for (uint32_t n : d.nodes) in_deadlock_[n] = 1;
    out_.resize(g_.nodes.size());
    for (uint32_t e = 0; e < g_.edges.size(); ++e)
      if (g_.edges[e].from != g_.edges[e].to) out_[g_.edges[e].from].push_back(e);
  }

  void run() {
    subsystems();
    std::map<std::pair<uint32_t, std::string>, size_t> index;  // (end, subject key) -> finding
    std::vector<Finding>& findings = g_.verdict.findings;
    for (uint32_t v = 0; v < g_.nodes.size(); ++v) {
      if (!victim(v)) continue;
      Path p = primary_path(v);
      if (in_deadlock_[p.culprit]) continue;  // the possible deadlock says it better
      const Subject subject = subject_of(p.culprit);
      auto [it, inserted] = index.try_emplace({p.end, subject.key()}, findings.size());
      if (inserted) {
        findings.emplace_back();
        findings.back().root = p.end;
        findings.back().subject = subject.text;
        findings.back().subject_device = subject.device;
        findings.back().subject_holder = subject.holder;
        describe_end(findings.back(), p.end);
      }
      Finding& f = findings[it->second];
      f.assumed_one_fs = f.assumed_one_fs || p.assumed_one_fs;
      if (c_.role_node(v)) continue;  // the subject's own threads
      const WaitPhrase phrase = phrase_of_node(v);
      if (subject_of(v).key() == subject.key())
        merge(f.waits, g_.nodes[v].weight, phrase, holder_of(v));
      else  // behind the subject: named where a task (itself blocked) holds it
        merge(f.behind, g_.nodes[v].weight, phrase, task_holder_of(v));
    }
    merge_same_subject();
    for (Finding& f : findings) {
      for (const VerdictPart& p : f.waits) f.total += p.weight;
      for (const VerdictPart& p : f.behind) f.total += p.weight;
    }
    std::erase_if(findings, [](const Finding& f) {
      return (f.waits.empty() && f.behind.empty()) || f.total <= 0;  // running tasks only
    });
    std::stable_sort(findings.begin(), findings.end(),
                     [](const Finding& a, const Finding& b) { return a.total > b.total; });
  }

 private:
  bool waiting(uint32_t v) const { return g_.nodes[v].kind == NodeKind::group && !c_.idle_node(v); }
  // Every waiting group, recognised or not: a wait no rule knows that holds the most
  // blocked threads leads the verdict, never one a rule knows that holds fewer.
  bool victim(uint32_t v) const { return waiting(v); }
  const std::string& subsystem(uint32_t v) const {
    return c_.cls.groups[g_.nodes[v].group].subsystem;
  }

  // A group's wait in its rule's words; the renderers say "in" its title where it has none.
  WaitPhrase phrase_of(uint32_t group) const {
    const GroupRule* rule = c_.rule_of_group(group);
    return {group, rule ? rule->phrase : std::string()};
  }

  // A node's wait: a cause's where it holds its tasks whatever their stacks ("frozen").
  WaitPhrase phrase_of_node(uint32_t v) const {
    const GraphNode& n = g_.nodes[v];
    if (n.cause != kNoCause) return {n.group, std::string(cause_table()[n.cause].phrase)};
    return phrase_of(n.group);
  }

  struct Path {
    uint32_t end = 0;      // where the waits end: a node with no way further
    uint32_t culprit = 0;  // the last waiting group on the way
    bool assumed_one_fs = false;
  };

  // Follows the heaviest edges from v, never back to a node already on the path.
  Path primary_path(uint32_t v) const {
    Path p{v, v, false};
    std::vector<uint32_t> on_path{v};
    for (uint32_t at = v;;) {
      const GraphEdge* next = nullptr;
      for (uint32_t e : out_[at]) {
        const GraphEdge& ge = g_.edges[e];
        if (std::find(on_path.begin(), on_path.end(), ge.to) != on_path.end()) continue;
        if (!next || ge.weight > next->weight) next = &ge;
      }
      if (!next) break;
      p.assumed_one_fs = p.assumed_one_fs || next->assumed_one_fs;
      at = next->to;
      on_path.push_back(at);
      p.end = at;
      if (victim(at)) p.culprit = at;
    }
    return p;
  }

  void describe_end(Finding& f, uint32_t end) const {
    const GraphNode& n = g_.nodes[end];
    const GroupRule* rule = n.kind == NodeKind::group ? c_.rule_of_group(n.group) : nullptr;
    if (n.kind == NodeKind::task && f.subject_holder.task.pid != 0 &&
        n.tasks.front().task.pid == f.subject_holder.task.pid) {
      // the subject's holder itself (a FUSE daemon found but not sampled)
    } else if (n.kind == NodeKind::device || n.kind == NodeKind::task) {
      f.then.push_back(end);  // (a holder nobody sampled is named by the parts)
    } else if (rule && rule->root) {
      describe_root_holder(f, end, *rule);
    } else if (n.kind == NodeKind::group && victim(end) && out_[end].empty()) {
      f.holder_unknown = !rule || !rule->holder.selects_tasks();
      f.holder_unseen = !f.holder_unknown;
    }
  }

  // The task of a root role the waits end at, and what it waits for itself: the wait of
  // its heaviest samples that is not the role.
  void describe_root_holder(Finding& f, uint32_t end, const GroupRule& role) const {
    const GraphNode& n = g_.nodes[end];
    if (n.tasks.empty()) return;
    f.root_holder.labels = {role.title};
    f.root_holder.task = n.tasks.front().task;
    std::map<uint32_t, double> waits;
    for (uint32_t u = 0; u < c_.units.size(); ++u) {
      const TaskSample& s = c_.sample_of(u);
      if (c_.node[u] != end || s.tid != f.root_holder.task.tid) continue;
      const uint32_t w = c_.cls.wait(s);
      if (w != n.group) waits[w] += c_.units[u].samples;
    }
    const auto heaviest =
        std::max_element(waits.begin(), waits.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (heaviest == waits.end()) return;
    f.root_holder_waits = phrase_of(heaviest->first);
  }

  const GraphEdge* heaviest_edge(uint32_t v) const {
    const GraphEdge* best = nullptr;
    for (uint32_t e : out_[v])
      if (!best || g_.edges[e].weight > best->weight) best = &g_.edges[e];
    return best;
  }

  // Who a node waits for: the heaviest holder of its heaviest edge, with the rule's
  // word for it ("checkpointer" storm-w7 (22800)), or the node nobody saw.
  VerdictHolder holder_of(uint32_t v) const {
    VerdictHolder h;
    const GraphEdge* best = heaviest_edge(v);
    if (!best) return h;
    h.labels = best->reasons;
    h.stated = best->confidence == Confidence::stated;
    if (!best->holders.empty()) h.task = best->holders.front().task;
    const GraphNode& to = g_.nodes[best->to];
    if (to.kind == NodeKind::cause) return {};  // the subject names it, with what was read
    if (!h.has_task() && to.kind == NodeKind::unseen)
      h.place = to.unseen;  // its words, without the device
    else if (!h.has_task() && to.kind != NodeKind::group)
      h.node = best->to;
    return h;
  }

  // The same where a task holds it; none otherwise.
  VerdictHolder task_holder_of(uint32_t v) const {
    VerdictHolder h = holder_of(v);
    return h.has_task() ? h : VerdictHolder{};
  }

  // A subject: the rule's words, the device its {device} names ("" for none, or when
  // unknown) and the task its {holder} names.
  struct Subject {
    std::string text;
    std::string device;
    SubjectHolder holder;
    std::string key() const { return text + "#" + device + "#" + std::to_string(holder.task.pid); }
  };

  // The task a {holder} names: the heaviest holder of v's heaviest edge, as a process,
  // with the mount it serves and its state where it is a FUSE daemon the sampler found.
  SubjectHolder subject_holder_of(uint32_t v) const {
    SubjectHolder h;
    const GraphEdge* best = heaviest_edge(v);
    if (best && g_.nodes[best->to].kind == NodeKind::task && !g_.nodes[best->to].tasks.empty())
      h.task = g_.nodes[best->to].tasks.front().task;  // known, but not sampled
    else if (best && !best->holders.empty())
      h.task = best->holders.front().task;
    if (h.task.pid == 0) h.task.pid = h.task.tid;
    if (h.task.pid == 0) return h;
    h.task.tid = h.task.pid;
    if (const Context::Daemon* d = c_.daemon(h.task.pid)) {
      h.place = d->mount_point;
      h.state = d->state;
      if (d->comm != 0) h.task.comm = d->comm;
    } else if (auto p = c_.parties.find(h.task.pid); p != c_.parties.end()) {
      h.state = p->second.first;  // as the sampler read it beside its waiter
      if (p->second.second != 0) h.task.comm = p->second.second;
    }
    return h;
  }

  // The subject of a node, in its rule's words. A node whose waits go to a holder that
  // is not itself waiting, found by another group's rule (a page lock held for the FUSE
  // daemon's reply: the rule of the group that serves its file system), has that
  // group's subject, when it gives one.
  Subject subject_of(uint32_t v) const {
    const GraphNode& n = g_.nodes[v];
    const GroupRule* rule = c_.rule_of_group(n.group);
    // (A role's edges come from what its tasks wait for, in other groups' rules: a role
    // keeps its own subject.)
    // Waits whose cause was read from the kernel (a frozen cgroup, the vfork child) have
    // its subject.
    if (const GraphEdge* best = heaviest_edge(v); best && best->cause != kNoCause) {
      Subject out{std::string(cause_table()[best->cause].subject), {}, {}};
      // A cgroup with what was read of it: "the frozen cgroup /jobs (freezer.state=FROZEN)".
      const GraphNode& to = g_.nodes[best->to];
      if (const size_t at = out.text.find("{place}"); at != std::string::npos)
        out.text.replace(at, 7,
                         (to.place.empty() ? "(unknown)" : to.place) +
                             (to.detail.empty() ? "" : " (" + to.detail + ")"));
      if (out.text.find("{holder}") != std::string::npos) out.holder = subject_holder_of(v);
      return out;
    }
    if (const GraphEdge* best = heaviest_edge(v); best && !c_.role_node(v)) {
      if (!victim(best->to) && best->rule != kNoRule && best->rule != n.rule &&
          !c_.rules.groups[best->rule].subject.empty())
        rule = &c_.rules.groups[best->rule];
    }
    if (!rule || rule->subject.empty()) return {c_.cls.groups[n.group].title, {}, {}};
    Subject out{rule->subject, {}, {}};
    // "a {title}": the group's title, with its caller where the rule names groups by it
    // ("a mutex in linkwatch_event").
    if (const size_t at = out.text.find("{title}"); at != std::string::npos)
      out.text.replace(at, 7, c_.cls.groups[n.group].title);
    if (out.text.find("{device}") != std::string::npos) out.device = n.device;
    if (out.text.find("{holder}") != std::string::npos) out.holder = subject_holder_of(v);
    return out;
  }

  static void merge(std::vector<VerdictPart>& parts, double w, const WaitPhrase& phrase,
                    const VerdictHolder& holder) {
    for (VerdictPart& p : parts)
      if (p.wait == phrase) {
        if (p.holder.empty()) p.holder = holder;
        p.weight += w;
        return;
      }
    parts.push_back({w, phrase, holder});
  }

  // Findings about the same subject through different roots (the journal's log-space
  // waiters reach the checkpointer, its commit waiters the commit thread) are one.
  void merge_same_subject() {
    auto& all = g_.verdict.findings;
    std::vector<Finding> out;
    for (Finding& f : all) {
      Finding* same = nullptr;
      for (Finding& o : out)
        if (o.subject == f.subject && o.subject_device == f.subject_device &&
            o.subject_holder.task.pid == f.subject_holder.task.pid)
          same = &o;
      if (!same) {
        out.push_back(std::move(f));
        continue;
      }
      for (const VerdictPart& p : f.waits) merge(same->waits, p.weight, p.wait, p.holder);
      for (const VerdictPart& p : f.behind) merge(same->behind, p.weight, p.wait, p.holder);
      same->then.insert(same->then.end(), f.then.begin(), f.then.end());
      if (same->root_holder.empty()) {
        same->root_holder = f.root_holder;
        same->root_holder_waits = f.root_holder_waits;
      }
      same->assumed_one_fs = same->assumed_one_fs || f.assumed_one_fs;
      same->holder_unknown = same->holder_unknown && f.holder_unknown;
      same->holder_unseen = same->holder_unseen || f.holder_unseen;
    }
    auto heavier = [](const VerdictPart& a, const VerdictPart& b) { return a.weight > b.weight; };
    for (Finding& f : out) {
      std::stable_sort(f.waits.begin(), f.waits.end(), heavier);
      std::stable_sort(f.behind.begin(), f.behind.end(), heavier);
    }
    all = std::move(out);
  }

  void subsystems() {
    std::map<std::string, double> by;
    double total = 0;
    for (uint32_t v = 0; v < g_.nodes.size(); ++v) {
      if (!waiting(v) || g_.nodes[v].weight <= 0) continue;
      by[subsystem(v)] += g_.nodes[v].weight;
      total += g_.nodes[v].weight;
    }
    for (const auto& [sub, w] : by)
      g_.verdict.subsystems.push_back({sub, w, total > 0 ? w / total : 0});
    std::stable_sort(
        g_.verdict.subsystems.begin(), g_.verdict.subsystems.end(),
        [](const SubsystemShare& a, const SubsystemShare& b) { return a.weight > b.weight; });
  }

  Context& c_;
  WaitGraph& g_;
  std::vector<std::vector<uint32_t>> out_;  // edge indexes per node
  std::vector<char> in_deadlock_;
};

}  // namespace

void write_verdict(Context& c) { VerdictWriter(c).run(); }

}  // namespace hangscope::graph_impl
