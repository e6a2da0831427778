// The rule file: the built-in one embedded as written, user files that add or override
// groups, and every kind of mistake reported as one error naming file, line and column.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "hangscope/classify.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope;
using hangscope::testing::TempDir;

namespace {

std::string error_of(const std::string& text, const std::string& name = "bad.toml") {
  try {
    parse_rules(text, name);
  } catch (const RuleError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string group_of(const RuleSet& rules, std::initializer_list<std::string_view> leaf_first) {
  StackTable st;
  std::vector<FrameId> ids;
  for (std::string_view f : leaf_first) ids.push_back(st.intern_frame(f));
  StackId s = st.intern_stack(ids);
  Classification c = classify(st, rules);
  return c.groups[c.group(s)].name;
}

const char* kMinimal = R"(
[[group]]
name = "mydrv:reset"
subsystem = "mydrv"
[[group.match]]
frames = ["mydrv_wait_reset"]
)";

}  // namespace

TEST(RulesFile, BuiltInRulesAreTheEmbeddedFileAsWritten) {
  std::ifstream in(HANGSCOPE_FIXTURES "/../analyzer/classify/builtin.toml");
  ASSERT_TRUE(in) << "builtin.toml not found";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(builtin_rules_text(), text.str());
  EXPECT_GT(builtin_rules().groups.size(), 30u);
  EXPECT_NE(builtin_rules().find("jbd2:log-space"), nullptr);
}

TEST(RulesFile, ParsesGroupsMatchesHoldersAndAliases) {
  RuleSet r = parse_rules(R"(
format = 1
[frames]
scheduler = ["mydrv_sleep"]
[aliases]
old_wait = "mydrv_wait_reset"
[[group]]
name = "mydrv:reset"
title = "mydrv reset"
subsystem = "mydrv"
resource = "the device reset"
phrase = "for the reset"
subject = "mydrv on {device}"
[[group.match]]
frames = ["mydrv_wait_reset", "*_reset_wait"]
below = ["mydrv_ioctl"]
innermost = true
[group.holder]
label = "resetter"
frames = ["mydrv_do_reset"]
not_frames = ["mydrv_wait_reset"]
comm = ["mydrv-*"]
scope = "system"
confidence = "assumed"
fallback = "unseen"
unseen = "the reset worker, not sampled"
)",
                          "mine.toml");
  ASSERT_EQ(r.groups.size(), 1u);
  const GroupRule& g = r.groups[0];
  EXPECT_EQ(g.title, "mydrv reset");
  EXPECT_EQ(g.phrase, "for the reset");
  EXPECT_EQ(g.origin, "mine.toml:7:1");
  ASSERT_EQ(g.matches.size(), 1u);
  EXPECT_EQ(g.matches[0].frames[1].spec(), "*_reset_wait");
  EXPECT_TRUE(g.matches[0].innermost);
  EXPECT_EQ(g.holder.scope, HolderScope::system);
  EXPECT_EQ(g.holder.confidence, Confidence::assumed);
  EXPECT_EQ(g.holder.fallback, HolderFallback::unseen);
  EXPECT_EQ(r.aliases.at("old_wait"), "mydrv_wait_reset");
  ASSERT_EQ(r.scheduler_frames.size(), 1u);
  // Used: the alias folds the old name, the scheduler frame is looked through.
  EXPECT_EQ(group_of(r, {"mydrv_sleep", "old_wait", "mydrv_ioctl"}), "mydrv:reset");
  EXPECT_EQ(group_of(r, {"old_wait", "other_caller"}), "other:mydrv_wait_reset");
}

TEST(RulesFile, BadTomlNamesFileLineAndColumn) {
  // toml++'s own words after the position: an unterminated string ends at the newline.
  std::string e = error_of("[[group]]\nname = \"x\nsubsystem = \"y\"\n");
  EXPECT_EQ(e.rfind("bad.toml:2:10: Error while parsing string: ", 0), 0u) << e;
  EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 0) << "one line";
  e = error_of("[group\n");
  EXPECT_EQ(e.rfind("bad.toml:1:", 0), 0u) << e;
}

TEST(RulesFile, UnknownKeyNamesTheKeyAndWhatIsAllowed) {
  std::string e = error_of(std::string(kMinimal) + "fames = [\"x\"]\n");
  EXPECT_EQ(e.rfind("bad.toml:7:1: unknown key 'fames' in [[group.match]] (expected one of: "
                    "frames, below, innermost, in_d)",
                    0),
            0u)
      << e;
  e = error_of("[[group]]\nname = \"a\"\nsubsystem = \"b\"\nsubsytem = \"c\"\n");
  EXPECT_EQ(e.rfind("bad.toml:4:1: unknown key 'subsytem' in [[group]]", 0), 0u) << e;
  e = error_of("verison = 1\n");
  EXPECT_EQ(e.rfind("bad.toml:1:1: unknown key 'verison' in the rule file", 0), 0u) << e;
}

