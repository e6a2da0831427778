#include "reader_pool.hpp"

#include <condition_variable>
#include <ctime>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "hangscope/system_info.hpp"

namespace hangscope::sampler {

struct ReaderPool::Job {
  std::function<void()> work;
  enum Phase { queued, running, done, dropped } phase = queued;
  bool abandoned = false;
  unsigned reader = 0;  // the reader running it
  std::shared_ptr<std::atomic<bool>> finished = std::make_shared<std::atomic<bool>>(false);
};

// Shared with the reader threads, which may outlive the pool.
struct ReaderPool::State {
  std::mutex mu;
  std::condition_variable work_cv, done_cv;
  std::deque<Ticket> queue;
  std::vector<Ticket> batch;  // submitted since the last wait()
  unsigned live = 0;          // readers not stuck
  unsigned stuck = 0;
  unsigned max_stuck = 0;
  unsigned threads = 0;
  uint64_t abandoned = 0;
  bool stopping = false;
  unsigned next_reader = 0;
  std::map<unsigned, std::thread> readers;  // the readers not stuck, joined at the end
};

namespace {

using State = ReaderPool::State;

void start_reader(const std::shared_ptr<State>& s);

void start_reader(const std::shared_ptr<State>& s) {
  ++s->live;
  unsigned id = s->next_reader++;
  s->readers[id] = std::thread([s, id] {
    std::unique_lock lock(s->mu);
    for (;;) {
      s->work_cv.wait(lock, [&] { return s->stopping || !s->queue.empty(); });
      if (s->stopping) return;
      ReaderPool::Ticket job = std::move(s->queue.front());
      s->queue.pop_front();
      job->phase = ReaderPool::Job::running;
      job->reader = id;
      lock.unlock();
      job->work();
      job->finished->store(true);
      lock.lock();
      job->phase = ReaderPool::Job::done;
      job->work = nullptr;  // release what it captured
      s->done_cv.notify_all();
      if (job->abandoned) {
        // This reader was given up for stuck and replaced: it ends here, and starts a
        // reader again if the limit on stuck readers had left the pool short of them.
        --s->stuck;
        if (!s->stopping && s->live < s->threads) start_reader(s);
        return;
      }
    }
  });
}

}  // namespace

ReaderPool::ReaderPool(unsigned threads, unsigned max_stuck) : state_(std::make_shared<State>()) {
  std::lock_guard lock(state_->mu);
  state_->threads = threads == 0 ? 1 : threads;
  state_->max_stuck = max_stuck;
  for (unsigned i = 0; i < state_->threads; ++i) start_reader(state_);
}

ReaderPool::~ReaderPool() {
  std::map<unsigned, std::thread> readers;
  {
    std::lock_guard lock(state_->mu);
    state_->stopping = true;
    state_->work_cv.notify_all();
    readers.swap(state_->readers);
  }
  for (auto& [id, t] : readers) t.join();
}

ReaderPool::Ticket ReaderPool::submit(std::function<void()> work) {
  std::lock_guard lock(state_->mu);
  if (state_->live == 0) return nullptr;
  auto job = std::make_shared<Job>();
  job->work = std::move(work);
  state_->queue.push_back(job);
  state_->batch.push_back(job);
  state_->work_cv.notify_one();
  return job;
}

void ReaderPool::wait(int64_t deadline_ns) {
  State& s = *state_;
  std::unique_lock lock(s.mu);
  auto all_done = [&] {
    for (const Ticket& j : s.batch)
      if (j->phase == Job::queued || j->phase == Job::running) return false;
    return true;
  };
  int64_t left = deadline_ns - monotonic_ns();
  if (left > 0) s.done_cv.wait_for(lock, std::chrono::nanoseconds(left), all_done);
  unsigned newly_stuck = 0;
  for (const Ticket& j : s.batch) {
    if (j->phase == Job::queued) {
      j->phase = Job::dropped;
      j->work = nullptr;
    } else if (j->phase == Job::running) {
      j->abandoned = true;
      ++newly_stuck;
      // Its reader cannot be joined any more: it ends by itself when the read returns.
      auto it = s.readers.find(j->reader);
      if (it != s.readers.end()) {
        it->second.detach();
        s.readers.erase(it);
      }
    }
  }
  if (newly_stuck) {
    std::erase_if(s.queue, [](const Ticket& j) { return j->phase == Job::dropped; });
    s.abandoned += newly_stuck;
    s.stuck += newly_stuck;
    s.live -= newly_stuck;
    while (s.live < s.threads && s.stuck + s.live < s.threads + s.max_stuck) start_reader(state_);
  } else {
    std::erase_if(s.queue, [](const Ticket& j) { return j->phase == Job::dropped; });
  }
  s.batch.clear();
}

ReaderPool::Outcome ReaderPool::outcome(const Ticket& t) const {
  std::lock_guard lock(state_->mu);
  switch (t->phase) {
    case Job::done:
      return t->abandoned ? Outcome::timed_out : Outcome::done;
    case Job::running:
      return Outcome::timed_out;
    default:
      return Outcome::not_started;
  }
}

std::shared_ptr<const std::atomic<bool>> ReaderPool::finished_flag(const Ticket& t) {
  return t->finished;
}

unsigned ReaderPool::stuck() const {
  std::lock_guard lock(state_->mu);
  return state_->stuck;
}

uint64_t ReaderPool::abandoned() const {
  std::lock_guard lock(state_->mu);
  return state_->abandoned;
}

}  // namespace hangscope::sampler
