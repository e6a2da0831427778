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
constexpr std::string_view kBlockDeviceKey = "blockdev.";

// Free text as one word of an end line's value: escaped, with \x20 for a space, \x2c
// for a comma, \x2b for '+' and \x3d for '='.
std::string word(std::string_view text) {
  std::string out;
  for (char c : escape(text)) {
    if (c == ' ')
      out += "\\x20";
    else if (c == ',')
      out += "\\x2c";
    else if (c == '+')
      out += "\\x2b";
    else if (c == '=')
      out += "\\x3d";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::pair<std::string, std::string> fuse_daemon_field(const FuseDaemonField& d) {
  return {std::string(kFuseKey) + std::to_string(d.connection),
          std::to_string(d.pid) + "," + word(d.mount_point)};
}

std::pair<std::string, std::string> block_device_field(const BlockDeviceField& d) {
  std::string slaves;
  for (const std::string& s : d.slaves) slaves += (slaves.empty() ? "" : "+") + word(s);
  return {std::string(kBlockDeviceKey) + word(d.device),
          word(d.backing_device) + "," + word(d.backing_fstype) + "," + slaves + "," +
              word(d.backing_file)};
}

bool parse_block_device_field(std::string_view key, std::string_view value,
                              BlockDeviceField& out) {
  if (key.starts_with("end.")) key.remove_prefix(4);
  if (!key.starts_with(kBlockDeviceKey) || key.size() == kBlockDeviceKey.size()) return false;
  out = BlockDeviceField{};
  out.device = unescape(key.substr(kBlockDeviceKey.size()));
  std::string_view parts[4];
  for (size_t i = 0; i < 3; ++i) {
    const size_t comma = value.find(',');
    if (comma == std::string_view::npos) return false;
    parts[i] = value.substr(0, comma);
    value.remove_prefix(comma + 1);
  }
  parts[3] = value;
  out.backing_device = unescape(parts[0]);
  out.backing_fstype = unescape(parts[1]);
  for (std::string_view rest = parts[2]; !rest.empty();) {
    const size_t plus = rest.find('+');
    out.slaves.push_back(unescape(rest.substr(0, plus)));
    rest.remove_prefix(plus == std::string_view::npos ? rest.size() : plus + 1);
  }
  out.backing_file = unescape(parts[3]);
  return true;
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
