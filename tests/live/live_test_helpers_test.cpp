// The helpers of the live tests leave nothing behind: a blocked task ends with its
// child, a FUSE reader is freed even when its daemon can no longer answer, a tmpfs is
// unmounted when the test throws, and what a killed test left under ctest's TMPDIR
// (processes, mounts, loop devices) is removed by support/reap-leftovers.sh.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "support/blocked_task.hpp"
#include "support/privileges.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/stalled_fuse.hpp"
#include "support/task_state.hpp"
#include "support/tmpfs_mount.hpp"
#include "support/wait_for.hpp"

using namespace hangscope::testing;
using namespace std::chrono_literals;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool mounted(const std::string& dir) {
  std::istringstream lines(slurp("/proc/self/mountinfo"));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string f;
    for (int i = 0; i < 5 && fields >> f; ++i) {
    }
    if (f == dir) return true;
  }
  return false;
}

// Gone, or a zombie its new parent has not reaped yet.
bool ended(pid_t pid) {
  char s = task_state(pid);
  return s == '?' || s == 'Z' || s == 'X';
}

}  // namespace

TEST(LiveTestHelpers, BlockedTaskIsInDAndEndsWithItsChild) {
  pid_t parent = 0, child = 0;
  {
    BlockedTask blocked;
    parent = blocked.pid();
    EXPECT_EQ(task_state(parent), 'D');
    std::istringstream children(slurp("/proc/" + std::to_string(parent) + "/task/" +
                                      std::to_string(parent) + "/children"));
    ASSERT_TRUE(children >> child) << "the vfork child";
    EXPECT_EQ(getpgid(child), parent) << "in the group the object ends";
  }
  EXPECT_TRUE(ended(parent));
  EXPECT_TRUE(wait_for([&] { return ended(child); }, 30s)) << "child " << child << " left running";
}

// A reader whose request the daemon took waits uninterruptibly for the answer, even
// once killed. With the daemon stopped (it cannot answer), the helper's end aborts the
// connection: it returns, and the reader and the mount are gone.
TEST(LiveTestHelpers, StalledFuseFreesItsReadersWhenTheDaemonCannotAnswer) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = StalledFuse::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
  auto fs = std::make_unique<StalledFuse>(STALLFS_BIN);
  fs->stall();
  const pid_t reader = fs->start_reader();
  ASSERT_TRUE(StalledFuse::wait_until_waiting(reader));
  ASSERT_TRUE(fs->interrupt(reader)) << "the reader's request is with the daemon";
  const pid_t daemon = fs->daemon_pid();
  const std::string mountpoint = fs->mountpoint();
  kill(daemon, SIGSTOP);
  ASSERT_TRUE(wait_for([&] { return task_state(daemon) == 'T'; }, 30s));
  fs.reset();
  EXPECT_TRUE(ended(reader));
  EXPECT_TRUE(ended(daemon));
  EXPECT_FALSE(mounted(mountpoint));
  EXPECT_FALSE(std::filesystem::exists(mountpoint));
}

TEST(LiveTestHelpers, TmpfsIsUnmountedWhenTheTestThrows) {
  if (geteuid() != 0) HANGSCOPE_SKIP() << "mounts a tmpfs: run as root";
  std::string dir = (std::filesystem::temp_directory_path() / "hangscope-tmpfs-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  try {
    TmpfsMount small(dir + "/small", "size=64k");
    ASSERT_TRUE(small.mounted()) << small.error();
    ASSERT_TRUE(mounted(dir + "/small"));
    throw std::runtime_error("a test that throws");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(mounted(dir + "/small"));
  std::filesystem::remove_all(dir);
}

// What a test killed by ctest's timeout leaves: a process working in its directory, a
// tmpfs and an ext4 image on a loop device mounted there. The reaper removes them all
// and leaves the directory empty; it refuses a directory not named as ctest's.
TEST(LiveTestHelpers, ReaperRemovesWhatAKilledTestLeft) {
  if (geteuid() != 0) HANGSCOPE_SKIP() << "mounts and attaches a loop device: run as root";
  const std::string reaper = HANGSCOPE_SOURCE "/tests/support/reap-leftovers.sh";
  std::string dir = "/tmp/hangscope-ctest-reaper-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const std::string setup =
      "set -e; cd \"$1\"; mkdir -p small img; mount -t tmpfs -o size=64k tmpfs small; "
      "truncate -s 8M ext4.img; mkfs.ext4 -q ext4.img; "
      "loop=$(losetup --find --show ext4.img); mount \"$loop\" img; echo \"$loop\" > loop; "
      "(cd img && exec sleep 1000) >/dev/null 2>&1 & echo $! > pid";
  RunResult made = run({"sh", "-c", setup, "sh", dir});
  if (made.status != 0) {
    run({"sh", reaper, dir});
    std::filesystem::remove_all(dir);
    HANGSCOPE_SKIP() << "cannot set up a tmpfs and a loop device here: " << made.err;
  }
  const pid_t left = std::stoi(slurp(dir + "/pid"));
  std::string loop = slurp(dir + "/loop");
  while (!loop.empty() && loop.back() == '\n') loop.pop_back();
  ASSERT_TRUE(mounted(dir + "/small"));
  ASSERT_TRUE(mounted(dir + "/img"));

  RunResult r = run({"sh", reaper, dir});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(wait_for([&] { return ended(left); }, 30s)) << r.out;
  EXPECT_FALSE(mounted(dir + "/small")) << r.out;
  EXPECT_FALSE(mounted(dir + "/img")) << r.out;
  EXPECT_EQ(slurp("/sys/block/" + loop.substr(5) + "/loop/backing_file"), "") << r.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove(dir);

  EXPECT_EQ(run({"sh", reaper, "/tmp/elsewhere"}).status, 2);
}
