#include <gtest/gtest.h>

#include "hangscope/render.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;

namespace {
struct Rendered {
  Capture capture;
  Analysis analysis;
  std::string as(std::string_view format) const {
    return find_renderer(format)->render(Report{capture, analysis}, RenderOptions{});
  }
};

Rendered analyse(const std::string& text) {
  Rendered r;
  r.capture = hangscope::testing::read_text(text, "dump.txt");
  r.analysis = analyze(r.capture);
  return r;
}
}  // namespace

TEST(Render, FoldedIsRootFirstWithCounts) {
  Rendered r = analyse(
      "1\n[<0>] jbd2_log_wait_commit+0x1/0x2\n[<0>] ext4_sync_file+0x1/0x2\n[<0>] do_fsync+0x1/0x2\n\n"
      "2\n[<0>] jbd2_log_wait_commit+0x1/0x2\n[<0>] ext4_sync_file+0x1/0x2\n[<0>] do_fsync+0x1/0x2\n\n"
      "3\n[<0>] lock_rename+0x1/0x2 [vfs]\n");
  std::string folded = r.as("folded");
  EXPECT_EQ(folded, "do_fsync;ext4_sync_file;jbd2_log_wait_commit 2\nlock_rename 1\n");
}

TEST(Render, TextLeadsWithTableAndShowsStacks) {
  Rendered r = analyse("7 (python3)\n[<0>] __jbd2_log_wait_for_space+0x1/0x2\n[<0>] start_this_handle+0x1/0x2\n");
  std::string text = r.as("text");
  // A /proc stack dump: one task, whose state the dump does not say.
  EXPECT_NE(text.find("hangscope report: 1 input, 1 task\n"), std::string::npos) << text;
  EXPECT_NE(text.find("WAIT GROUP"), std::string::npos);
  EXPECT_NE(text.find("jbd2:log-space"), std::string::npos);
  EXPECT_NE(text.find("python3 (7)"), std::string::npos);
  EXPECT_NE(text.find("      start_this_handle\n"), std::string::npos);
  EXPECT_EQ(text.find("warnings"), std::string::npos);
}
