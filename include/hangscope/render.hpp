// The render stage: every output reads the analyses' results (and the interned names
// they refer to), never the inputs. One renderer per output format, each in its own
// file under analyzer/render/, listed in analyzer/render/renderers.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "hangscope/analysis.hpp"
#include "hangscope/model.hpp"

namespace hangscope {

// What the analyses found, handed to every renderer.
struct Report {
  const Capture& capture;  // for the names of frames and tasks, and the inputs' headers
  const Analysis& analysis;
  const Classification& classification() const { return analysis.classification; }
  const Summary& summary() const { return analysis.summary; }
  const WaitGraph& graph() const { return analysis.graph; }
};

// Options shared by the renderers; each reads the ones that concern it.
struct RenderOptions {
  size_t max_frames = 12;  // text: frames shown per top stack
};

class Renderer {
 public:
  virtual ~Renderer() = default;
  virtual std::string_view name() const = 0;         // the value of -f
  virtual std::string_view description() const = 0;  // one line for --help
  virtual std::string render(const Report& report, const RenderOptions& options) const = 0;
};

std::span<const Renderer* const> renderers();
const Renderer* find_renderer(std::string_view name);

}  // namespace hangscope
