// The diff for a person: which waits grew, by how much and how sure we are, first;
// where the stacks of the top regressions part (where to look in a bisect); then the
// tables by wait group, subsystem and stack.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "diff_renderers.hpp"
#include "diff_words.hpp"
#include "suspects_sections.hpp"

namespace hangscope::render {

namespace {

using Out = std::back_insert_iterator<std::string>;

void verdict(Out out, const DiffResult& d) {
  fmt::format_to(out, "\n{}:\n", regressions_heading(d));
  if (d.regressions.empty()) fmt::format_to(out, "  none: no wait group grew beyond the noise\n");
  for (size_t i = 0; i < d.regressions.size(); ++i) {
    const DiffRow& row = d.groups[d.regressions[i]];
    fmt::format_to(out, "  {}. {}: {}\n", i + 1, row.label, movement_words(d, row));
    for (const Divergence& dv : d.divergences) {
      std::string words = dv.group == row.key ? divergence_words(dv) : "";
      if (!words.empty()) fmt::format_to(out, "     {}\n", words);
    }
  }
  fmt::format_to(out, "\n{}:\n", improvements_heading(d));
  if (d.improvements.empty()) fmt::format_to(out, "  none\n");
  for (size_t i = 0; i < d.improvements.size(); ++i) {
    const DiffRow& row = d.groups[d.improvements[i]];
    fmt::format_to(out, "  {}. {}: {}\n", i + 1, row.label, movement_words(d, row));
  }
}

void table(Out out, const DiffResult& d, std::string_view title, const std::vector<DiffRow>& rows,
           size_t limit, bool stacks) {
  if (rows.empty()) return;
  size_t width = title.size();
  auto name = [&](const DiffRow& r) { return stacks ? r.label : r.key; };
  for (size_t i = 0; i < rows.size() && i < limit; ++i)
    width = std::max(width, name(rows[i]).size());
  fmt::format_to(out, "\n{:<{}}  {:>9} {:>9} {:>9}  {:<20} {:>6}  {}\n", title, width, "BASE",
                 "TARGET", "DELTA", "INTERVAL", "RATIO", "CHANGE");
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    const DiffRow& r = rows[i];
    fmt::format_to(out, "{:<{}}  {:>9} {:>9} {:>9}  {:<20} {:>6}  {}\n", name(r), width,
                   value_words(d, r.base), value_words(d, r.target), signed_value_words(d, r.delta),
                   interval_words(d, r), ratio_words(r.ratio), change_word(r.change));
  }
  if (rows.size() > limit) fmt::format_to(out, "... {} more\n", rows.size() - limit);
}

class DiffTextRenderer final : public DiffRenderer {
 public:
  std::string_view name() const override { return "text"; }
  std::string_view description() const override {
    return "the verdict (regressions, improvements, where stacks part), then the tables";
  }
  std::string render(const DiffReport& report, const RenderOptions&) const override {
    const DiffResult& d = report.result;
    std::string text;
    Out out(text);
    fmt::format_to(out, "hangscope diff\n  base:   {}\n  target: {}\n", side_words(d.base),
                   side_words(d.target));
    // Profiles of running tasks only: nothing blocked to compare.
    const bool blocked = !d.groups.empty() || !d.on_cpu.any;
    if (blocked)
      for (const std::string& line : basis_lines(d)) fmt::format_to(out, "  {}\n", line);
    std::vector<std::string> growth = growth_lines(d);
    if (!growth.empty()) fmt::format_to(out, "\n");
    for (const std::string& line : growth) fmt::format_to(out, "{}\n", line);
    if (blocked) {
      verdict(out, d);
      table(out, d, "WAIT GROUP", d.groups, SIZE_MAX, false);
      table(out, d, "SUBSYSTEM", d.subsystems, SIZE_MAX, false);
      // Stacks: the ones that moved most either way.
      std::vector<DiffRow> moved = d.stacks;
      std::stable_sort(moved.begin(), moved.end(), [](const DiffRow& a, const DiffRow& b) {
        return std::abs(a.delta) > std::abs(b.delta);
      });
      table(out, d, "STACK (innermost frame in wait group)", moved, 15, true);
    }
    if (d.on_cpu.any) {
      // The on-CPU samples apart, on their own basis (cores or share of CPU).
      const DiffResult cpu = on_cpu_view(d);
      fmt::format_to(out, "\non CPU (running tasks, apart from the blocked ones):\n");
      for (const std::string& line : basis_lines(cpu)) fmt::format_to(out, "  {}\n", line);
      verdict(out, cpu);
      table(out, cpu, "ON-CPU GROUP", cpu.groups, SIZE_MAX, false);
    }
    if (report.suspects) suspects_text(text, *report.suspects);
    return text;
  }
};

}  // namespace

const DiffRenderer& diff_text_renderer() {
  static const DiffTextRenderer r;
  return r;
}

}  // namespace hangscope::render
