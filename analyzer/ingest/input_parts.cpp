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

std::vector<uint64_t> for_each_part(const InputParts& input,
                                    const std::function<void(size_t, LineReader&)>& read) {
  const std::vector<std::string_view>& parts = input.parts;
  const size_t n = parts.size();
  std::vector<uint64_t> lines(n, 0);
  std::vector<std::exception_ptr> failed(n);
  auto run = [&](size_t i) {
    try {
      LineReader in(std::make_unique<PartSource>(input, parts[i]), input.name);
      read(i, in);
      // The lines a reader left unread still count for the parts after it.
      for (std::string_view rest; in.next(rest);) {
      }
      lines[i] = in.line_number();
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
  return lines;
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

void add_skipped(SourceInfo& into, const CaptureBuilder& part, const std::string& name,
                 uint64_t lines_before) {
  const CaptureBuilder::FirstSkipped& first = part.first_skipped();
  if (into.first_skipped.empty() && first.line)
    into.first_skipped = line_place(name, lines_before + first.line);
  if (into.first_skipped_in_task.empty() && first.in_task)
    into.first_skipped_in_task = line_place(name, lines_before + first.in_task);
  into.skipped_lines += part.info().skipped_lines;
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
