// The causes off the stack as the sampler reads them (docs/sampler.md): the cgroup states
// of a task from a cgroup tree laid out as this kernel has it (the files' texts as 6.18
// prints them), the parties of a wait from /proc files of that shape, and a loop
// worker's device. The live side: tests/live/live_zoo_test.cpp makes each hang.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "block_devices.hpp"
#include "cgroup_states.hpp"
#include "support/temp_dir.hpp"
#include "task_parties.hpp"

using namespace hangscope;
using namespace hangscope::sampler;
using hangscope::testing::TempDir;

namespace {

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

std::string field(const ContextFields& fields, std::string_view key) {
  for (const auto& [k, v] : fields)
    if (k == key) return v;
  return {};
}

}  // namespace

TEST(SamplerCgroupPaths, EveryHierarchyOfATasksCgroupFile) {
  const CgroupPaths p = parse_cgroup_paths(
      "9:name=systemd:/\n8:pids:/\n7:blkio:/jobs/io\n6:freezer:/jobs\n5:devices:/\n"
      "4:memory:/jobs/mem\n3:cpu,cpuacct:/\n0::/unified/a b\n");
  EXPECT_EQ(p.blkio, "/jobs/io");
  EXPECT_EQ(p.freezer, "/jobs");
  EXPECT_EQ(p.memory, "/jobs/mem");
  EXPECT_EQ(p.unified, "/unified/a b");
  // Several controllers on one line.
  EXPECT_EQ(parse_cgroup_paths("4:memory,blkio:/x\n").blkio, "/x");
  EXPECT_EQ(parse_cgroup_paths("garbage\n"), CgroupPaths{});
}

TEST(SamplerCgroupPaths, TheHierarchiesFromMountinfo) {
  const CgroupMounts m = parse_cgroup_mounts(
      "35 25 0:30 / /sys/fs/cgroup/memory rw,relatime shared:14 - cgroup cgroup rw,memory\n"
      "36 25 0:31 / /sys/fs/cgroup/freezer rw,relatime shared:15 - cgroup cgroup rw,freezer\n"
      "37 25 0:32 / /sys/fs/cgroup/blkio rw,relatime shared:16 - cgroup cgroup rw,blkio\n"
      "38 25 0:33 / /sys/fs/cgroup/unified rw,relatime shared:17 - cgroup2 cgroup2 rw\n");
  EXPECT_EQ(m.memory, "/sys/fs/cgroup/memory");
  EXPECT_EQ(m.freezer, "/sys/fs/cgroup/freezer");
  EXPECT_EQ(m.blkio, "/sys/fs/cgroup/blkio");
  EXPECT_EQ(m.unified, "/sys/fs/cgroup/unified");
}

