// The real capture of `hangscope record --user-stacks` (fixtures/capture/
// user-stacks-blocker.capture; fixtures/README.md says how it was made): user frames
// arrive in the model after the kernel frames of each stack, with their module, and the
// folded output writes them first (root), then the kernel frames annotated _[k]. The
// round figures of the user stacks are read back.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"

using namespace hangscope;

namespace {

const std::string kFixture =
    std::string(HANGSCOPE_FIXTURES) + "/capture/user-stacks-blocker.capture";

Capture read_fixture() {
  Capture c;
  read_input(kFixture, "", c);
  return c;
}

// The stack of the first sample of the thread named `comm`, as "function (module)"
// texts for user frames and bare names for kernel frames, leaf first.
std::vector<std::string> stack_of(const Capture& c, std::string_view comm, char* state = nullptr) {
  std::vector<std::string> out;
  for (const TaskSample& s : c.samples) {
    if (c.strings().get(s.comm) != comm) continue;
    if (state) *state = s.state;
    for (FrameId f : c.stacks.stack(s.stack)) {
      std::string text(c.stacks.function(f));
      if (c.stacks.frame(f).kind == FrameKind::user)
        text = "u:" + text + " (" + std::string(c.stacks.module(f)) + ")";
      out.push_back(text);
    }
    break;
  }
  return out;
}

size_t index_of(const std::vector<std::string>& v, std::string_view text) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] == text) return i;
  return v.size();
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += "\n  " + x;
  return s;
}

}  // namespace

TEST(UserStacksFixture, HeaderAndRoundFiguresAreRead) {
  Capture c = read_fixture();
  ASSERT_EQ(c.sources.size(), 1u);
  EXPECT_EQ(c.sources[0].header.at("user_stacks"), "stop");
  ASSERT_EQ(c.rounds.size(), 10u);
  for (const Round& r : c.rounds) {
    EXPECT_EQ(r.process_stops, 1u) << r.index;  // one stop of the blocker per round
    EXPECT_GT(r.stop_pause_ns, 0) << r.index;
    EXPECT_LT(r.stop_pause_ns, 37'500'000) << r.index;  // within the budget it recorded
    EXPECT_GE(r.user_complete, 4u) << r.index;
    EXPECT_FALSE(r.late) << r.index;
  }
}

TEST(UserStacksFixture, UserFramesFollowTheKernelFramesWithTheirModules) {
  Capture c = read_fixture();
  // Every stack: kernel frames first (innermost), then user frames, never mixed.
  for (const TaskSample& s : c.samples) {
    bool user = false;
    size_t users = 0;
    for (FrameId f : c.stacks.stack(s.stack)) {
      const bool is_user = c.stacks.frame(f).kind == FrameKind::user;
      EXPECT_FALSE(user && !is_user) << "a kernel frame after a user frame";
      user = user || is_user;
      users += is_user;
    }
    EXPECT_GE(users, 3u) << c.strings().get(s.comm);
  }

  // The mutex waiter: the futex wait in the kernel, under pthread_mutex_lock called from
  // wait_on_mutex_in_foo, down from start_thread.
  std::vector<std::string> mutex = stack_of(c, "mutex-waiter");
  ASSERT_FALSE(mutex.empty());
  EXPECT_EQ(mutex.front(), "futex_do_wait") << joined(mutex);
  const size_t lock = index_of(mutex, "u:pthread_mutex_lock (libc.so.6)");
  const size_t caller = index_of(mutex, "u:wait_on_mutex_in_foo (hangscope-blocker)");
  ASSERT_LT(lock, mutex.size()) << joined(mutex);
  EXPECT_EQ(caller, lock + 1) << joined(mutex);
  EXPECT_LT(index_of(mutex, "__x64_sys_futex"), lock);
  EXPECT_EQ(mutex.back(), "u:clone3 (libc.so.6)") << joined(mutex);

  // The condition variable and the pipe read, through the same stop.
  std::vector<std::string> cond = stack_of(c, "cond-waiter");
  EXPECT_LT(index_of(cond, "u:wait_on_cond_in_baz (hangscope-blocker)"), cond.size())
      << joined(cond);
  std::vector<std::string> holder = stack_of(c, "holder");
  EXPECT_EQ(index_of(holder, "u:hold_mutex_in_bar (hangscope-blocker)"),
            index_of(holder, "u:read (libc.so.6)") + 1)
      << joined(holder);

  // The two tasks in D, read without stopping them.
  char state = '?';
  std::vector<std::string> fuse = stack_of(c, "fuse-reader", &state);
  EXPECT_EQ(state, 'D');
  EXPECT_EQ(fuse.front(), "request_wait_answer") << joined(fuse);
  EXPECT_LT(index_of(fuse, "u:read_fuse_in_quux (hangscope-blocker)"), fuse.size()) << joined(fuse);
  std::set<std::string> fsync_leaves;
  for (const TaskSample& s : c.samples) {
    if (c.strings().get(s.comm) != "fsync") continue;
    EXPECT_EQ(s.state, 'D');
    auto frames = c.stacks.stack(s.stack);
    size_t user = 0;
    while (user < frames.size() && c.stacks.frame(frames[user]).kind != FrameKind::user) ++user;
    ASSERT_LT(user + 1, frames.size());
    fsync_leaves.insert(std::string(c.stacks.function(frames[user])));
    EXPECT_EQ(c.stacks.function(frames[user + 1]), "fsync_in_qux");
  }
  EXPECT_TRUE(fsync_leaves.count("fsync")) << "no sample in fsync itself";
}

