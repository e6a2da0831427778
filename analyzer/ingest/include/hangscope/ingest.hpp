// The ingest stage: one reader per input format, each turning its input into the
// model. Detection asks every reader whether the head of an input is theirs (after
// inferno's collapsers) instead of a chain of ifs.
#pragma once

#include <absl/container/flat_hash_set.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hangscope/model.hpp"

namespace hangscope {

// A bad input: the message starts with "file:line: " where the line is known.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where the bytes of an input come from (a plain file, a pipe, a decompressor).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes; returns 0 at the end. Throws InputError on failure.
  virtual size_t read(char* buf, size_t n) = 0;
};

// Opens `path` ("-" is standard input); throws InputError naming the file.
std::unique_ptr<ByteSource> open_input(const std::string& path);
// Reads from an open descriptor, which stays open; `name` is used in messages.
std::unique_ptr<ByteSource> fd_input(int fd, std::string name);
// Decompresses a gzip or zstd stream, recognised by its magic bytes; any other input
// is passed through unchanged. read_input() applies it to every input.
std::unique_ptr<ByteSource> decompressing(std::unique_ptr<ByteSource> src, const std::string& name);
// What the first bytes of an input say it is compressed with, by their magic.
enum class Compression : uint8_t { none, gzip, zstd };
Compression compression_of(std::string_view head);

// "file:line", as messages and SourceInfo name a line of an input.
std::string line_place(std::string_view name, uint64_t line);

// Splits a ByteSource into lines without copying them (a line is valid until the
// next call), counting line numbers for error messages.
class LineReader {
 public:
  LineReader(std::unique_ptr<ByteSource> src, std::string name);
  ~LineReader();

  // The next line without its '\n' (and without a trailing '\r'); false at the end.
  bool next(std::string_view& line);
  // The first bytes of the input, without consuming them (for format detection).
  std::string_view head(size_t max_bytes);

  uint64_t line_number() const { return line_no_; }
  const std::string& name() const { return name_; }
  // False when the last line returned by next() ended without '\n': the input was cut.
  bool last_line_complete() const { return last_complete_; }
  // "file:line" of the line last returned.
  std::string where() const;
  [[noreturn]] void fail(std::string_view message) const;

 private:
  bool fill();  // reads more bytes; false at the end

  std::unique_ptr<ByteSource> src_;
  std::string name_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0, begin_ = 0, end_ = 0;
  bool eof_ = false;
  bool last_complete_ = true;
  uint64_t line_no_ = 0;
};

// What a reader keeps of its input, where the input leaves a choice.
struct ReadOptions {
  std::string format;  // a reader's name (--input-format), or "" to detect it
  // Keep the frames a kernel's unwinder printed with "? " (stale return addresses it
  // found on the stack). By default they are dropped from a trace that has reliable
  // frames; a trace whose every frame is marked (no frame pointers) keeps them all.
  bool keep_unreliable = false;
  // perf script: the event whose samples count ("cycles", "sched:sched_switch"); empty
  // for the first event of the file, as stackcollapse-perf.pl does.
  std::string event;
  // Threads that read a large input in parts (Reader::read_parts): 0 for one per CPU
  // this process may run on, 1 to read on the calling thread alone.
  unsigned threads = 0;
};

// Appends what one input contributes to a Capture.
class CaptureBuilder {
 public:
  CaptureBuilder(Capture& capture, SourceInfo info, const ReadOptions& options = {});
  const ReadOptions& options() const { return options_; }

  uint16_t source() const { return source_; }
  SourceInfo& info() { return capture_.sources[source_]; }
  const SourceInfo& info() const { return capture_.sources[source_]; }
  StackTable& stacks() { return capture_.stacks; }
  StrId intern(std::string_view s) { return capture_.strings().intern(s); }

