#include "hangscope/round_window.hpp"

#include "hangscope/frame_text.hpp"
#include "hangscope/wait_channel_stack.hpp"

namespace hangscope {

namespace {

// Bytes of the records and tables, from their element sizes (the deques' blocks and the
// hash tables' slots are counted at their size, not their capacity).
constexpr size_t kTaskBytes = sizeof(WindowTask);
constexpr size_t kRoundBytes = sizeof(WindowRound);
constexpr size_t kContextBytes = sizeof(WindowContext) + sizeof(uint32_t) + 16;

}  // namespace

RoundWindow::RoundWindow(WindowOptions options) : opt_(options) {
  contexts_.emplace_back();  // context 0: nothing known
  context_index_.emplace(WindowContext{}, 0);
}

void RoundWindow::header(const CaptureHeader& h) { header_ = h; }

void RoundWindow::begin_round(uint32_t index, int64_t time_ns, bool late) {
  open_ = WindowRound{};
  open_.index = index;
  open_.time_ns = time_ns;
  open_.late = late;
  open_.first_task = first_seq_ + tasks_.size();
  in_round_ = true;
}

StrId RoundWindow::intern_stack_text(std::string_view text, StackId& parsed) {
  StrId id = stacks_.strings().intern(text);
  auto [it, added] = parsed_.try_emplace(id, 0);
  if (added) it->second = hangscope::intern_stack_text(stacks_, text, frames_);
  parsed = it->second;
  return id;
}

uint32_t RoundWindow::intern_context(WindowContext c) {
  auto [it, added] = context_index_.try_emplace(c, static_cast<uint32_t>(contexts_.size()));
  if (added) contexts_.push_back(std::move(c));
  return it->second;
}

void RoundWindow::task(const TaskRecord& t) {
  if (!in_round_) return;
  StringTable& s = stacks_.strings();
  WindowTask w;
  w.time_ns = t.time_ns;
  w.pid = t.pid;
  w.tid = t.tid;
  w.comm = s.intern(t.comm);
  w.state = t.state;
  if (t.kernel_thread) w.flags |= kWindowKernelThread;
  if (t.watched) w.flags |= kWindowWatched;
  if (t.no_stack) w.flags |= kWindowNoStack;
  if (t.switches_known) {
    w.flags |= kWindowSwitches;
    w.voluntary_switches = t.voluntary_switches;
    w.involuntary_switches = t.involuntary_switches;
  }
  if (!t.stack_text.empty()) w.stack_text = intern_stack_text(t.stack_text, w.stack);
  if (const TaskContextRecord* r = t.context; r && !r->empty()) {
    WindowContext c;
    copy_context_fields(c, *r, [&](std::string_view text) { return s.intern(text); });
    if (r->extra)
      for (const auto& [k, v] : *r->extra) c.extra.emplace_back(s.intern(k), s.intern(v));
    // Recorded without its stack: classified by its wait channel, as the report is.
    if (w.stack == 0 && c.wchan != 0) w.stack = wait_channel_stack(stacks_, s.get(c.wchan));
    w.context = intern_context(std::move(c));
  }
  tasks_.push_back(w);
  ++open_.task_count;
}

void RoundWindow::end_round(uint32_t index, const RoundFigures& figures) {
  if (!in_round_ || index != open_.index) return;
  in_round_ = false;
  open_.figures = figures;
  rounds_.push_back(open_);
  evict(open_.time_ns);
  maybe_compact();
}

void RoundWindow::finish(uint64_t, int64_t, const Counters&, const TextFields&) {
  // A round cut short by the end of the recording is not kept.
  if (in_round_) {
    while (tasks_.size() > open_.first_task - first_seq_) tasks_.pop_back();
    in_round_ = false;
  }
}

std::pair<std::deque<WindowTask>::const_iterator, std::deque<WindowTask>::const_iterator>
RoundWindow::tasks(const WindowRound& r) const {
  auto begin = tasks_.begin() + static_cast<std::ptrdiff_t>(r.first_task - first_seq_);
  return {begin, begin + r.task_count};
}

void RoundWindow::drop_oldest() {
  const WindowRound& r = rounds_.front();
  for (uint32_t i = 0; i < r.task_count; ++i) tasks_.pop_front();
  first_seq_ += r.task_count;
  rounds_.pop_front();
}

void RoundWindow::evict(int64_t newest_ns) {
  while (rounds_.size() > 1 && rounds_.front().time_ns < newest_ns - opt_.span_ns) drop_oldest();
  while (rounds_.size() > 1 && tasks_.size() > opt_.max_tasks) drop_oldest();
}

// The intern tables only grow: a machine whose tasks come and go (new pids in paths,
// new cgroups) would fill them without end. Once they hold twice what the window still
// uses, and more than the slack, they are rebuilt from the window's tasks.
void RoundWindow::maybe_compact() {
  const size_t entries = stacks_.strings().size() + contexts_.size() + stacks_.stack_count();
  if (entries < 2 * live_after_compaction_ + opt_.compact_slack) return;

  RoundWindow fresh(opt_);
  fresh.header_ = header_;
  const StringTable& old = stacks_.strings();
  StringTable& s = fresh.stacks_.strings();
  absl::flat_hash_map<uint32_t, uint32_t> context_map{{0, 0}};
  absl::flat_hash_map<StackId, StackId> wchan_stacks;  // stackless tasks' one-frame stacks
  for (WindowTask& t : tasks_) {
    t.comm = s.intern(old.get(t.comm));
    if (t.stack_text) {
      t.stack_text = fresh.intern_stack_text(old.get(t.stack_text), t.stack);
    } else if (t.stack) {
      auto [it, added] = wchan_stacks.try_emplace(t.stack, 0);
      if (added)
        it->second = wait_channel_stack(fresh.stacks_, old.get(contexts_[t.context].wchan));
      t.stack = it->second;
    }
    auto [cit, cadded] = context_map.try_emplace(t.context, 0);
    if (cadded) {
      WindowContext c = contexts_[t.context];
      copy_context_fields(c, contexts_[t.context], [&](StrId id) { return s.intern(old.get(id)); });
      for (auto& [k, v] : c.extra) {
        k = s.intern(old.get(k));
        v = s.intern(old.get(v));
      }
      cit->second = fresh.intern_context(std::move(c));
    }
    t.context = cit->second;
  }
  stacks_ = std::move(fresh.stacks_);
  parsed_ = std::move(fresh.parsed_);
  contexts_ = std::move(fresh.contexts_);
  context_index_ = std::move(fresh.context_index_);
  live_after_compaction_ = stacks_.strings().size() + contexts_.size() + stacks_.stack_count();
  ++generation_;
}

size_t RoundWindow::memory_bytes() const {
  size_t string_bytes = 0;
  const StringTable& s = stacks_.strings();
  for (size_t i = 0; i < s.size(); ++i) string_bytes += s.get(static_cast<StrId>(i)).size() + 32;
  size_t frame_bytes = stacks_.frame_count() * (sizeof(Frame) + 24);
  size_t stack_bytes = 0;
  for (size_t i = 0; i < stacks_.stack_count(); ++i)
    stack_bytes += stacks_.stack(static_cast<StackId>(i)).size() * sizeof(FrameId) + 32;
  return tasks_.size() * kTaskBytes + rounds_.size() * kRoundBytes +
         contexts_.size() * kContextBytes + parsed_.size() * 16 + string_bytes + frame_bytes +
         stack_bytes;
}

}  // namespace hangscope
