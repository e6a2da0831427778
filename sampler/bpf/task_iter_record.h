/* What the task iterator (task_iter.bpf.c) writes for each task it keeps, read back by
 * bpf_source.cpp: one record, then, when the record says so, the kernel stack's return
 * addresses (stack_bytes bytes, 8 each, innermost first). Shared by the BPF program and
 * user space, so plain C with fixed-size fields. */
#ifndef HANGSCOPE_TASK_ITER_RECORD_H
#define HANGSCOPE_TASK_ITER_RECORD_H

#define HS_COMM_LEN 16
#define HS_MAX_FRAMES 64 /* /proc/<pid>/stack's MAX_STACK_TRACE_DEPTH */
#define HS_MAX_WAITS 32  /* wait functions of the S-wait watch */
#define HS_MAX_FOLLOWED 64 /* watched S tasks followed between scans (beyond: scan every pass) */
#define HS_MAX_PIDS 64   /* processes of -p filtered in the kernel (beyond: in user space) */
#define HS_MAX_DAEMONS 16 /* FUSE daemons followed whatever their state (beyond: named only) */

/* State letters by index, as /proc prints them (fs/proc/array.c task_state_array). */
#define HS_STATE_LETTERS "RSDTtXZPI"

enum hs_stack_kind {
  HS_STACK_NEW = 1,  /* stack_bytes of addresses follow */
  HS_STACK_SAME = 2, /* the task has not been switched since the stack of the last pass */
  HS_STACK_NONE = 3, /* bpf_get_task_stack gave nothing (stack_bytes: its result) */
};

struct hs_task_record {
  __u32 tid;
  __u32 tgid;
  __u32 ppid;
  __u32 flags; /* task->flags (PF_KTHREAD, PF_WQ_WORKER) */
  __u64 start_ns;
  __u64 nvcsw;
  __u64 nivcsw;
  char comm[HS_COMM_LEN];
  __u8 state; /* index into HS_STATE_LETTERS */
  __u8 watch; /* 0, or 1 + the index of the wait function of a watched S task */
  __u8 stack_kind;
  __u8 pad;
  __s32 stack_bytes;
};

/* An address range [start, end): a function, or a section of scheduler code. */
struct hs_range {
  __u64 start;
  __u64 end;
};

#endif