  // Returns the round's index in Capture::rounds.
  uint32_t add_round(Round r);
  void add_sample(TaskSample s);
  // n samples at once, make(i, sample) filling the i-th on up to `threads` threads (0:
  // one per CPU): for a reader that totals its input before it adds it. A sample added
  // one at a time costs a call and a check of the room left; 200,000 of them took 4 ms.
  void add_samples(size_t n, const std::function<void(size_t i, TaskSample& s)>& make,
                   unsigned threads);
  void add_fact(WaitsOnFact f);
  // Returns the id of an equal context, adding it when new.
  uint32_t intern_context(const TaskContext& c);
  // Counts a line the reader left out, and why (SourceInfo::skipped): in_report when it
  // came inside a task's report (its header read, its stack not finished). A line is
  // counted once, whatever parts of it were left out.
  void skip_line(const LineReader& in, SkipReason why = SkipReason::unread);
  // The same for an earlier line, by its number (a line held to see what follows it).
  void skip_line_at(const LineReader& in, uint64_t line, SkipReason why = SkipReason::unread);
  // Records a task whose stack could not be read, by the line of its header; the reader
  // adds it as a sample with kNoStack.
  void stackless_task(const LineReader& in, uint64_t header_line, std::string_view comm,
                      int32_t tid);
  uint64_t samples_added() const { return samples_added_; }
  // The numbers of the first lines skipped, and of the first skipped inside a task's
  // report (0: none), for a part of an input read on its own (input_parts.hpp): its lines
  // are numbered from the part's start, and its SourceInfo's places are made again once
  // the lines of the parts before it are known.
  struct FirstSkipped {
    uint64_t line = 0;
    uint64_t in_task = 0;
  };
  const FirstSkipped& first_skipped() const { return first_skipped_; }

 private:
  // The contexts this input added, by value: a set of their ids in Capture::contexts,
  // hashed and compared through the contexts they name, so that each context is stored
  // once. A long capture has about as many contexts as samples (switch counts differ
  // from round to round).
  struct ContextIds {
    using is_transparent = void;
    const Capture* capture;
    const TaskContext& of(uint32_t id) const { return capture->contexts[id]; }
    const TaskContext& of(const TaskContext& c) const { return c; }
    size_t operator()(const TaskContext& c) const noexcept;
    size_t operator()(uint32_t id) const noexcept { return (*this)(of(id)); }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const noexcept {
      return of(a) == of(b);
    }
  };
  Capture& capture_;
  ReadOptions options_;
  uint16_t source_;
  absl::flat_hash_set<uint32_t, ContextIds, ContextIds> contexts_;
  uint64_t samples_added_ = 0;
  FirstSkipped first_skipped_;
  uint64_t last_skipped_ = 0;  // the number of the line counted last
};

enum class Applicability { no, maybe, yes };

// One input cut at record starts, for reading its parts at once (Reader::read_parts).
struct InputParts {
  std::vector<std::string_view> parts;  // adjacent, in input order
  std::string name;                     // labels their lines
  // Where the parts are of a file mapped read-only: the file, and where its first byte
  // is mapped. Their bytes are then read from the file (pread), as a stream's are: a
  // fault per page of the mapping costs more than the copy, and pages read would stay
  // resident until the whole input is read. -1: the parts are in memory.
  int fd = -1;
  const char* file_start = nullptr;
};

class Reader {
 public:
  virtual ~Reader() = default;
  virtual std::string_view name() const = 0;         // used by --input-format
  virtual std::string_view description() const = 0;  // one line for --help
  // Looks at the first bytes of an input: is it in this reader's format?
  virtual Applicability recognizes(std::string_view head) const = 0;
  // Reads the whole input. Bad lines are skipped and counted; a fatal problem throws
  // InputError with file and line.
  virtual void read(LineReader& in, CaptureBuilder& out) const = 0;

  // A reader whose records can be read apart (a folded line) reads a large input in parts
  // at once, a thread each, and merges them into what read() makes of the whole: the
  // same ids, samples and order (analyzer/ingest/input_parts.hpp). A part's lines are
  // numbered from the part's start, and only the places of skipped lines
  // (CaptureBuilder::skip_line) are renumbered at the merge: such a reader names no other
  // line (LineReader::fail, stackless_task). Where the first record at or after byte
  // `from` begins (text.size() when none does); npos when the reader reads only from the
  // start.
  virtual size_t record_start(std::string_view text, size_t from) const {
    (void)text, (void)from;
    return std::string_view::npos;
  }
  virtual void read_parts(const InputParts& input, CaptureBuilder& out) const;
};

// Every reader, in the order detection asks them.
std::span<const Reader* const> readers();
const Reader* find_reader(std::string_view name);
// Their names, in the same order: what --input-format takes.
std::vector<std::string> reader_names();

// Reads one input (a path, or "-" for standard input) into `capture`. Throws InputError.
void read_input(const std::string& path, const ReadOptions& options, Capture& capture);
// The same for an input that is already open; `name` labels it in the report.
void read_input(std::unique_ptr<ByteSource> src, const std::string& name,
                const ReadOptions& options, Capture& capture);
// With the default options: `format` names a reader, or is empty to detect it.
void read_input(const std::string& path, std::string_view format, Capture& capture);
void read_input(std::unique_ptr<ByteSource> src, const std::string& name, std::string_view format,
                Capture& capture);

}  // namespace hangscope
