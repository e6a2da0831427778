// The words of the waits-on graph, made by the render stage from the graph's facts
// (analyzer/render/graph_words.cpp, task_label.cpp): every kind of node, a task without
// a thread id or a command, a wait without a rule's phrase, a subject on an unknown device.
#include <gtest/gtest.h>

#include "hangscope/render.hpp"
#include "renderers.hpp"

namespace hangscope {
namespace {

struct Made {
  Capture capture;
  Analysis analysis;
  Report report() const { return Report{capture, analysis}; }
  uint32_t node(GraphNode n) {
    analysis.graph.nodes.push_back(std::move(n));
    return static_cast<uint32_t>(analysis.graph.nodes.size() - 1);
  }
  uint32_t group(std::string name, std::string title) {
    WaitGroup g;
    g.name = std::move(name);
    g.title = std::move(title);
    analysis.classification.groups.push_back(g);
    return static_cast<uint32_t>(analysis.classification.groups.size() - 1);
  }
};

TEST(RenderTaskLabel, CommAndTidWithAFallbackForEachMissing) {
  EXPECT_EQ(render::task_label("kworker/u8:2", 4711), "kworker/u8:2 (4711)");
  EXPECT_EQ(render::task_label("cat", 0), "cat");  // a dump without thread ids
  EXPECT_EQ(render::task_label("", 4711), "tid 4711");
  EXPECT_EQ(render::task_label("", 0), "?");
}

TEST(RenderGraphWords, EveryKindOfNode) {
  Made m;
  const uint32_t g = m.group("jbd2:log-space", "jbd2 log space");
  GraphNode group;
  group.group = g;
  group.device = "loop0";
  group.per_device = true;
  const uint32_t on_loop0 = m.node(group);
  group.per_device = false;  // its only node, all of whose samples were on loop0
  const uint32_t all_on_loop0 = m.node(group);
  group.device = "";
  const uint32_t nowhere = m.node(group);
  group.mount_point = "/mnt/remote";
  group.serving = true;
  const uint32_t daemon = m.node(group);
  GraphNode device;
  device.kind = NodeKind::device;
  const uint32_t unknown_device = m.node(device);
  device.device = "sda1";
  const uint32_t sda1 = m.node(device);
  GraphNode unseen;
  unseen.kind = NodeKind::unseen;
  unseen.unseen = "the jbd2 commit thread, not sampled";
  const uint32_t unseen_nowhere = m.node(unseen);
  unseen.device = "sda1";
  const uint32_t unseen_sda1 = m.node(unseen);
  GraphNode task;
  task.kind = NodeKind::task;
  task.tasks.push_back({TaskExample{0, 77, m.capture.strings().intern("holder")}, 0});
  const uint32_t holder = m.node(task);
  task.tasks[0].task.comm = 0;
  const uint32_t nameless = m.node(task);

  const Report r = m.report();
  EXPECT_EQ(node_words(r, on_loop0), "jbd2:log-space@loop0");
  EXPECT_EQ(node_words(r, all_on_loop0), "jbd2:log-space");
  EXPECT_EQ(node_words(r, nowhere), "jbd2:log-space");
  EXPECT_EQ(node_words(r, daemon), "jbd2:log-space@/mnt/remote (FUSE daemon)");
  EXPECT_EQ(node_words(r, unknown_device), "block device (unknown)");
  EXPECT_EQ(node_words(r, sda1), "block device sda1");
  EXPECT_EQ(node_words(r, unseen_nowhere), "the jbd2 commit thread, not sampled");
  EXPECT_EQ(node_words(r, unseen_sda1), "the jbd2 commit thread, not sampled @sda1");
  EXPECT_EQ(node_words(r, holder), "holder (77)");
  EXPECT_EQ(node_words(r, nameless), "tid 77");
  EXPECT_EQ(node_kind_name(NodeKind::group), "group");
  EXPECT_EQ(node_kind_name(NodeKind::device), "device");
  EXPECT_EQ(node_kind_name(NodeKind::unseen), "unseen");
  EXPECT_EQ(node_kind_name(NodeKind::task), "task");
}

TEST(RenderGraphWords, ReasonsPhrasesAndSubjects) {
  Made m;
  const uint32_t g = m.group("other:foo", "foo_wait");
  EXPECT_EQ(render::reasons_words({}), "");
  EXPECT_EQ(render::reasons_words({"checkpointer"}), "checkpointer");
  EXPECT_EQ(render::reasons_words({"mutex", "commit thread"}), "mutex, commit thread");
  const Classification& cls = m.analysis.classification;
  EXPECT_EQ(render::phrase_words(cls, WaitPhrase{g, "for log space"}), "for log space");
  EXPECT_EQ(render::phrase_words(cls, WaitPhrase{g, ""}), "in foo_wait");
  EXPECT_EQ(render::phrase_words(cls, WaitPhrase{}), "");

  Finding f;
  f.subject = "the jbd2 journal of {device}";
  EXPECT_EQ(render::subject_text(f), "the jbd2 journal of an unknown device");
  f.subject_device = "loop0";
  EXPECT_EQ(render::subject_text(f), "the jbd2 journal of loop0");
  EXPECT_EQ(subject_words(m.capture, f), "the jbd2 journal of loop0");
}

TEST(RenderGraphWords, ASubjectWaitsForTheFirstEndThatIsNotItself) {
  Made m;
  GraphNode device;
  device.kind = NodeKind::device;
  device.device = "sda1";
  const uint32_t sda1 = m.node(device);
  device.device = "sdb";
  const uint32_t sdb = m.node(device);
  Finding f;
  f.subject = "block device {device}";
  f.subject_device = "sda1";
  EXPECT_EQ(render::then_words(m.report(), f), "");
  f.then = {sda1};
  EXPECT_EQ(render::then_words(m.report(), f), "");  // only itself
  f.then = {sda1, sdb};
  EXPECT_EQ(render::then_words(m.report(), f), "block device sdb");
}

}  // namespace
}  // namespace hangscope
