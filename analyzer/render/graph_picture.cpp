// Chooses the layout engine for a graph picture.
#include "graph_picture.hpp"

namespace hangscope {

GraphDrawing draw_graph(const PictureGraph& graph, GraphLayout layout) {
  if (layout != GraphLayout::builtin) {
    std::string svg = draw_with_dot(graph);
    if (!svg.empty()) return {std::move(svg), "dot"};
  }
  return {draw_layered(graph), "builtin"};
}

}  // namespace hangscope
