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

#include "renderers.hpp"

namespace hangscope::render {

namespace {

class FoldedRenderer final : public Renderer {
 public:
  std::string_view name() const override { return "folded"; }
  std::string_view description() const override {
    return "FlameGraph collapsed stacks: root first, ';' between frames, then the count";
  }
  uint8_t needs() const override { return kNeedFlame; }
  std::string render(const Report& report, const RenderOptions&) const override;
};

void append_name(std::string& out, std::string_view name, char blank) {
  for (char c : name) out += c == ';' ? ':' : c == ' ' ? blank : c;
}

std::string FoldedRenderer::render(const Report& report, const RenderOptions&) const {
  const FlameTree& tree = report.analysis.flame;
  const Capture& c = report.capture;
  const StackTable& st = c.stacks;
  std::string out;
  std::vector<uint32_t> path;  // the open path, below the root
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const FlameNode& n = tree.nodes[i];
    path.resize(n.depth - 1u);
    path.push_back(i);
    uint64_t children = 0;
    for (uint32_t k = i + 1; k < n.end; k = tree.nodes[k].end) children += tree.nodes[k].weight;
    if (n.weight <= children) continue;  // no sample ends here
    bool user = false;
    for (uint32_t p : path)
      user = user || (tree.nodes[p].kind == FlameNode::kFrame &&
                      st.frame(tree.nodes[p].key).kind == FrameKind::user);
    for (size_t j = 0; j < path.size(); ++j) {
      const FlameNode& p = tree.nodes[path[j]];
      if (j) out += ';';
      append_name(out, tree.name(path[j], c, report.classification()),
                  p.kind == FlameNode::kComm ? '_' : ' ');
      if (p.kind != FlameNode::kFrame) continue;
      if (st.frame(p.key).flags & kInlined)
        out += "_[i]";
      else if (user && st.frame(p.key).kind == FrameKind::kernel)
        out += "_[k]";
    }
    fmt::format_to(std::back_inserter(out), " {}\n", n.weight - children);
  }
  return out;
}

}  // namespace

const Renderer& folded_renderer() {
  static const FoldedRenderer r;
  return r;
}

}  // namespace hangscope::render
