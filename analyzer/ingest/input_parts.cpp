#include "input_parts.hpp"

#include "hangscope/parallel.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <mutex>
#include <numeric>
#include <optional>

namespace hangscope::ingest {

namespace {

// The bytes from the first part's start to the last part's end (the parts are adjacent).
std::string_view whole_of(const InputParts& input) {
  const std::vector<std::string_view>& parts = input.parts;
  if (parts.empty()) return {};
  return {parts.front().data(),
          static_cast<size_t>(parts.back().data() + parts.back().size() - parts.front().data())};
}

// The parts of one input as they are read: each one's bytes, of which a reader has been
// handed those up to `pos`, and whose `end` a thread that has read its own part may
// lower, to read the rest after the new end as a part of its own.
class Pieces {
 public:
  explicit Pieces(const InputParts& input) : input_(input), whole_(whole_of(input)) {
    for (std::string_view p : input.parts) {
      const auto begin = static_cast<size_t>(p.data() - whole_.data());
      pieces_.push_back({begin, begin + p.size(), begin, 0, nullptr});
    }
  }

  size_t size() const {
    std::lock_guard lock(mutex_);
    return pieces_.size();
  }

  // Up to n bytes of part i, copied to buf; 0 at its end.
  size_t read(size_t i, char* buf, size_t n) {
    size_t at;
    {
      std::lock_guard lock(mutex_);
      Piece& p = pieces_[i];
      n = std::min(n, p.end - p.pos);
      at = p.pos;
      p.pos += n;
    }
    // A lowered end is never below pos: these bytes stay this part's.
    if (input_.fd < 0) {
      std::memcpy(buf, whole_.data() + at, n);
      return n;
    }
    return read_file(buf, n, static_cast<off_t>(whole_.data() - input_.file_start + at));
  }

  // The second half of what is left of the part with the most left, from a record start
  // on, as a new part: its number, or none where no part has 2 * min_bytes left.
  std::optional<size_t> take(const Reader& reader, size_t min_bytes) {
    std::lock_guard lock(mutex_);
    auto left = [](const Piece& p) { return p.end - p.pos; };
    const auto most = std::ranges::max_element(pieces_, {}, left);
    if (most == pieces_.end() || left(*most) < 2 * min_bytes) return std::nullopt;
    const size_t end = most->end;
    const size_t cut = reader.record_start(whole_, most->pos + left(*most) / 2);
    if (cut >= end || end - cut < min_bytes) return std::nullopt;
    most->end = cut;
    pieces_.push_back({cut, end, cut, 0, nullptr});
    return pieces_.size() - 1;
  }

  // Part i has ended: its lines, or what it threw (nothing of it is taken after that).
  void ended(size_t i, uint64_t lines, std::exception_ptr failed) {
    std::lock_guard lock(mutex_);
    Piece& p = pieces_[i];
    p.lines = lines;
    p.failed = std::move(failed);
    if (p.failed) p.end = p.pos;
  }

  // Once every part has ended: the parts in input order, or the first one's exception.
  std::vector<PartRead> in_order() const {
    std::vector<size_t> order(pieces_.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::ranges::sort(order, {}, [&](size_t i) { return pieces_[i].begin; });
    std::vector<PartRead> parts;
    for (size_t i : order) {
      if (pieces_[i].failed) std::rethrow_exception(pieces_[i].failed);
      parts.push_back({i, pieces_[i].lines});
    }
    return parts;
  }

 private:
  struct Piece {
    size_t begin, end, pos;  // offsets in whole_
    uint64_t lines;
    std::exception_ptr failed;
  };

  // n bytes at `offset` in the file; fewer only where the file was cut short since it
  // was mapped.
  size_t read_file(char* buf, size_t n, off_t offset) const {
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::pread(input_.fd, buf + got, n - got, offset + static_cast<off_t>(got));
      if (r == 0) break;
      if (r < 0) {
        if (errno == EINTR) continue;
        throw InputError(fmt::format("{}: {}", input_.name, std::strerror(errno)));
      }
      got += static_cast<size_t>(r);
    }
    return got;
  }

  const InputParts& input_;
  std::string_view whole_;
  mutable std::mutex mutex_;
  std::vector<Piece> pieces_;  // in the order they were made
};

// One part's bytes, as a LineReader asks for them.
class PartSource final : public ByteSource {
 public:
  PartSource(Pieces& pieces, size_t part) : pieces_(pieces), part_(part) {}
  size_t read(char* buf, size_t n) override { return pieces_.read(part_, buf, n); }

 private:
  Pieces& pieces_;
  size_t part_;
};

}  // namespace

unsigned read_threads(const ReadOptions& options) { return thread_count(options.threads); }

std::vector<std::string_view> cut_at_records(std::string_view text, std::span<const size_t> at,
                                             const Reader& reader) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  for (size_t cut : at) {
    if (cut <= begin) continue;
    size_t start = std::min(reader.record_start(text, cut), text.size());
    if (start <= begin) continue;
    parts.push_back(text.substr(begin, start - begin));
    begin = start;
  }
  if (begin < text.size() || parts.empty()) parts.push_back(text.substr(begin));
  return parts;
}

