// Format detection and the list of readers.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "readers.hpp"

namespace hangscope {

namespace {
constexpr size_t kHeadBytes = 64 * 1024;
}

std::span<const Reader* const> readers() {
  // Most specific first: a kernel log with old "[<address>]" frames must be claimed by
  // the kernel-log reader before the /proc stack reader sees those frames.
  static const std::array<const Reader*, 7> all = {
      &ingest::capture_reader(),     &ingest::kernel_log_reader(), &ingest::crash_reader(),
      &ingest::perf_script_reader(), &ingest::proc_stack_reader(), &ingest::folded_reader(),
      &ingest::folded_us_reader(),
  };
  return all;
}

std::vector<std::string> reader_names() {
  std::vector<std::string> names;
  for (const Reader* r : readers()) names.emplace_back(r->name());
  return names;
}

const Reader* find_reader(std::string_view name) {
  for (const Reader* r : readers())
    if (r->name() == name) return r;
  return nullptr;
}

void read_input(const std::string& path, std::string_view format, Capture& capture) {
  ReadOptions options;
  options.format = std::string(format);
  read_input(path, options, capture);
}

void read_input(std::unique_ptr<ByteSource> src, const std::string& name, std::string_view format,
                Capture& capture) {
  ReadOptions options;
  options.format = std::string(format);
  read_input(std::move(src), name, options, capture);
}

void read_input(const std::string& path, const ReadOptions& options, Capture& capture) {
  read_input(open_input(path), path == "-" ? "<stdin>" : path, options, capture);
}

void read_input(std::unique_ptr<ByteSource> src, const std::string& path, const ReadOptions& options,
                Capture& capture) {
  LineReader in(decompressing(std::move(src), path), path);
  const Reader* reader = nullptr;
  const std::string& format = options.format;
  if (!format.empty()) {
    reader = find_reader(format);
    if (!reader) throw InputError(fmt::format("unknown input format '{}'", format));
  } else {
    std::string_view head = in.head(kHeadBytes);
    if (head.empty()) throw InputError(fmt::format("{}: empty input", in.name()));
    const Reader* maybe = nullptr;
    for (const Reader* r : readers()) {
      Applicability a = r->recognizes(head);
      if (a == Applicability::yes) {
        reader = r;
        break;
      }
      if (a == Applicability::maybe && !maybe) maybe = r;
    }
    if (!reader) reader = maybe;
    if (!reader)
      throw InputError(fmt::format("{}: not in any format hangscope reads ({})", in.name(),
                                   fmt::join(reader_names(), ", ")));
  }
  SourceInfo info;
  info.path = path;
  info.format = std::string(reader->name());
  CaptureBuilder builder(capture, std::move(info), options);
  reader->read(in, builder);
  const SourceInfo& si = capture.sources[builder.source()];
  if (builder.samples_added() == 0 && si.skipped_lines > 0 && si.format != "capture") {
    // Where a task's report broke says more than the first line of other text.
    throw InputError(fmt::format(
        "{}: no stacks found in this {} input (first unreadable line: {})", in.name(),
        reader->name(), si.first_skipped_in_task.empty() ? si.first_skipped : si.first_skipped_in_task));
  }
}

}  // namespace hangscope
