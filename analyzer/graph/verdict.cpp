// The verdict. Every waiting group follows its heaviest edges to where its waits end
// (its primary path); the last waiting group on that path is the culprit, and the
// culprit's rule names the subject in words ("the jbd2 journal of loop0"). The groups
// whose culprit has that subject make one finding: those with the same subject wait on
// it directly (named by their phrase and holder), the others wait behind them. Each
// group counts in one finding only. Role groups (the commit thread, the checkpointer)
// are the subject's own threads, not its victims; idle threads and unclassified stacks
// are nobody's victims.
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
    std::map<std::pair<uint32_t, std::string>, size_t> index;  // (end, subject) -> finding
    std::vector<Finding>& findings = g_.verdict.findings;
    for (uint32_t v = 0; v < g_.nodes.size(); ++v) {
      if (!victim(v)) continue;
      Path p = primary_path(v);
      if (in_deadlock_[p.culprit]) continue;  // the possible deadlock says it better
      const std::string subject = subject_of(p.culprit);
      auto [it, inserted] = index.try_emplace({p.end, subject}, findings.size());
      if (inserted) {
        findings.emplace_back();
        findings.back().root = p.end;
        findings.back().subject = subject;
        describe_end(findings.back(), p.end);
      }
      Finding& f = findings[it->second];
      f.assumed_one_fs = f.assumed_one_fs || p.assumed_one_fs;
      if (c_.role_node(v)) continue;  // the subject's own threads
      const GroupRule* rule = c_.rule_of_group(g_.nodes[v].group);
      std::string phrase = rule ? rule->phrase : "in " + c_.cls.groups[g_.nodes[v].group].title;
      if (subject_of(v) == subject)
        merge(f.waits, g_.nodes[v].weight, phrase, holder_of(v));
      else  // behind the subject: named only where the kernel itself said who holds it
        merge(f.behind, g_.nodes[v].weight, phrase, stated_holder_of(v));
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
  bool victim(uint32_t v) const {
    return waiting(v) && !c_.cls.groups[g_.nodes[v].group].unclassified;
  }
  const std::string& subsystem(uint32_t v) const {
    return c_.cls.groups[g_.nodes[v].group].subsystem;
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
    if ((n.kind == NodeKind::device || n.kind == NodeKind::task) && n.label != f.subject) {
      f.then = n.label;  // (a holder nobody sampled is named by the parts)
    } else if (n.kind == NodeKind::group && victim(end) && out_[end].empty()) {
      const GroupRule* rule = c_.rule_of_group(n.group);
      f.holder_unknown = !rule || !rule->holder.selects_tasks();
      f.holder_unseen = !f.holder_unknown;
    }
  }

  // "storm-w7 (22800)"; "" for a task nothing is known of (folded stacks).
  std::string task_words(const TaskExample& t) const {
    std::string_view comm = c_.capture.strings().get(t.comm);
    if (t.tid == 0) return std::string(comm);
    return fmt::format("{} ({})", comm.empty() ? "?" : comm, t.tid);
  }

  const GraphEdge* heaviest_edge(uint32_t v) const {
    const GraphEdge* best = nullptr;
    for (uint32_t e : out_[v])
      if (!best || g_.edges[e].weight > best->weight) best = &g_.edges[e];
    return best;
  }

  // Who a node waits for, in words: the heaviest holder of its heaviest edge, with
  // the rule's name for it ("checkpointer storm-w7 (22800)"), or the holder nobody saw.
  std::string holder_of(uint32_t v) const {
    const GraphEdge* best = heaviest_edge(v);
    if (!best) return {};
    const GraphNode& to = g_.nodes[best->to];
    std::string who =
        best->holders.empty() ? std::string() : task_words(best->holders.front().task);
    if (who.empty()) return to.kind == NodeKind::group ? best->reason : to.label;
    if (best->confidence == Confidence::stated) return fmt::format("{}: {}", best->reason, who);
    return best->reason.empty() ? who : best->reason + " " + who;
  }

  std::string stated_holder_of(uint32_t v) const {
    const GraphEdge* best = heaviest_edge(v);
    return best && best->confidence == Confidence::stated ? holder_of(v) : std::string();
  }

  // The subject of a node, in its rule's words: {device} and {holder} filled in.
  std::string subject_of(uint32_t v) const {
    const GraphNode& n = g_.nodes[v];
    const GroupRule* rule = c_.rule_of_group(n.group);
    if (!rule || rule->subject.empty()) return c_.cls.groups[n.group].title;
    std::string text = rule->subject;
    auto replace = [&](std::string_view key, const std::string& value) {
      for (size_t at; (at = text.find(key)) != std::string::npos;)
        text.replace(at, key.size(), value);
    };
    replace("{device}", n.device.empty() ? "an unknown device" : n.device);
    if (text.find("{holder}") != std::string::npos) {
      const GraphEdge* best = heaviest_edge(v);
      std::string who;
      if (best && !best->holders.empty()) {
        const TaskExample& t = best->holders.front().task;
        std::string_view comm = c_.capture.strings().get(t.comm);
        if (t.pid != 0 || t.tid != 0)
          who = fmt::format("{} (pid {})", comm.empty() ? "?" : comm, t.pid ? t.pid : t.tid);
      }
      replace("{holder}", who);
      while (text.ends_with(' ')) text.pop_back();
    }
    return text;
  }

  static void merge(std::vector<VerdictPart>& parts, double w, const std::string& phrase,
                    const std::string& holder) {
    for (VerdictPart& p : parts)
      if (p.phrase == phrase) {
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
        if (o.subject == f.subject) same = &o;
      if (!same) {
        out.push_back(std::move(f));
        continue;
      }
      for (const VerdictPart& p : f.waits) merge(same->waits, p.weight, p.phrase, p.holder);
      for (const VerdictPart& p : f.behind) merge(same->behind, p.weight, p.phrase, p.holder);
      if (same->then.empty()) same->then = f.then;
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
