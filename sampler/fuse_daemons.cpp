#include "fuse_daemons.hpp"

#include "hangscope/text.hpp"

namespace hangscope::sampler {

namespace {

// A file or a field that holds one number ("3\n").
std::optional<uint64_t> number_in(std::string_view s) {
  if (s.ends_with('\n')) s.remove_suffix(1);
  uint64_t v = 0;
  if (!text::whole_number(text::trim_left(s), v)) return std::nullopt;
  return v;
}

}  // namespace

bool is_fuse_filesystem(std::string_view fstype) {
  return fstype == "fuse" || fstype == "fuseblk" || fstype.starts_with("fuse.");
}

uint64_t fuse_connection(unsigned major, unsigned minor) { return (uint64_t{major} << 20) | minor; }

std::optional<uint64_t> fdinfo_fuse_connection(std::string_view fdinfo) {
  const std::optional<std::string_view> value = text::keyed_line(fdinfo, "fuse_connection:");
  return value ? number_in(*value) : std::nullopt;
}

bool is_fuse_wait(std::string_view wchan) {
  return wchan == "request_wait_answer" || wchan == "fuse_wait_on_folio_writeback" ||
         wchan == "fuse_wait_on_page_writeback" || wchan == "fuse_get_req" ||
         wchan == "__fuse_simple_request";
}

std::optional<uint64_t> parse_waiting(std::string_view text) { return number_in(text); }

}  // namespace hangscope::sampler
