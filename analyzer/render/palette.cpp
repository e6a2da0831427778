#include "palette.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace hangscope::render {

namespace {

// Well-separated colours for the heaviest keys (neighbouring hues differ in lightness);
// later keys step round the wheel by the golden angle.
constexpr Hsl kColors[] = {{4, 70, 58},   {212, 70, 58}, {38, 80, 56},  {140, 55, 50},
                           {280, 55, 62}, {184, 60, 45}, {330, 65, 65}, {58, 70, 50},
                           {240, 45, 74}, {100, 45, 68}, {20, 45, 40},  {195, 70, 76}};

Hsl nth_color(size_t i) {
  if (i < std::size(kColors)) return kColors[i];
  int h = static_cast<int>(4 + 137.508 * static_cast<double>(i)) % 360;
  return {h, 55, i % 2 ? 50 : 66};
}

uint32_t name_hash(std::string_view s) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

}  // namespace

std::string Hsl::css() const { return fmt::format("hsl({},{}%,{}%)", h, s, l); }

std::string Hsl::hex() const {
  // The usual HSL to RGB conversion.
  double sat = s / 100.0, light = l / 100.0;
  double c = (1 - std::abs(2 * light - 1)) * sat;
  double hp = (h % 360) / 60.0;
  double x = c * (1 - std::abs(std::fmod(hp, 2) - 1));
  double r = 0, g = 0, b = 0;
  if (hp < 1)
    r = c, g = x;
  else if (hp < 2)
    r = x, g = c;
  else if (hp < 3)
    g = c, b = x;
  else if (hp < 4)
    g = x, b = c;
  else if (hp < 5)
    r = x, b = c;
  else
    r = c, b = x;
  double m = light - c / 2;
  auto byte = [&](double v) { return static_cast<int>(std::lround((v + m) * 255)); };
  return fmt::format("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b));
}

Palette::Palette(const Report& report, ColorBy by) : by_(by) {
  const Classification& cls = report.classification();
  const Summary& sum = report.summary();
  key_of_group_.assign(cls.groups.size(), 0);
  if (by == ColorBy::group) {
    std::vector<bool> keyed(cls.groups.size(), false);
    for (const GroupSummary& g : sum.groups) {
      key_of_group_[g.group] = keys_.size();
      keyed[g.group] = true;
      keys_.push_back({cls.groups[g.group].name, nth_color(keys_.size()), g.share});
    }
    // Groups without samples still get a colour of their own.
    for (uint32_t g = 0; g < cls.groups.size(); ++g) {
      if (keyed[g]) continue;
      key_of_group_[g] = keys_.size();
      keys_.push_back({cls.groups[g].name, nth_color(keys_.size()), 0});
    }
    return;
  }
  std::map<std::string, double> share;
  for (const GroupSummary& g : sum.groups) share[cls.groups[g.group].subsystem] += g.share;
  for (const WaitGroup& g : cls.groups) share.try_emplace(g.subsystem, 0);
  std::vector<std::pair<std::string, double>> order(share.begin(), share.end());
  std::stable_sort(order.begin(), order.end(),
                   [](auto& a, auto& b) { return a.second > b.second; });
  std::map<std::string, size_t> index;
  for (auto& [name, s] : order) {
    index[name] = keys_.size();
    keys_.push_back({name, nth_color(keys_.size()), s});
  }
  for (uint32_t g = 0; g < cls.groups.size(); ++g)
    key_of_group_[g] = index[cls.groups[g].subsystem];
}

std::string Palette::frame_fill(uint32_t group, std::string_view name, FrameKind kind) const {
  Hsl c = keys_.empty() ? Hsl{0, 0, 70} : group_color(group);
  int jitter = static_cast<int>(name_hash(name) % 13) - 6;  // -6..6
  if (kind == FrameKind::user) return Hsl{c.h, 28, 80 + jitter / 2}.css();
  return Hsl{c.h, c.s, c.l + jitter}.css();
}

}  // namespace hangscope::render
