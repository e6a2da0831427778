// FlameGraph's collapsed ("folded") stack format: one line per distinct path, frames
// root first separated by ';', then a space and the count. Every flamegraph tool reads it.
//
// The paths are those of the flame tree, so that the level under its root is the one of
// the flamegraph (--root): the command of perf script and bcc inputs, as
// stackcollapse-perf.pl writes them (spaces in a command as '_'), nothing for hangscope's
// captures and kernel dumps, or the wait group. A stack with user frames
// (docs/user-stacks.md) starts with them, from main down, and goes on with its kernel
// frames annotated "_[k]", as FlameGraph colours them apart; kernel-only stacks are
// written without annotations. Inlined frames (decoded traces, perf's Java "a->b") are
// annotated "_[i]", as stackcollapse-perf.pl does. A ';' in a name (a Java signature) is
// written ':', as stackcollapse-perf.pl does, so that it never splits a frame.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "renderers.hpp"

namespace hangscope::render {

namespace {

class FoldedRenderer final : public Renderer {
 public:
  std::string_view name() const override { return "folded"; }
  std::string_view description() const override {
    return "FlameGraph collapsed stacks: root first, ';' between frames, then the count";
  }
  uint8_t needs() const override { return kNeedFlamePaths; }
  std::string render(const Report& report, const RenderOptions& options) const override {
    std::string out;
    render_to(report, options, [&](std::string_view piece) { out += piece; });
    return out;
  }
  void render_to(const Report& report, const RenderOptions&, const Write& write) const override;
};

// Output is handed on in pieces of about this size.
constexpr size_t kPieceBytes = 1 << 20;

void append_name(std::string& out, std::string_view name, char blank) {
  size_t from = out.size();
  out += name;
  for (size_t i = from; i < out.size(); ++i)
    if (out[i] == ';' || out[i] == ' ') out[i] = out[i] == ';' ? ':' : blank;
}

void FoldedRenderer::render_to(const Report& report, const RenderOptions&,
                               const Write& write) const {
  const Capture& c = report.capture;
  const StackTable& st = c.stacks;
  if (!report.analysis.flame_paths)
    throw std::logic_error(
        "folded stacks are written from the flame tree's paths (kNeedFlamePaths)");
  std::string out;
  // The last path's text, where each of its levels' text ends in it, and its levels:
  // a path repeats the text of the levels it shares with the one before, copied.
  std::string line;
  std::vector<size_t> ends;
  std::vector<FlameLevel> last;
  bool last_user = false;
  report.analysis.flame_paths->for_each_path(
      [&](std::span<const FlameLevel> path, uint64_t weight) {
        bool user = false;
        for (const FlameLevel& l : path)
          user = user || (l.kind == FlameNode::kFrame && st.frame(l.key).kind == FrameKind::user);
        size_t same = 0;  // user frames annotate every kernel frame: then nothing is the same
        if (user == last_user)
          while (same < std::min(path.size(), last.size()) && path[same].kind == last[same].kind &&
                 path[same].key == last[same].key)
            ++same;
        line.resize(same ? ends[same - 1] : 0);
        ends.resize(same);
        for (size_t j = same; j < path.size(); ++j) {
          const FlameLevel& l = path[j];
          if (j) line += ';';
          append_name(line, flame_level_name(l, c, report.classification()),
                      l.kind == FlameNode::kComm ? '_' : ' ');
          if (l.kind == FlameNode::kFrame) {
            if (st.frame(l.key).flags & kInlined)
              line += "_[i]";
            else if (user && st.frame(l.key).kind == FrameKind::kernel)
              line += "_[k]";
          }
          ends.push_back(line.size());
        }
        last.assign(path.begin(), path.end());
        last_user = user;
        out += line;
        fmt::format_to(std::back_inserter(out), " {}\n", weight);
        if (out.size() >= kPieceBytes) {
          write(out);
          out.clear();
        }
      });
  if (!out.empty()) write(out);
}

}  // namespace

const Renderer& folded_renderer() {
  static const FoldedRenderer r;
  return r;
}

}  // namespace hangscope::render
