// hangscope: which tasks are blocked, on what, and who are they waiting for.
#include <fmt/format.h>

#include "commands.hpp"
#include "hangscope/ingest.hpp"
#include "output.hpp"

#ifndef HANGSCOPE_VERSION
#define HANGSCOPE_VERSION "unknown"
#endif

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
  app.set_version_flag("-V,--version", "hangscope " HANGSCOPE_VERSION);
  app.footer(fmt::format(
      "Without a subcommand, records {:g} seconds of this machine and prints the report.\n\n"
      "Examples:\n"
      "  sudo hangscope                                # what is blocked right now, and on what\n"
      "  sudo hangscope record -d 10 -o hang.capture   # capture for later\n"
      "  hangscope report hang.capture                 # wait groups and top stacks\n"
      "  hangscope report -f folded hang.capture > hang.folded\n"
      "  hangscope diff --base good.capture --target bad.capture",
      kDefaultSeconds));
  app.require_subcommand(0, 1);

  RecordOptions record;
  ReportOptions report;
  CLI::App* record_cmd = add_record(app, record);
  CLI::App* report_cmd = add_report(app, report);
  DiffArgs diff;
  CLI::App* diff_cmd = add_diff(app, diff);

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
    if (!record_cmd->parsed()) record.duration_s = kDefaultSeconds;
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
