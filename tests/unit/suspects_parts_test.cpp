// The parts of the suspects stage on texts made here: the definitions scan of C files
// in the kernel's style (and its odd corners), the log reader on git's own output
// shapes, the diff of two bodies, telling static functions of one name apart, and which
// lines call a function.
#include <gtest/gtest.h>

#include "definitions.hpp"
#include "git_log.hpp"
#include "resolve_frames.hpp"
#include "suspects_internal.hpp"
#include "unified_diff.hpp"

using namespace hangscope;
using namespace hangscope::suspects_detail;

namespace {

std::string names(const std::vector<Definition>& defs) {
  std::string s;
  for (const Definition& d : defs)
    s += std::string(d.name) + ":" + std::to_string(d.begin) + "-" + std::to_string(d.end) +
         (d.is_static ? "s" : "") + " ";
  return s;
}

}  // namespace

TEST(SuspectsDefinitions, KernelStyleFunctionsWithTheirLines) {
  const char* text =
      "// SPDX-License-Identifier: GPL-2.0\n"                               // 1
      "#include <linux/fs.h>\n"                                             // 2
      "static const struct file_operations fops = {\n"                      // 3: an initializer
      "\t.open = foo_open,\n"                                               // 4
      "};\n"                                                                // 5
      "\n"                                                                  // 6
      "/* a comment with a { brace */\n"                                    // 7
      "static int\n"                                                        // 8
      "foo_open(struct inode *inode, struct file *f)\n"                     // 9
      "{\n"                                                                 // 10
      "\tif (inode) {\n"                                                    // 11
      "\t\treturn '}';\n"                                                   // 12
      "\t}\n"                                                               // 13
      "\treturn strlen(\"}\");\n"                                           // 14
      "}\n"                                                                 // 15
      "struct dentry *lock_rename(struct dentry *p1, struct dentry *p2)\n"  // 16
      "\t__acquires(rename_lock)\n"                                         // 17
      "{\n"                                                                 // 18
      "\treturn NULL;\n"                                                    // 19
      "}\n";                                                                // 20
  EXPECT_EQ(names(scan_definitions(text)), "foo_open:8-15s lock_rename:16-20 ");
}

TEST(SuspectsDefinitions, MacrosDirectivesAndIfdefAlternatives) {
  const char* text =
      "#define WAIT(x) do { if (x) {\n"                  // 1: a #define's unbalanced braces
      "#define DONE } } while (0)\n"                     // 2
      "DEFINE_FREE(put, struct x *, if (_T) put(_T))\n"  // 3: a macro without ';'
      "\n"                                               // 4
      "__printf(2, 3) void log_it(int level, const char *fmt, ...)\n"  // 5
      "{\n"                                                            // 6
      "}\n"                                                            // 7
      "#ifdef CONFIG_X\n"                                              // 8
      "static inline int helper(void)\n"                               // 9
      "#else\n"                                                        // 10
      "static inline int helper(int y)\n"                              // 11
      "#endif\n"                                                       // 12
      "{\n"                                                            // 13
      "#ifdef CONFIG_Y\n"                                              // 14
      "\tif (a) {\n"                      // 15: #if branches that leave a brace open
      "#else\n"                           // 16
      "\tif (b) {\n"                      // 17
      "#endif\n"                          // 18
      "\t\treturn 1;\n"                   // 19
      "\t}\n"                             // 20
      "\treturn 0;\n"                     // 21
      "}\n"                               // 22
      "int after(void) { return 2; }\n";  // 23
  EXPECT_EQ(names(scan_definitions(text)), "log_it:5-7 helper:8-22s after:23-23 ");
}

TEST(SuspectsLog, PlainRenamedAndCombinedDiffs) {
  const std::string a(40, 'a'), b(40, 'b'), c(40, 'c'), z(40, '0');
  const std::string log =
      "\x01"
      "1111\x02"
      "Ann\x02"
      "2024-07-01\x02"
      "ovl: fsync\n"
      "\n"
      "diff --git a/fs/x.c b/fs/x.c\n"
      "index " +
      a + ".." + b +
      " 100644\n"
      "--- a/fs/x.c\n"
      "+++ b/fs/x.c\n"
      "@@ -10,2 +10,3 @@ static int f(void)\n"
      "-old ten\n"
      "-old eleven\n"
      "+new ten\n"
      "+new eleven\n"
      "+new twelve\n"
      "@@ -40 +41,0 @@\n"
      "-gone forty\n"
      "diff --git a/fs/old.c b/fs/new.c\n"
      "similarity index 100%\n"
      "rename from fs/old.c\n"
      "rename to fs/new.c\n"
      "diff --git a/fs/n.c b/fs/n.c\n"
      "new file mode 100644\n"
      "index " +
      z + ".." + c +
      "\n"
      "--- /dev/null\n"
      "+++ b/fs/n.c\n"
      "@@ -0,0 +1 @@\n"
      "+int n;\n"
      "\x01"
      "2222\x02"
      "Linus\x02"
      "2024-07-02\x02"
      "Merge branch 'x'\n"
      "\n"
      "diff --cc fs/x.c\n"
      "index " +
      a + "," + b + ".." + c +
      "\n"
      "--- a/fs/x.c\n"
      "+++ b/fs/x.c\n"
      "@@@ -5,1 -5,1 +5,2 @@@\n"
      "- from the first parent\n"
      " +kept from the second\n"
      "++resolved here\n";
  std::vector<LogCommit> commits = parse_log(log);
  ASSERT_EQ(commits.size(), 2u);
  const LogCommit& first = commits[0];
  EXPECT_EQ(first.subject, "ovl: fsync");
  EXPECT_FALSE(first.merge);
  ASSERT_EQ(first.files.size(), 3u);
  EXPECT_EQ(first.files[0].old_blob, a);
  EXPECT_EQ(first.files[0].new_blob, b);
  ASSERT_EQ(first.files[0].removed.size(), 3u);
  EXPECT_EQ(first.files[0].removed[2].line, 40u);
  EXPECT_EQ(first.files[0].removed[2].text, "gone forty");
  ASSERT_EQ(first.files[0].added.size(), 3u);
  EXPECT_EQ(first.files[0].added[2].line, 12u);
  EXPECT_EQ(first.files[1].old_path, "fs/old.c");
  EXPECT_EQ(first.files[1].new_path, "fs/new.c");
  EXPECT_TRUE(first.files[1].added.empty());
  EXPECT_EQ(first.files[2].old_blob, "");
  EXPECT_EQ(first.files[2].old_path, "");
  const LogCommit& merge = commits[1];
  EXPECT_TRUE(merge.merge);
  ASSERT_EQ(merge.files.size(), 1u);
  EXPECT_TRUE(merge.files[0].removed.empty());  // a merge has no one "before"
  ASSERT_EQ(merge.files[0].added.size(), 2u);
  EXPECT_EQ(merge.files[0].added[1].line, 6u);
  EXPECT_EQ(merge.files[0].added[1].text, "resolved here");
}

