// The sampler's parsers of /proc and /sys text: syscall, status, pressure, mountinfo,
// cgroup paths and container ids.
#include <gtest/gtest.h>

#include "cgroups.hpp"
#include "mount_table.hpp"
#include "pressure.hpp"
#include "syscalls.hpp"
#include "task_details.hpp"

using namespace hangscope::sampler;

TEST(SamplerSyscall, BlockedCallWithArguments) {
  SyscallState s =
      parse_syscall("74 0x3 0x7ffd5e1c 0x0 0x0 0x0 0x0 0x7ffd5e1c0a98 0x7f3c2a91d2a7\n");
  ASSERT_EQ(s.kind, SyscallState::blocked);
  EXPECT_EQ(s.nr, 74);
  EXPECT_EQ(s.args[0], 3u);
  EXPECT_EQ(s.args[1], 0x7ffd5e1cu);
  EXPECT_EQ(s.args_text, "0x3 0x7ffd5e1c 0x0 0x0 0x0 0x0");
  EXPECT_EQ(s.sp, 0x7ffd5e1c0a98u);  // where the user stack was at the call
  EXPECT_EQ(s.pc, 0x7f3c2a91d2a7u);
}

TEST(SamplerSyscall, RunningAndNotInACall) {
  EXPECT_EQ(parse_syscall("running\n").kind, SyscallState::running);
  SyscallState fault = parse_syscall("-1 0x7ffd5e1c0a98 0x7f3c2a91d2a7\n");
  EXPECT_EQ(fault.kind, SyscallState::none);
  EXPECT_EQ(fault.pc, 0x7f3c2a91d2a7u);
  EXPECT_EQ(parse_syscall("").kind, SyscallState::unparsed);
  EXPECT_EQ(parse_syscall("74 0x3").kind, SyscallState::unparsed);
  EXPECT_EQ(parse_syscall("x 0x3").kind, SyscallState::unparsed);
}

TEST(SamplerSyscall, NamesAndFileArguments) {
#if defined(__x86_64__)
  EXPECT_EQ(syscall_name(0), "read");
  EXPECT_EQ(syscall_name(74), "fsync");
  EXPECT_EQ(syscall_name(82), "rename");
  EXPECT_EQ(syscall_name(316), "renameat2");
  FdArgument a;
  ASSERT_TRUE(file_argument(74, a));  // fsync(fd)
  EXPECT_EQ(a.index, 0);
  EXPECT_FALSE(a.directory);
  ASSERT_TRUE(file_argument(257, a));  // openat(dirfd, ...)
  EXPECT_TRUE(a.directory);
  EXPECT_FALSE(file_argument(82, a));  // rename(old, new): paths only
#endif
  EXPECT_EQ(syscall_name(-5), "");
  EXPECT_GT(syscall_names().size(), 300u);
}

TEST(SamplerStatus, StateNameParentAndSwitches) {
  TaskDetails d;
  parse_status(
      "Name:\tstorm-w3\nUmask:\t0022\nState:\tD (disk sleep)\nTgid:\t412\nNgid:\t0\nPid:\t412\n"
      "PPid:\t400\nTracerPid:\t0\nvoluntary_ctxt_switches:\t1234\nnonvoluntary_ctxt_switches:"
      "\t56\n",
      d);
  EXPECT_EQ(d.state, 'D');
  EXPECT_EQ(d.name, "storm-w3");
  EXPECT_EQ(d.ppid, 400);
  EXPECT_TRUE(d.switches_known);
  EXPECT_EQ(d.voluntary, 1234u);
  EXPECT_EQ(d.involuntary, 56u);
  uint64_t v, i;
  EXPECT_FALSE(parse_switches("Name:\tx\n", v, i));
}

TEST(SamplerPressure, Avg10OfSomeAndFull) {
  Pressure p = parse_pressure(
      "some avg10=12.50 avg60=3.00 avg300=1.00 total=123\nfull avg10=0.75 avg60=0.00 "
      "avg300=0.00 total=4\n");
  EXPECT_FLOAT_EQ(p.some, 12.5f);
  EXPECT_FLOAT_EQ(p.full, 0.75f);
  Pressure cpu = parse_pressure("some avg10=1.00 avg60=0.00 avg300=0.00 total=1\n");
  EXPECT_FLOAT_EQ(cpu.some, 1.0f);
  EXPECT_FLOAT_EQ(cpu.full, -1.0f);  // older kernels have no "full" line for cpu
}

TEST(SamplerMounts, ParsesMountinfoWithEscapes) {
  auto m = parse_mountinfo(
      "22 1 7:0 / / rw,relatime shared:1 - ext4 /dev/loop0 rw\n"
      "35 22 0:30 / /mnt/with\\040space rw master:1 - tmpfs tmpfs rw,size=64k\n"
      "bad line\n");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].id, 22);
  EXPECT_EQ(m[0].major, 7u);
  EXPECT_EQ(m[0].fstype, "ext4");
  EXPECT_EQ(m[1].mount_point, "/mnt/with space");
  EXPECT_EQ(m[1].super_options, "rw,size=64k");
  EXPECT_EQ(mount_of_path(m, "/mnt/with space/f")->id, 35);
  EXPECT_EQ(mount_of_path(m, "/mnt/with spacex")->id, 22);
}

