// The verdict: for each root (most blocked threads behind it first), the groups that
// lead into it name the subject, in their rule's words ("the jbd2 journal of loop0");
// every group that reaches the root and has the same subject waits on it directly,
// named by its phrase and holder; the groups that wait behind those are summed. A root
// may be reached from several subjects (the journal and page writeback both end at the
// device): each gives a finding, and a group is counted in the first one only. Role
// groups (the commit thread, the checkpointer) are the subject's own threads, not its
// victims; idle threads and unclassified stacks are nobody's victims.
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
    into_.resize(g_.nodes.size());
    out_.resize(g_.nodes.size());
    for (uint32_t e = 0; e < g_.edges.size(); ++e) {
      if (g_.edges[e].from == g_.edges[e].to) continue;
      into_[g_.edges[e].to].push_back(e);
      out_[g_.edges[e].from].push_back(e);
    }
    counted_.assign(g_.nodes.size(), 0);
  }

  void run() {
    subsystems();
    for (const Chain& chain : g_.chains) root(chain.nodes.back());
    merge_same_subject();
    auto& f = g_.verdict.findings;
    std::stable_sort(f.begin(), f.end(),
                     [](const Finding& a, const Finding& b) { return a.total > b.total; });
  }

 private:
  bool waiting(uint32_t v) const {
    return g_.nodes[v].kind == NodeKind::group && !c_.idle_node(v);
  }
  bool victim(uint32_t v) const {
    return waiting(v) && !c_.cls.groups[g_.nodes[v].group].unclassified;
  }
  const std::string& subsystem(uint32_t v) const {
    return c_.cls.groups[g_.nodes[v].group].subsystem;
  }

  // Nodes from which `targets` can be reached (targets included).
  std::vector<char> reaching(const std::vector<uint32_t>& targets) const {
    std::vector<char> seen(g_.nodes.size(), 0);
    std::vector<uint32_t> stack;
    for (uint32_t t : targets)
      if (!seen[t]) {
        seen[t] = 1;
        stack.push_back(t);
      }
    while (!stack.empty()) {
      uint32_t x = stack.back();
      stack.pop_back();
      for (uint32_t e : into_[x]) {
        uint32_t y = g_.edges[e].from;
        if (!seen[y]) {
          seen[y] = 1;
          stack.push_back(y);
        }
      }
    }
    return seen;
  }

  double weight_of(const std::vector<char>& set) const {
    double w = 0;
    for (uint32_t v = 0; v < g_.nodes.size(); ++v)
      if (set[v] && victim(v) && !counted_[v]) w += g_.nodes[v].weight;
    return w;
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
    std::string who = best->holders.empty() ? std::string() : task_words(best->holders.front().task);
    if (who.empty()) return to.kind == NodeKind::group ? best->reason : to.label;
    if (best->confidence == Confidence::stated) return fmt::format("{}: {}", best->reason, who);
    return best->reason.empty() ? who : best->reason + " " + who;
  }

  // The subject of a node, in its rule's words: {device} and {holder} filled in.
  std::string subject_of(uint32_t v) const {
    const GraphNode& n = g_.nodes[v];
    const GroupRule* rule = c_.rule_of_group(n.group);
    if (!rule || rule->subject.empty()) return c_.cls.groups[n.group].title;
    std::string text = rule->subject;
    auto replace = [&](std::string_view key, const std::string& value) {
      for (size_t at; (at = text.find(key)) != std::string::npos;) text.replace(at, key.size(), value);
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

  void root(uint32_t r) {
    // The subjects leading into the root, by the blocked threads behind each.
    std::vector<uint32_t> preds;
    for (uint32_t e : into_[r])
      if (victim(g_.edges[e].from)) preds.push_back(g_.edges[e].from);
    if (victim(r)) preds.push_back(r);
    std::map<std::string, double> score;
    for (uint32_t p : preds) {
      double behind = weight_of(reaching({p}));
      double& s = score[subject_of(p)];
      s = std::max(s, behind);
    }
    std::vector<std::pair<double, std::string>> order;
    for (const auto& [subject, s] : score) order.emplace_back(s, subject);
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::vector<char> to_root = reaching({r});
    for (const auto& [s, subject] : order) finding(r, subject, to_root);
  }

  void finding(uint32_t r, const std::string& subject, const std::vector<char>& to_root) {
    std::vector<uint32_t> cluster;
    for (uint32_t v = 0; v < g_.nodes.size(); ++v)
      if (to_root[v] && victim(v) && !counted_[v] && subject_of(v) == subject) cluster.push_back(v);
    if (cluster.empty()) return;
    const std::vector<char> behind_set = reaching(cluster);
    Finding f;
    f.root = r;
    f.subject = subject;
    for (uint32_t v : cluster) {
      if (c_.role_node(v)) continue;
      const GroupRule* rule = c_.rule_of_group(g_.nodes[v].group);
      std::string phrase = rule ? rule->phrase : "in " + c_.cls.groups[g_.nodes[v].group].title;
      merge(f.waits, g_.nodes[v].weight, phrase, holder_of(v));
    }
    for (uint32_t v : cluster) counted_[v] = 1;
    for (uint32_t v = 0; v < g_.nodes.size(); ++v) {
      if (!behind_set[v] || !victim(v) || counted_[v]) continue;
      const GroupRule* rule = c_.rule_of_group(g_.nodes[v].group);
      merge(f.behind, g_.nodes[v].weight,
            rule ? rule->phrase : "in " + c_.cls.groups[g_.nodes[v].group].title, "");
      counted_[v] = 1;
    }
    for (const GraphEdge& e : g_.edges)
      if (behind_set[e.from] && to_root[e.to] && e.assumed_one_fs) f.assumed_one_fs = true;
    auto heavier = [](const VerdictPart& a, const VerdictPart& b) { return a.weight > b.weight; };
    std::stable_sort(f.waits.begin(), f.waits.end(), heavier);
    std::stable_sort(f.behind.begin(), f.behind.end(), heavier);
    for (const VerdictPart& p : f.waits) f.total += p.weight;
    for (const VerdictPart& p : f.behind) f.total += p.weight;
    const GraphNode& root = g_.nodes[r];
    if ((root.kind == NodeKind::device || root.kind == NodeKind::task) && root.label != subject) {
      f.then = root.label;  // (a holder nobody sampled is named by the parts)
    } else if (root.kind == NodeKind::group && victim(r) && out_[r].empty()) {
      const GroupRule* rule = c_.rule_of_group(root.group);
      f.holder_unknown = !rule || !rule->holder.selects_tasks();
      f.holder_unseen = !f.holder_unknown;
    }
    if (f.total > 0 || !f.waits.empty()) g_.verdict.findings.push_back(std::move(f));
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
      same->total += f.total;
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
      if (!waiting(v)) continue;
      by[subsystem(v)] += g_.nodes[v].weight;
      total += g_.nodes[v].weight;
    }
    for (const auto& [sub, w] : by)
      g_.verdict.subsystems.push_back({sub, w, total > 0 ? w / total : 0});
    std::stable_sort(g_.verdict.subsystems.begin(), g_.verdict.subsystems.end(),
                     [](const SubsystemShare& a, const SubsystemShare& b) { return a.weight > b.weight; });
  }

  Context& c_;
  WaitGraph& g_;
  std::vector<std::vector<uint32_t>> into_, out_;  // edge indexes per node
  std::vector<char> counted_;
};

}  // namespace

void write_verdict(Context& c) { VerdictWriter(c).run(); }

}  // namespace hangscope::graph_impl
