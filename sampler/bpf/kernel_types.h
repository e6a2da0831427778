/* The few kernel types the task iterator reads, declared by hand with
 * preserve_access_index: libbpf relocates every field access against the running
 * kernel's BTF (/sys/kernel/btf/vmlinux) at load, so the offsets here do not matter and
 * the build needs no BTF of its own. */
#ifndef HANGSCOPE_KERNEL_TYPES_H
#define HANGSCOPE_KERNEL_TYPES_H

#include <linux/types.h>

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct seq_file;
struct bpf_map;

/* CONFIG_SCHED_INFO (what /proc/<pid>/schedstat prints); may be absent. */
struct sched_info {
  unsigned long long last_arrival; /* rq clock of the task's last start on a CPU */
};

struct task_struct {
  unsigned int __state;
  unsigned int flags;
  int exit_state;
  int pid;
  int tgid;
  struct task_struct *real_parent;
  unsigned long nvcsw;
  unsigned long nivcsw;
  __u64 start_time;
  char comm[16];
  struct sched_info sched_info;
};

/* Before 5.14 the state was a long named `state`. */
struct task_struct___pre514 {
  long state;
};

struct bpf_iter_meta {
  struct seq_file *seq;
  __u64 session_id;
  __u64 seq_num;
};

struct bpf_iter__task {
  struct bpf_iter_meta *meta;
  struct task_struct *task;
};

#pragma clang attribute pop

/* The open-coded task iterator (kfuncs, Linux 6.7 on): its state lives on the BPF stack;
 * the kernel checks the size against its own struct bpf_iter_task. */
struct bpf_iter_task {
  __u64 __opaque[3];
} __attribute__((aligned(8)));

#define BPF_TASK_ITER_ALL_THREADS 1
#define BPF_TASK_ITER_PROC_THREADS 2

#endif
