// Renderers of a diff (hangscope diff -f ...), one per format, each in its own file
// under analyzer/render/, listed in analyzer/render/diff_renderers.hpp.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "hangscope/diff.hpp"
#include "hangscope/flame_compare.hpp"
#include "hangscope/render.hpp"
#include "hangscope/suspects.hpp"

namespace hangscope {

// What the diff renderers read: the comparison, both sides' analyses (for pictures),
// and the target's flame tree compared with the base's.
struct DiffReport {
  const DiffResult& result;
  Report base;
  Report target;
  const FlameComparison& flame;
  // diff --suspects: the changes of a window that touch the frames of what grew.
  const SuspectsResult* suspects = nullptr;
};

class DiffRenderer {
 public:
  virtual ~DiffRenderer() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual std::string render(const DiffReport& diff, const RenderOptions& options) const = 0;
};

std::span<const DiffRenderer* const> diff_renderers();
const DiffRenderer* find_diff_renderer(std::string_view name);

}  // namespace hangscope
