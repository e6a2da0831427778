#include "hangscope/capture_format.hpp"

#include "hangscope/text.hpp"

namespace hangscope::capture_format {

std::string escape(std::string_view raw) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size());
  for (unsigned char c : raw) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

namespace {
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string unescape(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c != '\\' || i + 1 == in.size()) {
      out += c;
      continue;
    }
    char e = in[++i];
    switch (e) {
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 'x':
        if (i + 2 < in.size() && hex_value(in[i + 1]) >= 0 && hex_value(in[i + 2]) >= 0) {
          out += static_cast<char>(hex_value(in[i + 1]) * 16 + hex_value(in[i + 2]));
          i += 2;
        } else {
          out += "\\x";
        }
        break;
      default: out += e; break;  // "\\" and anything unknown: the character itself
    }
  }
  return out;
}

namespace {

constexpr std::string_view kFuseKey = "fuse.";

}  // namespace

std::pair<std::string, std::string> fuse_daemon_field(const FuseDaemonField& d) {
  std::string mount;
  for (char c : escape(d.mount_point)) {
    if (c == ' ')
      mount += "\\x20";
    else if (c == ',')
      mount += "\\x2c";
    else if (c == '=')
      mount += "\\x3d";
    else
      mount += c;
  }
  return {std::string(kFuseKey) + std::to_string(d.connection),
          std::to_string(d.pid) + "," + mount};
}

bool parse_fuse_daemon_field(std::string_view key, std::string_view value, FuseDaemonField& out) {
  if (key.starts_with("end.")) key.remove_prefix(4);
  if (!key.starts_with(kFuseKey) ||
      !text::whole_number(key.substr(kFuseKey.size()), out.connection))
    return false;
  const size_t comma = value.find(',');
  if (comma == std::string_view::npos || !text::whole_number(value.substr(0, comma), out.pid) ||
      out.pid <= 0)
    return false;
  out.mount_point = unescape(value.substr(comma + 1));
  return !out.mount_point.empty();
}

}  // namespace hangscope::capture_format
