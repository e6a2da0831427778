// hangscope top on the real kernel, in a real terminal (tmux): during the journal storm
// of tests/storm/ the jbd2 groups appear within two refreshes, and the keys do what
// they say (Enter a stack, s the sort, / a filter, w a capture report reads, q exits 0
// with the terminal restored); without a terminal it prints the frames asked for. Each
// step waits for what the screen shows, never for a while; the storm and the tmux
// session are ended whatever happens.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <regex>
#include <sstream>

#include "support/privileges.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/storm_session.hpp"
#include "support/temp_dir.hpp"
#include "support/tmux_session.hpp"
#include "support/wait_for.hpp"

using namespace hangscope::testing;
using std::chrono::seconds;

namespace {

constexpr int kSkip = 77;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// The rows of the group table on the screen: between its heading and the task heading.
std::vector<std::string> group_rows(const std::string& screen) {
  std::vector<std::string> rows;
  bool in = false;
  for (const std::string& l : lines_of(screen)) {
    if (l.starts_with("WAIT GROUP")) {
      in = true;
    } else if (l.find("PID COMM") != std::string::npos) {
      break;
    } else if (in && !l.empty()) {
      rows.push_back(l);
    }
  }
  return rows;
}

bool has_jbd2_group(const std::string& screen) {
  for (const std::string& r : group_rows(screen))
    if (r.starts_with("jbd2:")) return true;
  return false;
}

// The rounds the status line of the screen says.
long rounds_shown(const std::string& screen) {
  std::smatch m;
  static const std::regex re(R"(rounds (\d+) \()");
  return std::regex_search(screen, m, re) ? std::stol(m[1]) : -1;
}

}  // namespace

TEST(LiveTop, InATerminalDuringTheStormShowsJbd2AndAnswersItsKeys) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = TmuxSession::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
  StormSession storm(WITH_STORM, STORM_BIN);
  if (storm.dir().empty()) {
    if (storm.status() == kSkip) HANGSCOPE_SKIP() << "the storm cannot run here (with-storm.sh)";
    FAIL() << "the storm did not start: status " << storm.status();
  }
  TempDir tmp;
  const std::string dir = tmp.file("captures");
  // After top: its exit status, on the screen it gave back.
  TmuxSession tmux("env LANG=C.UTF-8 HANGSCOPE_RULES_DIR= " + std::string(HANGSCOPE_BIN) +
                       " top -i 100 --refresh 1 --dir " + dir +
                       "; echo \"top exited $?\"; exec sleep 600",
                   160, 30);  // wide enough for "wrote PATH" under ctest's longer TMPDIR
  ASSERT_TRUE(tmux.started()) << tmux.error();
  std::string screen;
  auto shows = [&](auto condition) {
    return wait_for(
        [&] {
          screen = tmux.screen();
          return condition(screen);
        },
        seconds(60));
  };

  // The jbd2 groups within two refreshes of the first frame: a frame is made after the
  // first round and then once a refresh (1 s: 10 rounds at 100 ms, 11 when a round
  // starts a little late) has passed since the last, so the third shows at most 23.
  ASSERT_TRUE(shows(has_jbd2_group)) << screen;
  EXPECT_LE(rounds_shown(screen), 23) << screen;
  EXPECT_EQ(tmux.pane("#{alternate_on}"), "1");

  // Enter on the first group: its top stack and holder chain.
  tmux.keys({"Enter"});
  ASSERT_TRUE(shows([](const std::string& s) { return s.find("top stack:") != std::string::npos; }))
      << screen;
  EXPECT_NE(screen.find("holder chain: "), std::string::npos) << screen;
  std::vector<std::string> lines = lines_of(screen);
  auto stack_at = std::find(lines.begin(), lines.end(), "top stack:");
  ASSERT_NE(stack_at, lines.end());
  ASSERT_NE(stack_at + 1, lines.end());
  EXPECT_TRUE(std::regex_match(*(stack_at + 1), std::regex("  [A-Za-z_][A-Za-z0-9_.]*")))
      << *(stack_at + 1);
  tmux.keys({"Escape"});
  ASSERT_TRUE(shows([](const std::string& s) { return !group_rows(s).empty(); })) << screen;

  // s: the groups by NOW.
  tmux.keys({"s"});
  ASSERT_TRUE(shows([](const std::string& s) { return s.find("sort now/") != std::string::npos; }))
      << screen;

  // /: only the jbd2 groups.
  tmux.keys({"/"});
  tmux.type("jbd2");
  tmux.keys({"Enter"});
  ASSERT_TRUE(shows([](const std::string& s) {
    return s.find("filter 'jbd2'") != std::string::npos && !group_rows(s).empty();
  })) << screen;
  for (const std::string& r : group_rows(screen)) EXPECT_TRUE(r.starts_with("jbd2:")) << r;

  // w: the window as a capture, which report reads.
  tmux.keys({"w"});
  std::smatch m;
  ASSERT_TRUE(shows([&](const std::string& s) {
    return std::regex_search(s, m, std::regex("wrote (" + dir + "/[^ ]+\\.capture)"));
  })) << screen;
  const std::string written = m[1];
  RunResult report = run({HANGSCOPE_BIN, "report", written});
  EXPECT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("jbd2"), std::string::npos) << report.out;

  // q: exit 0, and the terminal as it was (the alternate screen left).
  tmux.keys({"q"});
  ASSERT_TRUE(shows([](const std::string& s) { return s.find("top exited") != std::string::npos; }))
      << screen;
  EXPECT_NE(screen.find("top exited 0"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("WAIT GROUP"), std::string::npos) << screen;
  EXPECT_EQ(tmux.pane("#{alternate_on}"), "0");
}

