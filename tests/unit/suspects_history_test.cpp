// The suspects of a kernel-like git repository that the test makes (support/kernel_repo.hpp)
// for the stacks its functions explain: a git range, and the two source trees of its
// ends. What each history step did is known, so the ranking is: the commit that adds the
// call the blocked fsync makes first, renames and moves followed or set aside, statics
// of another file and merges left out.
#include <gtest/gtest.h>

#include <algorithm>

#include "hangscope/analysis.hpp"
#include "hangscope/suspects.hpp"
#include "support/capture_text.hpp"
#include "support/kernel_repo.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

struct Window {
  TempDir tmp;
  KernelRepo repo{tmp.file("linux")};
  Capture capture = read_text(kKernelRepoStacks, "stacks.txt", "proc-stack");
  Analysis analysis = analyze(capture);
  WeightedFrames frames =
      frames_of_report(capture, analysis, builtin_rules(), builtin_frame_classes());

  SuspectsResult git(const std::string& range = "v6.6..v6.12") {
    KernelSource source;
    source.git_dir = repo.dir();
    source.range = range;
    return find_suspects(frames, source, options());
  }
  SuspectsResult trees(const std::string& old_dir, const std::string& new_dir) {
    KernelSource source;
    source.old_dir = old_dir;
    source.new_dir = new_dir;
    return find_suspects(frames, source, options());
  }
  SuspectsOptions options() const {
    SuspectsOptions o;
    o.cache_dir = tmp.file("cache");
    o.threads = 2;
    return o;
  }
};

const Suspect* by_commit(const SuspectsResult& r, const std::string& id) {
  for (const Suspect& s : r.suspects)
    if (s.commit == id) return &s;
  return nullptr;
}

const Suspect* by_function(const SuspectsResult& r, const std::string& name) {
  for (const Suspect& s : r.suspects)
    if (s.function == name) return &s;
  return nullptr;
}

const TouchedFrame* touched(const Suspect& s, const std::string& function) {
  for (const TouchedFrame& t : s.frames)
    if (t.function == function) return &t;
  return nullptr;
}

}  // namespace

TEST(SuspectsFrames, ADumpsTwoGroupsWeighedByTheirTasks) {
  Window w;
  EXPECT_EQ(w.frames.unit, FrameWeightUnit::samples);
  EXPECT_EQ(w.frames.groups.size(), 2u);
  ASSERT_EQ(w.frames.frames.size(), 10u);
  for (const WeightedFrame& f : w.frames.frames) EXPECT_EQ(f.weight, 1) << f.function;
  // Compiler suffixes folded: the frames are the functions' names.
  auto has = [&](const std::string& name) {
    return std::any_of(w.frames.frames.begin(), w.frames.frames.end(),
                       [&](const WeightedFrame& f) { return f.function == name; });
  };
  EXPECT_TRUE(has("ovl_copy_up_metadata"));
  EXPECT_TRUE(has("do_sync"));
  EXPECT_FALSE(has("ovl_copy_up_metadata.isra.0"));
}

TEST(SuspectsHistory, TheCommitAddingTheBlockedCallRanksFirst) {
  Window w;
  SuspectsResult r = w.git();
  EXPECT_TRUE(r.problems.empty());
  EXPECT_FALSE(r.index_cached);
  EXPECT_EQ(r.new_version, "6.12");
  EXPECT_EQ(r.old_version, "6.6");
  ASSERT_GE(r.suspects.size(), 6u);

  const Suspect& first = r.suspects[0];
  EXPECT_EQ(first.commit, w.repo.id("c2"));
  EXPECT_EQ(first.subject, "ovl: fsync after metadata copy-up");
  EXPECT_EQ(first.path_weight, 1);
  const TouchedFrame* meta = touched(first, "ovl_copy_up_metadata");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->call, CallChange::added);
  EXPECT_EQ(meta->callee, "ovl_sync_file");
  const TouchedFrame* sync = touched(first, "ovl_sync_file");
  ASSERT_NE(sync, nullptr);
  EXPECT_TRUE(sync->created);
  EXPECT_NE(first.diff.find("+\t\terr = ovl_sync_file(&c->upperpath);"), std::string::npos);

  // The rename touches the wait and changes the call to it, under its old name: not a
  // call added.
  const Suspect& second = r.suspects[1];
  EXPECT_EQ(second.commit, w.repo.id("c3"));
  EXPECT_EQ(second.weight, 2);
  const TouchedFrame* force = touched(second, "jbd2_journal_force_commit");
  ASSERT_NE(force, nullptr);
  EXPECT_EQ(force->call, CallChange::changed);

  // Before the rename, the wait is followed under its old name.
  const Suspect* c0 = by_commit(r, w.repo.id("c0"));
  ASSERT_NE(c0, nullptr);
  ASSERT_NE(touched(*c0, "jbd2_log_wait_commit"), nullptr);
  EXPECT_EQ(touched(*c0, "jbd2_log_wait_commit")->file, "fs/jbd2/journal.c");
  // do_mkdirat changed in fs/namei.c before it moved, and the move itself ranks last.
  const Suspect* before_move = by_commit(r, w.repo.id("c_pre"));
  ASSERT_NE(before_move, nullptr);
  EXPECT_EQ(touched(*before_move, "do_mkdirat")->file, "fs/namei.c");
  EXPECT_EQ(r.suspects.back().commit, w.repo.id("c4"));
  EXPECT_TRUE(r.suspects.back().moved_only);
  EXPECT_EQ(r.suspects.back().weight, 0);
  // A side branch's change counts; its merge, which resolved nothing, does not.
  EXPECT_NE(by_commit(r, w.repo.id("s1")), nullptr);
  EXPECT_EQ(by_commit(r, w.repo.id("merge")), nullptr);
  // The other static do_sync (fs/jbd2/journal.c) and a file no frame is in.
  EXPECT_EQ(by_commit(r, w.repo.id("c5")), nullptr);
  EXPECT_EQ(by_commit(r, w.repo.id("c6")), nullptr);

  EXPECT_EQ(r.bisect_bad, "v6.12");
  EXPECT_EQ(r.bisect_good, "v6.6");
  EXPECT_TRUE(std::find(r.bisect_paths.begin(), r.bisect_paths.end(), "fs/overlayfs/copy_up.c") !=
              r.bisect_paths.end());
  EXPECT_TRUE(std::find(r.bisect_paths.begin(), r.bisect_paths.end(), "fs/jbd2/journal.c") !=
              r.bisect_paths.end());

  // The second look-up reads the indexes back, and ranks the same.
  SuspectsResult again = w.git();
  EXPECT_TRUE(again.index_cached);
  ASSERT_EQ(again.suspects.size(), r.suspects.size());
  for (size_t i = 0; i < r.suspects.size(); ++i)
    EXPECT_EQ(again.suspects[i].commit, r.suspects[i].commit);
}

