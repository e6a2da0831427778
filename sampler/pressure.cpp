#include "pressure.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "hangscope/text.hpp"

namespace hangscope::sampler {

namespace {

float avg10(std::string_view file, std::string_view kind) {
  for (std::string_view l : text::Lines(file)) {
    if (l.starts_with(kind) && l.size() > kind.size() && l[kind.size()] == ' ') {
      size_t at = l.find("avg10=");
      if (at == std::string_view::npos) return -1;
      float v = 0;
      return text::whole_number(l.substr(at + 6, l.find(' ', at) - at - 6), v) ? v : -1;
    }
  }
  return -1;
}

}  // namespace

Pressure parse_pressure(std::string_view text) {
  return {avg10(text, "some"), avg10(text, "full")};
}

PressureReader::PressureReader(const std::string& proc_root) {
  const char* names[3] = {"io", "memory", "cpu"};
  for (int i = 0; i < 3; ++i)
    fds_[i] = ::open((proc_root + "/pressure/" + names[i]).c_str(), O_RDONLY | O_CLOEXEC);
}

PressureReader::~PressureReader() {
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
}

PressureSet PressureReader::read() {
  PressureSet r;
  Pressure* out[3] = {&r.io, &r.memory, &r.cpu};
  for (int i = 0; i < 3; ++i) {
    if (fds_[i] < 0) continue;
    buf_.resize(256);
    ssize_t n = ::pread(fds_[i], buf_.data(), buf_.size(), 0);
    if (n <= 0) continue;
    *out[i] = parse_pressure(std::string_view(buf_.data(), static_cast<size_t>(n)));
  }
  return r;
}

}  // namespace hangscope::sampler
