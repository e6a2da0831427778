// The waits-on graph in words: what every renderer calls a node, an edge's reasons, a
// wait's phrase, what a finding's subject waits for and a chain. The graph stage hands
// over indexes and names (graph.hpp); the words are made here, once.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "renderers.hpp"

namespace hangscope::render {

std::string amount(const WaitGraph& g, double w) {
  return g.timed ? fmt::format("{:.2f}", w) : fmt::format("{:.0f}", w);
}

std::string reasons_words(const std::vector<std::string>& reasons) {
  return fmt::format("{}", fmt::join(reasons, ", "));
}

std::string phrase_words(const Classification& cls, const WaitPhrase& w) {
  if (w.empty() || !w.phrase.empty()) return w.phrase;
  return "in " + cls.groups[w.group].title;
}

// "the jbd2 journal of loop0"; where the device is not known, "the jbd2 journal of an
// unknown device", and "block device {device}" is "an unknown block device".
std::string subject_text(const Finding& f) {
  std::string text = f.subject;
  if (f.subject_device.empty())
    for (size_t at; (at = text.find("block device {device}")) != std::string::npos;)
      text.replace(at, 21, "an unknown block device");
  for (size_t at; (at = text.find("{device}")) != std::string::npos;)
    text.replace(at, 8, f.subject_device.empty() ? "an unknown device" : f.subject_device);
  return text;
}

bool subjects_device(const Report& r, const Finding& f, uint32_t node) {
  const GraphNode& n = r.graph().nodes[node];
  return n.kind == NodeKind::device && n.device == f.subject_device &&
         f.subject.find("block device {device}") != std::string::npos;
}

std::string sentence_node_words(const Report& r, uint32_t node) {
  const GraphNode& n = r.graph().nodes[node];
  return n.kind == NodeKind::device && n.device.empty() ? "an unknown block device"
                                                        : node_words(r, node);
}

// What a finding's subject waits for, in a sentence: the first of its ends that is not
// the subject itself.
std::string then_words(const Report& r, const Finding& f) {
  const std::string subject = subject_text(f);
  for (uint32_t v : f.then) {
    if (subjects_device(r, f, v)) continue;
    if (std::string words = sentence_node_words(r, v); words != subject) return words;
  }
  return {};
}

}  // namespace hangscope::render

namespace hangscope {

std::string_view node_kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::group:
      return "group";
    case NodeKind::device:
      return "device";
    case NodeKind::unseen:
      return "unseen";
    case NodeKind::cause:
      return "cause";
    case NodeKind::task:
      break;
  }
  return "task";
}

// "jbd2:log-space@loop0", "fuse:request@/mnt/remote", "fuse:request (FUSE daemon)",
// "block device loop0", "the jbd2 commit thread, not sampled @loop0", "sshfs (4711)".
std::string node_words(const Report& r, uint32_t node) {
  const GraphNode& n = r.graph().nodes[node];
  switch (n.kind) {
    case NodeKind::group: {
      std::string s = r.classification().groups[n.group].name;
      if (n.per_device) s += "@" + n.device;
      if (!n.mount_point.empty()) s += "@" + n.mount_point;
      if (n.serving) s += " (FUSE daemon)";
      return s;
    }
    case NodeKind::device:
      return n.device.empty() ? "block device (unknown)" : "block device " + n.device;
    case NodeKind::unseen:
      return n.device.empty() ? n.unseen : n.unseen + " @" + n.device;
    case NodeKind::cause:  // "frozen cgroup /jobs (freezer.state=FROZEN)"
      return fmt::format("{} {} ({})", cause_table()[n.cause].label, n.place, n.detail);
    case NodeKind::task:
      break;
  }
  return n.tasks.empty() ? std::string("task")
                         : render::task_label(r.capture, n.tasks.front().task);
}

std::string chain_words(const Report& r, const Chain& c, size_t from) {
  const WaitGraph& g = r.graph();
  std::string s;
  for (size_t j = from; j < c.nodes.size(); ++j) {
    const GraphNode& n = g.nodes[c.nodes[j]];
    s += fmt::format("{}{}", j > from ? " -> " : "", node_words(r, c.nodes[j]));
    if (n.kind == NodeKind::group) s += fmt::format(" ({})", render::amount(g, n.weight));
  }
  return s;
}

}  // namespace hangscope
