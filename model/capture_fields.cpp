#include "hangscope/capture_fields.hpp"

#include <charconv>
#include <type_traits>

namespace hangscope::capture_format {

namespace {

template <typename T>
bool whole(std::string_view s, T& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

bool read_interval(std::string_view value, SourceInfo& info) {
  int64_t ns = 0;
  if (!whole(value, ns) || ns <= 0) return false;
  info.interval_s = static_cast<double>(ns) / 1e9;
  return true;
}

bool read_oncpu_hz(std::string_view value, SourceInfo& info) {
  double hz = 0;
  if (!whole(value, hz) || hz <= 0) return false;
  info.oncpu_hz = hz;
  return true;
}

bool read_start(std::string_view value, SourceInfo& info) {
  return whole(value, info.start_unix_ns) && info.start_unix_ns >= 0;
}

bool read_stacks(std::string_view value, SourceInfo& info) {
  info.no_kernel_stacks = value.starts_with("none");
  return true;
}

// A field of the watch trigger: a text, or a number that must be whole.
template <auto Member>
bool read_trigger(std::string_view value, SourceInfo& info) {
  auto& field = info.watch_trigger.*Member;
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(field)>, std::string>) {
    field = value;
    return true;
  } else {
    return whole(value, field);
  }
}

constexpr HeaderField kHeader[] = {
    {"host", [](const CaptureHeader& h) { return h.host; },
     [](std::string_view v, SourceInfo& info) {
       info.host = v;
       return true;
     },
     ""},
    {"kernel", [](const CaptureHeader& h) { return h.kernel; },
     [](std::string_view v, SourceInfo& info) {
       info.kernel = v;
       return true;
     },
     ""},
    {"boot_id", [](const CaptureHeader& h) { return h.boot_id; }, nullptr, ""},
    {"start_unix_ns", [](const CaptureHeader& h) { return std::to_string(h.start_unix_ns); },
     read_start, "start time"},
    {"interval_ns", [](const CaptureHeader& h) { return std::to_string(h.interval_ns); },
     read_interval, "interval"},
    {"states", [](const CaptureHeader& h) { return h.states; }, nullptr, ""},
    {"command", [](const CaptureHeader& h) { return h.command_line; }, nullptr, ""},
    {kOnCpuHz, nullptr, read_oncpu_hz, "on-CPU frequency"},
    {kStacks, nullptr, read_stacks, ""},
    {kWatchTrigger, nullptr, read_trigger<&WatchTrigger::kind>, ""},
    {kWatchTriggerValue, nullptr, read_trigger<&WatchTrigger::value>, "trigger value"},
    {kWatchTriggerThreshold, nullptr, read_trigger<&WatchTrigger::threshold>, "threshold"},
    {kWatchTriggerWhat, nullptr, read_trigger<&WatchTrigger::what>, ""},
    {kWatchTriggerNs, nullptr, read_trigger<&WatchTrigger::time_ns>, "trigger time"},
    {kWatchTriggerUnixNs, nullptr, read_trigger<&WatchTrigger::unix_ns>, "trigger time"},
};

}  // namespace

std::span<const HeaderField> header_fields() { return kHeader; }

const HeaderField* header_field(std::string_view key) {
  for (const HeaderField& f : kHeader)
    if (f.key == key) return &f;
  return nullptr;
}

}  // namespace hangscope::capture_format
