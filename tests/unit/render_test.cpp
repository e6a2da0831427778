#include <gtest/gtest.h>

#include <fmt/format.h>

#include "hangscope/ingest.hpp"
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
      "1\n[<0>] jbd2_log_wait_commit+0x1/0x2\n[<0>] ext4_sync_file+0x1/0x2\n[<0>] "
      "do_fsync+0x1/0x2\n\n"
      "2\n[<0>] jbd2_log_wait_commit+0x1/0x2\n[<0>] ext4_sync_file+0x1/0x2\n[<0>] "
      "do_fsync+0x1/0x2\n\n"
      "3\n[<0>] lock_rename+0x1/0x2 [vfs]\n");
  std::string folded = r.as("folded");
  EXPECT_EQ(folded, "do_fsync;ext4_sync_file;jbd2_log_wait_commit 2\nlock_rename 1\n");
}

// Folded stacks are as large as their input: they are handed on in pieces of about a
// megabyte, each ending at a line, that make up what render() returns.
TEST(Render, FoldedIsHandedOnInPiecesOfWholeLines) {
  std::string text;
  for (int i = 0; i < 30'000; ++i)
    text += fmt::format("{}\n[<0>] jbd2_log_wait_commit+0x1/0x2\n[<0>] caller_{:060}+0x1/0x2\n\n",
                        i + 1, i);
  Rendered r = analyse(text);
  const std::string whole = r.as("folded");
  ASSERT_GT(whole.size(), size_t{2} << 20);
  std::vector<std::string> pieces;
  find_renderer("folded")->render_to(Report{r.capture, r.analysis}, RenderOptions{},
                                     [&](std::string_view p) { pieces.emplace_back(p); });
  ASSERT_GE(pieces.size(), 2u);
  std::string joined;
  for (const std::string& p : pieces) {
    EXPECT_EQ(p.back(), '\n');
    EXPECT_LT(p.size(), (size_t{1} << 20) + 200);
    joined += p;
  }
  EXPECT_EQ(joined, whole);
}

TEST(Render, TextLeadsWithTableAndShowsStacks) {
  Rendered r = analyse(
      "7 (python3)\n[<0>] __jbd2_log_wait_for_space+0x1/0x2\n[<0>] start_this_handle+0x1/0x2\n");
  std::string text = r.as("text");
  // A /proc stack dump: one task, whose state the dump does not say.
  EXPECT_NE(text.find("hangscope report: 1 input, 1 task\n"), std::string::npos) << text;
  EXPECT_NE(text.find("WAIT GROUP"), std::string::npos);
  EXPECT_NE(text.find("jbd2:log-space"), std::string::npos);
  EXPECT_NE(text.find("python3 (7)"), std::string::npos);
  EXPECT_NE(text.find("      start_this_handle\n"), std::string::npos);
  EXPECT_EQ(text.find("warnings"), std::string::npos);
}

// Each output asks for what it draws (Renderer::needs) and draws the same from that as
// from every analysis, on a real capture of the storm (timed rounds, several groups).
TEST(Render, EveryOutputDrawsTheSameFromWhatItNeeds) {
  Capture c;
  read_input(HANGSCOPE_FIXTURES "/capture/storm-overlayfs-ext4.capture", ReadOptions{}, c);
  AnalysisOptions all;
  for (const Renderer* renderer : renderers()) {
    SCOPED_TRACE(renderer->name());
    RenderOptions render_options;
    AnalysisOptions asked;
    asked.needs = renderer->needs();
    asked.flame.min_share = all.flame.min_share = renderer->flame_min_share(render_options);
    const std::string from_needs = renderer->render(Report{c, analyze(c, asked)}, render_options);
    const std::string from_all = renderer->render(Report{c, analyze(c, all)}, render_options);
    EXPECT_FALSE(from_needs.empty());
    EXPECT_TRUE(from_needs == from_all) << "the outputs differ";
  }
}
