// SPDX-License-Identifier: GPL-2.0
/* The BPF task iterator of the sampler (bpf_source.cpp): one pass over the tasks of the
 * kernel, in the kernel, in one of three ways. `sample_all` (Linux 6.7 on) is run once per
 * pass and walks the task list itself with the open-coded task iterator, under RCU,
 * writing to a ring buffer: the per-task cost of `sample_tasks` (the iter/task program
 * the kernel calls once per task) is mostly the seq_file iterator's own lookup of each
 * task by pid and its reference count, which this walk does not pay. `sample_set` walks
 * only the blocked set: the tasks `note_sleep` saw go to sleep in a kept state at their
 * switch (sched_switch), which a walk of every task (a census, at the first pass and
 * once per --s-interval) fills too; what is left of a walk over thousands of sleepers is
 * the walk itself, a cache miss per task, which the set does not pay between censuses.
 * Each keeps the tasks in the selected states, the sleeping (S) tasks whose innermost
 * function outside the scheduler is a wait function of the S-wait watch, and the
 * threads of the FUSE daemons it is given, and writes for each a record
 * (task_iter_record.h) with its kernel stack. A stack is taken again only when the task
 * has been switched since its stack of the last pass: a task that has not run has the
 * same stack (as xcapture v3 does). */
#include "kernel_types.h"

#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "task_iter_record.h"

char LICENSE[] SEC("license") = "GPL";

/* Set before load (bpf_source.cpp). */
const volatile __u32 state_mask = 0;        /* bit i: state HS_STATE_LETTERS[i] is kept */
const volatile __u32 n_pids = 0;           /* 0: every process */
const volatile __u32 pids[HS_MAX_PIDS] = {}; /* else only these thread groups (-p) */
const volatile __u32 n_waits = 0;           /* 0: no S-wait watch */
const volatile struct hs_range waits[HS_MAX_WAITS] = {};
const volatile struct hs_range sched_text = {}; /* __sched_text_start.._end */
const volatile struct hs_range lock_text = {};  /* __lock_text_start.._end */
const volatile __u32 use_blocked_set = 0;      /* note_sleep and sample_set are loaded */

/* Set by user space before each pass. */
__u64 pass = 0;
/* Whether this pass looks at every sleeping task for the S-wait watch (once per
 * --s-interval), or only at those found in a listed wait at the last pass (followed). */
__u32 s_scan = 0;
__u32 n_followed = 0;
__u32 followed[HS_MAX_FOLLOWED] = {};
/* Whether `followed` holds every task found in a listed wait at the last pass (it has
 * room for HS_MAX_FOLLOWED). Only then may an S scan pass over the tasks that have not
 * run since the scan before: they sleep where that scan found them, outside the
 * listed waits, or they would be followed. */
__u32 followed_all = 0;
/* The scheduler clock (rq_clock, what sched_info.last_arrival is in) at this S scan and
 * at the one before, read from the reading thread's own last arrival on its CPU (a
 * little before the scan, which only makes the test below the safer); the pass that
 * read them, so that a pass read again (ring overflow) keeps them. */
__u64 s_scan_pass = 0, s_scan_clock = 0, prev_s_scan_clock = 0;
/* The FUSE daemons of mounts with waiters (RoundTable::fuse_daemons), by tgid: their
 * threads are kept whatever their state and -p. */
__u32 n_daemons = 0;
__u32 daemons[HS_MAX_DAEMONS] = {};
/* Whether this pass walks every task (sample_all or sample_tasks): kept tasks it finds
 * go into the blocked set, which then holds those asleep since before note_sleep. */
__u32 census = 0;
/* note_sleep found the blocked set full: the next pass is a census (bpf_source.cpp). */
__u32 set_overflowed = 0;
/* What the pass walked (the iterator runs on one CPU, in the reader's read). */
__u32 tasks_walked = 0, tasks_running = 0, tasks_uninterruptible = 0;
/* Records sample_all could not write for want of room in the ring buffer this pass. */
__u32 records_lost = 0;

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4 << 20); /* set before load (task_iter_program.cpp) */
} records SEC(".maps");

extern int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task,
                             unsigned int flags) __ksym __weak;