TEST(RulesFile, BadPatternsAreRefusedWithTheReason) {
  auto with_frame = [](const std::string& f) {
    return error_of(
        "[[group]]\nname = \"a\"\nsubsystem = \"b\"\n[[group.match]]\nframes = [\"ok\", \"" + f +
        "\"]\n");
  };
  EXPECT_EQ(
      with_frame("ext4_*_write"),
      "bad.toml:5:17: bad pattern 'ext4_*_write' in frames: '*' may only start or end a pattern");
  EXPECT_EQ(with_frame(""),
            "bad.toml:5:17: bad pattern '' in frames: an empty pattern matches nothing");
  EXPECT_EQ(with_frame("foo bar"),
            "bad.toml:5:17: bad pattern 'foo bar' in frames: ' ' cannot appear in a kernel "
            "function name");
  EXPECT_EQ(with_frame("**"),
            "bad.toml:5:17: bad pattern '**' in frames: '**' is not a pattern (use '*' "
            "to match any frame)");
}

TEST(RulesFile, DuplicateGroupNamesBothPlaces) {
  std::string e = error_of(std::string(kMinimal) + kMinimal);
  EXPECT_EQ(e, "bad.toml:8:1: duplicate group 'mydrv:reset' (first defined at bad.toml:2:1)");
}

TEST(RulesFile, WrongTypesAndMissingKeysAreExplained) {
  EXPECT_EQ(
      error_of("[[group]]\nname = \"a\"\nsubsystem = \"b\"\n[[group.match]]\nframes = \"x\"\n"),
      "bad.toml:5:10: frames must be an array of strings");
  EXPECT_EQ(
      error_of("[[group]]\nname = \"a\"\nsubsystem = \"b\"\n[[group.match]]\nframes = [\"x\"]\n"
               "innermost = \"yes\"\n"),
      "bad.toml:6:13: innermost must be true or false");
  EXPECT_EQ(error_of("[[group]]\nname = \"a\"\nsubsystem = \"b\"\ntier = \"special\"\n"
                     "[[group.match]]\nframes = [\"x\"]\n"),
            "bad.toml:4:8: tier must be one of \"specific\", \"generic\", \"role\", "
            "\"primitive\"");
  EXPECT_EQ(error_of("[[group]]\nname = \"a\"\nsubsystem = \"b\"\ntier = \"primitive\"\n"
                     "idle = true\n[[group.match]]\nframes = [\"x\"]\n"),
            "bad.toml:4:8: primitive groups are named by the kernel map: no named_by, never idle");
  EXPECT_EQ(error_of("[[group]]\nname = \"a\"\nsubsystem = \"b\"\n[[group.match]]\n"
                     "frames = [\"x\"]\nin_d = \"freezer\"\n"),
            "bad.toml:6:8: in_d is for the matches of idle groups (idle = true)");
  EXPECT_EQ(error_of("[[group]]\nname = \"a\"\n[[group.match]]\nframes = [\"x\"]\n"),
            "bad.toml:1:1: group 'a' needs 'subsystem'");
  EXPECT_EQ(error_of("[[group]]\nname = \"a\"\nsubsystem = \"b\"\n"),
            "bad.toml:1:1: group 'a' needs at least one [[group.match]]");
  EXPECT_EQ(error_of("format = 2\n"), "bad.toml:1:10: format must be 1 (the only format there is)");
  EXPECT_EQ(
      error_of(
          "[[group]]\nname = \"other:x\"\nsubsystem = \"b\"\n[[group.match]]\nframes = [\"x\"]\n"),
      "bad.toml:2:8: group names starting with 'other:' are kept for unmatched stacks");
}

TEST(RulesFile, HoldersMustNameExistingGroups) {
  RuleSet base = builtin_rules();
  RuleSet extra =
      parse_rules(std::string(kMinimal) +
                      "[group.holder]\nlabel = \"x\"\ngroups = [\"jbd2:commit\", \"nope\"]\n",
                  "mine.toml");
  try {
    merge_rules(base, extra);
    FAIL() << "no error";
  } catch (const RuleError& e) {
    EXPECT_STREQ(
        e.what(),
        "mine.toml:9:10: group 'mydrv:reset' names holder group 'nope', which no rule defines");
  }
}

