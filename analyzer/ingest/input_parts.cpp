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
#include <latch>
#include <thread>

namespace hangscope::ingest {

namespace {

// The bytes of one part, copied out as a LineReader asks for them: from the file where
// the part is of one (InputParts::fd), else from memory.
class PartSource final : public ByteSource {
 public:
  PartSource(const InputParts& input, std::string_view text)
      : text_(text), fd_(input.fd), name_(input.name) {
    if (fd_ >= 0) offset_ = static_cast<off_t>(text.data() - input.file_start);
  }
  size_t read(char* buf, size_t n) override {
    n = std::min(n, text_.size() - pos_);
    if (fd_ < 0) {
      std::memcpy(buf, text_.data() + pos_, n);
    } else {
      n = read_file(buf, n);
    }
    pos_ += n;
    return n;
  }

 private:
  // Up to n bytes at pos_; fewer only where the file was cut short since it was mapped.
  size_t read_file(char* buf, size_t n) {
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::pread(fd_, buf + got, n - got, offset_ + static_cast<off_t>(pos_ + got));
      if (r == 0) break;
      if (r < 0) {
        if (errno == EINTR) continue;
        throw InputError(fmt::format("{}: {}", name_, std::strerror(errno)));
      }
      got += static_cast<size_t>(r);
    }
    return got;
  }

  std::string_view text_;
  int fd_;
  const std::string& name_;
  off_t offset_ = 0;
  size_t pos_ = 0;
};

// The '\n' in a slice of a part that is not the last: the lines before the next part's
// first, counted as LineReader counts them (a last line without '\n', which only the
// last part has, is never counted).
uint64_t newlines(const InputParts& input, std::string_view text) {
  constexpr size_t kPiece = 1 << 20;
  PartSource in(input, text);
  std::vector<char> buf(kPiece);
  uint64_t n = 0;
  while (size_t got = in.read(buf.data(), buf.size())) {
    // memchr from line to line: several times std::count's speed on lines of tens of bytes.
    const char* p = buf.data();
    const char* const end = p + got;
    while (const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p))) {
      ++n;
      p = static_cast<const char*>(nl) + 1;
    }
  }
  return n;
}

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

void for_each_part(const InputParts& input, const std::function<void(size_t, LineReader&)>& read) {
  const std::vector<std::string_view>& parts = input.parts;
  const size_t n = parts.size();
  std::vector<uint64_t> lines(n * n, 0);  // by part, then by the slice a thread counted
  std::vector<std::exception_ptr> failed(n);
  std::latch counted(static_cast<std::ptrdiff_t>(n));
  auto run = [&](size_t i) {
    try {
      // A part's first line number waits for the lines of the parts before it, which
      // take a fraction of reading them to count: every thread counts a slice of each,
      // so that none waits for another to count a whole part.
      for (size_t k = 0; k + 1 < n; ++k) {
        const size_t from = parts[k].size() * i / n, to = parts[k].size() * (i + 1) / n;
        lines[k * n + i] = newlines(input, parts[k].substr(from, to - from));
      }
      counted.count_down();
      counted.wait();
      uint64_t before = 0;
      for (size_t k = 0; k < i * n; ++k) before += lines[k];  // every slice of parts [0, i)
      LineReader in(std::make_unique<PartSource>(input, parts[i]), input.name, before);
      read(i, in);
    } catch (...) {
      failed[i] = std::current_exception();
    }
  };
  std::vector<std::jthread> threads;
  for (size_t i = 1; i < n; ++i) threads.emplace_back(run, i);
  if (!parts.empty()) run(0);
  threads.clear();  // joins
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
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

void add_skipped(SourceInfo& into, const SourceInfo& part) {
  if (into.first_skipped.empty()) into.first_skipped = part.first_skipped;
  if (into.first_skipped_in_task.empty()) into.first_skipped_in_task = part.first_skipped_in_task;
  into.skipped_lines += part.skipped_lines;
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
  const std::vector<std::string_view>& parts = input.parts;
  if (parts.empty()) return;
  std::string_view whole(parts.front().data(),
                         static_cast<size_t>(parts.back().data() + parts.back().size() -
                                             parts.front().data()));
  LineReader in(std::make_unique<ingest::PartSource>(input, whole), input.name);
  read(in, out);
}

}  // namespace hangscope
