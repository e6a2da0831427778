// What the sampler parses to find the FUSE daemon behind blocked tasks (fuse_daemons.hpp),
// how it writes what it found into the capture's end line (capture_format.hpp), and its
// watch of the connections (fuse_watch.hpp).
// The texts are as this machine's kernel (6.18) printed them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "fuse_daemons.hpp"
#include "fuse_watch.hpp"
#include "hangscope/capture_format.hpp"
#include "mount_table.hpp"
#include "support/temp_dir.hpp"
#include "task_details.hpp"

using namespace hangscope;
using namespace hangscope::sampler;
using hangscope::testing::TempDir;

TEST(SamplerFuse, FuseFileSystemsAndTheirConnection) {
  EXPECT_TRUE(is_fuse_filesystem("fuse.hangscope-stallfs"));
  EXPECT_TRUE(is_fuse_filesystem("fuse"));
  EXPECT_TRUE(is_fuse_filesystem("fuseblk"));
  EXPECT_FALSE(is_fuse_filesystem("fusectl"));
  EXPECT_FALSE(is_fuse_filesystem("ext4"));
  // A FUSE mount's anonymous device 0:39 is connection 39; fuseblk's is its block
  // device's dev_t, 8:17 = (8 << 20) | 17.
  auto mounts = parse_mountinfo(
      "42 27 0:39 / /tmp/hs-try.aZHn rw,nosuid,nodev,relatime - fuse.hangscope-stallfs "
      "hangscope-stallfs rw,user_id=0,group_id=0\n");
  ASSERT_EQ(mounts.size(), 1u);
  EXPECT_EQ(fuse_connection(mounts[0].major, mounts[0].minor), 39u);
  EXPECT_EQ(fuse_connection(8, 17), 8388625u);
  const FileLocation loc = locate_mount(mounts, mounts[0], "/sys");
  EXPECT_EQ(loc.fstype, "fuse.hangscope-stallfs");
  EXPECT_EQ(loc.device, "");
  EXPECT_EQ(loc.mount_point, "/tmp/hs-try.aZHn");
  EXPECT_EQ(loc.minor, 39u);
}

TEST(SamplerFuse, ATaskOnAFuseFileNamesItsConnectionAsAContextField) {
  auto mounts = parse_mountinfo(
      "42 27 0:39 / /tmp/hs-try.aZHn rw,nosuid,nodev,relatime - fuse.hangscope-stallfs "
      "hangscope-stallfs rw,user_id=0,group_id=0\n"
      "43 27 7:0 / /mnt/x rw,relatime - ext4 /dev/loop0 rw\n");
  ASSERT_EQ(mounts.size(), 2u);
  TaskDetails fuse;
  fuse.location = locate_mount(mounts, mounts[0], "/sys");
  read_fuse_detail(fuse);
  ASSERT_EQ(fuse.extra.size(), 1u);
  EXPECT_EQ(fuse.extra[0].first, "fuse_connection");
  EXPECT_EQ(fuse.extra[0].second, "39");
  TaskDetails ext4;
  ext4.location = locate_mount(mounts, mounts[1], "/sys");
  read_fuse_detail(ext4);
  EXPECT_TRUE(ext4.extra.empty());
}

TEST(SamplerFuse, TheConnectionOfADevFuseDescriptor) {
  EXPECT_EQ(fdinfo_fuse_connection("pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t90\n"
                                   "fuse_connection:\t39\n"),
            39u);
  EXPECT_EQ(fdinfo_fuse_connection("fuse_connection:\t8388625"), 8388625u);
  // Before 6.16, and any other file: no connection.
  EXPECT_FALSE(fdinfo_fuse_connection("pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t90\n"));
  EXPECT_FALSE(fdinfo_fuse_connection("fuse_connection:\tx\n"));
}

TEST(SamplerFuse, WaitsAndWaitingRequests) {
  EXPECT_TRUE(is_fuse_wait("request_wait_answer"));
  EXPECT_TRUE(is_fuse_wait("fuse_wait_on_folio_writeback"));
  EXPECT_FALSE(is_fuse_wait("filemap_fault"));
  EXPECT_EQ(parse_waiting("3\n"), 3u);
  EXPECT_EQ(parse_waiting("0\n"), 0u);
  EXPECT_FALSE(parse_waiting(""));
}

