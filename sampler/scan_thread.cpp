#include "scan_thread.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <thread>

#include "hangscope/system_info.hpp"

namespace hangscope::sampler {

namespace {

struct Abandoned {};  // unwinds an abandoned scan thread

enum Phase : int { kWorking = 0, kInRead = 1, kAbandoned = 2 };

}  // namespace

// Shared by the sampling loop and one scan thread; outlives both.
struct ScanThread::Control {
  std::mutex mu;
  std::condition_variable cv;
  // The job: set by run(), taken by the thread.
  const Body* body = nullptr;
  size_t next = 0, end = 0;
  bool has_job = false, job_done = false, quit = false;
  // The read in progress, watched by run(): `reads` counts the reads begun, so that the
  // loop tells one read that lasts from one that follows another without the scan
  // thread reading the clock (a read costs about 2 µs; every cost counts).
  std::atomic<int> phase{kWorking};
  std::atomic<uint64_t> reads{0};
  std::atomic<size_t> at{0};
  std::shared_ptr<std::atomic<bool>> returned = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<unsigned>> stuck;
  std::string buf;
};

void ScanThread::Guard::enter() {
  // Only this thread writes `reads`; the release store of the phase publishes it (and
  // `at`) to the loop, which reads them after it has seen kInRead.
  c_.reads.store(c_.reads.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  c_.phase.store(kInRead, std::memory_order_release);
}

void ScanThread::Guard::leave() {
  int expected = kInRead;
  if (!c_.phase.compare_exchange_strong(expected, kWorking)) {
    // The loop gave this read up and went on without this thread.
    c_.returned->store(true);
    throw Abandoned{};
  }
}

int ScanThread::Guard::pread(int fd, std::string_view& out) {
  c_.buf.resize(1024);
  enter();
  ssize_t n = ::pread(fd, c_.buf.data(), c_.buf.size(), 0);
  int err = n < 0 ? errno : 0;
  leave();
  out = n < 0 ? std::string_view() : std::string_view(c_.buf.data(), static_cast<size_t>(n));
  return err;
}

int ScanThread::Guard::read_file(const std::string& path, std::string_view& out) {
  c_.buf.resize(4096);
  enter();
  int err = 0;
  ssize_t n = -1;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    err = errno;
  } else {
    n = ::read(fd, c_.buf.data(), c_.buf.size());
    if (n < 0) err = errno;
    ::close(fd);
  }
  leave();
  out = n < 0 ? std::string_view() : std::string_view(c_.buf.data(), static_cast<size_t>(n));
  return err;
}

ScanThread::ScanThread(unsigned max_stuck)
    : max_stuck_(max_stuck), stuck_(std::make_shared<std::atomic<unsigned>>(0)) {
  start();
}

ScanThread::~ScanThread() {
  if (!c_) return;
  {
    std::lock_guard lock(c_->mu);
    c_->quit = true;
  }
  c_->cv.notify_all();
  // The current thread is idle (run() returned): it exits at once. Detached, so that the
  // destructor never waits on the kernel.
}

bool ScanThread::available() const { return c_ != nullptr || *stuck_ < max_stuck_; }

void ScanThread::start() {
  c_ = std::make_shared<Control>();
  c_->stuck = stuck_;
  std::thread([c = c_] {
    std::unique_lock lock(c->mu);
    for (;;) {
      c->cv.wait(lock, [&] { return c->quit || c->has_job; });
      if (c->quit) return;
      c->has_job = false;
      lock.unlock();
      try {
        Guard guard(*c);
        for (size_t i = c->next; i < c->end; ++i) {
          c->at.store(i, std::memory_order_relaxed);
          (*c->body)(i, guard);
        }
      } catch (const Abandoned&) {
        --*c->stuck;
        return;  // touch nothing: the loop has moved on
      }
      lock.lock();
      c->job_done = true;
      c->cv.notify_all();
    }
  }).detach();
}

size_t ScanThread::run(size_t begin, size_t end, const Body& body, int64_t stall_ns) {
  if (!c_ && *stuck_ < max_stuck_) start();  // a stuck read returned since: room again
  if (!c_ || begin >= end) return end;
  Control& c = *c_;
  {
    std::lock_guard lock(c.mu);
    c.body = &body;
    c.next = begin;
    c.end = end;
    c.job_done = false;
    c.has_job = true;
  }
  c.cv.notify_all();
  std::unique_lock lock(c.mu);
  // A read is given up once it has been seen in progress for stall_ns: between stall_ns
  // and stall_ns and a slice after it began.
  const auto slice = std::chrono::nanoseconds(std::max<int64_t>(stall_ns / 8, 1'000'000));
  uint64_t seen_read = 0;  // the read seen in progress at the last look (0: none)
  int64_t seen_since = 0;
  for (;;) {
    if (c.cv.wait_for(lock, slice, [&] { return c.job_done; })) return end;
    if (c.phase.load(std::memory_order_acquire) != kInRead) {
      seen_read = 0;
      continue;
    }
    const uint64_t read = c.reads.load(std::memory_order_relaxed);
    const int64_t now = monotonic_ns();
    if (read != seen_read) {
      seen_read = read;
      seen_since = now;
      continue;
    }
    if (now - seen_since < stall_ns) continue;
    int expected = kInRead;
    if (!c.phase.compare_exchange_strong(expected, kAbandoned)) continue;  // it just returned
    // Blocked in a read: leave the thread there and go on with a fresh one.
    size_t at = c.at.load();
    last_stuck_ = c.returned;
    ++abandoned_;
    ++*stuck_;
    lock.unlock();
    c_.reset();
    if (*stuck_ < max_stuck_) start();
    return at;
  }
}

}  // namespace hangscope::sampler
