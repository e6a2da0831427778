// The FUSE daemon behind readers stuck on a stalled mount, found by the sampler itself:
// from the readers' file, its mount's connection, and the process holding /dev/fuse
// open for it. The daemon's threads are recorded whatever their state (here stopped,
// T), the capture's end line names it with its mount, and the verdict says who it is.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "fuse_daemons.hpp"
#include "fuse_watch.hpp"
#include "hangscope/analysis.hpp"
#include "hangscope/capture_format.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "support/privileges.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/stalled_fuse.hpp"
#include "support/task_sources.hpp"
#include "support/temp_dir.hpp"
#include "support/text_file.hpp"
#include "support/wait_for.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

// The connection of the FUSE mount at `mount_point`, from this process's mountinfo.
uint64_t connection_of(const std::string& mount_point) {
  std::ifstream in("/proc/self/mountinfo");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const sampler::MountEntry& m : sampler::parse_mountinfo(text))
    if (m.mount_point == mount_point) return sampler::fuse_connection(m.major, m.minor);
  return 0;
}

// Stops the daemon for a while; lets it go on again whatever happens.
struct Stopped {
  explicit Stopped(pid_t p) : pid(p) { kill(pid, SIGSTOP); }
  ~Stopped() { kill(pid, SIGCONT); }
  pid_t pid;
};

}  // namespace

TEST(LiveFuseDaemon, ItsDescriptorNamesTheConnectionOfItsMount) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = StalledFuse::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
  StalledFuse fs(STALLFS_BIN);
  const uint64_t conn = connection_of(fs.mountpoint());
  ASSERT_NE(conn, 0u);
  const auto daemons = sampler::find_fuse_daemons("/proc");
  ASSERT_TRUE(daemons.contains(conn)) << "fdinfo without fuse_connection (Linux 6.16 on)";
  EXPECT_EQ(daemons.at(conn), fs.daemon_pid());

  // A reader waiting on the mount makes the watch find and record its daemon.
  fs.stall();
  pid_t reader = fs.start_reader();
  ASSERT_TRUE(StalledFuse::wait_until_reading(reader));
  sampler::MountTable mounts("/proc");
  sampler::FuseWatch watch("/proc");
  const sampler::FileLocation loc = mounts.locate_path(reader, fs.data_path());
  EXPECT_EQ(loc.mount_point, fs.mountpoint());
  int64_t now = 0;
  ASSERT_TRUE(wait_for(
      [&] {
        watch.waiter(loc, "request_wait_answer");
        watch.end_round(now += 20'000'000);
        return watch.records(fs.daemon_pid());
      },
      std::chrono::seconds(10)));
  const auto fields = watch.end_fields();
  ASSERT_EQ(fields.size(), 1u);
  capture_format::FuseDaemonField f;
  ASSERT_TRUE(capture_format::parse_fuse_daemon_field(fields[0].first, fields[0].second, f));
  EXPECT_EQ(f.connection, conn);
  EXPECT_EQ(f.pid, fs.daemon_pid());
  EXPECT_EQ(f.mount_point, fs.mountpoint());
  // Without waiters for a while, its threads are no longer recorded.
  watch.end_round(now += 3'000'000'000);
  EXPECT_FALSE(watch.records(fs.daemon_pid()));
}

// Both sources record the daemon's threads whatever their state: the verdict says it is
// stopped.
class LiveFuseDaemonBySource : public ::testing::TestWithParam<std::string> {};

TEST_P(LiveFuseDaemonBySource, TheVerdictNamesTheStoppedDaemonOfTheMount) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = StalledFuse::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
  StalledFuse fs(STALLFS_BIN);
  fs.stall();
  pid_t reader = fs.start_reader();
  ASSERT_TRUE(StalledFuse::wait_until_reading(reader));
  Stopped stopped(fs.daemon_pid());
  ASSERT_TRUE(
      wait_for([&] { return StalledFuse::thread_state(fs.daemon_pid(), fs.daemon_pid()) == 'T'; },
               std::chrono::seconds(10)));

  // Only the reader is asked for: the sampler adds the daemon itself.
  TempDir tmp;
  const std::string out = tmp.file("daemon.capture");
  RunResult r = run(
      {HANGSCOPE_BIN, "record", "--source", GetParam(), "-n", "100", "-i", "20", "-p",
       std::to_string(reader), "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  Capture c;
  read_input(out, "", c);
  const uint64_t conn = connection_of(fs.mountpoint());
  // The reader's context names the connection of its file (the task's FUSE detail).
  EXPECT_NE(slurp(out).find("\tfuse_connection=" + std::to_string(conn) + "\n"), std::string::npos);
  const std::string key = "end.fuse." + std::to_string(conn);
  ASSERT_TRUE(c.sources[0].header.contains(key));
  capture_format::FuseDaemonField f;
  ASSERT_TRUE(capture_format::parse_fuse_daemon_field(key, c.sources[0].header.at(key), f));
  EXPECT_EQ(f.pid, fs.daemon_pid());
  EXPECT_EQ(f.mount_point, fs.mountpoint());
  size_t daemon_samples = 0;
  for (const TaskSample& s : c.samples)
    if (s.pid == fs.daemon_pid()) {
      ++daemon_samples;
      EXPECT_EQ(s.state, 'T');
    }
  EXPECT_GT(daemon_samples, 0u);

  Analysis a = analyze(c);
  ASSERT_FALSE(a.graph.verdict.findings.empty());
  const std::string daemon = "the FUSE daemon hangscope-stall (" + std::to_string(fs.daemon_pid()) +
                             ") of " + fs.mountpoint() + ", which is stopped (T)";
  EXPECT_EQ(subject_words(c, a.graph.verdict.findings.front()), daemon);
  const std::string text = find_renderer("text")->render(Report{c, a}, RenderOptions{});
  const std::string first = text.substr(0, text.find('\n'));
  EXPECT_NE(first.find(" blocked threads wait on " + daemon + ": "), std::string::npos) << first;
}

INSTANTIATE_TEST_SUITE_P(Sources, LiveFuseDaemonBySource, task_sources(),
                         [](const auto& info) { return info.param; });
