// hangscope watch refuses what it cannot use before anything runs: one line on stderr,
// exit 2 for bad options and 1 for what the machine refuses (a directory that is not
// private, a port in use), and no capture directory touched.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope::testing;
namespace fs = std::filesystem;

namespace {

const std::string kBin = HANGSCOPE_BIN;

size_t lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace

TEST(WatchCli, BadTriggerSyntaxIsOneLineAndExitTwo) {
  TempDir t;
  for (const auto& [option, value, unit] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"--psi-full", "lots", "percent"},
           {"--blocked-for", "-3", "seconds"},
           {"--avg-blocked", "10x", "threads"}}) {
    RunResult r = run({kBin, "watch", "--dir", t.file("c"), option, value});
    EXPECT_EQ(r.status, 2) << option;
    EXPECT_EQ(r.err, "hangscope: " + option + " '" + value + "': expected a number of " + unit +
                         " or off\n");
  }
  EXPECT_FALSE(fs::exists(t.file("c")));  // nothing ran
  RunResult both = run({kBin, "watch", "--kmsg", "--no-kmsg"});
  EXPECT_EQ(both.status, 2) << both.err;
  RunResult listen = run({kBin, "watch", "--dir", t.file("c"), "--listen", "localhost:http"});
  EXPECT_EQ(listen.status, 2);
  EXPECT_EQ(listen.err,
            "hangscope: --listen 'localhost:http': expected ADDRESS:PORT, :PORT or PORT (0: any "
            "free port)\n");
}

TEST(WatchCli, ADirectoryThatIsASymlinkOrWritableByOthersIsRefused) {
  TempDir t;
  fs::create_directory(t.file("real"));
  chmod(t.file("real").c_str(), 0700);
  fs::create_directory_symlink(t.file("real"), t.file("link"));
  RunResult link = run({kBin, "watch", "--dir", t.file("link")});
  EXPECT_EQ(link.status, 1);
  EXPECT_EQ(link.err, "hangscope: " + t.file("link") +
                          ": is a symbolic link; give the directory itself\n");

  fs::create_directory(t.file("open"));
  chmod(t.file("open").c_str(), 01777);
  RunResult open = run({kBin, "watch", "--dir", t.file("open")});
  EXPECT_EQ(open.status, 1);
  EXPECT_EQ(open.err, "hangscope: " + t.file("open") +
                          ": writable by others (mode 1777); captures go in a private directory: "
                          "chmod 700 " +
                          t.file("open") + "\n");
  EXPECT_TRUE(fs::is_empty(t.file("open")));
}

TEST(WatchCli, APortInUseIsOneLineAndExitOne) {
  if (geteuid() != 0)
    HANGSCOPE_SKIP() << "watch gets as far as listening only with the privileges to sample (root)";
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  const std::string port = std::to_string(ntohs(a.sin_port));
  TempDir t;
  RunResult r = run({kBin, "watch", "--dir", t.file("c"), "--no-kmsg", "--listen",
                     "127.0.0.1:" + port});
  close(fd);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err, "hangscope: --listen 127.0.0.1:" + port +
                       ": cannot listen there: Address already in use\n");
}

// A capture watch wrote (fixtures/capture/watch-storm.capture, made by
// make-watch-capture.sh) says in the report what made it, and its timeline marks it.
TEST(WatchCli, TheReportOfAWatchCaptureShowsItsTrigger) {
  const std::string fixture = std::string(HANGSCOPE_FIXTURES) + "/capture/watch-storm.capture";
  RunResult text = run({kBin, "report", fixture});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("\n    written by watch: avg-blocked fired at 3.20 s (value 4, "
                          "threshold 4): last 10 s\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("hangscope report: 1 input, 110 rounds"), std::string::npos);
  EXPECT_NE(text.out.find("the jbd2 journal of loop0"), std::string::npos);
  RunResult html = run({kBin, "report", "-f", "html", fixture});
  ASSERT_EQ(html.status, 0) << html.err;
  EXPECT_NE(html.out.find("class=\"hs-trigger\""), std::string::npos);
  EXPECT_NE(html.out.find(">avg-blocked fired</text>"), std::string::npos);
  // A capture of record has neither.
  RunResult record = run({kBin, "report", std::string(HANGSCOPE_FIXTURES) +
                                              "/capture/storm-v2-context.capture"});
  EXPECT_EQ(record.out.find("written by watch"), std::string::npos);
}
