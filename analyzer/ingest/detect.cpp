// Format detection and the list of readers.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "input_parts.hpp"
#include "readers.hpp"

namespace hangscope {

namespace {
constexpr size_t kHeadBytes = 64 * 1024;
}

std::span<const Reader* const> readers() {
  // In the order of the list (readers.hpp): most specific first.
#define HANGSCOPE_READER_ENTRY(function) &ingest::function(),
  static const Reader* const all[] = {HANGSCOPE_READERS(HANGSCOPE_READER_ENTRY)};
#undef HANGSCOPE_READER_ENTRY
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

namespace {

// The reader of an input: the one named by `format`, or the first sure of the input's
// first bytes, or else the first that thinks it may be.
const Reader& choose_reader(std::string_view head, const std::string& format,
                            const std::string& name) {
  if (!format.empty()) {
    const Reader* reader = find_reader(format);
    if (!reader) throw InputError(fmt::format("unknown input format '{}'", format));
    return *reader;
  }
  if (head.empty()) throw InputError(fmt::format("{}: empty input", name));
  const Reader* maybe = nullptr;
  for (const Reader* r : readers()) {
    Applicability a = r->recognizes(head);
    if (a == Applicability::yes) return *r;
    if (a == Applicability::maybe && !maybe) maybe = r;
  }
  if (maybe) return *maybe;
  throw InputError(fmt::format("{}: not in any format hangscope reads ({})", name,
                               fmt::join(reader_names(), ", ")));
}

CaptureBuilder builder_for(const Reader& reader, const std::string& path,
                           const ReadOptions& options, Capture& capture) {
  SourceInfo info;
  info.path = path;
  info.format = std::string(reader.name());
  return CaptureBuilder(capture, std::move(info), options);
}

// An input of only lines no reader understood is no input of that format.
void check_read(const Reader& reader, const CaptureBuilder& builder, const Capture& capture) {
  const SkippedLines& skipped = capture.sources[builder.source()].skipped;
  if (builder.samples_added() == 0 && skipped.lines > 0 &&
      capture.sources[builder.source()].format != "capture") {
    // Where a task's report broke says more than the first line of other text.
    throw InputError(fmt::format(
        "{}: no stacks found in this {} input; skipped {} line{}: {}",
        skipped.first_in_task.empty() ? skipped.first : skipped.first_in_task, reader.name(),
        skipped.lines, skipped.lines == 1 ? "" : "s", skipped.reasons()));
  }
}

// A large plain file whose reader reads parts: read on every thread (input_parts.hpp).
bool read_in_parts(const std::string& path, const ReadOptions& options, Capture& capture) {
  const unsigned threads = ingest::read_threads(options);
  if (threads < 2) return false;
  std::unique_ptr<ingest::MappedInput> mapped = ingest::MappedInput::open(path);
  if (!mapped || mapped->text().size() < 2 * ingest::kMinPartBytes) return false;
  std::string_view text = mapped->text();
  const Reader& reader = choose_reader(text.substr(0, kHeadBytes), options.format, path);
  if (reader.record_start(text, 0) == std::string_view::npos) return false;
  const size_t parts = std::min<size_t>(threads, text.size() / ingest::kMinPartBytes);
  InputParts input = mapped->parts(ingest::split_at_records(text, parts, reader), path);
  CaptureBuilder builder = builder_for(reader, path, options, capture);
  reader.read_parts(input, builder);
  check_read(reader, builder, capture);
  return true;
}

}  // namespace

void read_input(const std::string& path, const ReadOptions& options, Capture& capture) {
  if (read_in_parts(path, options, capture)) return;
  read_input(open_input(path), path == "-" ? "<stdin>" : path, options, capture);
}

void read_input(std::unique_ptr<ByteSource> src, const std::string& path,
                const ReadOptions& options, Capture& capture) {
  LineReader in(decompressing(std::move(src), path), path);
  const Reader& reader =
      choose_reader(options.format.empty() ? in.head(kHeadBytes) : std::string_view(),
                    options.format, in.name());
  CaptureBuilder builder = builder_for(reader, path, options, capture);
  reader.read(in, builder);
  check_read(reader, builder, capture);
}

}  // namespace hangscope
