#include "task_record.hpp"

#include "cgroups.hpp"
#include "syscalls.hpp"

namespace hangscope::sampler {

void build_task_record(const RoundTask& t, int64_t start_ns, bool stacks, TaskRecordText& out) {
  TaskRecord& rec = out.task;
  TaskContextRecord& ctx = out.context;
  rec = TaskRecord{};
  ctx = TaskContextRecord{};
  rec.context = &ctx;
  rec.pid = t.pid;
  rec.tid = t.tid;
  rec.state = t.state;
  rec.kernel_thread = t.kernel_thread;
  rec.comm = t.comm;
  rec.watched = t.watched;
  rec.fuse_daemon = t.fuse_daemon;
  rec.time_ns = t.seen_ns - start_ns;
  ctx.ppid = t.ppid;
  if (const TaskDetails* d = t.details.get()) {
    if (t.fresh) rec.time_ns = d->read_ns - start_ns;  // read this round (else reused)
    rec.stack_text = d->stack_error == 0 ? std::string_view(d->stack) : std::string_view();
    rec.no_stack = !stacks || d->stack_error != 0;
    if (!rec.stack_text.empty() && !d->user_frames.empty()) {
      out.stack.assign(rec.stack_text);
      out.stack += d->user_frames;
      rec.stack_text = out.stack;
    }
    rec.switches_known = d->switches_known;
    rec.voluntary_switches = d->voluntary;
    rec.involuntary_switches = d->involuntary;
    ctx.wchan = d->wchan;
    if (d->syscall.kind == SyscallState::blocked) {
      ctx.syscall_nr = d->syscall.nr;
      ctx.syscall_name = syscall_name(d->syscall.nr);
      ctx.syscall_args = d->syscall.args_text;
    }
    ctx.file = d->file;
    ctx.filesystem = d->location.fstype;
    ctx.device = d->location.device;
    ctx.unreadable = d->problem;
    if (!d->extra.empty()) ctx.extra = &d->extra;
    // The causes read with the details, by their keys in the context table.
    for (const auto& fact : d->facts)  // not a structured binding: captured below
      for_each_context_field(
          [&](std::string_view k, auto& field) {
            if constexpr (!kContextNumber<decltype(field)>)
              if (k == fact.first) field = fact.second;
          },
          ctx);
  } else {
    rec.no_stack = true;
    rec.switches_known = t.switches_known;
    rec.voluntary_switches = t.voluntary;
    rec.involuntary_switches = t.involuntary;
    ctx.wchan = t.wchan;
    ctx.unreadable = t.why;
  }
  out.container = container_of(t.cgroup);
  ctx.cgroup = t.cgroup;
  ctx.container = out.container;
}

}  // namespace hangscope::sampler
