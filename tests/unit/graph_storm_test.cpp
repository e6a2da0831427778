// The real storms in fixtures/ (20 processes creating, fsyncing and renaming over
// overlayfs on ext4 with a tiny journal): the chain from the largest group must end at
// the jbd2 journal of the storm's device, and the verdict must say so first.
#include <gtest/gtest.h>

#include <filesystem>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"

using namespace hangscope;

namespace {

// Every storm capture under fixtures/, found by walking the directory.
std::vector<std::string> storm_captures() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(HANGSCOPE_FIXTURES)) {
    std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.starts_with("storm") &&
        name.find(".capture") != std::string::npos)
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The storm's device: the one its jbd2 commit thread names (jbd2/<dev>-8).
std::string journal_device(const Capture& c) {
  for (const TaskSample& s : c.samples) {
    std::string_view comm = c.strings().get(s.comm);
    if (comm.starts_with("jbd2/")) return std::string(comm.substr(5, comm.rfind('-') - 5));
  }
  return {};
}

}  // namespace

TEST(GraphStorm, ChainsEndAtTheJournalOfTheStormsDevice) {
  std::vector<std::string> captures = storm_captures();
  ASSERT_GE(captures.size(), 2u);
  for (const std::string& path : captures) {
    SCOPED_TRACE(path);
    Capture c;
    read_input(path, "", c);
    const std::string dev = journal_device(c);
    ASSERT_FALSE(dev.empty());
    Analysis a = analyze(c);
    const WaitGraph& g = a.graph;
    ASSERT_FALSE(g.chains.empty());

    // The heaviest chain starts at the largest group and ends at the device, and the
    // last groups on it before the device are the journal's, on that device.
    const Chain& top = g.chains.front();
    const uint32_t largest = a.summary.groups.front().group;
    EXPECT_EQ(g.nodes[top.nodes.front()].group, largest);
    EXPECT_EQ(g.nodes[top.nodes.back()].kind, NodeKind::device);
    EXPECT_EQ(g.nodes[top.nodes.back()].device, dev);
    EXPECT_EQ(node_words(Report{c, a}, top.nodes.back()), "block device " + dev);
    const GraphNode& last_group = g.nodes[top.nodes[top.nodes.size() - 2]];
    EXPECT_EQ(a.classification.groups[last_group.group].subsystem, "jbd2");
    EXPECT_EQ(last_group.device, dev);
    EXPECT_GT(top.behind, 0.8 * (a.summary.total_weight / static_cast<double>(a.summary.rounds)));

    // The verdict: the journal first, its commit thread and checkpointer named.
    ASSERT_FALSE(g.verdict.findings.empty());
    const Finding& f = g.verdict.findings.front();
    EXPECT_EQ(f.subject, "the jbd2 journal of {device}");
    EXPECT_EQ(f.subject_device, dev);
    EXPECT_EQ(subject_words(c, f), "the jbd2 journal of " + dev);
    ASSERT_EQ(f.then.size(), 1u);
    EXPECT_EQ(f.then[0], top.nodes.back());
    bool commit = false, log_space = false, rename = false;
    for (const VerdictPart& p : f.waits) {
      const std::string_view comm = c.strings().get(p.holder.task.comm);
      if (p.wait.phrase == "for commit") {
        commit = true;
        EXPECT_EQ(p.holder.labels, std::vector<std::string>{"commit thread"});
        EXPECT_EQ(comm, "jbd2/" + dev + "-8");
      }
      if (p.wait.phrase == "for log space") {
        log_space = true;
        EXPECT_EQ(p.holder.labels, std::vector<std::string>{"checkpointer"});
        EXPECT_TRUE(comm.starts_with("storm-w")) << comm;
      }
    }
    // Behind them, the rename lock is named with its holder, a renamer itself blocked on
    // the way to the journal.
    for (const VerdictPart& p : f.behind) {
      if (p.wait.phrase != "in the rename lock") continue;
      rename = true;
      EXPECT_EQ(p.holder.labels, std::vector<std::string>{"renamer"});
      EXPECT_TRUE(c.strings().get(p.holder.task.comm).starts_with("storm-w"));
    }
    EXPECT_TRUE(commit && log_space && rename);
    EXPECT_GT(f.total, 10);
    EXPECT_TRUE(g.deadlocks.empty());  // a storm, not a deadlock

    std::string text = find_renderer("text")->render(Report{c, a}, RenderOptions{});
    EXPECT_EQ(text.substr(0, text.find('\n'))
                  .find(" blocked threads wait on the jbd2 journal of " + dev + ": "),
              4u)
        << text.substr(0, 400);
  }
}

TEST(GraphStorm, TheSeedReportsStacksPointAtTheJournal) {
  Capture c;
  read_input(HANGSCOPE_FIXTURES "/proc-stack/lkml-6.12-overlayfs-jbd2.txt", "", c);
  Analysis a = analyze(c);
  ASSERT_FALSE(a.graph.verdict.findings.empty());
  const Finding& f = a.graph.verdict.findings.front();
  EXPECT_EQ(f.subject_device, "");
  EXPECT_EQ(subject_words(c, f), "the jbd2 journal of an unknown device");
  EXPECT_DOUBLE_EQ(f.total, 2);  // log space and force commit; nobody else was sampled
  // Neither was joined to a holder (nobody else was sampled): no file system was taken
  // for another's; the subject says the device is not known.
  EXPECT_FALSE(f.assumed_one_fs);
}
