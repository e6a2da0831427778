#include "hangscope/capture_fields.hpp"

#include <charconv>

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
     nullptr, ""},
    {"interval_ns", [](const CaptureHeader& h) { return std::to_string(h.interval_ns); },
     read_interval, "interval"},
    {"states", [](const CaptureHeader& h) { return h.states; }, nullptr, ""},
    {"command", [](const CaptureHeader& h) { return h.command_line; }, nullptr, ""},
    {kOnCpuHz, nullptr, read_oncpu_hz, "on-CPU frequency"},
};

}  // namespace

std::span<const HeaderField> header_fields() { return kHeader; }

const HeaderField* header_field(std::string_view key) {
  for (const HeaderField& f : kHeader)
    if (f.key == key) return &f;
  return nullptr;
}

}  // namespace hangscope::capture_format
