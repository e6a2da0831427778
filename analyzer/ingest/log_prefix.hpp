// Removing the framing that log tools put around kernel messages: dmesg's "[ 12.345678] ",
// dmesg -T (in any language), -H, -r, -x and --time-format iso/delta, printk caller ids,
// /dev/kmsg records, journalctl (short, short-iso, short-precise, short-monotonic) and
// syslog files (traditional and RFC 3339, with or without a host), a bare "kernel: ",
// times before "kernel:", and the quote marks and indentation of a mail or a paste. What is
// left is the kernel's own text, with its own leading spaces, for the kernel-log readers.
#pragma once

#include <cstddef>
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

// Strips the framing of one line: quote marks and indentation first, then the tokens of
// framing in whatever order and combination the tools put them ("Nov 23 15:15:18 host
// kernel: [ 3687.522129][   T55] ", "2025-01-24T02:15:03.9009694Z [  246.932163] ",
// "15:52:20,316 ERR kernel:", "[So Jan  5 13:49:21 2020] ", "[  +0.002140] "). Never
// fails: a line without a known framing is returned without its quote marks.
LogLine strip_log_prefix(std::string_view line);

// The length of a bracketed time at the start of s: printk's "[ 1234.567890]", dmesg's
// relative "[  +0.002140]" and "[<    0.002140>]", or a wall-clock time ("[Mon Nov 30
// 02:43:40 2026]", in any language, and dmesg -H's "[Jun 3 09:02]"). 0 when none.
size_t bracketed_time(std::string_view s);

}  // namespace hangscope::ingest
