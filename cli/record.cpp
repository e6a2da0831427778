// hangscope record: sample the blocked tasks of this machine into a capture, or,
// without -o, straight into a report.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <regex>
#include <system_error>

#include "commands.hpp"
#include "hangscope/capture_writer.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/sampler.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "stop_signals.hpp"

namespace hangscope::cli {

namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// "none": no list; "+f,g": the default list and f, g; "f,g": exactly f, g.
std::vector<std::string> s_wait_list(const std::vector<std::string>& given) {
  if (given.empty()) return default_s_waits();
  if (given.size() == 1 && given[0] == "none") return {};
  std::vector<std::string> list;
  if (!given[0].empty() && given[0][0] == '+') list = default_s_waits();
  for (const std::string& g : given) {
    std::string f = !g.empty() && g[0] == '+' ? g.substr(1) : g;
    if (!f.empty()) list.push_back(f);
  }
  return list;
}

}  // namespace

void add_record_options(CLI::App& app, RecordOptions& opts) {
  CLI::App* cmd = &app;
  cmd->add_option("-d,--duration", opts.duration_s, "Seconds to sample")
      ->check(CLI::PositiveNumber);
  cmd->add_option("-n,--rounds", opts.rounds, "Number of rounds")->check(CLI::PositiveNumber);
  cmd->add_option("-o,--output", opts.output,
                  "Write the capture to this file (created 0600, never overwritten without "
                  "--force); without -o the report is printed")
      ->type_name("FILE");
  cmd->add_flag("--force", opts.force, "Overwrite an existing output file");
  add_sampling_options(*cmd, opts);
  CLI::Option* on_cpu = cmd->add_flag(
      "--on-cpu", opts.on_cpu,
      "Also record the kernel stacks of the tasks running on every CPU, sampled by perf's "
      "cpu-clock (spinning on a lock is on-CPU contention; see docs/sampler.md)");
  cmd->add_option("--freq", opts.freq, "On-CPU samples per second, on each CPU")
      ->check(CLI::Range(1, 100'000))
      ->capture_default_str()
      ->needs(on_cpu);
  // Without -o the capture is reported: by the rules in use.
  add_rules_options(*cmd, opts.report.input.rules);
}

void add_sampling_options(CLI::App& app, RecordOptions& opts) {
  CLI::App* cmd = &app;
  cmd->add_option("-i,--interval", opts.interval_ms, "Milliseconds between rounds")
      ->check(CLI::Range(0.1, 3'600'000.0))
      ->capture_default_str();
  cmd->add_option("--states", opts.states, "Task states to record: D, DS or all")
      ->check(CLI::IsMember({"D", "DS", "all"}))
      ->capture_default_str();
  cmd->add_option("--source", opts.source,
                  "Where the tasks come from: the BPF task iterator (bpf), /proc (proc), or "
                  "the iterator where it can run and /proc elsewhere (auto)")
      ->check(CLI::IsMember({"auto", "bpf", "proc"}))
      ->capture_default_str();
  cmd->add_option("-p,--pid", opts.pids, "Only these processes (all their threads)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--comm", opts.comm, "Only tasks whose command name matches this regex");
  cmd->add_option("--cgroup", opts.cgroup,
                  "Only tasks in this cgroup or below it (whole path components)");
  cmd->add_option("--max-stack", opts.max_stack, "Frames kept per stack, innermost first")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_flag("--require-stacks", opts.require_stacks,
                "Fail without CAP_SYS_ADMIN instead of recording wait channels only");
  cmd->add_option("--s-waits", opts.s_waits,
                  "Wait functions that make a sleeping (S) task worth recording: FUNC,... "
                  "replaces the list, +FUNC,... adds to it, none turns the watch off "
                  "(default: FUSE, NFS/sunrpc, CIFS and Ceph waits; see docs/sampler.md)")
      ->delimiter(',');
  cmd->add_option("--s-interval", opts.s_interval_s,
                  "Seconds between reads of the wait channels of sleeping tasks")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  cmd->add_option("--read-timeout", opts.read_timeout_ms,
                  "Milliseconds a round waits for stack and syscall reads (default: half the "
                  "interval, 20 to 100)")
      ->check(CLI::Range(1.0, 60'000.0));
  CLI::Option* user_stacks =
      cmd->add_flag("--user-stacks", opts.user_stacks,
                    "Also record user-space stacks: tasks in D are read without stopping them; "
                    "with -p or --comm, sleeping (S) tasks too, with one short ptrace stop of "
                    "their process per round (see docs/user-stacks.md)");
  cmd->add_option("--user-stack-budget", opts.user_stack_budget_ms,
                  "Milliseconds the user-stack reads and process stops of a round may take "
                  "(default and most: three quarters of the read timeout)")
      ->check(CLI::Range(1.0, 60'000.0))
      ->needs(user_stacks);
}

CLI::App* add_record(CLI::App& app, RecordOptions& opts) {
  CLI::App* cmd = app.add_subcommand("record", "Sample the kernel stacks of blocked tasks");
  add_record_options(*cmd, opts);
  cmd->footer(
      "Examples:\n"
      "  hangscope record -d 10 -o storm.capture     # ten seconds, then: hangscope report "
      "storm.capture\n"
      "  hangscope record -n 100 -i 50               # 100 rounds, 50 ms apart, report at once\n"
      "  hangscope record -p 1234,5678 --states DS -d 5\n"
      "  hangscope record --user-stacks -p 1234 --states DS -d 5   # and where the program "
      "called from\n"
      "  hangscope record --on-cpu -d 10 -o fio.capture   # and what runs on the CPUs: "
      "spinning locks\n"
      "  hangscope record --comm '^postgres' --cgroup /system.slice -d 30 -o pg.capture");
  return cmd;
}

std::optional<SamplerOptions> sampler_options(const RecordOptions& opts,
                                              const std::string& command_line) {
  SamplerOptions so;
  so.interval = std::chrono::microseconds(static_cast<int64_t>(opts.interval_ms * 1000));
  if (opts.duration_s > 0) so.duration_s = opts.duration_s;
  if (opts.rounds > 0) so.max_rounds = opts.rounds;
  so.states = opts.states;
  so.pids = opts.pids;
  so.comm_regex = opts.comm;
  so.cgroup_prefix = opts.cgroup;
  so.max_stack = opts.max_stack;
  so.s_waits = s_wait_list(opts.s_waits);
  so.s_interval = std::chrono::milliseconds(static_cast<int64_t>(opts.s_interval_s * 1000));
  so.read_timeout = std::chrono::milliseconds(static_cast<int64_t>(opts.read_timeout_ms));
  so.user_stacks = opts.user_stacks;
  so.user_stack_budget =
      std::chrono::microseconds(static_cast<int64_t>(opts.user_stack_budget_ms * 1000));
  // Stopping a process is intrusive: only those the user named.
  so.stop_for_user_stacks = opts.user_stacks && (!opts.pids.empty() || !opts.comm.empty());
  so.oncpu = opts.on_cpu;
  so.oncpu_hz = opts.freq;
  so.command_line = command_line;
  so.source = opts.source == "bpf"    ? TaskSourceKind::bpf
              : opts.source == "proc" ? TaskSourceKind::proc
                                      : TaskSourceKind::automatic;
  if (!opts.comm.empty()) {
    try {
      std::regex check(opts.comm, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      print_error(
          fmt::format("--comm '{}': not a valid regular expression ({})", opts.comm, e.what()));
      return std::nullopt;
    }
  }
  return so;
}

bool check_stack_access(const RecordOptions& opts, SamplerOptions& so) {
  // Without CAP_SYS_ADMIN the kernel refuses stacks: say so once and record what can
  // still be read (wait channel, state, syscall, files), unless stacks are required.
  std::string problem = stack_access_problem(so.proc_root);
  if (!problem.empty()) {
    if (opts.require_stacks) {
      print_error(problem + "; run as root");
      return false;
    }
    print_error(problem + "; recording wait channels and states only");
    so.stacks = false;
    so.no_stacks_reason = problem;
  }
  return true;
}

int run_record(const RecordOptions& opts, const std::string& command_line) {
  std::optional<SamplerOptions> sampling = sampler_options(opts, command_line);
  if (!sampling) return kUsage;
  SamplerOptions& so = *sampling;

  // The rules of the progress line and the report: a bad rule file fails before sampling.
  RuleSet rules = load_rules(opts.report.input.rules);
  if (!check_stack_access(opts, so)) return kFailure;

  // Without -o the capture goes to an anonymous memory file and is reported at the end.
  int fd;
  if (opts.output.empty()) {
    fd = memfd_create("hangscope-capture", MFD_CLOEXEC);
  } else {
    // Captures hold command names and paths: private to the user, never through a
    // symlink, never over an existing file unless asked.
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (opts.force ? O_TRUNC : O_EXCL);
    fd = ::open(opts.output.c_str(), flags, 0600);
  }
  if (fd < 0) {
    print_error(
        fmt::format("{}: {}", opts.output.empty() ? "memfd" : opts.output, std::strerror(errno)));
    return kFailure;
  }
  Fd file(fd);

  install_stop_handlers();
  CaptureWriter writer(file.get());
  Progress progress(rules);
  SamplerResult result;
  bool sampler_oncpu = false;  // the on-CPU stacks asked for are recorded
  try {
    Sampler sampler(so, writer);
    // A build without the BPF source says so in --version, not at every record.
    if (!sampler.source_fallback().empty() && bpf_source_built())
      print_error("BPF source unavailable: " + sampler.source_fallback() + "; sampling /proc");
    sampler_oncpu = sampler.oncpu_problem().empty();
    if (!sampler.oncpu_problem().empty())
      print_error("on-CPU stacks unavailable: " + sampler.oncpu_problem() +
                  "; recording the blocked tasks only");
    result = sampler.run(stop_requested(), [&](const RoundStats& r) { progress.round(r); });
  } catch (const PrivilegeError& e) {
    progress.done();
    print_error(e.what());
    return kFailure;
  } catch (const SourceError& e) {
    progress.done();
    print_error(e.what());
    return kFailure;
  } catch (const std::system_error& e) {
    // A full disk, say: what was written parses up to its last complete round.
    progress.done();
    print_error(fmt::format("{}: {}", opts.output.empty() ? "capture" : opts.output, e.what()));
    return kFailure;
  }
  progress.done();

  if (!opts.output.empty()) {
    std::string oncpu =
        so.oncpu && sampler_oncpu ? fmt::format(", {} on-CPU samples", result.oncpu_samples) : "";
    fmt::print(stderr, "hangscope: recorded {} rounds, {} blocked samples{} in {:.2f} s to {}\n",
               result.rounds, result.samples, oncpu, result.duration_ns / 1e9, opts.output);
    return kOk;
  }
  if (::lseek(file.get(), 0, SEEK_SET) < 0) {
    print_error(fmt::format("capture: {}", std::strerror(errno)));
    return kFailure;
  }
  Capture capture;
  read_input(fd_input(file.get(), "live"), "live", "capture", capture);
  return report_capture(capture, opts.report, rules);
}

}  // namespace hangscope::cli