// A task in D is never idle: an idle match's in_d names the group such a task is in,
// which must be one group (not generic, not primitive) that is not idle.
TEST(RulesFile, InDNamesAGroupOfOneNameThatIsNotIdle) {
  auto merged = [](const std::string& in_d) {
    RuleSet base = builtin_rules();
    try {
      merge_rules(base, parse_rules("[[group]]\nname = \"mydrv:idle\"\nsubsystem = \"mydrv\"\n"
                                    "idle = true\n[[group.match]]\nframes = [\"mydrv_poll\"]\n"
                                    "in_d = \"" + in_d + "\"\n",
                                    "mine.toml"));
    } catch (const RuleError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(merged("freezer"), "(no error)");
  for (const char* bad : {"nope", "idle", "mutex", "wait-event", "fuse:daemon"})
    EXPECT_EQ(merged(bad), fmt::format("mine.toml:1:1: group 'mydrv:idle' has in_d '{}', which "
                                       "is no group of one name that is not idle",
                                       bad));
}

TEST(RulesFile, UserGroupsOverrideByNameAndOthersAreAddedFirst) {
  TempDir tmp;
  std::string path = tmp.file("mine.toml");
  std::ofstream(path) << R"(
[[group]]
name = "vfs:rename-lock"
subsystem = "vfs"
resource = "my words"
[[group.match]]
frames = ["lock_rename"]

[[group]]
name = "my:create"
subsystem = "vfs"
[[group.match]]
frames = ["filename_create"]
innermost = true
)";
  RuleSet r = builtin_rules_with(path);
  EXPECT_EQ(r.groups.size(), builtin_rules().groups.size() + 1);
  EXPECT_EQ(r.groups[0].name, "my:create");
  EXPECT_EQ(r.find("vfs:rename-lock")->resource, "my words");
  // The override has no innermost do_renameat2 match any more: the kernel map names the
  // wait by its subsystem (fs/namei.c), not the rename lock.
  EXPECT_EQ(group_of(r, {"do_renameat2", "__x64_sys_rename"}), "vfs:wait:do_renameat2");
  EXPECT_EQ(group_of(r, {"lock_rename", "do_renameat2"}), "vfs:rename-lock");
  // Added groups win ties (same frame, same tier) against the built-in vfs:dir-lock.
  EXPECT_EQ(group_of(r, {"filename_create", "do_mkdirat"}), "my:create");
  EXPECT_EQ(group_of(builtin_rules(), {"filename_create", "do_mkdirat"}), "vfs:dir-lock");
  // The built-in set itself is untouched.
  EXPECT_EQ(group_of(builtin_rules(), {"do_renameat2", "__x64_sys_rename"}), "vfs:rename-lock");
}

TEST(RulesFile, AMissingFileSaysWhy) {
  try {
    load_rules_file("/nonexistent/rules.toml");
    FAIL() << "no error";
  } catch (const RuleError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/rules.toml: No such file or directory");
  }
}

// The frame classes and aliases of a rule set, as the diff matches stacks by them: those
// of the rule set given, not the built-in ones.
TEST(RulesFile, FrameClassesAreThoseOfTheRuleSetGiven) {
  RuleSet rules = builtin_rules();
  merge_rules(rules, parse_rules("[frames]\nlock = [\"mydrv_lock_slowpath\"]\n"
                                 "scheduler = [\"mydrv_sleep*\"]\n"
                                 "[aliases]\nmydrv_old_wait = \"mydrv_wait\"\n",
                                 "mine.toml"));
  FrameClasses mine(rules);
  EXPECT_TRUE(mine.is_lock_primitive("mydrv_lock_slowpath"));
  EXPECT_TRUE(mine.is_scheduler_frame("mydrv_sleep_on"));
  EXPECT_EQ(mine.canonical_function("mydrv_old_wait"), "mydrv_wait");
  EXPECT_EQ(mine.canonical_function("mydrv_old_wait.isra.0"), "mydrv_wait");
  // The built-in classes stay in the merged set...
  EXPECT_TRUE(mine.is_lock_primitive("__mutex_lock"));
  EXPECT_TRUE(mine.is_entry_frame("do_syscall_64"));
  EXPECT_EQ(mine.canonical_function("wait_on_page_writeback"), "folio_wait_writeback");
  // ...and the built-in set knows none of the file's.
  const FrameClasses& builtin = builtin_frame_classes();
  EXPECT_FALSE(builtin.is_lock_primitive("mydrv_lock_slowpath"));
  EXPECT_FALSE(builtin.is_scheduler_frame("mydrv_sleep_on"));
  EXPECT_EQ(builtin.canonical_function("mydrv_old_wait"), "mydrv_old_wait");
  EXPECT_TRUE(is_lock_primitive("__mutex_lock"));
}
