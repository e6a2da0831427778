// Reading one large input on several threads (Reader::read_parts): the input cut at
// record starts, a thread per part, each part's bad lines named as the whole input's, and
// the parts' interned names, frames and stacks merged into the capture in input order,
// so that the ids come out as one thread reading the whole gives them.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hangscope/ingest.hpp"

namespace hangscope::ingest {

// Threads to read with: ReadOptions::threads, or else the CPUs this process may run on.
unsigned read_threads(const ReadOptions& options);

// `text` cut before the first record start of `reader` at or after each offset of `at`
// (ascending): the parts, in order, empty ones left out.
std::vector<std::string_view> cut_at_records(std::string_view text, std::span<const size_t> at,
                                             const Reader& reader);
// `text` cut into `parts` parts of about the same size, each starting at a record.
std::vector<std::string_view> split_at_records(std::string_view text, size_t parts,
                                               const Reader& reader);

// The least bytes a part is worth a thread for: smaller inputs are read as a stream, and
// a thread takes no less of another's part (for_each_part). A part costs a thread (one
// kept from earlier work, woken for it: run_parts) and a merge into the part before it:
// its strings and frames interned there (a millisecond for the kernel's 20,000 frames),
// its stacks looked up (4 to 5 ms for 100,000, on two threads).
inline constexpr size_t kMinPartBytes = 4 << 20;

// One part as for_each_part read it: the number `read` was called with, and its lines.
struct PartRead {
  size_t part;
  uint64_t lines;
};

// Runs read(i, in) for every part of `input`: part 0 on the calling thread, each other on
// a thread of its own, `in` reading the part with its lines numbered from the part's
// start (the lines before it are known once the parts before it are read: counting them
// first took a tenth of reading them, on every thread). A thread whose part has ended
// takes the second half of what is left of the part with the most left, cut at a
// record start of `reader`, as a part of its own, numbered after those before it: where
// one thread is slowed (another task on its CPU, memory the host backs again), the
// others do not wait for it. Only halves of `min_bytes` and more are taken; numbers stay
// below max_parts(input, min_bytes). Returns the parts in input order; after every part
// has ended, the exception of the first part in input order that threw one is thrown
// again.
std::vector<PartRead> for_each_part(const InputParts& input, const Reader& reader,
                                    const std::function<void(size_t part, LineReader& in)>& read,
                                    size_t min_bytes = kMinPartBytes);
size_t max_parts(const InputParts& input, size_t min_bytes = kMinPartBytes);

// Where the names, frames and stacks of a part's own table are in the capture's: the
// part's ids as indexes.
struct MergedIds {
  std::vector<StrId> strings;
  std::vector<FrameId> frames;
  std::vector<StackId> stacks;
};
// Interns every string, frame and stack of `part` into `into`, each table in the order
// of the part's ids: an id is the one reading what `into` holds and then the part into
// one table would have given. The stacks are taken, not copied (StackTable::absorb), on
// up to `threads` threads; `part` is left empty.
MergedIds merge_tables(StackTable&& part, StackTable& into, unsigned threads);
// The ids of a table merged into one (`inner`) that was then merged into a third
// (`outer`): where each of its ids is in the third.
MergedIds compose(const MergedIds& outer, MergedIds inner);

// The lines a later part of an input skipped, added to the input's own account, the
// part's lines numbered after the `lines_before` of the parts before it.
void add_skipped(SourceInfo& into, const CaptureBuilder& part, const std::string& name,
                 uint64_t lines_before);

// The common course of Reader::read_parts: read(in, builder, state) reads each part
// (for_each_part), part 0 into `out` and `first` on the calling thread, each other into a
// capture and a State of its own; then every other part's tables are merged, through
// the parts before it, into `out`'s, and in input order merge(part, ids, state) adds what
// its State holds to `first` (`ids`: the part's ids as `out`'s) and the lines it skipped
// are added to `out`'s source.
template <typename State, typename Read, typename Merge>
void read_and_merge(const InputParts& input, const Reader& reader, CaptureBuilder& out,
                    State& first, Read read, Merge merge, size_t min_bytes = kMinPartBytes) {
  struct Part {
    Part(const SourceInfo& info, const ReadOptions& options) : builder(capture, info, options) {}
    Capture capture;
    CaptureBuilder builder;
    State state;
  };
  // Copied before part 0's reading changes them: the other parts' builders start from
  // these, on their own threads.
  const SourceInfo info = out.info();
  const ReadOptions options = out.options();
  // By part number - 1, each made by the thread that reads the part.
  std::vector<std::unique_ptr<Part>> rest(max_parts(input, min_bytes));
  const std::vector<PartRead> parts = for_each_part(
      input, reader,
      [&](size_t i, LineReader& in) {
        if (i == 0) return read(in, out, first);
        rest[i - 1] = std::make_unique<Part>(info, options);
        read(in, rest[i - 1]->builder, rest[i - 1]->state);
      },
      min_bytes);
  // The tables from the last part backwards, each into the one before it: a table is
  // merged into one that was indexed as it was read, none into one that has absorbed
  // stacks still to be indexed. Then each part's ids as `out`'s, in input order.
  auto part_of = [&](size_t k) -> Part& { return *rest[parts[k].part - 1]; };
  std::vector<MergedIds> ids(parts.size());  // by place in input order
  for (size_t k = parts.size(); k-- > 1;)
    ids[k] = merge_tables(std::move(part_of(k).capture.stacks),
                          k == 1 ? out.stacks() : part_of(k - 1).capture.stacks,
                          static_cast<unsigned>(input.parts.size()));
  for (size_t k = 2; k < parts.size(); ++k) ids[k] = compose(ids[k - 1], ids[k]);
  uint64_t lines_before = parts.front().lines;
  for (size_t k = 1; k < parts.size(); ++k) {
    Part& p = part_of(k);
    merge(p.capture, ids[k], p.state);
    add_skipped(out.info(), p.builder, input.name, lines_before);
    lines_before += parts[k].lines;
  }
}

// A plain file mapped whole, read-only, for cutting into parts: none for standard input,
// what is not a regular file, and compressed files (decompressed as a stream instead).
// The file stays open: the parts' bytes are read from it (InputParts::fd), and of the
// mapping only the pages around the cuts are touched.
class MappedInput {
 public:
  static std::unique_ptr<MappedInput> open(const std::string& path);
  ~MappedInput();
  MappedInput(const MappedInput&) = delete;
  MappedInput& operator=(const MappedInput&) = delete;
  std::string_view text() const { return {data_, size_}; }
  // The input's parts of `text()`, to be read from the file.
  InputParts parts(std::vector<std::string_view> parts, std::string name) const {
    return InputParts{std::move(parts), std::move(name), fd_, data_};
  }

 private:
  MappedInput(int fd, const char* data, size_t size) : fd_(fd), data_(data), size_(size) {}
  int fd_;
  const char* data_;
  size_t size_;
};

}  // namespace hangscope::ingest
