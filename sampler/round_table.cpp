#include "round_table.hpp"

#include "user_stack_coordinator.hpp"

namespace hangscope::sampler {

void RoundTable::start(uint32_t index, int64_t begin_ns) {
  index_ = index;
  begin_ns_ = begin_ns;
  tasks_.clear();
  counts_ = RoundCounts{};
}

void RoundTable::read(RoundTask& task, std::shared_ptr<TaskDetails> details,
                      std::function<void()> read) {
  std::function<void()> after = users_ ? users_->after_details(task, details) : nullptr;
  task.ticket = readers_.submit([read = std::move(read), after = std::move(after), d = details] {
    if (read) read();
    d->complete.store(true, std::memory_order_release);
    if (after) after();
  });
  if (!task.ticket) {
    task.why = "no reader thread left (all blocked)";
    task.user = UserStackPlan{};
    return;
  }
  task.details = std::move(details);
  task.fresh = true;
}

ReaderPool::Outcome RoundTable::outcome(const RoundTask& task) const {
  return task.ticket    ? readers_.outcome(task.ticket)
         : task.details ? ReaderPool::Outcome::done
                        : ReaderPool::Outcome::not_started;
}

bool details_read(ReaderPool::Outcome outcome, const RoundTask& task) {
  return outcome == ReaderPool::Outcome::done ||
         (outcome == ReaderPool::Outcome::timed_out && task.details &&
          task.details->complete.load(std::memory_order_acquire));
}

}  // namespace hangscope::sampler
