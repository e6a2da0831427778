// The verdict: for each root (most blocked threads behind it first), the subsystem
// whose groups lead into it is the subject ("the jbd2 journal of loop0"); its groups'
// waiters are named by their rule's phrase and holder, and the groups that wait behind
// them are summed. A root may be reached from several subsystems (the journal and page
// writeback both end at the device): each gives a finding, and a group is counted in
// the first finding only. Role groups (the commit thread, the checkpointer) are the
// subject's own threads, not its victims; idle threads are nobody's victims.
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
  bool victim(uint32_t v) const {
    return g_.nodes[v].kind == NodeKind::group && !c_.idle_node(v);
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

  std::string task_words(const TaskExample& t) const {
    std::string_view comm = c_.capture.strings().get(t.comm);
    return fmt::format("{} ({})", comm.empty() ? "?" : comm, t.tid);
  }

  // Who a node waits for, in words: the heaviest holder of its heaviest edge.
  std::string holder_of(uint32_t v, bool with_label) const {
    const GraphEdge* best = nullptr;
    for (uint32_t e : out_[v])
      if (!best || g_.edges[e].weight > best->weight) best = &g_.edges[e];
    if (!best) return {};
    const GraphNode& to = g_.nodes[best->to];
    std::string who;
    if (!best->holders.empty())
      who = task_words(best->holders.front().task);
    else if (to.kind != NodeKind::group)
      return to.label;
    if (who.empty()) return {};
    return with_label && !best->reason.empty() ? best->reason + " " + who : who;
  }

  std::string fill(std::string text, uint32_t v, const std::string& device) const {
    auto replace = [&](std::string_view key, const std::string& value) {
      for (size_t at; (at = text.find(key)) != std::string::npos;) text.replace(at, key.size(), value);
    };
    replace("{device}", device.empty() ? "an unknown device" : device);
    if (text.find("{holder}") != std::string::npos) {
      std::string who = holder_of(v, false);
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
    // The subsystems leading into the root, by the blocked threads behind each.
    std::vector<uint32_t> preds;
    for (uint32_t e : into_[r])
      if (victim(g_.edges[e].from)) preds.push_back(g_.edges[e].from);
    if (victim(r)) preds.push_back(r);
    std::map<std::string, double> score;
    for (uint32_t p : preds) {
      double behind = weight_of(reaching({p}));
      double& s = score[subsystem(p)];
      s = std::max(s, behind);
    }
    std::vector<std::pair<double, std::string>> order;
    for (const auto& [sub, s] : score) order.emplace_back(s, sub);
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::vector<char> to_root = reaching({r});
    for (const auto& [s, sub] : order) finding(r, sub, to_root);
  }

  void finding(uint32_t r, const std::string& sub, const std::vector<char>& to_root) {
    std::vector<uint32_t> cluster;
    for (uint32_t v = 0; v < g_.nodes.size(); ++v)
      if (to_root[v] && victim(v) && !counted_[v] && subsystem(v) == sub) cluster.push_back(v);
    if (cluster.empty()) return;
    const std::vector<char> behind_set = reaching(cluster);
    Finding f;
    f.root = r;
    // The subject: the heaviest node of the cluster that has words for it.
    uint32_t subject = cluster.front();
    double device_weight = -1;
    std::string device;
    for (uint32_t v : cluster) {
      const GraphNode& n = g_.nodes[v];
      if (!n.device.empty() && n.weight > device_weight) {
        device_weight = n.weight;
        device = n.device;
      }
      const GroupRule* rule = c_.rule_of_group(n.group);
      const GroupRule* best = c_.rule_of_group(g_.nodes[subject].group);
      bool has = rule && !rule->subject.empty();
      bool best_has = best && !best->subject.empty();
      if ((has && !best_has) || (has == best_has && n.weight > g_.nodes[subject].weight)) subject = v;
    }
    const GroupRule* srule = c_.rule_of_group(g_.nodes[subject].group);
    f.subject = srule && !srule->subject.empty()
                    ? fill(srule->subject, subject, device)
                    : c_.cls.groups[g_.nodes[subject].group].title;
    if (g_.nodes[r].device.empty() && !device.empty() && g_.nodes[r].kind == NodeKind::device)
      f.assumed_one_fs = true;

    for (uint32_t v : cluster) {
      if (c_.role_node(v)) continue;
      const GroupRule* rule = c_.rule_of_group(g_.nodes[v].group);
      std::string phrase = rule ? rule->phrase : "in " + c_.cls.groups[g_.nodes[v].group].title;
      merge(f.waits, g_.nodes[v].weight, phrase, holder_of(v, true));
    }
    for (uint32_t v = 0; v < g_.nodes.size(); ++v) {
      if (!behind_set[v] || !victim(v) || counted_[v] || subsystem(v) == sub) continue;
      const GroupRule* rule = c_.rule_of_group(g_.nodes[v].group);
      merge(f.behind, g_.nodes[v].weight,
            rule ? rule->phrase : "in " + c_.cls.groups[g_.nodes[v].group].title, "");
      counted_[v] = 1;
    }
    for (uint32_t v : cluster) counted_[v] = 1;
    for (const GraphEdge& e : g_.edges)
      if (behind_set[e.from] && to_root[e.to] && e.assumed_one_fs) f.assumed_one_fs = true;
    auto heavier = [](const VerdictPart& a, const VerdictPart& b) { return a.weight > b.weight; };
    std::stable_sort(f.waits.begin(), f.waits.end(), heavier);
    std::stable_sort(f.behind.begin(), f.behind.end(), heavier);
    for (const VerdictPart& p : f.waits) f.total += p.weight;
    for (const VerdictPart& p : f.behind) f.total += p.weight;
    if (g_.nodes[r].kind == NodeKind::device || g_.nodes[r].kind == NodeKind::task) {
      f.then = g_.nodes[r].label;  // (a holder nobody sampled is named by the parts)
    } else if (g_.nodes[r].kind == NodeKind::group && victim(r) && out_[r].empty()) {
      const GroupRule* rule = c_.rule_of_group(g_.nodes[r].group);
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
      if (!victim(v)) continue;
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