// A tree with every state: a v1 freezer cgroup frozen from its parent, a blkio limit on
// loop0 set on a parent, a memory cgroup at its limit and out of memory, and v2 cgroups
// frozen, io-limited and over memory.max.
TEST(SamplerCgroupStates, EachStateIsReadWhereItIsSet) {
  TempDir tree;
  const std::string fz = tree.file("freezer"), io = tree.file("blkio"),
                    mem = tree.file("memory"), v2 = tree.file("unified");
  write(fz + "/jobs/freezer.state", "FROZEN\n");
  write(fz + "/jobs/freezer.self_freezing", "1\n");
  write(fz + "/jobs/a/freezer.state", "FROZEN\n");
  write(fz + "/jobs/a/freezer.self_freezing", "0\n");
  write(io + "/blkio.throttle.read_bps_device", "");
  write(io + "/jobs/blkio.throttle.read_bps_device", "7:0 65536\n8:0 1\n");
  write(io + "/jobs/a/blkio.throttle.read_bps_device", "");
  write(mem + "/jobs/memory.limit_in_bytes", "33554432\n");
  write(mem + "/jobs/memory.usage_in_bytes", "33406976\n");
  write(mem + "/jobs/memory.oom_control", "oom_kill_disable 1\nunder_oom 1\noom_kill 0\n");
  write(v2 + "/w/cgroup.events", "populated 1\nfrozen 1\n");
  write(v2 + "/w/cgroup.freeze", "1\n");
  write(v2 + "/w/io.max", "7:0 rbps=65536 wbps=max riops=max wiops=max\n");
  write(v2 + "/w/memory.current", "1048576\n");
  write(v2 + "/w/memory.max", "1048576\n");
  CgroupStates states("/proc", {v2, fz, mem, io}, 1'000'000'000);
  FileLocation loop0;
  loop0.device = "loop0";
  loop0.major = 7;
  loop0.minor = 0;

  ContextFields v1;
  states.facts({"", "/jobs/a", "/jobs", "/jobs/a"}, loop0, v1);
  EXPECT_EQ(field(v1, "cg_frozen"), "freezer.state=FROZEN /jobs");  // frozen by its parent
  EXPECT_EQ(field(v1, "cg_io_limit"), "blkio.throttle.read_bps_device=loop0:65536 /jobs");
  EXPECT_EQ(field(v1, "cg_mem_limit"), "memory.limit_in_bytes=33554432 /jobs");
  EXPECT_EQ(field(v1, "cg_oom"), "memory.oom_control=under_oom /jobs");

  ContextFields unified;
  states.facts({"/w", "", "", ""}, loop0, unified);
  EXPECT_EQ(field(unified, "cg_frozen"), "cgroup.freeze=1 /w");
  EXPECT_EQ(field(unified, "cg_io_limit"), "io.max=loop0:rbps=65536 /w");
  EXPECT_EQ(field(unified, "cg_mem_limit"), "memory.max=1048576 /w");
  EXPECT_EQ(field(unified, "cg_oom"), "");

  // Another device, or none known: no I/O limit; a cgroup in no state: nothing at all.
  FileLocation sda;
  sda.device = "sda";
  sda.major = 8;
  sda.minor = 16;
  ContextFields other;
  states.facts({"", "", "", "/jobs/a"}, sda, other);
  states.facts({"", "", "", "/jobs/a"}, FileLocation{}, other);
  EXPECT_TRUE(other.empty());
}

// A file read stands for its cgroup for the cache's time: a state that ends is seen once
// that time is over.
TEST(SamplerCgroupStates, AFileStandsForItsCgroupForTheCachesTime) {
  TempDir tree;
  const std::string fz = tree.file("freezer");
  write(fz + "/j/freezer.state", "FROZEN\n");
  write(fz + "/j/freezer.self_freezing", "1\n");
  CgroupStates cached("/proc", {"", fz, "", ""}, 3'600'000'000'000);
  CgroupStates fresh("/proc", {"", fz, "", ""}, 0);
  ContextFields a, b;
  cached.facts({"", "/j", "", ""}, {}, a);
  write(fz + "/j/freezer.state", "THAWED\n");
  cached.facts({"", "/j", "", ""}, {}, b);
  EXPECT_EQ(field(b, "cg_frozen"), "freezer.state=FROZEN /j");
  ContextFields c;
  fresh.facts({"", "/j", "", ""}, {}, c);
  EXPECT_TRUE(c.empty());
}

TEST(SamplerTaskParties, TheFilesThatNameAParty) {
  // fdinfo of a userfaultfd and of a fanotify group, as 6.18 prints them.
  EXPECT_EQ(uffd_waiting_faults("pos:\t0\nflags:\t02000000\nmnt_id:\t17\nino:\t139848\n"
                                "pending:\t2\ntotal:\t2\nAPI:\taa:80000000:80000000000001ff\n"),
            2u);
  EXPECT_EQ(uffd_waiting_faults("pending:\t0\ntotal:\t0\n"), 0u);
  EXPECT_TRUE(fanotify_permission_marks(
      "pos:\t0\nflags:\t02000002\nmnt_id:\t17\nino:\t20\nfanotify flags:5 event-flags:8000\n"
      "fanotify ino:a82930 sdev:fe00000 mflags:0 mask:10000 ignored_mask:0 fhandle-bytes:8 "
      "fhandle-type:1 f_handle:3029a8004b80fabb\n"));
  EXPECT_FALSE(fanotify_permission_marks(
      "fanotify flags:0 event-flags:0\nfanotify mnt_id:2a mflags:0 mask:3b ignored_mask:0\n"));
  EXPECT_EQ(newest_child("4711 4712 \n"), 4712);
  EXPECT_EQ(newest_child(""), 0);
}

// Over a /proc laid out as this kernel has it: a vfork parent's children file and its
// child's status; a process whose traced thread exited and waits for its tracer.
TEST(SamplerTaskParties, ARelationsPartyIsNamedWithItsStateAndName) {
  TempDir proc;
  write(proc.file("100/task/100/children"), "101 ");
  write(proc.file("101/status"), "Name:\tzoo-vfork-child\nState:\tT (stopped)\nTracerPid:\t0\n");
  write(proc.file("200/task/200/status"), "Name:\tzoo-exec\nState:\tD (disk sleep)\n");
  write(proc.file("200/task/201/status"),
        "Name:\tzoo-traced\nState:\tZ (zombie)\nTracerPid:\t300\n");
  write(proc.file("300/status"), "Name:\tzoo-tracer\nState:\tS (sleeping)\n");
  TaskParties parties(proc.file(""));
  std::vector<std::pair<std::string, std::string>> vfork, exec, none;
  parties.party(100, 100, "[<0>] kernel_clone+0x1d3/0x400\n[<0>] __do_sys_vfork+0x66/0x90\n",
                vfork);
  ASSERT_EQ(vfork.size(), 2u);
  EXPECT_EQ(vfork[0].second, "vfork-child 101 T");
  EXPECT_EQ(vfork[1].second, "zoo-vfork-child");
  parties.party(200, 200, "[<0>] begin_new_exec+0x1b7/0xdb0\n[<0>] load_elf_binary+0x30c/0x1870\n",
                exec);
  ASSERT_EQ(exec.size(), 2u);
  EXPECT_EQ(exec[0].second, "tracer 300 S");
  EXPECT_EQ(exec[1].second, "zoo-tracer");
  // kernel_clone not innermost: a fork blocked elsewhere has no vfork child to wait for.
  parties.party(100, 100, "[<0>] copy_process+0x10/0x20\n[<0>] kernel_clone+0x1d3/0x400\n", none);
  EXPECT_TRUE(none.empty());
}

TEST(SamplerBlockDevices, ALoopWorkerNamesItsDevice) {
  EXPECT_EQ(loop_device_of_worker("kworker/u8:3+loop12"), "loop12");
  EXPECT_EQ(loop_device_of_worker("kworker/u8:1+flush-7:0"), "");
  EXPECT_EQ(loop_device_of_worker("loop0"), "");
}
