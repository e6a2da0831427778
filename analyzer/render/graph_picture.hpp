// Drawing a directed, weighted graph as a picture (an SVG element for a page): the
// waits-on graph of the HTML report, and any other graph an output wants to show.
// Graphviz's `dot` lays it out when it is installed; otherwise hangscope's own layered
// layout does. The page never receives DOT text, only the drawing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hangscope/render.hpp"

namespace hangscope {

struct PictureNode {
  std::string label;             // first line, e.g. "jbd2:force-commit"
  std::string detail;            // second line, e.g. "6.31 threads"; may be empty
  std::string fill = "#dddddd";  // "#rrggbb"
};

struct PictureEdge {
  uint32_t from = 0, to = 0;  // indexes into PictureGraph::nodes; from waits on to
  double weight = 1;          // line thickness is relative to the heaviest edge
  std::string label;          // may be empty
};

struct PictureGraph {
  std::vector<PictureNode> nodes;
  std::vector<PictureEdge> edges;
};

struct GraphDrawing {
  std::string svg;     // one <svg> element, without an XML declaration
  std::string engine;  // "dot" or "builtin": what laid it out
};

// Draws `graph`. GraphLayout::automatic uses dot when found on PATH and falls back to
// the built-in layout when dot is missing or fails; GraphLayout::dot falls back too
// (a picture is always drawn) but is what tests ask for to check dot's path.
GraphDrawing draw_graph(const PictureGraph& graph, GraphLayout layout = GraphLayout::automatic);

// The layouts themselves. draw_with_dot returns an empty string when dot is missing
// or fails.
std::string draw_with_dot(const PictureGraph& graph);
std::string draw_layered(const PictureGraph& graph);
bool dot_available();

}  // namespace hangscope