extern struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __ksym __weak;
extern void bpf_iter_task_destroy(struct bpf_iter_task *it) __ksym __weak;
extern struct task_struct *bpf_task_from_pid(__s32 pid) __ksym __weak;
extern void bpf_task_release(struct task_struct *p) __ksym __weak;

/* The blocked set: tids of tasks that went to sleep in a kept state (the value is
 * unused). A task leaves it when a pass finds it awake, gone or not selected. Its size is
 * set before load (task_iter_program.cpp). */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u8);
} blocked SEC(".maps");

/* Puts `tid` into the blocked set: 0, or the map's error (-EEXIST: it is there). */
static __always_inline long remember_blocked(__u32 tid) {
  __u8 one = 1;
  return bpf_map_update_elem(&blocked, &tid, &one, BPF_NOEXIST);
}

/* What the last passes saw of a task, freed with the task. */
struct seen {
  __u64 stack_switches; /* switch count when its stack was last written */
  __u64 stack_pass;     /* the pass that wrote it (0: none) */
  __u64 watch_switches; /* switch count when its watch was last decided */
  __u32 watch;          /* that decision (as hs_task_record.watch) */
  __u32 watch_known;
};

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct seen);
} seen_tasks SEC(".maps");

struct scratch {
  struct hs_task_record rec;
  __u64 ips[HS_MAX_FRAMES];
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct scratch);
} scratch_space SEC(".maps");

#define TASK_REPORT 0x7f
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_IDLE 0x402 /* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define TASK_RTLOCK_WAIT 0x1000
#define TASK_FROZEN 0x8000
#define TASK_REPORT_IDLE 0x80

/* The index of the state /proc prints (__task_state_index of include/linux/sched.h) of
 * the raw state `raw`, whose reported bits are `s`. */
static __always_inline __u8 index_of(unsigned int raw, unsigned int s) {
  if ((raw & TASK_IDLE) == TASK_IDLE) s = TASK_REPORT_IDLE;
  if ((raw & TASK_RTLOCK_WAIT) || (raw & TASK_FROZEN)) s = TASK_UNINTERRUPTIBLE;
  __u8 i = 0;
  while (s && i < 9) {  /* fls */
    s >>= 1;
    ++i;
  }
  return i;
}

static __always_inline __u8 state_index(struct task_struct *t) {
  unsigned int raw;
  if (bpf_core_field_exists(t->__state))
    raw = t->__state;
  else
    raw = (unsigned int)((struct task_struct___pre514 *)t)->state;
  /* /proc ORs in exit_state, on a cache line of its own: read only where the state says
   * running, which is what __state holds (TASK_DEAD, outside TASK_REPORT) once a task has
   * exited; a sleeping task then costs the walk one cache line less. */
  unsigned int s = raw & TASK_REPORT;
  if (!s) s = (unsigned int)t->exit_state & TASK_REPORT;
  return index_of(raw, s);
}

static __always_inline int state_kept(__u8 state) { return (state_mask >> state) & 1; }

static __always_inline int in_range(__u64 ip, __u64 start, __u64 end) {
  return ip >= start && ip < end;
}

/* Frames unwound to decide a sleeping task's watch. A blocked task's stack starts past
 * the switch (__schedule and schedule are not in it), so its innermost frame outside
 * the scheduler and locking code is the first or, behind schedule_timeout or a lock's
 * slow path, the second; an unwind costs by the frame, so a task that woke since the
 * last look is not unwound whole to learn that it waits elsewhere. */
#define WATCH_PROBE_FRAMES 2
#define WATCH_UNDECIDED 0xff

/* 1 + the index of the wait function that is the task's innermost frame outside the
 * scheduler and locking code (what /proc/<pid>/wchan names), 0 if that frame is no
 * listed wait, or WATCH_UNDECIDED if the `frames` given hold no such frame and were cut
 * at `limit`. */