TEST(SamplerFuse, EndLineFieldsKeepMountPointsWithBlanksAndCommas) {
  const capture_format::FuseDaemonField d{39, 4711, "/mnt/my remote,1=a"};
  const auto [key, value] = capture_format::fuse_daemon_field(d);
  EXPECT_EQ(key, "fuse.39");
  EXPECT_EQ(value, "4711,/mnt/my\\x20remote\\x2c1\\x3da");
  EXPECT_EQ(value.find(' '), std::string::npos);
  // As a reader keeps it: the end line's fields become header fields "end.<key>".
  capture_format::FuseDaemonField back;
  ASSERT_TRUE(capture_format::parse_fuse_daemon_field("end." + key, value, back));
  EXPECT_EQ(back.connection, 39u);
  EXPECT_EQ(back.pid, 4711);
  EXPECT_EQ(back.mount_point, "/mnt/my remote,1=a");
  EXPECT_FALSE(capture_format::parse_fuse_daemon_field("end.samples", "12", back));
  EXPECT_FALSE(capture_format::parse_fuse_daemon_field("end.fuse.39", "x,/mnt", back));
  EXPECT_FALSE(capture_format::parse_fuse_daemon_field("end.fuse.39", "4711", back));
}

// The watch's look for daemons runs on a thread of its own and hands its answer over to
// a later round (ThreadSanitizer runs this suite). Over a /proc laid out as this kernel
// has it for a daemon: /proc/<pid>/fd/<n> a link to /dev/fuse, its fdinfo naming the
// connection (the live tests find a real daemon, tests/live/live_fuse_daemon_test.cpp).
TEST(SamplerFuseWatch, ADaemonFoundOnItsThreadIsRecordedUntilItExits) {
  TempDir proc;
  const std::filesystem::path daemon = proc.file("4711");
  std::filesystem::create_directories(daemon / "fd");
  std::filesystem::create_directories(daemon / "fdinfo");
  std::filesystem::create_symlink(std::string(kFuseDevice), daemon / "fd" / "5");
  std::ofstream(daemon / "fdinfo" / "5") << "pos:\t0\nflags:\t02100002\nmnt_id:\t24\n"
                                            "ino:\t90\nfuse_connection:\t39\n";
  // Another process with a /dev/fuse descriptor of another connection, and one without.
  std::filesystem::create_directories(proc.file("4800/fd"));
  std::filesystem::create_directories(proc.file("4800/fdinfo"));
  std::filesystem::create_symlink(std::string(kFuseDevice), proc.file("4800/fd/3"));
  std::ofstream(proc.file("4800/fdinfo/3")) << "fuse_connection:\t40\n";
  std::filesystem::create_directories(proc.file("4900/fd"));

  FileLocation file;
  file.fstype = "fuse.hangscope-stallfs";
  file.major = 0;
  file.minor = 39;
  file.mount_point = "/tmp/hs-try.aZHn";
  FuseWatch watch(proc.file(""), proc.file("no-sys"));
  watch.waiter(file, "request_wait_answer");
  watch.end_round(0);  // starts the look
  EXPECT_FALSE(watch.records(4711)) << "the answer comes in a later round";
  watch.finish(20'000'000, 30'000'000'000);
  const auto fields = watch.end_fields();
  ASSERT_EQ(fields.size(), 1u);
  EXPECT_EQ(fields[0].first, "fuse.39");
  EXPECT_EQ(fields[0].second, "4711,/tmp/hs-try.aZHn");

  watch.waiter(file, "request_wait_answer");
  watch.end_round(40'000'000);
  EXPECT_TRUE(watch.records(4711));
  EXPECT_EQ(watch.recorded(), std::set<int>{4711});
  // Without waiters its threads are still recorded for two seconds, then not.
  watch.end_round(1'500'000'000);
  EXPECT_TRUE(watch.records(4711));
  watch.end_round(2'100'000'000);
  EXPECT_FALSE(watch.records(4711));

  // A daemon that exited is forgotten, and looked for again while its mount has waiters.
  watch.waiter(file, "request_wait_answer");
  watch.end_round(2'200'000'000);
  EXPECT_TRUE(watch.records(4711));
  std::filesystem::remove_all(daemon);
  watch.waiter(file, "request_wait_answer");
  watch.end_round(2'300'000'000);
  EXPECT_FALSE(watch.records(4711));
  watch.finish(2'400'000'000, 30'000'000'000);
  EXPECT_TRUE(watch.end_fields().empty());
}
