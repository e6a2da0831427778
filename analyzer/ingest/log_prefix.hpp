// Removing the framing that log tools put around kernel messages: dmesg's "[ 12.345678] ",
// dmesg -T/-r/-x, /dev/kmsg records, journalctl (short, short-iso, short-precise,
// short-monotonic) and syslog files (traditional and RFC 3339), a bare "kernel: ", and
// the "> " of a mail reply that quotes a log. What is left is the kernel's own text, with
// its own leading spaces, for the kernel-log readers.
#pragma once

#include <cstdint>
#include <string_view>

namespace hangscope::ingest {

enum class LogFraming : uint8_t {
  none,     // bare kernel text (a paste, netconsole without timestamps)
  printk,   // "[ 1234.567890] " (dmesg, the console), maybe with "<6>" or "kern  :info  : "
  human,    // dmesg -T: "[Mon Nov 30 02:43:40 2026] "
  kmsg,     // /dev/kmsg records: "6,1234,4921336712,-;text"
  journal,  // journalctl and syslog: "<time> <host> kernel: "
};

struct LogLine {
  std::string_view text;     // the kernel's message
  std::string_view caller;   // "T140" or "C1" (CONFIG_PRINTK_CALLER), empty when absent
  // dmesg's "[ 1234.567890]": the lines of one printk (a command name holding a '\n'
  // splits it) share it. Empty for other framings.
  std::string_view stamp;
  LogFraming framing = LogFraming::none;
  bool foreign = false;       // a journal or syslog line of another program than the kernel
  bool continuation = false;  // a /dev/kmsg dictionary line (" SUBSYSTEM=...")
};

// Strips the framing of one line. Never fails: a line without a known framing is
// returned as it is.
LogLine strip_log_prefix(std::string_view line);

}  // namespace hangscope::ingest