static __always_inline __u32 watched_wait(const __u64 *ips, long frames, long limit) {
  for (int i = 0; i < HS_MAX_FRAMES; ++i) {
    if (i >= frames) return frames >= limit ? WATCH_UNDECIDED : 0;
    __u64 ip = ips[i];
    if (in_range(ip, sched_text.start, sched_text.end) ||
        in_range(ip, lock_text.start, lock_text.end))
      continue;
    for (__u32 j = 0; j < HS_MAX_WAITS; ++j) {
      if (j >= n_waits) return 0;
      if (in_range(ip, waits[j].start, waits[j].end)) return j + 1;
    }
    return 0;
  }
  return 0;
}

/* Clocks of two CPUs may differ by about a tick where the TSC is not stable. */
#define CLOCK_SKEW_NS (10 * 1000 * 1000ULL)

/* Called on an S scan's first look: moves the clock of the last scan to prev. */
static __always_inline void start_s_scan(void) {
  if (s_scan_pass == pass) return;
  s_scan_pass = pass;
  prev_s_scan_clock = s_scan_clock;
  s_scan_clock = 0;
  if (bpf_core_field_exists(((struct task_struct *)0)->sched_info.last_arrival))
    s_scan_clock = bpf_get_current_task_btf()->sched_info.last_arrival;
}

/* Whether the task has not been on a CPU since before the last S scan: then it is in
 * the sleep that scan saw, in the same wait (only running changes a stack). Reads one
 * cache line (sched_info), against four for the task's storage and switch counts, and
 * spares the unwind of every task that slept through. */
static __always_inline int slept_through_last_s_scan(struct task_struct *task) {
  if (!followed_all || prev_s_scan_clock <= CLOCK_SKEW_NS ||
      !bpf_core_field_exists(task->sched_info.last_arrival))
    return 0;
  return task->sched_info.last_arrival + CLOCK_SKEW_NS < prev_s_scan_clock;
}

static __always_inline int is_followed(__u32 tid) {
  for (__u32 i = 0; i < HS_MAX_FOLLOWED; ++i) {
    if (i >= n_followed) return 0;
    if (followed[i] == tid) return 1;
  }
  return 0;
}

static __always_inline int is_daemon(__u32 tgid) {
  for (__u32 i = 0; i < HS_MAX_DAEMONS; ++i) {
    if (i >= n_daemons) return 0;
    if (daemons[i] == tgid) return 1;
  }
  return 0;
}

static __always_inline int pid_selected(__u32 tgid) {
  for (__u32 i = 0; i < HS_MAX_PIDS; ++i) {
    if (i >= n_pids) return 0;
    if (pids[i] == tgid) return 1;
  }
  return 0;
}

/* Looks at one task: 0 when it is not kept, else the bytes of its record in `s` (the
 * record, then as many of s->ips as its stack_bytes says). `watching` (a constant): the
 * task may be an S task to decide the watch of; without it the watch's code, loops over
 * frames and wait functions that are most of the verifier's work, is left out. */