TEST(SamplerMounts, OverlayResolvesToItsUpperLayersDevice) {
  // The storm's layout: ext4 on a loop device, an overlay whose upper layer is on it.
  auto m = parse_mountinfo(
      "22 1 254:0 / / rw - ext4 /dev/vda rw\n"
      "40 22 7:3 / /tmp/storm/img rw - ext4 /dev/loop3 rw\n"
      "41 22 0:55 / /tmp/storm/merged rw - overlay overlay "
      "rw,lowerdir=/tmp/storm/img/lower,upperdir=/tmp/storm/img/upper,workdir=/tmp/storm/img/work\n"
      "42 22 0:56 / /tmp/ro rw - overlay overlay rw,lowerdir=/tmp/storm/img/l1:/l2\n");
  // A fake /sys with the two block devices.
  std::string sys = ::testing::TempDir() + "/sampler-sys";
  std::string block = sys + "/dev/block";
  ASSERT_EQ(system(("mkdir -p " + block + " && ln -sfn ../../devices/virtual/block/loop3 " + block +
                    "/7:3 && ln -sfn ../../devices/pci/virtio/block/vda " + block + "/254:0")
                       .c_str()),
            0);
  EXPECT_EQ(block_device_name(7, 3, sys), "loop3");
  EXPECT_EQ(block_device_name(0, 55, sys), "");
  FileLocation up = locate_mount(m, m[2], sys);
  EXPECT_EQ(up.fstype, "overlay");
  EXPECT_EQ(up.device, "loop3");
  FileLocation ro = locate_mount(m, m[3], sys);  // read-only: its first lower layer
  EXPECT_EQ(ro.device, "loop3");
  EXPECT_EQ(mount_option(m[2].super_options, "workdir"), "/tmp/storm/img/work");
  EXPECT_EQ(mount_option(m[2].super_options, "nothing"), "");
}

TEST(SamplerCgroups, PathFromUnifiedOrFirstControllerLine) {
  EXPECT_EQ(cgroup_path("0::/system.slice/ssh.service\n"), "/system.slice/ssh.service");
  EXPECT_EQ(cgroup_path("4:memory:/process_api/e7f0\n1:cpu:/\n0::/\n"), "/process_api/e7f0");
  EXPECT_EQ(cgroup_path("0::/\n"), "/");
}

// record --cgroup: a cgroup and those below it, by whole path components.
TEST(SamplerCgroups, SelectedCgroupAndThoseBelowItOnly) {
  EXPECT_TRUE(in_cgroup("/system.slice/docker-1.scope", "/system.slice"));
  EXPECT_TRUE(in_cgroup("/system.slice", "/system.slice"));
  EXPECT_TRUE(in_cgroup("/system.slice", "/system.slice/"));
  EXPECT_TRUE(in_cgroup("/system.slice/a/b", "/system.slice/a"));
  EXPECT_FALSE(in_cgroup("/system.slice-x/a", "/system.slice"));
  EXPECT_FALSE(in_cgroup("/system.slice/docker-12", "/system.slice/docker-1"));
  EXPECT_FALSE(in_cgroup("/system", "/system.slice"));
  EXPECT_FALSE(in_cgroup("/user.slice", "/system.slice"));
  // The root holds every cgroup.
  EXPECT_TRUE(in_cgroup("/", "/"));
  EXPECT_TRUE(in_cgroup("/user.slice/u", "/"));
}

TEST(SamplerCgroups, ContainersOfEveryRuntimeLayout) {
  const std::string id(64, 'a');
  const std::string id2 = std::string(32, 'b') + std::string(32, '1');
  EXPECT_EQ(container_of("/docker/" + id), "docker:" + id);
  EXPECT_EQ(container_of("/system.slice/docker-" + id + ".scope"), "docker:" + id);
  EXPECT_EQ(container_of("/kubepods.slice/kubepods-besteffort.slice/"
                         "kubepods-besteffort-pod1234_5678.slice/cri-containerd-" +
                         id2 + ".scope"),
            "containerd:" + id2);
  EXPECT_EQ(container_of("/kubepods/burstable/pod0f0e-11/" + id), "kubepods:" + id);
  EXPECT_EQ(container_of("/machine.slice/libpod-" + id + ".scope"), "podman:" + id);
  EXPECT_EQ(container_of("/machine.slice/libpod-conmon-" + id + ".scope"), "");
  EXPECT_EQ(container_of("/system.slice/crio-" + id + ".scope"), "cri-o:" + id);
  EXPECT_EQ(container_of("/system.slice/containerd.service/k8s.io/" + id), "containerd:" + id);
  EXPECT_EQ(container_of("/user.slice/user-1000.slice/session-2.scope"), "");
  EXPECT_EQ(container_of("/docker/notanid"), "");
}
