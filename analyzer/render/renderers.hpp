// The renderers of the render stage, one per output format, each in its own file, and
// the one list of them: a new renderer is its file, a line here and a line of
// stage.cmake. The list is a table, not self-registration, so that every renderer of the
// static library is linked because renderers.cpp names it.
#pragma once

#include <string>
#include <vector>

#include "hangscope/render.hpp"

// X(function) for every renderer, in the order --help lists them; `function()` returns it.
#define HANGSCOPE_RENDERERS(X)                                                                    \
  X(text_renderer)       /* text.cpp: the summary for a person at a terminal */                   \
  X(folded_renderer)     /* folded.cpp: FlameGraph's collapsed stacks */                          \
  X(svg_renderer)        /* svg.cpp: the interactive flamegraph */                                \
  X(html_renderer)       /* html.cpp: the self-contained HTML report */                           \
  X(speedscope_renderer) /* speedscope.cpp: speedscope's JSON file format */                      \
  X(pprof_renderer)      /* pprof.cpp: pprof's profile.proto, gzipped */                          \
  X(dot_renderer)        /* dot.cpp: the waits-on graph for Graphviz */                           \
  X(json_renderer)       /* json.cpp: everything, for programs */

namespace hangscope::render {

#define HANGSCOPE_DECLARE_RENDERER(function) const Renderer& function();
HANGSCOPE_RENDERERS(HANGSCOPE_DECLARE_RENDERER)
#undef HANGSCOPE_DECLARE_RENDERER

// unit_words.cpp: what the weights count, "tasks", "samples", "us", "ns", "cycles".
std::string unit_name(WeightUnit unit, std::string_view event);
std::string unit_name(const Summary& summary);
// What the report's samples are of: blocked tasks, tasks on a CPU (a CPU profile, not a
// hang), or not known (folded stacks of another tool).
enum class Activity : uint8_t { blocked, on_cpu, unknown };
Activity activity(const Summary& summary);
// A weight of the report in words: "2855 blocked samples", "3 blocked tasks",
// "2506 on-CPU samples", "48113 samples", "1203000 us off CPU", "9600000 ns on CPU".
std::string weight_words(const Summary& summary, uint64_t weight);
// The same for a weight of tasks known to be `of` that activity: "2 running tasks".
std::string weight_words(const Summary& summary, uint64_t weight, Activity of);

// Cores (CPU seconds per second) and shares of CPU in words: two decimals, or two
// significant digits below a tenth, so that a little spinning does not read as none:
// "1.20", "0.0023"; "60.0%", "0.032%".
std::string cores_words(double cores);
std::string cpu_share_words(double share);

// task_label.cpp: a task as every output names it, "comm (tid)"; the command alone for a
// dump without thread ids, "tid N" where the command is unknown.
std::string task_label(std::string_view comm, int32_t tid);
std::string task_label(const Capture& c, const TaskExample& t);

// context_words.cpp: the context summary in words. A field's value ("fsync", "4711"), its
// most common values with their weights ("fsync (12), write (3)"), a group's states ("D
// 12, S 3 (3 S in a watched wait)"), its tasks blocked longest without running ("dd (42)
// >= 1.20 s, ..."), the machine's figures (D threads, pressure, late rounds), and an input
// recorded without kernel stacks.
std::string context_value_words(const Capture& c, const ContextCount& v, bool number);
std::string context_counts_words(const Capture& c, const std::vector<ContextCount>& values,
                                 bool number = false);
std::string context_states_words(const GroupContext& g);
std::string context_longest_words(const Capture& c, const GroupContext& g);
std::string context_machine_words(const ContextSummary& cx);
std::string stackless_source_words(std::string_view path);

// graph_words.cpp, beside node_words and chain_words (render.hpp): a weight of the graph
// ("11.23" blocked threads, "42" samples), an edge's reasons ("checkpointer, mutex"), a
// wait's phrase ("for log space", or "in" a title), a finding's subject with its device
// and what the subject itself waits for ("" when nothing, or only itself).
std::string amount(const WaitGraph& g, double w);
std::string reasons_words(const std::vector<std::string>& reasons);
std::string phrase_words(const Classification& cls, const WaitPhrase& w);
std::string subject_text(const Finding& f);
std::string then_words(const Report& r, const Finding& f);
// Whether a node is the device a finding's subject names ("block device {device}").
bool subjects_device(const Report& r, const Finding& f, uint32_t node);
// A node as a sentence says it: an unknown device is "an unknown block device", where a
// chain's label says "block device (unknown)".
std::string sentence_node_words(const Report& r, uint32_t node);

// verdict_words.cpp: verdict_lines (render.hpp), the verdict as lines of text; and
// who holds what a part of the verdict waits for, in words, and what serves it where
// no task is known ("block device loop0").
std::string holder_words(const Report& r, const VerdictHolder& h);
std::string place_words(const Report& r, const VerdictHolder& h);

}  // namespace hangscope::render