TEST(SuspectsDiff, HunksNumberedAsTheFilesLines) {
  std::vector<std::string> before = {"int f(void)", "{", "\treturn 0;", "}"};
  std::vector<std::string> after = {"int f(void)", "{", "\tsync();", "\treturn 0;", "}"};
  LineDiff d = unified_diff(before, after, 100, 200);
  EXPECT_EQ(d.added, 1u);
  EXPECT_EQ(d.removed, 0u);
  EXPECT_EQ(d.text, "@@ -100,4 +200,5 @@\n int f(void)\n {\n+\tsync();\n \treturn 0;\n }\n");
}

TEST(SuspectsCalls, AWordFollowedByItsParenthesis) {
  EXPECT_TRUE(calls("\t\terr = ovl_sync_file(&upperpath);", "ovl_sync_file"));
  EXPECT_TRUE(calls("x = f (y);", "f"));
  EXPECT_FALSE(calls("err = my_ovl_sync_file(&p);", "ovl_sync_file"));
  EXPECT_FALSE(calls("err = ovl_sync_file_all(&p);", "ovl_sync_file"));
  EXPECT_FALSE(calls("/* ovl_sync_file is called later */", "ovl_sync_file"));
}

// Two static functions named do_sync: the one in the file of the stack's other frames.
TEST(SuspectsResolve, StaticsToldApartByNeighbouringFrames) {
  WeightedFrames frames;
  frames.stacks.push_back(
      {{"lock_rename", "do_sync", "ovl_copy_up_flags"}, 2, "vfs:rename-lock", false});
  for (const char* f : {"lock_rename", "do_sync", "ovl_copy_up_flags", "unknown_fn"})
    frames.frames.push_back({f, 2, {"vfs:rename-lock"}});
  Definitions defs;
  defs["lock_rename"] = {{"fs/namei.c", 10, 20, false}};
  defs["ovl_copy_up_flags"] = {{"fs/overlayfs/copy_up.c", 30, 60, false}};
  defs["do_sync"] = {{"fs/jbd2/journal.c", 5, 9, true}, {"fs/overlayfs/copy_up.c", 1, 4, true}};
  Resolutions r = resolve_frames(frames, defs);
  EXPECT_EQ(r["do_sync"].by, ResolvedBy::neighbours);
  EXPECT_EQ(r["do_sync"].files(), std::vector<std::string>{"fs/overlayfs/copy_up.c"});
  EXPECT_EQ(r["do_sync"].candidates, 2u);
  EXPECT_EQ(r["lock_rename"].by, ResolvedBy::unique);
  EXPECT_EQ(r["unknown_fn"].by, ResolvedBy::nowhere);
  // Without a neighbour near either: the one that is not static, where there is one.
  defs["do_sync"][0].is_static = false;
  WeightedFrames alone;
  alone.stacks.push_back({{"do_sync"}, 1, "g", false});
  alone.frames.push_back({"do_sync", 1, {"g"}});
  Resolutions r2 = resolve_frames(alone, defs);
  EXPECT_EQ(r2["do_sync"].by, ResolvedBy::non_static);
  EXPECT_EQ(r2["do_sync"].files(), std::vector<std::string>{"fs/jbd2/journal.c"});
}

// The frame whose call to the next frame inward a change adds outranks heavier changes.
TEST(SuspectsRank, AnAddedCallOnThePathFirst) {
  Suspect heavy, path;
  heavy.frames.push_back({"a", "x.c", 3, 10, 10, CallChange::none, "", 0, false, false});
  heavy.frames.push_back({"b", "x.c", 3, 10, 10, CallChange::changed, "c", 3, false, false});
  path.frames.push_back({"d", "y.c", 1, 2, 0, CallChange::added, "e", 1, false, false});
  total(heavy);
  total(path);
  EXPECT_EQ(heavy.weight, 6);
  EXPECT_EQ(heavy.path_weight, 0);
  EXPECT_EQ(path.path_weight, 1);
  std::vector<Suspect> all = {heavy, path};
  rank(all, 0.3);
  EXPECT_EQ(all[0].frames[0].function, "d");
  EXPECT_EQ(top_paths(all, 1), std::vector<std::string>{"y.c"});
  // A path lighter than the floor ranks by the frames' weight like any change.
  rank(all, 2);
  EXPECT_EQ(all[0].frames[0].function, "a");
}
