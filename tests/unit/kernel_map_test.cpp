// The kernel map (hangscope/kernel_map.hpp) and the groups it names: a wait no rule
// knows is named by its primitive and the subsystem of the caller above it. The stacks
// are of public reports, each with its source; the map is the built-in one
// (analyzer/classify/kernel_map.txt.zst, made from Debian's linux-source-6.1 and 6.12).
#include <gtest/gtest.h>

#include <string>

#include "hangscope/classify.hpp"
#include "hangscope/kernel_map.hpp"

using namespace hangscope;

namespace {

struct Frame {
  std::string_view function;
  std::string_view module = {};
};

// Classifies one stack, leaf first, and returns its group.
WaitGroup classify_one(std::initializer_list<Frame> leaf_first) {
  StackTable st;
  std::vector<FrameId> ids;
  for (const Frame& f : leaf_first) ids.push_back(st.intern_frame(f.function, f.module));
  const StackId s = st.intern_stack(ids);
  const Classification c = classify(st, builtin_rules());
  return c.groups[c.group(s)];
}

}  // namespace

TEST(KernelMap, ReadsFunctionsModulesAndPrefixes) {
  const KernelMap m = KernelMap::parse(
      "# hangscope-kernel-map 1\n"
      "# trees: made by hand\n"
      "S md SOFTWARE RAID (Multiple Disks) SUPPORT\n"
      "S btrfs BTRFS FILE SYSTEM\n"
      "S workqueue WORKQUEUE\n"
      "P btrfs_ 1\n"
      "P btrfs_odd_ 2\n"
      "F md_bitmap_unplug 0\n"
      "F btrfs_lone 2\n"
      "M raid456 0\n",
      "made");
  EXPECT_EQ(m.made_from().size(), 2u);
  EXPECT_EQ(m.subsystem_of("md_bitmap_unplug").name, "md");
  EXPECT_EQ(m.subsystem_of("md_bitmap_unplug").title, "SOFTWARE RAID (Multiple Disks) SUPPORT");
  EXPECT_EQ(m.subsystem_of("btrfs_start_ordered_extent").name, "btrfs");  // by its prefix
  EXPECT_EQ(m.subsystem_of("btrfs_odd_thing").name, "workqueue");        // the longest prefix
  EXPECT_EQ(m.subsystem_of("btrfs_lone").name, "workqueue");             // listed: wins
  EXPECT_EQ(m.subsystem_of("raid5_make_request", "raid456").name, "md");  // a listed module
  EXPECT_EQ(m.subsystem_of("cv_wait_common", "spl").name, "spl");  // a module names itself
  EXPECT_EQ(m.subsystem_of("md_thread", "md_mod").name, "md");
  EXPECT_EQ(m.subsystem_of("dm_wait_event", "dm-mod").name, "dm");
  EXPECT_FALSE(m.subsystem_of("mydrv_wait").known());
  EXPECT_FALSE(m.subsystem_of("_").known());
}

