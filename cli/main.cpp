// hangscope: which tasks are blocked, on what, and who are they waiting for.
#include <fmt/format.h>

#include "commands.hpp"
#include "hangscope/ingest.hpp"
#include "output.hpp"
#include "version.hpp"

using namespace hangscope;
using namespace hangscope::cli;

namespace {

std::string joined_command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

constexpr double kDefaultSeconds = 3;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hangscope: which tasks are blocked, on what, and who they wait for"};
  app.set_version_flag(
      "-V,--version", [] { return version_text(); }, "Print the version and the features built in");
  app.footer(fmt::format(
      "Without a subcommand, records like `hangscope record` ({:g} seconds unless -d or -n\n"
      "says otherwise) and prints the report; the options above are record's.\n\n"
      "Examples:\n"
      "  sudo hangscope                                # what is blocked right now, and on what\n"
      "  sudo hangscope -d 10 -p 1234 --states DS      # ten seconds of one process\n"
      "  sudo hangscope record -d 10 -o hang.capture   # capture for later\n"
      "  hangscope report hang.capture                 # wait groups and top stacks\n"
      "  hangscope report -f folded hang.capture > hang.folded\n"
      "  hangscope diff --base good.capture --target bad.capture",
      kDefaultSeconds));
  app.require_subcommand(0, 1);

  // hangscope alone is the one-shot diagnosis: it takes the options of record.
  RecordOptions record;
  add_record_options(app, record);
  CLI::App* record_cmd = add_record(app, record);
  ReportOptions report;
  CLI::App* report_cmd = add_report(app, report);
  DiffArgs diff;
  CLI::App* diff_cmd = add_diff(app, diff);
  WatchOptions watch;
  CLI::App* watch_cmd = add_watch(app, watch);
  TopOptions top;
  CLI::App* top_cmd = add_top(app, top);
  std::string shell;
  CLI::App* completion_cmd = add_completion(app, shell);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsage;
  }

  try {
    if (report_cmd->parsed()) return run_report(report);
    if (diff_cmd->parsed()) return run_diff(diff);
    if (watch_cmd->parsed()) return run_watch(watch, joined_command_line(argc, argv));
    if (top_cmd->parsed()) return run_top(top, joined_command_line(argc, argv));
    if (completion_cmd->parsed()) return run_completion(app, shell);
    bool bounded = record.duration_s > 0 || record.rounds > 0;
    if (!record_cmd->parsed() && !bounded) record.duration_s = kDefaultSeconds;
    return run_record(record, joined_command_line(argc, argv));
  } catch (const InputError& e) {
    print_error(e.what());
  } catch (const std::system_error& e) {
    print_error(e.what());
  } catch (const std::exception& e) {
    print_error(e.what());
  }
  return kFailure;
}
