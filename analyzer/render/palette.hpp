// Colours shared by every picture of one report, so that a wait group (or subsystem)
// has the same colour in the flamegraph, its legend, the table and the timeline.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hangscope/render.hpp"

namespace hangscope::render {

struct Hsl {
  int h = 0, s = 0, l = 0;
  std::string css() const;
  std::string hex() const;  // "#rrggbb", for tools that do not read hsl() (Graphviz)
};

class Palette {
 public:
  // One key per wait group (heaviest first) or per subsystem (heaviest first).
  Palette(const Report& report, ColorBy by);

  struct Key {
    std::string name;  // the group or subsystem, as in the analysis (not yet escaped)
    Hsl color;
    double share = 0;  // of all weight, 0..1
  };
  const std::vector<Key>& keys() const { return keys_; }
  ColorBy by() const { return by_; }

  // The key that colours a wait group.
  size_t key_of_group(uint32_t group) const { return key_of_group_[group]; }
  Hsl group_color(uint32_t group) const { return keys_[key_of_group(group)].color; }

  // A frame's fill: its group's colour, varied a little by the frame's name so that
  // neighbours stay apart; user-space frames pale, in the same hue.
  std::string frame_fill(uint32_t group, std::string_view name, FrameKind kind) const;
  // Fill of the frames that are not functions: the root, and commands.
  static std::string special_fill() { return "hsl(0,0%,82%)"; }

 private:
  ColorBy by_;
  std::vector<Key> keys_;
  std::vector<size_t> key_of_group_;
};

}  // namespace hangscope::render