std::vector<std::string_view> split_at_records(std::string_view text, size_t parts,
                                               const Reader& reader) {
  std::vector<size_t> at;
  for (size_t i = 1; i < parts; ++i) at.push_back(text.size() / parts * i);
  return cut_at_records(text, at, reader);
}

size_t max_parts(const InputParts& input, size_t min_bytes) {
  size_t bytes = 0;
  for (std::string_view p : input.parts) bytes += p.size();
  // Every part taken is of min_bytes at least, and none overlaps another.
  return input.parts.size() + bytes / std::max<size_t>(min_bytes, 1);
}

std::vector<PartRead> for_each_part(const InputParts& input, const Reader& reader,
                                    const std::function<void(size_t, LineReader&)>& read,
                                    size_t min_bytes) {
  Pieces pieces(input);
  auto read_one = [&](size_t i) {
    uint64_t lines = 0;
    std::exception_ptr failed;
    try {
      LineReader in(std::make_unique<PartSource>(pieces, i), input.name);
      read(i, in);
      // The lines a reader left unread still count for the parts after it.
      for (std::string_view rest; in.next(rest);) {
      }
      lines = in.line_number();
    } catch (...) {
      failed = std::current_exception();
    }
    pieces.ended(i, lines, std::move(failed));
  };
  auto run = [&](size_t i) {
    read_one(i);
    while (std::optional<size_t> taken = pieces.take(reader, min_bytes)) read_one(*taken);
  };
  run_parts(pieces.size(), run);  // read_one keeps each part's exception
  return pieces.in_order();
}

MergedIds merge_tables(StackTable&& part, StackTable& into, unsigned threads) {
  MergedIds ids;
  const StringTable& names = part.strings();
  ids.strings.resize(names.size());
  for (size_t i = 0; i < names.size(); ++i)
    ids.strings[i] = into.strings().intern(names.get(static_cast<StrId>(i)));
  ids.frames.resize(part.frame_count());
  for (size_t i = 0; i < part.frame_count(); ++i) {
    Frame f = part.frame(static_cast<FrameId>(i));
    f.function = ids.strings[f.function];
    f.module = ids.strings[f.module];
    f.source = ids.strings[f.source];
    ids.frames[i] = into.intern_frame(f);
  }
  ids.stacks = into.absorb(std::move(part), ids.frames, threads);
  return ids;
}

MergedIds compose(const MergedIds& outer, MergedIds inner) {
  for (StrId& id : inner.strings) id = outer.strings[id];
  for (FrameId& id : inner.frames) id = outer.frames[id];
  for (StackId& id : inner.stacks) id = outer.stacks[id];
  return inner;
}

void add_skipped(SourceInfo& into, const CaptureBuilder& part, const std::string& name,
                 uint64_t lines_before) {
  const CaptureBuilder::FirstSkipped& first = part.first_skipped();
  SkippedLines& skipped = into.skipped;
  if (skipped.first.empty() && first.line)
    skipped.first = line_place(name, lines_before + first.line);
  if (skipped.first_in_task.empty() && first.in_task)
    skipped.first_in_task = line_place(name, lines_before + first.in_task);
  skipped.lines += part.info().skipped.lines;
  for (size_t r = 0; r < skipped.by_reason.size(); ++r)
    skipped.by_reason[r] += part.info().skipped.by_reason[r];
}

std::unique_ptr<MappedInput> MappedInput::open(const std::string& path) {
  if (path == "-") return nullptr;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;  // the stream's open says why
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto size = static_cast<size_t>(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      ::madvise(p, size, MADV_RANDOM);  // read at the cuts only: no read-ahead
      std::unique_ptr<MappedInput> mapped(new MappedInput(fd, static_cast<const char*>(p), size));
      if (compression_of(mapped->text().substr(0, 4)) == Compression::none) return mapped;
      return nullptr;
    }
  }
  ::close(fd);
  return nullptr;
}

MappedInput::~MappedInput() {
  ::munmap(const_cast<char*>(data_), size_);
  ::close(fd_);
}

}  // namespace hangscope::ingest

namespace hangscope {

// A reader without a merge of its own reads the parts as one stream: they are adjacent
// pieces of one input.
void Reader::read_parts(const InputParts& input, CaptureBuilder& out) const {
  if (input.parts.empty()) return;
  InputParts one{{ingest::whole_of(input)}, input.name, input.fd, input.file_start};
  ingest::Pieces pieces(one);
  LineReader in(std::make_unique<ingest::PartSource>(pieces, 0), input.name);
  read(in, out);
}

}  // namespace hangscope
