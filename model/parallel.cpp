#include "hangscope/parallel.hpp"

#include <sched.h>

#include <atomic>
#include <exception>
#include <thread>
#include <vector>

#include "workers.hpp"

namespace hangscope {

unsigned thread_count(unsigned asked) {
  if (asked > 0) return asked;
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

void run_parts(size_t parts, const std::function<void(size_t)>& part) {
  std::vector<std::exception_ptr> failed(parts);
  const std::function<void(size_t)> run = [&](size_t i) {
    try {
      part(i);
    } catch (...) {
      failed[i] = std::current_exception();
    }
  };
  if (parts == 1) run(0);
  if (parts > 1) run_on_workers(parts, run);
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
}

void run_tasks(size_t tasks, unsigned threads, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  run_parts(std::min<size_t>(std::max(threads, 1u), tasks), [&](size_t) {
    for (size_t i; (i = next.fetch_add(1)) < tasks;) {
      try {
        task(i);
      } catch (...) {
        next = tasks;  // nothing more is taken
        throw;
      }
    }
  });
}

}  // namespace hangscope
