// The fields of each capture record, one table per record, each row pairing how the
// writer (sampler/capture_writer.cpp) writes a field with how the reader
// (analyzer/ingest/capture_reader.cpp) reads it back, as perf's feat_ops[] pairs the
// write and read of each header feature. The records themselves are described in
// docs/capture-format.md; the context fields of a task are listed in
// task_context_fields.hpp, a round's figures in round_figures.hpp.
//
// It is knowledge of the capture format, used by a source-side writer and an ingest-side
// reader alike, so it lives at the format level beside capture_format.hpp (in the model
// library, which both link), and holds both sides' records: the sink's (round_sink.hpp)
// and the model's (model.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "hangscope/model.hpp"
#include "hangscope/round_figures.hpp"
#include "hangscope/round_sink.hpp"

namespace hangscope::capture_format {

// --- Header lines: "<key> <value>", escaped, before "data". --------------------------

// Keys written among the extra lines by the part of the program that knows the value (the
// on-CPU sampler, the record loop, watch), and read by the table below.
inline constexpr std::string_view kOnCpuHz = "oncpu_hz";
inline constexpr std::string_view kStacks = "stacks";  // "kernel", or "none: <why>"
inline constexpr std::string_view kWatchTrigger = "watch_trigger";  // WatchTrigger, docs/watch.md
inline constexpr std::string_view kWatchTriggerValue = "watch_trigger_value";
inline constexpr std::string_view kWatchTriggerThreshold = "watch_trigger_threshold";
inline constexpr std::string_view kWatchTriggerWhat = "watch_trigger_what";
inline constexpr std::string_view kWatchTriggerNs = "watch_trigger_ns";
inline constexpr std::string_view kWatchTriggerUnixNs = "watch_trigger_unix_ns";

struct HeaderField {
  std::string_view key;
  // The value written from the recording's header, in the table's order; null: a key some
  // part of the sampler adds to CaptureHeader::extra, written after these.
  std::string (*write)(const CaptureHeader& h);
  // What a reader takes from the value into the source (every header line is kept in
  // SourceInfo::header as well); null: kept there only. False for a bad value.
  bool (*read)(std::string_view value, SourceInfo& info);
  std::string_view what;  // the value's name in the error for a bad one ("interval")
};
std::span<const HeaderField> header_fields();
const HeaderField* header_field(std::string_view key);

// --- Task lines (T): the letters of the flags field ("-" for none). -------------------

struct TaskFlag {
  char letter;
  bool TaskRecord::*record;
  uint8_t model;  // its TaskFlags bit; 0: not kept in the model
};
inline constexpr TaskFlag kTaskFlags[] = {
    {'k', &TaskRecord::kernel_thread, kKernelThread},
    {'w', &TaskRecord::watched, kWatchedWait},
    {'n', &TaskRecord::no_stack, kNoStack},
    {'f', &TaskRecord::fuse_daemon, 0},  // a thread of a FUSE daemon (round_sink.hpp)
};

// On-CPU sample lines (O): their one flag, the task was running in user space ("-" else).
inline constexpr char kOnCpuUser = 'u';

// --- Pressure lines (P): "<resource>=<some>/<full>", a resource left out when both are
// unknown (-1), the line left out when all are. ----------------------------------------

struct PressureField {
  std::string_view resource;
  float RoundFigures::*some;
  float RoundFigures::*full;
};
inline constexpr PressureField kPressureFields[] = {
    {"io", &RoundFigures::io_some, &RoundFigures::io_full},
    {"memory", &RoundFigures::memory_some, &RoundFigures::memory_full},
    {"cpu", &RoundFigures::cpu_some, &RoundFigures::cpu_full},
};

// --- Round ends (E): "<index>" then the counts by position, then key=value figures. ----

// By position; the first two in every version, the others from version 2 on.
inline constexpr uint32_t RoundFigures::*kRoundCounts[] = {
    &RoundFigures::threads,
    &RoundFigures::recorded,
    &RoundFigures::running,
    &RoundFigures::uninterruptible,
};
inline constexpr size_t kRoundCountsAlways = 2;

// Calls f(key, group, figure of r...) for every key=value figure, in the order they are
// written: a group's figures are written when its flag (RoundFigures::user_stacks,
// ::oncpu) is set, and a reader that finds one sets it; unknown keys are passed by, so
// that a newer writer may add figures.
template <typename F, typename... Rounds>
void for_each_round_figure(F&& f, Rounds&... r) {
  constexpr bool RoundFigures::*user = &RoundFigures::user_stacks;  // record --user-stacks
  f(std::string_view("stops"), user, r.process_stops...);
  f(std::string_view("stop_pause_ns"), user, r.stop_pause_ns...);
  f(std::string_view("user_complete"), user, r.user_complete...);
  f(std::string_view("user_partial"), user, r.user_partial...);
  f(std::string_view("user_did_not_stop"), user, r.user_did_not_stop...);
  f(std::string_view("user_ran"), user, r.user_ran...);
  f(std::string_view("user_timed_out"), user, r.user_timed_out...);
  constexpr bool RoundFigures::*oncpu = &RoundFigures::oncpu;  // record --on-cpu (v3)
  f(std::string_view("oncpu"), oncpu, r.oncpu_samples...);
  f(std::string_view("oncpu_idle"), oncpu, r.oncpu_idle...);
  f(std::string_view("oncpu_lost"), oncpu, r.oncpu_lost...);
}

}  // namespace hangscope::capture_format