namespace {

// The parent pid of a task, from its status ("" when gone).
int parent_of(int tid) {
  RunResult r = run({"sh", "-c", "sed -n 's/^PPid:[[:space:]]*//p' /proc/" + std::to_string(tid) +
                                     "/status"});
  return r.out.empty() ? 0 : std::atoi(r.out.c_str());
}

}  // namespace

// Two independent hangs on two file systems: two journal storms, each on an ext4 on a
// loop device of its own. No frame, the first above all (its window holds one round,
// when the devices of the renames are not known yet), ties one storm's threads to the
// other's device, journal or holder: a verdict names one device at most, and every
// storm worker it names as a holder is a child of the storm on that device; until the
// devices are known it says so.
TEST(LiveTop, TwoHangsOnTwoFileSystemsAreNeverBlendedFromTheFirstFrame) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = TmuxSession::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
  StormSession a(WITH_STORM, STORM_BIN), b(WITH_STORM, STORM_BIN);
  for (const StormSession* s : {&a, &b}) {
    if (!s->dir().empty()) continue;
    if (s->status() == kSkip) HANGSCOPE_SKIP() << "the storm cannot run here (with-storm.sh)";
    FAIL() << "a storm did not start: status " << s->status();
  }
  ASSERT_NE(a.device(), b.device());
  // A refresh of 2 s keeps each frame on the screen long enough to be read.
  TmuxSession tmux("env LANG=C.UTF-8 HANGSCOPE_RULES_DIR= " + std::string(HANGSCOPE_BIN) +
                       " top -i 100 --refresh 2; exec sleep 600",
                   220, 30);
  ASSERT_TRUE(tmux.started()) << tmux.error();

  // The verdict (the screen's first two lines) of each frame, by its rounds.
  std::map<long, std::string> verdicts;
  const bool seen = wait_for(
      [&] {
        const std::string screen = tmux.screen();
        const long rounds = rounds_shown(screen);
        std::vector<std::string> lines = lines_of(screen);
        if (rounds > 0 && lines.size() > 2 && !verdicts.contains(rounds))
          verdicts[rounds] = lines[0] + " " + lines[1];
        return rounds >= 40;
      },
      seconds(90));
  ASSERT_TRUE(seen) << tmux.screen();
  ASSERT_FALSE(verdicts.empty());
  EXPECT_LE(verdicts.begin()->first, 2) << "the first frame was not read";

  const std::regex worker(R"(storm-w\d+ \((\d+)\))");
  auto names = [](const std::string& text, const std::string& dev) {
    for (size_t at = text.find(dev); at != std::string::npos; at = text.find(dev, at + 1)) {
      const size_t end = at + dev.size();
      if (end == text.size() || !std::isdigit(static_cast<unsigned char>(text[end]))) return true;
    }
    return false;
  };
  for (const auto& [rounds, verdict] : verdicts) {
    SCOPED_TRACE("rounds " + std::to_string(rounds) + ": " + verdict);
    const bool on_a = names(verdict, a.device()), on_b = names(verdict, b.device());
    EXPECT_FALSE(on_a && on_b) << "one verdict names both devices";
    if (!on_a && !on_b) continue;  // not known yet, said so, or neither storm's words
    // One storm has 20 workers, and its journal thread and workqueue workers besides:
    // more blocked threads on one journal are both storms'.
    std::smatch amount;
    ASSERT_TRUE(std::regex_search(verdict, amount, std::regex(R"(^([0-9.]+) blocked)")));
    EXPECT_LE(std::stod(amount[1]), 24.0) << "both storms' threads on one journal";
    // No wait said twice with the same holder (once directly, once behind them).
    std::map<std::string, int> parts;
    const std::regex part(R"((?:for|in) [a-z][^,()]*? \([^()]*\(\d+\)\))");
    for (std::sregex_iterator m(verdict.begin(), verdict.end(), part), end; m != end; ++m)
      EXPECT_EQ(++parts[m->str()], 1) << m->str() << " twice";
    const int storm = on_a ? a.storm_pid() : b.storm_pid();
    for (std::sregex_iterator m(verdict.begin(), verdict.end(), worker), end; m != end; ++m) {
      const int parent = parent_of(std::stoi((*m)[1]));
      if (parent != 0) {
        EXPECT_EQ(parent, storm) << (*m)[0] << " is of the other storm";
      }
    }
  }
  // The first frame: a verdict of one device, or words that say the devices are not
  // known yet; never one journal of both storms.
  const std::string& first = verdicts.begin()->second;
  EXPECT_TRUE(names(first, a.device()) || names(first, b.device()) ||
              first.find("not known yet") != std::string::npos)
      << first;
}

// Without a terminal (standard output a pipe), and with -b: the frames asked for.
TEST(LiveTop, WithoutATerminalPrintsTheFramesAskedFor) {
  for (bool batch_flag : {false, true}) {
    std::vector<std::string> args{HANGSCOPE_BIN, "top", "-n", "3", "--refresh", "0.2"};
    if (batch_flag) args.push_back("-b");
    RunResult r = run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    size_t frames = 0;
    for (const std::string& l : lines_of(r.out)) {
      if (l.starts_with("hangscope top - ")) ++frames;
    }
    EXPECT_EQ(frames, 3u) << r.out;
    EXPECT_NE(r.out.find("WAIT GROUP"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("PID COMM"), std::string::npos) << r.out;
  }
}