static __always_inline __u32 look_at(struct task_struct *task, struct scratch *s,
                                     const int watching) {
  const int daemon = n_daemons && is_daemon(task->tgid);
  if (n_pids && !daemon && !pid_selected(task->tgid)) return 0;

  const __u8 state = state_index(task);
  ++tasks_walked;
  if (state == 0) ++tasks_running;
  if (state == 2) ++tasks_uninterruptible;
  if (use_blocked_set && census && state_kept(state)) remember_blocked(task->pid);
  const int kept = daemon || state_kept(state);
  /* pid is on a cache line of its own, one the walk does not need: read only where a
   * task is followed. */
  const int watchable = watching && !kept && state == 1 && n_waits > 0; /* asleep, watched */
  const int followed_task = watchable && n_followed && is_followed((__u32)task->pid);
  if (watchable && s_scan) start_s_scan();
  const int may_watch =
      followed_task || (watchable && s_scan && !slept_through_last_s_scan(task));
  if (!kept && !may_watch) return 0;

  const __u64 switches = task->nvcsw + task->nivcsw;
  long stack_bytes = -1; /* not taken yet */
  __u32 watch = 0;

  if (may_watch) {
    /* Only a followed task can have a watch decided at its switch count: look its
     * storage up, without making one for every sleeper that is looked at. */
    struct seen *before = followed_task ? bpf_task_storage_get(&seen_tasks, task, 0, 0) : 0;
    if (before && before->watch_known && before->watch_switches == switches) {
      watch = before->watch; /* it has not run: still in the same wait */
    } else {
      long probe = bpf_get_task_stack(task, s->ips, WATCH_PROBE_FRAMES * sizeof(__u64), 0);
      watch = probe > 0 ? watched_wait(s->ips, probe / 8, WATCH_PROBE_FRAMES) : 0;
      if (watch == WATCH_UNDECIDED) {
        stack_bytes = bpf_get_task_stack(task, s->ips, sizeof(s->ips), 0);
        watch = stack_bytes > 0 ? watched_wait(s->ips, stack_bytes / 8, HS_MAX_FRAMES + 1) : 0;
      }
    }
    if (!watch) {
      if (before) before->stack_pass = 0;
      return 0;
    }
  }

  struct seen *seen = bpf_task_storage_get(&seen_tasks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (seen && may_watch) {
    seen->watch = watch;
    seen->watch_switches = switches;
    seen->watch_known = 1;
  }

  struct hs_task_record *r = &s->rec;
  r->tid = task->pid;
  r->tgid = task->tgid;
  /* Read, not walked: the verifier looks the type of a walked pointer up by name in the
   * kernel's BTF, a linear search at every state it visits, which was most of a load. */
  r->ppid = BPF_CORE_READ(task, real_parent, tgid);
  r->flags = task->flags;
  r->start_ns = task->start_time;
  r->nvcsw = task->nvcsw;
  r->nivcsw = task->nivcsw;
  __builtin_memcpy(r->comm, task->comm, sizeof(r->comm));
  r->state = state;
  r->watch = (__u8)watch;
  r->pad = 0;

  if (stack_bytes < 0 && seen && seen->stack_pass && seen->stack_pass + 1 == pass &&
      seen->stack_switches == switches) {
    r->stack_kind = HS_STACK_SAME;
    r->stack_bytes = 0;
    seen->stack_pass = pass;
    return sizeof(*r);
  }
  if (stack_bytes < 0) stack_bytes = bpf_get_task_stack(task, s->ips, sizeof(s->ips), 0);
  if (stack_bytes > 0 && stack_bytes <= (long)sizeof(s->ips)) {
    r->stack_kind = HS_STACK_NEW;
    r->stack_bytes = (__s32)stack_bytes;
    if (seen) {
      seen->stack_pass = pass;
      seen->stack_switches = switches;
    }
    return sizeof(*r) + ((__u32)stack_bytes & (sizeof(s->ips) * 2 - 1));
  }
  r->stack_kind = HS_STACK_NONE;
  r->stack_bytes = (__s32)stack_bytes;
  if (seen) seen->stack_pass = 0;
  return sizeof(*r);
}

static __always_inline struct scratch *scratch(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&scratch_space, &zero);
}

/* Called by the kernel for every task: its record goes to the iterator's seq_file. */
SEC("iter/task")
int sample_tasks(struct bpf_iter__task *ctx) {
  struct seq_file *seq = ctx->meta->seq;
  struct task_struct *task = ctx->task;
  struct scratch *s = scratch();
  if (!task || !s) return 0;
  const __u32 bytes = look_at(task, s, 1);
  if (bytes < sizeof(s->rec)) return 0;
  bpf_seq_write(seq, &s->rec, sizeof(s->rec));
  /* Bounded in a way older verifiers follow: 6.1's loses the bounds of stack_bytes that
   * clang passes on here, and takes the size for possibly negative. Hidden from clang
   * (the empty asm), so that the mask and the clamp stay in the code. */
  __u32 stack = bytes - sizeof(s->rec);
  asm volatile("" : "+r"(stack));
  stack &= sizeof(s->ips) * 2 - 1;
  if (stack > sizeof(s->ips)) stack = sizeof(s->ips);
  if (stack) bpf_seq_write(seq, s->ips, stack);
  return 0;
}

/* Looks at one task and writes its record, if it is kept, to the ring buffer: 0 when it
 * is not kept. */