TEST(SuspectsHistory, TwoSourceTreesRankTheFunctionsWhoseBodiesDiffer) {
  Window w;
  w.repo.export_tree("v6.6", w.tmp.file("old"));
  w.repo.export_tree("v6.12", w.tmp.file("new"));
  SuspectsResult r = w.trees(w.tmp.file("old"), w.tmp.file("new"));
  EXPECT_TRUE(r.problems.empty());
  ASSERT_FALSE(r.suspects.empty());
  const Suspect& first = r.suspects[0];
  EXPECT_EQ(first.kind, SuspectKind::function);
  EXPECT_EQ(first.function, "ovl_copy_up_metadata");
  EXPECT_EQ(first.path_weight, 1);
  EXPECT_NE(first.diff.find("+\t\terr = ovl_sync_file(&c->upperpath);"), std::string::npos);
  EXPECT_NE(first.diff.find("--- " + w.tmp.file("old") + "/fs/overlayfs/copy_up.c"),
            std::string::npos);

  const Suspect* wait = by_function(r, "jbd2_log_wait_commit");
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(wait->old_function, "jbd2_wait_commit_old");
  const Suspect* force = by_function(r, "jbd2_journal_force_commit");
  ASSERT_NE(force, nullptr);
  EXPECT_EQ(force->frames[0].call, CallChange::changed);  // the callee renamed, not a new call
  const Suspect* mkdirat = by_function(r, "do_mkdirat");
  ASSERT_NE(mkdirat, nullptr);
  EXPECT_EQ(mkdirat->old_file, "fs/namei.c");
  EXPECT_EQ(mkdirat->new_file, "fs/mkdir.c");
  EXPECT_NE(by_function(r, "ovl_sync_file"), nullptr);
  for (const char* same : {"do_sync", "lock_rename", "vfs_mkdir"})
    EXPECT_EQ(by_function(r, same), nullptr) << same;
  EXPECT_EQ(r.bisect_bad, "v6.12");
  EXPECT_EQ(r.bisect_good, "v6.6");
}

TEST(SuspectsHistory, BadInputIsAProblemOfTheResult) {
  Window w;
  SuspectsResult range = w.git("v6.6..v7.0");
  ASSERT_EQ(range.problems.size(), 1u);
  EXPECT_EQ(range.problems[0].kind, SuspectsProblemKind::bad_range);
  EXPECT_TRUE(range.suspects.empty());

  SuspectsResult written = w.git("v6.6");
  ASSERT_EQ(written.problems.size(), 1u);
  EXPECT_EQ(written.problems[0].kind, SuspectsProblemKind::bad_range);

  SuspectsResult not_kernel = w.trees(w.tmp.file("cache"), w.repo.dir());
  ASSERT_FALSE(not_kernel.problems.empty());
  EXPECT_EQ(not_kernel.problems[0].kind, SuspectsProblemKind::not_a_kernel_tree);

  // A frame no tree defines: said, and the rest still found.
  w.frames.frames.push_back({"mystery_helper", 1, {"jbd2:force-commit"}});
  SuspectsResult missing = w.git();
  ASSERT_EQ(missing.problems.size(), 1u);
  EXPECT_EQ(missing.problems[0].kind, SuspectsProblemKind::not_found);
  EXPECT_EQ(missing.problems[0].subject, "mystery_helper");
  ASSERT_FALSE(missing.suspects.empty());
  EXPECT_EQ(missing.suspects[0].commit, w.repo.id("c2"));
}
