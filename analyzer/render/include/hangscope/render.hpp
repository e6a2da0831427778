// The render stage: every output reads the analyses' results (and the interned names
// they refer to), never the inputs. One renderer per output format, each in its own
// file under analyzer/render/, listed in analyzer/render/renderers.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hangscope/analysis.hpp"
#include "hangscope/model.hpp"
#include "hangscope/suspects.hpp"

namespace hangscope {

// What the analyses found, handed to every renderer.
struct Report {
  const Capture& capture;  // for the names of frames and tasks, and the inputs' headers
  const Analysis& analysis;
  // report --suspects: the changes of a window that touch its dominant groups' frames.
  const SuspectsResult* suspects = nullptr;
  const Classification& classification() const { return analysis.classification; }
  const Summary& summary() const { return analysis.summary; }
  const WaitGraph& graph() const { return analysis.graph; }
};

// Pictures: what decides a frame's colour, and the order of siblings.
enum class ColorBy : uint8_t { group, subsystem };
enum class FrameOrder : uint8_t { name, count };
// Profiles of a speedscope file: one per wait group, or one per input.
enum class ProfileSplit : uint8_t { group, input };
// How the HTML report lays out graphs: Graphviz's dot when it is installed, else
// hangscope's own layered layout (automatic); or one of them by name.
enum class GraphLayout : uint8_t { automatic, dot, builtin };

// Options shared by the renderers; each reads the ones that concern it.
struct RenderOptions {
  size_t max_frames = 12;  // text: frames shown per top stack
  // svg, html: the flamegraph (the merged tree's root level is AnalysisOptions::flame).
  std::string title;                  // empty: made from the inputs
  unsigned width = 0;                 // pixels; 0: fill the window (laid out for 1200)
  double min_width = 1;               // narrower frames are merged away, in pixels...
  bool min_width_percent = false;     // ...or in percent of the whole
  bool icicle = false;                // root on top
  ColorBy color_by = ColorBy::group;
  FrameOrder sort = FrameOrder::name;  // siblings alphabetical, or widest first
  GraphLayout graph_layout = GraphLayout::automatic;  // html
  ProfileSplit split = ProfileSplit::group;           // speedscope
  std::string version;                // of the program writing the output, for exporters
};

// The version of the JSON documents of report and diff (docs/json-schema.json, whose
// "schema_version" const must say the same): raised when a field is removed, renamed or
// changes meaning.
inline constexpr int kJsonSchemaVersion = 2;

class Renderer {
 public:
  virtual ~Renderer() = default;
  virtual std::string_view name() const = 0;         // the value of -f
  virtual std::string_view description() const = 0;  // one line for --help
  // The analyses it reads (AnalysisNeed bits): report computes these alone.
  virtual uint8_t needs() const { return kNeedAll; }
  // The least share of the samples' weight that it draws a flame-tree node at
  // (FlameTreeOptions::min_share): a flamegraph leaves out frames narrower than its
  // minimum width, so the tree need not hold them. 0: it reads every node.
  virtual double flame_min_share(const RenderOptions&) const { return 0; }
  virtual std::string render(const Report& report, const RenderOptions& options) const = 0;
  // The output handed to `write` in pieces as it is made, so that an output as large as
  // its input (folded stacks) is never held whole; by default render()'s text at once.
  using Write = std::function<void(std::string_view)>;
  virtual void render_to(const Report& report, const RenderOptions& options,
                         const Write& write) const {
    write(render(report, options));
  }
};

std::span<const Renderer* const> renderers();

// The verdict as lines of text, as the text report begins with them (possible
// deadlocks, then findings): for one-line summaries elsewhere (watch's journal line).
std::vector<std::string> verdict_lines(const Report& report);
const Renderer* find_renderer(std::string_view name);
// The waits-on graph in words (graph_words.cpp). A node as every output names it
// ("jbd2:log-space@loop0", "block device loop0", "sshfs (4711)"); its kind ("group",
// "device", "unseen", "task"); a waits-on chain from its `from`th node on, as the text
// report writes it ("vfs:rename-lock@loop0 (11.23) -> ... -> block device loop0").
std::string node_words(const Report& report, uint32_t node);
std::string_view node_kind_name(NodeKind k);
std::string chain_words(const Report& report, const Chain& c, size_t from = 0);

// What was odd about an input (a cut capture, skipped lines, tasks without a stack, perf
// samples of other events left out), one line each, "path: ...".
std::vector<std::string> input_warnings(const SourceInfo& source);
// A task read without its stack: "file:line: comm (tid)" of its header.
std::string stackless_words(const SourceInfo::StacklessTask& task);

// The subject of a finding of the verdict in words: its holder in place of {holder}
// ("the FUSE daemon sshfs (4711) of /mnt/remote, which is stopped (T)").
std::string subject_words(const Capture& c, const Finding& f);

}  // namespace hangscope
