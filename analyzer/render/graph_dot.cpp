// Graph pictures laid out by Graphviz's `dot` (Debian's graphviz), run as a child
// process: DOT text in on its standard input, SVG out on its standard output. Only the
// SVG reaches the page.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <sstream>

#include "graph_picture.hpp"
#include "xml_text.hpp"

extern char** environ;

namespace hangscope {

namespace {

constexpr int kTimeoutMs = 20000;  // a graph of a few dozen nodes takes milliseconds

std::string find_dot() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = (dir.empty() ? "." : dir) + "/dot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

std::string dot_quoted(std::string_view raw) { return '"' + render::dot_escaped(raw) + '"'; }

std::string dot_text(const PictureGraph& g) {
  double heaviest = 0;
  for (const PictureEdge& e : g.edges) heaviest = std::max(heaviest, e.weight);
  std::string out =
      "digraph waits_on {\n  rankdir=TB; bgcolor=\"transparent\"; nodesep=0.3; ranksep=0.5;\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"sans-serif\", fontsize=11, "
      "color=\"#555555\"];\n  edge [fontname=\"sans-serif\", fontsize=10, color=\"#444444\"];\n";
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const PictureNode& n = g.nodes[i];
    // Two lines: DOT's own "\n" escape between them.
    std::string label = render::dot_escaped(n.label);
    if (!n.detail.empty()) label += "\\n" + render::dot_escaped(n.detail);
    fmt::format_to(std::back_inserter(out), "  n{} [label=\"{}\", fillcolor={}];\n", i, label,
                   dot_quoted(n.fill));
  }
  for (const PictureEdge& e : g.edges) {
    if (e.from >= g.nodes.size() || e.to >= g.nodes.size()) continue;
    double pen = heaviest > 0 ? 1 + 4 * e.weight / heaviest : 1;
    fmt::format_to(std::back_inserter(out), "  n{} -> n{} [penwidth={:.2f}", e.from, e.to, pen);
    if (!e.label.empty())
      fmt::format_to(std::back_inserter(out), ", label={}", dot_quoted(e.label));
    out += "];\n";
  }
  return out + "}\n";
}

// Runs `argv` with `input` on its standard input; its standard output, or nothing when
// it failed, timed out or could not start.
std::string run_filter(const std::vector<std::string>& args, const std::string& input) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return {};
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return {};
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    return {};
  }
  // A dot that exits early must not kill us with SIGPIPE: MSG_NOSIGNAL does not apply
  // to pipes, so block the signal for this thread while writing.
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);

  std::string result;
  size_t written = 0;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {in[1], POLLOUT, 0}};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
  bool timed_out = false;
  char buf[65536];
  while (fds[0].fd >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    if (poll(fds, 2, static_cast<int>(left)) < 0 && errno != EINTR) break;
    if (fds[1].fd >= 0 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = write(fds[1].fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 || written == input.size()) {
        close(fds[1].fd);
        fds[1].fd = -1;
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(fds[0].fd, buf, sizeof buf);
      if (n > 0) {
        result.append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[0].fd);
        fds[0].fd = -1;
      }
    }
  }
  if (fds[0].fd >= 0) close(fds[0].fd);
  if (fds[1].fd >= 0) close(fds[1].fd);
  if (timed_out) kill(pid, SIGKILL);  // our own child, by its pid
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // Drop a SIGPIPE that our writes raised before restoring the mask.
  timespec zero{0, 0};
  while (sigtimedwait(&pipe_set, nullptr, &zero) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  return result;
}

}  // namespace

bool dot_available() { return !find_dot().empty(); }

std::string draw_with_dot(const PictureGraph& graph) {
  std::string dot = find_dot();
  if (dot.empty() || graph.nodes.empty()) return {};
  std::string svg = run_filter({dot, "-Tsvg"}, dot_text(graph));
  // Keep the <svg> element only: no XML declaration, doctype or comments before it.
  size_t start = svg.find("<svg");
  size_t end = svg.rfind("</svg>");
  if (start == std::string::npos || end == std::string::npos) return {};
  std::string element = svg.substr(start, end + 6 - start);
  // Graphviz sizes the picture in points; let the page scale it down to its width.
  size_t tag_end = element.find('>');
  element.insert(tag_end, " class=\"hs-graph\" style=\"max-width:100%;height:auto\"");
  return element;
}

}  // namespace hangscope