TEST(KernelMap, ABadRecordIsOneErrorNamingItsLine) {
  auto error_of = [](std::string text) {
    try {
      KernelMap::parse(std::move(text), "bad.txt");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of("S md MD\nF md_run 1\n"), "bad.txt:2: no such subsystem (S lines come first)");
  EXPECT_EQ(error_of("S md MD\nF md_run x\n"), "bad.txt:2: the subsystem index is not a number");
  EXPECT_EQ(error_of("# ok\nZ what 0\n"), "bad.txt:2: not a record of the kernel map");
}

TEST(KernelMap, TheBuiltinMapSaysHowItWasMadeAndNamesTheLongTail) {
  const KernelMap& m = KernelMap::builtin();
  std::string header;
  for (std::string_view line : m.made_from()) header += std::string(line) + "\n";
  EXPECT_NE(header.find("hangscope-kernel-map 1"), std::string::npos) << header;
  EXPECT_NE(header.find("linux-source-6.1 6.1."), std::string::npos) << header;
  EXPECT_NE(header.find("linux-source-6.12 6.12."), std::string::npos) << header;
  EXPECT_NE(header.find("scripts/kernel-map.py build"), std::string::npos) << header;
  // The waits of issue reports that no rule names, by the subsystem of their caller.
  EXPECT_EQ(m.subsystem_of("md_bitmap_startwrite").name, "md");
  EXPECT_EQ(m.subsystem_of("raid5_get_active_stripe").name, "md");
  EXPECT_EQ(m.subsystem_of("btrfs_start_ordered_extent").name, "btrfs");
  EXPECT_EQ(m.subsystem_of("xfs_buf_lock").name, "xfs");
  EXPECT_EQ(m.subsystem_of("nfsd4_cb_recall_release").name, "nfsd");
  EXPECT_EQ(m.subsystem_of("__flush_work").name, "workqueue");
  EXPECT_EQ(m.subsystem_of("gfs2_recover_journal").name, "gfs2");
  EXPECT_EQ(m.subsystem_of("de_thread").name, "vfs");  // fs/exec.c: fs/ is vfs
  // Renamed between the two trees: both names are known.
  EXPECT_EQ(m.subsystem_of("md_bitmap_daemon_work").name, "md");   // 6.1
  EXPECT_EQ(m.subsystem_of("bitmap_daemon_work").name, "md");      // 6.12
}

// syzkaller's pkg/report/testdata/linux/guilty/62 (6.1.0-rc8, arm64): mount waiting in
// wait_on_bit (inline in a decoded trace) for gfs2's journal recovery.
TEST(KernelMap, ABitWaitIsNamedByTheSubsystemOfItsCaller) {
  const WaitGroup g = classify_one({{"__switch_to"}, {"__schedule"}, {"schedule"}, {"bit_wait"},
                                    {"__wait_on_bit"}, {"out_of_line_wait_on_bit"},
                                    {"wait_on_bit"}, {"gfs2_recover_journal"}, {"init_journal"},
                                    {"init_inodes"}, {"gfs2_fill_super"}, {"get_tree_bdev"}});
  EXPECT_EQ(g.name, "gfs2:bit-wait:gfs2_recover_journal");
  EXPECT_EQ(g.subsystem, "gfs2");
  EXPECT_FALSE(g.unclassified);
  EXPECT_EQ(g.title, "gfs2: bit wait in gfs2_recover_journal");
}

// koverstreet/bcachefs issue 114 (5.7): bch_gc waiting on a wait queue in journal_quiesce,
// a module's function: its module tag names the subsystem. On /proc/<pid>/stack the same
// wait shows without its scheduler frames: the primitive is hidden, the caller the same.
TEST(KernelMap, AWaitQueueOfAModuleIsNamedByItsModuleEvenWithItsPrimitiveHidden) {
  const WaitGroup dump = classify_one({{"__schedule"}, {"schedule"},
                                       {"journal_quiesce", "bcachefs"}, {"bch2_gc", "bcachefs"},
                                       {"bch2_gc_thread", "bcachefs"}, {"kthread"},
                                       {"ret_from_fork"}});
  EXPECT_EQ(dump.name, "bcachefs:wait-event:journal_quiesce");
  const WaitGroup proc = classify_one({{"journal_quiesce", "bcachefs"}, {"bch2_gc", "bcachefs"},
                                       {"bch2_gc_thread", "bcachefs"}, {"kthread"},
                                       {"ret_from_fork"}});
  EXPECT_EQ(proc.name, "bcachefs:wait:journal_quiesce");
  EXPECT_EQ(proc.subsystem, "bcachefs");
  // A caller nobody knows, with its primitive hidden: nothing names the wait.
  const WaitGroup unknown = classify_one({{"mydrv_wait"}, {"mydrv_ioctl"}});
  EXPECT_EQ(unknown.name, "other:mydrv_wait");
  EXPECT_TRUE(unknown.unclassified);
  // Nor does a primitive with no caller above it (a stack a paste cut after schedule).
  EXPECT_EQ(classify_one({{"__schedule"}, {"schedule"}}).name, "other:(no stack)");
  // A system call's entry innermost names no wait either.
  EXPECT_TRUE(classify_one({{"do_syscall_64"}, {"entry_SYSCALL_64_after_hwframe"}}).unclassified);
}

// openzfs/zfs issue 15481 (6.5.9): find waiting in spl's condition variable under
// dmu_tx_wait: the wait queue's caller is cv_wait_common of the spl module.
TEST(KernelMap, TheRulesKeepTheirGroupsAndThePrimitiveItsCallerCalled) {
  EXPECT_EQ(classify_one({{"__schedule"}, {"schedule"}, {"cv_wait_common", "spl"},
                          {"dmu_tx_wait", "zfs"}, {"dmu_tx_assign", "zfs"}})
                .name,
            "spl:wait-event:cv_wait_common");
  // schedule_timeout under the caller, not the schedule under it.
  EXPECT_EQ(classify_one({{"__schedule"}, {"schedule"}, {"schedule_timeout"},
                          {"md_wait_for_blocked_rdev"}, {"raid10_write_request", "raid10"}})
                .name,
            "md:timed-wait:md_wait_for_blocked_rdev");
  // A rule that knows the wait keeps it: a mutex, jbd2's commit wait.
  EXPECT_EQ(classify_one({{"__schedule"}, {"schedule"}, {"schedule_preempt_disabled"},
                          {"__mutex_lock"}, {"md_ioctl"}})
                .name,
            "mutex:md_ioctl");
  EXPECT_EQ(classify_one({{"__schedule"}, {"schedule"}, {"jbd2_log_wait_commit"},
                          {"jbd2_complete_transaction"}, {"ext4_sync_file"}})
                .name.substr(0, 5),
            "jbd2:");
  // A running task in a lock's fast path waits for nothing: no map group.
  EXPECT_EQ(classify_one({{"_raw_read_lock"}, {"ext4_es_lookup_extent"}, {"ext4_map_blocks"}})
                .name,
            "other:ext4_es_lookup_extent");
}
