// Capture format v2: contexts, switch counts, watched and stackless tasks, pressure and
// machine counts per round; v1 captures still read; the writer's memory stays bounded;
// and the context summary the reports show (text, JSON, HTML), from the table of fields.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "hangscope/analysis.hpp"
#include "hangscope/capture_writer.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;

namespace {

Capture read_bytes(const std::string& bytes) {
  int fd = memfd_create("in", MFD_CLOEXEC);
  EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  lseek(fd, 0, SEEK_SET);
  Capture c;
  read_input(fd_input(fd, "v2.capture"), "v2.capture", "", c);
  close(fd);
  return c;
}

const char* kCommit = "[<0>] jbd2_log_wait_commit+0x107/0x150\n[<0>] ext4_sync_file+0x278/0x310\n";

// Three rounds: a task in fsync that never runs, a watched FUSE reader in S, and a task
// whose stack could not be read.
std::string write_v2(bool finish) {
  int fd = memfd_create("capture", MFD_CLOEXEC);
  {
    CaptureWriter w(fd);
    w.header({"host1",
              "6.18.44",
              "boot-1",
              1'800'000'000'000'000'000,
              1'000'000'000,
              "D",
              "hangscope record -n 3",
              {{"stacks", "kernel"}}});
    const std::string id(64, 'c');
    TaskContextRecord fsync_ctx;
    fsync_ctx.wchan = "jbd2_log_wait_commit";
    fsync_ctx.syscall_nr = 74;
    fsync_ctx.syscall_name = "fsync";
    fsync_ctx.syscall_args = "0x3 0x0 0x0 0x0 0x0 0x0";
    fsync_ctx.file = "/mnt/upper/file with\ttab";
    fsync_ctx.filesystem = "overlay";
    fsync_ctx.device = "loop0";
    std::string cgroup = "/system.slice/docker-" + id + ".scope";
    fsync_ctx.cgroup = cgroup;
    std::string ctr = "docker:" + id;
    fsync_ctx.container = ctr;
    fsync_ctx.ppid = 1;
    TaskContextRecord fuse_ctx;
    fuse_ctx.wchan = "request_wait_answer";
    fuse_ctx.syscall_nr = 0;
    fuse_ctx.syscall_name = "read";
    TaskContextRecord stuck_ctx;
    stuck_ctx.wchan = "exec_mmap";
    stuck_ctx.unreadable = "timed out";
    for (uint32_t r = 0; r < 3; ++r) {
      int64_t t = int64_t{r} * 1'000'000'000;
      w.begin_round(r, t, false);
      TaskRecord a{t + 5, 100, 101, 'D', false, "python3", kCommit};
      a.switches_known = true;
      a.voluntary_switches = 40;  // never changes: blocked all along
      a.involuntary_switches = 2;
      a.context = &fsync_ctx;
      w.task(a);
      TaskRecord b{t + 9, 200, 200, 'S', false, "cat", "[<0>] request_wait_answer+0x1d8/0x290\n"};
      b.watched = true;
      b.switches_known = true;
      b.voluntary_switches = 7 + r;  // runs between samples
      b.context = &fuse_ctx;
      w.task(b);
      TaskRecord c{t + 11, 300, 300, 'D', false, "stuck", ""};
      c.no_stack = true;
      c.context = &stuck_ctx;
      w.task(c);
      RoundFigures e;
      e.threads = 500;
      e.recorded = 3;
      e.running = 4;
      e.uninterruptible = 2 + r;
      e.io_some = 12.5f + r;
      e.io_full = 3.25f;
      w.end_round(r, e);
    }
    if (finish) w.finish(3, 3'000'000'000, {{"timed_out", 3}, {"vanished", 1}});
  }
  std::string bytes = hangscope::testing::fd_text(fd);
  close(fd);
  return bytes;
}

}  // namespace

TEST(SamplerCaptureV2, ReadsContextsCountsAndRounds) {
  std::string bytes = write_v2(true);
  EXPECT_NE(bytes.find("\nversion 4\n"), std::string::npos);  // written as the newest
  Capture c = read_bytes(bytes);
  ASSERT_EQ(c.sources[0].skipped.lines, 0u) << c.sources[0].skipped.first;
  EXPECT_FALSE(c.sources[0].truncated);
  EXPECT_EQ(c.sources[0].header.at("end.timed_out"), "3");
  ASSERT_EQ(c.rounds.size(), 3u);
  EXPECT_EQ(c.rounds[1].running, 4u);
  EXPECT_EQ(c.rounds[2].uninterruptible, 4u);
  EXPECT_FLOAT_EQ(c.rounds[2].io_some, 14.5f);
  EXPECT_FLOAT_EQ(c.rounds[0].io_full, 3.25f);
  EXPECT_FLOAT_EQ(c.rounds[0].cpu_some, -1.f);
  ASSERT_EQ(c.samples.size(), 9u);

  const TaskSample& a = c.samples[0];
  const TaskContext& ax = c.contexts[a.context];
  EXPECT_EQ(c.strings().get(ax.syscall_name), "fsync");
  EXPECT_EQ(ax.syscall_nr, 74);
  EXPECT_EQ(c.strings().get(ax.syscall_args), "0x3 0x0 0x0 0x0 0x0 0x0");
  EXPECT_EQ(c.strings().get(ax.file), "/mnt/upper/file with\ttab");
  EXPECT_EQ(c.strings().get(ax.filesystem), "overlay");
  EXPECT_EQ(c.strings().get(ax.device), "loop0");
  EXPECT_EQ(c.strings().get(ax.container), "docker:" + std::string(64, 'c'));
  EXPECT_EQ(ax.ppid, 1);
  EXPECT_TRUE(ax.switches_known);
  EXPECT_EQ(ax.voluntary_switches, 40u);
  // The same context in every round: interned once.
  EXPECT_EQ(c.samples[3].context, a.context);

  const TaskSample& b = c.samples[1];
  EXPECT_EQ(b.state, 'S');
  EXPECT_TRUE(b.flags & kWatchedWait);
  EXPECT_NE(c.samples[4].context, b.context);  // its switch counts moved

  // Without a stack, the wait channel stands in as a one-frame stack.
  const TaskSample& s = c.samples[2];
  EXPECT_TRUE(s.flags & kNoStack);
  auto frames = c.stacks.stack(s.stack);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(c.stacks.function(frames[0]), "exec_mmap");
  EXPECT_EQ(c.strings().get(c.contexts[s.context].unreadable), "timed out");
}

TEST(SamplerCaptureV2, EveryCutParsesUpToItsLastCompleteRound) {
  const std::string full = write_v2(true);
  const size_t data = full.find("\ndata\n") + 6;
  for (size_t cut = data; cut <= full.size(); ++cut) {
    std::string part = full.substr(0, cut);
    size_t complete = 0;
    for (size_t at = part.find("\nE "); at != std::string::npos; at = part.find("\nE ", at + 1))
      if (part.find('\n', at + 1) != std::string::npos) ++complete;
    Capture c = read_bytes(part);
    ASSERT_EQ(c.rounds.size(), complete) << "cut at byte " << cut;
    ASSERT_EQ(c.samples.size(), complete * 3) << "cut at byte " << cut;
  }
}

TEST(SamplerCaptureV2, VersionOneCapturesStillRead) {
  std::ifstream in(std::string(HANGSCOPE_FIXTURES) + "/capture/storm-overlayfs-ext4.capture");
  std::stringstream ss;
  ss << in.rdbuf();
  ASSERT_NE(ss.str().find("\nversion 1\n"), std::string::npos);
  Capture c = read_bytes(ss.str());
  EXPECT_EQ(c.rounds.size(), 150u);
  EXPECT_GT(c.samples.size(), 1000u);
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
  for (const TaskSample& s : c.samples) ASSERT_EQ(s.context, 0u);
}

TEST(SamplerCaptureV2, WriterTablesAreBounded) {
  // A long capture of ever new stacks: the writer keeps at most max_interned of them,
  // and a stack seen again after its table was cleared is defined again.
  int fd = memfd_create("bounded", MFD_CLOEXEC);
  {
    CaptureWriter w(fd, 4);
    w.header({"h", "k", "b", 0, 1000, "D", "c", {}});
    for (uint32_t r = 0; r < 10; ++r) {
      w.begin_round(r, r * 1000, false);
      std::string stack = "[<0>] f" + std::to_string(r % 6) + "+0x1/0x2\n";
      w.task({r * 1000, 1, 1, 'D', false, "x", stack});
      w.end_round(r, 10, 1);
    }
    w.finish(10, 10000);
  }
  std::string bytes = hangscope::testing::fd_text(fd);
  close(fd);
  Capture c = read_bytes(bytes);
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
  ASSERT_EQ(c.samples.size(), 10u);
  EXPECT_EQ(c.stacks.function(c.stacks.stack(c.samples[7].stack)[0]), "f1");
  EXPECT_EQ(c.samples[7].stack, c.samples[1].stack);  // redefined, same stack in the model
  size_t definitions = 0;
  for (size_t at = bytes.find("\nK "); at != std::string::npos; at = bytes.find("\nK ", at + 1))
    ++definitions;
  EXPECT_GT(definitions, 6u);
}

TEST(SamplerCaptureV2, ContextSummaryAndReport) {
  Capture c = read_bytes(write_v2(true));
  Analysis a = analyze(c);
  ASSERT_TRUE(a.context.any);
  const GroupContext* fsync = nullptr;
  for (const GroupContext& g : a.context.groups) {
    std::span<const ContextCount> syscalls = a.context.values_of(g, "scname");
    if (!syscalls.empty() && c.strings().get(syscalls[0].text) == "fsync") fsync = &g;
  }
  ASSERT_NE(fsync, nullptr);
  EXPECT_EQ(a.context.values_of(*fsync, "scname")[0].weight, 3u);
  std::span<const ContextCount> devices = a.context.values_of(*fsync, "dev");
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(c.strings().get(devices[0].text), "loop0");
  // Unchanged switch counts from the first to the last sample, 2 s apart.
  ASSERT_EQ(fsync->longest.size(), 1u);
  EXPECT_EQ(fsync->longest[0].task.tid, 101);
  EXPECT_DOUBLE_EQ(fsync->longest[0].seconds, 2.0);
  EXPECT_FLOAT_EQ(a.context.max_io, 14.5f);
  EXPECT_EQ(a.context.max_uninterruptible, 4u);
  EXPECT_EQ(a.context.unreadable, 3u);

  std::string text = find_renderer("text")->render(Report{c, a}, RenderOptions{});
  EXPECT_NE(text.find("syscalls    fsync (3)"), std::string::npos) << text;
  EXPECT_NE(text.find("devices     loop0 (3)"), std::string::npos) << text;
  EXPECT_NE(text.find("python3 (101) >= 2.00 s without running"), std::string::npos) << text;
  EXPECT_NE(text.find("(3 S in a watched wait)"), std::string::npos) << text;
  EXPECT_NE(text.find("unreadable: 3 samples (timed out (3))"), std::string::npos) << text;
  // The FUSE reader ran between its samples: never listed as blocked without running.
  EXPECT_EQ(text.find("cat (200) >="), std::string::npos) << text;
}

TEST(SamplerCaptureV2, StormFixtureTiesFsyncsToTheLoopDevice) {
  std::ifstream in(std::string(HANGSCOPE_FIXTURES) + "/capture/storm-v2-context.capture");
  std::stringstream ss;
  ss << in.rdbuf();
  Capture c = read_bytes(ss.str());
  ASSERT_EQ(c.rounds.size(), 94u);
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
  size_t fsyncs = 0, on_loop0 = 0;
  for (const TaskSample& s : c.samples) {
    const TaskContext& ctx = c.contexts[s.context];
    if (c.strings().get(ctx.syscall_name) != "fsync") continue;
    ++fsyncs;
    // Every resolved one is on the overlay's upper layer; a few are torn (the call
    // ended between the reads of syscall and fdinfo) and have no location.
    if (ctx.device == 0) continue;
    EXPECT_EQ(c.strings().get(ctx.filesystem), "overlay");
    EXPECT_EQ(c.strings().get(ctx.device), "loop0");
    ++on_loop0;
  }
  EXPECT_GT(fsyncs, 100u);
  EXPECT_GE(on_loop0 * 100, fsyncs * 95);
}

// Every field the table shows per group reaches the text, JSON and HTML reports under its
// row's key and label, with no word of its own in a renderer: checked for each row whose
// field the fsync task's context sets, so that a row added to the table is checked too.
TEST(SamplerCaptureV2, EveryFieldTheTableShowsReachesTextJsonAndHtml) {
  Capture c = read_bytes(write_v2(true));
  Analysis a = analyze(c);
  const Report report{c, a};
  const std::string text = find_renderer("text")->render(report, RenderOptions{});
  const std::string html = find_renderer("html")->render(report, RenderOptions{});
  const nlohmann::json json =
      nlohmann::json::parse(find_renderer("json")->render(report, RenderOptions{}));
  const nlohmann::json& cx = json.at("context");
  EXPECT_TRUE(cx.at("any").get<bool>());
  EXPECT_EQ(cx.at("max_uninterruptible").get<uint32_t>(), 4u);
  EXPECT_EQ(cx.at("pressure").at("io").get<double>(), 14.5);
  EXPECT_TRUE(cx.at("pressure").at("cpu").is_null());  // never recorded
  EXPECT_EQ(cx.at("unreadable_reasons").at(0).at("value"), "timed out");
  // The fsync task's group: the one whose JSON syscalls begin with fsync.
  const nlohmann::json* fsync = nullptr;
  for (const nlohmann::json& g : cx.at("groups"))
    if (g.at("values").contains("scname") && g["values"]["scname"][0]["value"] == "fsync")
      fsync = &g;
  ASSERT_NE(fsync, nullptr) << cx.dump(1);
  EXPECT_EQ(fsync->at("longest").at(0).at("task").at("tid"), 101);

  // The fsync task's context as the sampler recorded it, field by field against the table.
  TaskContextRecord set;
  set.syscall_name = "fsync";
  set.file = "/mnt/upper/file with\ttab";
  set.device = "loop0";
  const std::string ctr = "docker:" + std::string(64, 'c');
  set.container = ctr;
  static const TaskContextRecord kAbsent;
  size_t shown = 0, checked = 0;
  for_each_context_field(
      [&](const ContextField& row, const auto& value, const auto& absent) {
        if (row.shown != ContextShown::most_common) return;
        const nlohmann::json& field = cx.at("fields").at(shown++);
        EXPECT_EQ(field.at("key"), row.key);
        EXPECT_EQ(field.at("label"), row.label);
        if (value == absent) return;
        ++checked;
        const std::string key(row.key), label(row.label);
        ASSERT_TRUE(fsync->at("values").contains(key)) << key;
        EXPECT_EQ(fsync->at("values").at(key).at(0).at("weight"), 3) << key;
        EXPECT_NE(text.find(fmt::format("\n    {:<11} ", label)), std::string::npos)
            << label << "\n" << text;
        EXPECT_NE(html.find("<th>" + label + "</th>"), std::string::npos) << label;
      },
      set, kAbsent);
  EXPECT_EQ(shown, cx.at("fields").size());
  EXPECT_EQ(checked, 4u);  // syscall, file, device, container
  EXPECT_EQ(fsync->at("values").at("ctr").at(0).at("value"), ctr);
  EXPECT_NE(html.find("<section id=\"context\">"), std::string::npos);
  EXPECT_NE(html.find("Unreadable: 3 samples (timed out (3))"), std::string::npos);
}

// Inputs without contexts (dumps) have no context section in text or HTML, and JSON says so.
TEST(SamplerCaptureV2, DumpsHaveNoContextSection) {
  Capture c;
  read_input(std::string(HANGSCOPE_FIXTURES) + "/proc-stack/lkml-6.12-overlayfs-jbd2.txt", "", c);
  Analysis a = analyze(c);
  const Report report{c, a};
  EXPECT_EQ(find_renderer("text")->render(report, RenderOptions{}).find("context of the"),
            std::string::npos);
  EXPECT_EQ(find_renderer("html")->render(report, RenderOptions{}).find("id=\"context\""),
            std::string::npos);
  const nlohmann::json json =
      nlohmann::json::parse(find_renderer("json")->render(report, RenderOptions{}));
  EXPECT_FALSE(json.at("context").at("any").get<bool>());
  for (const nlohmann::json& g : json.at("context").at("groups"))
    EXPECT_TRUE(g.at("values").empty());
}
