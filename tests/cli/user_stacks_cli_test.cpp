// The command line on the real --user-stacks capture (fixtures/capture/
// user-stacks-blocker.capture): folded output with user frames from the root and kernel
// frames annotated _[k], and the text report with the user frames apart.
#include <gtest/gtest.h>

#include <string>

#include "support/run.hpp"

using namespace hangscope::testing;

namespace {
const std::string kCapture =
    std::string(HANGSCOPE_FIXTURES) + "/capture/user-stacks-blocker.capture";
}

TEST(UserStacksCli, FoldedAndTextShowTheUserFrames) {
  RunResult folded = run({HANGSCOPE_BIN, "report", "-f", "folded", kCapture});
  ASSERT_EQ(folded.status, 0) << folded.err;
  EXPECT_NE(folded.out.find("\nclone3;start_thread;(anonymous namespace)::run_thread(void*);"
                            "wait_on_cond_in_baz;pthread_cond_wait;__futex_abstimed_wait_common;"
                            "entry_SYSCALL_64_after_hwframe_[k];"),
            std::string::npos)
      << folded.out;
  EXPECT_NE(folded.out.find("(anonymous namespace)::run_fsync();fsync_in_qux;fsync;"
                            "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];"
                            "__x64_sys_fsync_[k];do_fsync_[k];ovl_fsync_[k];ext4_sync_file_[k];"),
            std::string::npos)
      << folded.out;

  RunResult text = run({HANGSCOPE_BIN, "report", kCapture});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("      -- user --\n      read (libc.so.6)\n"
                          "      read_fuse_in_quux (hangscope-blocker)\n"),
            std::string::npos)
      << text.out;
}
