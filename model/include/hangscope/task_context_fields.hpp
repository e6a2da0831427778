// What is known about a blocked task beyond its stack, as the sampler reads it: the one
// list of a task's context fields. Three structs are instances of it: the sampler's record
// of a task (TaskContextRecord, round_sink.hpp: views of what it read), the live window's
// (WindowContext: interned ids) and the model's (TaskContext, model.hpp: interned ids).
// for_each_context_field names every field with its row (ContextField): its key in a
// capture's `C` line (docs/capture-format.md), its label for people and how the reports
// sum it up per wait group. Writing and reading a capture, emptiness, hashing, the copies
// from one instance to another and every report's context (the analyses' context summary,
// the text, JSON and HTML reports) all go through this one list: a new field is a member
// here, a line in for_each_context_field, and whatever fills it in the sampler.
//
// It is the capture format's knowledge as much as the model's, and sits at the model level
// (beside capture_format.hpp) because a source (the sampler and its capture writer) and an
// ingest reader both use it, and neither stage may include the other's headers.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

namespace hangscope {

// How the reports sum a field up per wait group (analyses/context_summary.cpp).
enum class ContextShown : uint8_t {
  no,           // kept in captures and the model only: a number its name says better,
                // values too varied to count, or a field with a section of its own
  most_common,  // the group's most common values, heaviest first, with their weights
};

// A field's row: what a capture and a program call it, what a person does, and how it is
// shown. It converts to its key, for the capture's writer and reader, which need no more.
struct ContextField {
  std::string_view key;    // in a capture's `C` line and the JSON report's context
  std::string_view label;  // for people, of a group's values: "syscalls", "files"
  ContextShown shown = ContextShown::no;
  constexpr operator std::string_view() const { return key; }
};

// Calls f(row, field of c...) for every field, in the order a capture writes them: with
// several instances, their same field side by side (to copy one into another, or to
// compare one with the defaults). A field equal to its default is absent from a capture;
// the reports show the fields in this order.
template <typename F, typename... Contexts>
constexpr void for_each_context_field(F&& f, Contexts&... c) {
  using enum ContextShown;
  f(ContextField{"wchan", "wait channels"}, c.wchan...);
  f(ContextField{"sc", "syscall numbers"}, c.syscall_nr...);
  f(ContextField{"scname", "syscalls", most_common}, c.syscall_name...);
  f(ContextField{"args", "syscall arguments"}, c.syscall_args...);
  f(ContextField{"file", "files", most_common}, c.file...);
  f(ContextField{"fs", "file systems"}, c.filesystem...);
  f(ContextField{"dev", "devices", most_common}, c.device...);
  f(ContextField{"cgroup", "cgroups"}, c.cgroup...);
  f(ContextField{"ctr", "containers", most_common}, c.container...);
  f(ContextField{"ppid", "parent processes"}, c.ppid...);
  f(ContextField{"why", "unreadable"}, c.unreadable...);  // the reports' own "unreadable"
  // v4: causes read at sampling time that are not on the stack (docs/capture-format.md)
  f(ContextField{"cg_frozen", "frozen cgroups", most_common}, c.cgroup_frozen...);
  f(ContextField{"cg_io_limit", "cgroup I/O limits", most_common}, c.cgroup_io_limit...);
  f(ContextField{"cg_mem_limit", "cgroup memory limits", most_common}, c.cgroup_memory_limit...);
  f(ContextField{"cg_oom", "cgroups out of memory", most_common}, c.cgroup_oom...);
  f(ContextField{"party", "parties of the wait", most_common}, c.party...);
  f(ContextField{"party_comm", "parties' commands"}, c.party_comm...);
}

// `Text` is how a text field is held: std::string_view, or an interned StrId.
template <typename Text>
struct TaskContextFields {
  Text wchan{};             // wait channel, "" when unknown
  int32_t syscall_nr = -1;  // the system call it is blocked in; -1 none or unknown
  Text syscall_name{};      // its name ("fsync")
  Text syscall_args{};      // the six arguments as the kernel printed them
  Text file{};              // path of the file-descriptor argument ("/mnt/x/f")
  Text filesystem{};        // type of the file system it is on ("ext4", "overlay")
  Text device{};            // block device the task waits on ("loop0", "sda1")
  Text cgroup{};            // cgroup path
  Text container{};         // "docker:<id>", "cri-o:<id>", ... when the cgroup names one
  int32_t ppid = 0;
  Text unreadable{};  // why part of the task could not be read ("timed out", ...)
  // The states of its cgroups that hold it, each "<file>=<value> <cgroup path>" as read
  // (cgroup_causes.hpp in the analyzer reads them): frozen ("freezer.state=FROZEN
  // /jobs"), an I/O limit on the device it waits on ("io.max=loop0:rbps=1048576 /jobs"),
  // memory at its limit ("memory.max=33554432 /jobs") and out of memory with the OOM
  // killer off ("memory.oom_control=under_oom /jobs").
  Text cgroup_frozen{};
  Text cgroup_io_limit{};
  Text cgroup_memory_limit{};
  Text cgroup_oom{};
  // The process its wait depends on that its stack does not show, read from the kernel:
  // "<relation> <pid> <state>" ("vfork-child 4711 T"; "tracer", "uffd-server",
  // "fanotify-listener"), and its command name.
  Text party{};
  Text party_comm{};

  bool operator==(const TaskContextFields&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const TaskContextFields& c) {
    for_each_context_field(
        [&](std::string_view, const auto& v) { h = H::combine(std::move(h), v); }, c);
    return h;
  }
};

// The numbers among the fields (every other field is a text).
template <typename Field>
inline constexpr bool kContextNumber = std::is_same_v<std::remove_cvref_t<Field>, int32_t>;

// Copies every field of `from` into `to`: numbers as they are, texts through `text`
// (interning a view, or naming an id).
template <typename To, typename From, typename TextFn>
void copy_context_fields(To& to, const From& from, TextFn&& text) {
  for_each_context_field(
      [&](std::string_view, auto& t, const auto& f) {
        if constexpr (kContextNumber<decltype(f)>)
          t = f;
        else
          t = text(f);
      },
      to, from);
}

}  // namespace hangscope
