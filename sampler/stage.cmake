# Source: the live /proc sampler (its task sources, the reader pool, the BPF task
# iterator, on-CPU sampling) and the capture writer (hangscope/sampler.hpp,
# hangscope/capture_writer.hpp); the machine's facts and the rounds' schedule that the
# live engine keeps to (hangscope/system_info.hpp, hangscope/round_schedule.hpp). Its
# task sources and parsers are private to it; its tests and benchmarks include them
# through its internals target ("mount_table.hpp", "oncpu/cpu_list.hpp", the BPF
# program's "task_iter_record.h").
include(${CMAKE_CURRENT_LIST_DIR}/syscall_names.cmake)
hangscope_add_stage(hangscope_sampler INTERNALS INTERNAL_DIRS ${CMAKE_CURRENT_LIST_DIR}/bpf SOURCES
  proc_stat.cpp
  task_table.cpp
  system_info.cpp
  syscalls.cpp
  ${HANGSCOPE_SYSCALL_NAMES_CPP}
  mount_table.cpp
  fuse_daemons.cpp
  fuse_watch.cpp
  block_devices.cpp
  cgroups.cpp
  cgroup_states.cpp
  task_parties.cpp
  pressure.cpp
  reader_pool.cpp
  scan_thread.cpp
  task_details.cpp
  capture_writer.cpp
  user_stacks.cpp
  user_stack_coordinator.cpp
  proc_source.cpp
  round_table.cpp
  task_record.cpp
  round_tee.cpp
  kernel_symbols.cpp
  oncpu/cpu_list.cpp
  oncpu/perf_ring.cpp
  oncpu/oncpu_sampler.cpp
  record_loop.cpp
  sampler.cpp
)
include(${CMAKE_CURRENT_LIST_DIR}/bpf/bpf.cmake)
hangscope_add_bpf_source(hangscope_sampler)
target_link_libraries(hangscope_sampler PUBLIC hangscope_model Threads::Threads)

# User-space stacks of blocked tasks, with libunwind (sampler/user_stack/,
# hangscope/user_stack.hpp): record --user-stacks, where the sampler drives the unwinder
# (sampler/user_stacks.hpp).
add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/user_stack)
target_link_libraries(hangscope_sampler PRIVATE hangscope_user_stack)
