#include "fuse_daemons.hpp"

#include <charconv>
#include <string>

namespace hangscope::sampler {

namespace {

std::optional<uint64_t> number_at(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  if (end != s.data() + s.size() && *end != '\n') return std::nullopt;
  return v;
}

}  // namespace

bool is_fuse_filesystem(std::string_view fstype) {
  return fstype == "fuse" || fstype == "fuseblk" || fstype.starts_with("fuse.");
}

uint64_t fuse_connection(unsigned major, unsigned minor) { return (uint64_t{major} << 20) | minor; }

std::optional<uint64_t> fdinfo_fuse_connection(std::string_view fdinfo) {
  constexpr std::string_view kKey = "fuse_connection:";
  size_t at = fdinfo.starts_with(kKey) ? 0 : fdinfo.find("\n" + std::string(kKey));
  if (at == std::string_view::npos) return std::nullopt;
  at += (fdinfo[at] == '\n') + kKey.size();
  const size_t nl = fdinfo.find('\n', at);
  return number_at(
      fdinfo.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
}

bool is_fuse_wait(std::string_view wchan) {
  return wchan == "request_wait_answer" || wchan == "fuse_wait_on_folio_writeback" ||
         wchan == "fuse_wait_on_page_writeback" || wchan == "fuse_get_req" ||
         wchan == "__fuse_simple_request";
}

std::optional<uint64_t> parse_waiting(std::string_view text) { return number_at(text); }

}  // namespace hangscope::sampler