static __always_inline __u32 record_to_ring(struct task_struct *task, struct scratch *s,
                                            const int watching) {
  const __u32 bytes = look_at(task, s, watching);
  if (bytes >= sizeof(s->rec) && bytes <= sizeof(*s) &&
      bpf_ringbuf_output(&records, s, bytes, 0) != 0)
    ++records_lost;
  return bytes;
}

/* Attached to one task (the sampler's own), so called once per pass: walks every thread
 * of the machine itself, records to the ring buffer. */
SEC("iter/task")
int sample_all(struct bpf_iter__task *ctx) {
  struct scratch *s = scratch();
  if (!ctx->task || !s) return 0;
  struct bpf_iter_task it;
  struct task_struct *task;
  bpf_iter_task_new(&it, 0, BPF_TASK_ITER_ALL_THREADS);
  while ((task = bpf_iter_task_next(&it))) record_to_ring(task, s, 1);
  bpf_iter_task_destroy(&it);
  return 0;
}

/* At every switch: a task that leaves the CPU to sleep in a kept state (not one that is
 * preempted, which stays runnable) joins the blocked set. Costs every switch of the
 * machine a test of the state, and a hash update where it is kept. */
SEC("tp_btf/sched_switch")
int note_sleep(__u64 *ctx) {
  /* TP_PROTO(bool preempt, struct task_struct *prev, struct task_struct *next,
   *          unsigned int prev_state) */
  if ((__u8)ctx[0]) return 0;
  const unsigned int raw = (unsigned int)ctx[3];
  if (!state_kept(index_of(raw, raw & TASK_REPORT))) return 0;
  struct task_struct *prev = (struct task_struct *)ctx[1];
  if (n_pids && !pid_selected(prev->tgid)) return 0;
  const long err = remember_blocked(prev->pid);
  if (err && err != -17 /* EEXIST */) set_overflowed = 1;
  return 0;
}

/* Tasks of the blocked set found awake, gone or not selected this pass: they leave it
 * after the walk of the set. (Deleted during the walk, an element of the preallocated
 * map could be taken by note_sleep on another CPU for another bucket, and the walk follow
 * it there, skipping tasks and meeting others twice.) Beyond the room here, they leave
 * at a later pass. */
#define HS_MAX_LEAVING 1024
__u32 n_leaving = 0;
__u32 leaving[HS_MAX_LEAVING] = {};

/* A task of the blocked set: recorded while kept. */
static long visit_blocked(struct bpf_map *map, __u32 *tid, __u8 *value, void *unused) {
  struct scratch *s = scratch();
  if (!s) return 1;
  struct task_struct *task = bpf_task_from_pid((__s32)*tid);
  const int stays = task && record_to_ring(task, s, 0); /* kept states only */
  if (task) bpf_task_release(task);
  if (!stays && n_leaving < HS_MAX_LEAVING) leaving[n_leaving++ & (HS_MAX_LEAVING - 1)] = *tid;
  return 0;
}

/* The i-th task leaving the set. It may have gone to sleep again since it was looked
 * at, and been noted (a no-op, being in the set) before the delete: looked at once
 * more, after. */
static long drop_leaving(__u32 i, void *unused) {
  if (i >= n_leaving) return 1;
  __u32 tid = leaving[i & (HS_MAX_LEAVING - 1)];
  bpf_map_delete_elem(&blocked, &tid);
  struct task_struct *task = bpf_task_from_pid((__s32)tid);
  if (!task) return 0;
  if (state_kept(state_index(task))) remember_blocked(tid);
  bpf_task_release(task);
  return 0;
}

/* Attached to one task (the sampler's own), so called once per pass between censuses:
 * the tasks of the blocked set. (Passes with S tasks to follow or FUSE daemons to record
 * walk every task: each more inlined look_at is the verifier's work at every load, for
 * what only a hung network or FUSE mount makes; with both, a load took twice as long.) */
SEC("iter/task")
int sample_set(struct bpf_iter__task *ctx) {
  if (!ctx->task) return 0;
  n_leaving = 0;
  bpf_for_each_map_elem(&blocked, visit_blocked, 0, 0);
  bpf_loop(n_leaving, drop_leaving, 0, 0);
  return 0;
}
