// The deadline of the sampler's reads, with reads that block for real (a pipe that
// nobody writes to): the round goes on, stuck readers are replaced up to a bound, and
// come back once their read returns.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <vector>

#include "reader_pool.hpp"
#include "scan_thread.hpp"

using namespace hangscope::sampler;

namespace {

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

struct Pipe {
  int fds[2];
  Pipe() { EXPECT_EQ(pipe(fds), 0); }
  ~Pipe() {
    close(fds[0]);
    close(fds[1]);
  }
  void release() { EXPECT_EQ(write(fds[1], "x", 1), 1); }
};

}  // namespace

TEST(SamplerReaderPool, BlockedReadIsAbandonedAndTheRoundGoesOn) {
  ReaderPool pool(2, 2);
  Pipe p;
  auto done = std::make_shared<std::atomic<int>>(0);
  int fd = p.fds[0];
  auto blocked = pool.submit([fd] {
    char c;
    (void)!read(fd, &c, 1);
  });
  std::vector<ReaderPool::Ticket> quick;
  for (int i = 0; i < 4; ++i) quick.push_back(pool.submit([done] { ++*done; }));
  pool.wait(now_ns() + 100'000'000);
  EXPECT_EQ(pool.outcome(blocked), ReaderPool::Outcome::timed_out);
  for (auto& t : quick) EXPECT_EQ(pool.outcome(t), ReaderPool::Outcome::done);
  EXPECT_EQ(*done, 4);
  EXPECT_EQ(pool.stuck(), 1u);
  EXPECT_EQ(pool.abandoned(), 1u);
  auto finished = ReaderPool::finished_flag(blocked);
  EXPECT_FALSE(finished->load());

  // The next round still has two readers.
  auto a = pool.submit([done] { ++*done; });
  auto b = pool.submit([done] { ++*done; });
  pool.wait(now_ns() + 1'000'000'000);
  EXPECT_EQ(pool.outcome(a), ReaderPool::Outcome::done);
  EXPECT_EQ(pool.outcome(b), ReaderPool::Outcome::done);

  // When the read returns at last, its reader ends and is no longer counted as stuck.
  p.release();
  for (int i = 0; i < 200 && !finished->load(); ++i) usleep(5'000);
  EXPECT_TRUE(finished->load());
  for (int i = 0; i < 200 && pool.stuck() != 0; ++i) usleep(5'000);
  EXPECT_EQ(pool.stuck(), 0u);
}

TEST(SamplerReaderPool, StuckReadersAreBounded) {
  ReaderPool pool(1, 2);
  Pipe p;
  int fd = p.fds[0];
  auto block = [fd] {
    char c;
    (void)!read(fd, &c, 1);
  };
  // Three blocking reads, one per round: one reader plus two replacements get stuck.
  for (int round = 0; round < 3; ++round) {
    auto t = pool.submit(block);
    ASSERT_NE(t, nullptr) << round;
    pool.wait(now_ns() + 20'000'000);
  }
  EXPECT_EQ(pool.stuck(), 3u);
  EXPECT_EQ(pool.submit([] {}), nullptr) << "no reader may be started beyond the bound";
  // The reads return: a reader is started again.
  for (int i = 0; i < 3; ++i) p.release();
  bool back = false;
  for (int i = 0; i < 400 && !back; ++i) {
    auto t = pool.submit([] {});
    if (t) {
      pool.wait(now_ns() + 1'000'000'000);
      back = pool.outcome(t) == ReaderPool::Outcome::done;
    } else {
      usleep(5'000);
    }
  }
  EXPECT_TRUE(back);
  // Every read has returned before the pipe is closed: closing a descriptor that another
  // thread is still reading is a race (ThreadSanitizer reports it).
  for (int i = 0; i < 400 && pool.stuck() != 0; ++i) usleep(5'000);
  EXPECT_EQ(pool.stuck(), 0u);
}

TEST(SamplerScanThread, ScanGoesOnPastABlockedRead) {
  ScanThread scan(4);
  Pipe p;
  std::vector<int> visited;
  ScanThread::Body body = [&](size_t i, ScanThread::Guard& g) {
    std::string_view text;
    if (i == 2) g.pread(p.fds[0], text);  // a pipe: pread fails at once (ESPIPE)
    if (i == 3) {
      // A read that blocks: through the guard, like every /proc read of the scan.
      g.read_file("/proc/self/fd/" + std::to_string(p.fds[0]), text);
    }
    visited.push_back(static_cast<int>(i));
  };
  size_t at = scan.run(0, 6, body, 30'000'000);
  EXPECT_EQ(at, 3u);
  EXPECT_EQ(visited, (std::vector<int>{0, 1, 2}));
  auto flag = scan.stuck_flag();
  ASSERT_TRUE(flag);
  EXPECT_FALSE(flag->load());
  EXPECT_EQ(scan.abandoned(), 1u);
  // The caller goes on after the blocked index, on a fresh thread.
  EXPECT_EQ(scan.run(4, 6, body, 30'000'000), 6u);
  EXPECT_EQ(visited, (std::vector<int>{0, 1, 2, 4, 5}));
  p.release();
  for (int i = 0; i < 200 && !flag->load(); ++i) usleep(5'000);
  EXPECT_TRUE(flag->load());
  EXPECT_EQ(visited.size(), 5u) << "the abandoned scan must not go on once its read returns";
}