TEST(UserStacksFixture, FoldedWritesUserFramesFirstThenAnnotatedKernelFrames) {
  Capture c = read_fixture();
  Analysis a = analyze(c);
  const std::string folded = find_renderer("folded")->render(Report{c, a}, RenderOptions{});
  std::map<std::string, uint64_t> lines;
  std::istringstream in(folded);
  for (std::string line; std::getline(in, line);) {
    size_t sp = line.rfind(' ');
    ASSERT_NE(sp, std::string::npos) << line;
    lines[line.substr(0, sp)] += std::stoull(line.substr(sp + 1));
  }
  const std::string mutex =
      "clone3;start_thread;(anonymous namespace)::run_thread(void*);wait_on_mutex_in_foo;"
      "pthread_mutex_lock;__lll_lock_wait;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];"
      "__x64_sys_futex_[k];do_futex_[k];futex_wait_[k];__futex_wait_[k];futex_do_wait_[k]";
  EXPECT_EQ(lines[mutex], 10u) << folded;
  const std::string fuse =
      "clone3;start_thread;(anonymous namespace)::run_thread(void*);"
      "(anonymous namespace)::run_fuse();read_fuse_in_quux;read;"
      "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];ksys_read_[k];vfs_read_[k];"
      "fuse_file_read_iter_[k];fuse_direct_io_[k];__fuse_simple_request_[k];"
      "request_wait_answer_[k]";
  EXPECT_EQ(lines[fuse], 10u) << folded;
  // Every line: user frames from the root, then only annotated kernel frames.
  for (const auto& [stack, n] : lines) {
    size_t first_k = stack.find("_[k]");
    ASSERT_NE(first_k, std::string::npos) << stack;
    size_t frame_start = stack.rfind(';', first_k);
    ASSERT_NE(frame_start, std::string::npos) << "no user frame before the kernel: " << stack;
    std::string kernel = stack.substr(frame_start + 1) + ";";
    for (size_t at = 0; at < kernel.size();) {
      size_t semi = kernel.find(';', at);
      EXPECT_TRUE(kernel.substr(at, semi - at).ends_with("_[k]")) << stack;
      at = semi + 1;
    }
  }
}

TEST(UserStacksFixture, TextReportShowsUserFramesApartWithTheirModule) {
  Capture c = read_fixture();
  Analysis a = analyze(c);
  const std::string text = find_renderer("text")->render(Report{c, a}, RenderOptions{});
  const size_t futex = text.find("      futex_do_wait\n");
  ASSERT_NE(futex, std::string::npos) << text;
  const size_t apart = text.find("      -- user --\n", futex);
  const size_t caller = text.find("      wait_on_mutex_in_foo (hangscope-blocker)\n", futex);
  ASSERT_NE(apart, std::string::npos) << text;
  ASSERT_NE(caller, std::string::npos) << text;
  EXPECT_LT(apart, caller);
}
