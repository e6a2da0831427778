// Draws the timeline. The axis is time, from the rounds' own times: a capture of watch
// holds a round a second before its trigger and fifty a second after it, and each round
// covers the seconds until the next. Long captures are bucketed to at most kMaxColumns
// columns of equal time, each the time-weighted mean of the rounds over it, so the
// picture's size does not grow with the capture.
#include "timeline_chart.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include <algorithm>
#include <cmath>

#include "xml_text.hpp"

namespace hangscope::render {

namespace {

constexpr size_t kMaxColumns = 480;
constexpr size_t kMaxSeries = 8;  // the heaviest groups; the rest is "other"
constexpr double kLeft = 56, kRight = 984, kTop = 16, kBottom = 250, kWidth = 1000, kHeight = 318;

double round_time_s(const Capture& c, uint32_t round) {
  return static_cast<double>(c.rounds[round].time_ns) / 1e9;
}

// Where each row of the timeline begins on its axis (the seconds of the rows before it,
// by round_seconds), and where the last ends.
struct RowTimes {
  std::vector<double> start;  // rows + 1
  double total = 0;
};

RowTimes row_times(const Capture& c, const Timeline& t) {
  const std::vector<double> seconds = round_seconds(c);
  RowTimes out;
  out.start.assign(t.rounds.size() + 1, 0);
  for (size_t row = 0; row < t.rounds.size(); ++row)
    out.start[row + 1] = out.start[row] + std::max(0.0, seconds[t.rounds[row]]);
  if (out.start.back() <= 0)  // no time known at all: a row each
    for (size_t row = 0; row <= t.rounds.size(); ++row) out.start[row] = static_cast<double>(row);
  out.total = out.start.back();
  return out;
}

// A round number at least x, for the top of the axis.
double nice_ceiling(double x) {
  if (x <= 0) return 1;
  double p = std::pow(10, std::floor(std::log10(x)));
  for (double m : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
    if (m * p >= x) return m * p;
  return 10 * p;
}

}  // namespace

std::string timeline_onset(const Report& r) {
  const Timeline& t = r.analysis.timeline;
  if (t.empty() || t.onset_row == kNoRound) return {};
  uint32_t round = t.rounds[t.onset_row];
  const SourceInfo& src = r.capture.sources[r.capture.rounds[round].source];
  return fmt::format(
      "Blocked threads first reached half their peak ({} of {}) at {:.2f} s into {}, led by {}.",
      t.total(t.onset_row), t.peak, round_time_s(r.capture, round), src.path,
      r.classification().groups[t.onset_group].name);
}

std::string timeline_svg(const Report& r, const Palette& palette, std::string& why_not) {
  const Timeline& t = r.analysis.timeline;
  const Capture& c = r.capture;
  if (t.empty()) {
    why_not =
        "No timeline: no input has rounds (a dump is one snapshot, not a series of "
        "samples over time).";
    return {};
  }
  if (t.peak == 0) {
    why_not = "No timeline: no thread was blocked in any round.";
    return {};
  }
  const size_t rows = t.rounds.size();
  const size_t series = std::min(kMaxSeries, t.groups.size());
  const bool other = t.groups.size() > series;
  const size_t lanes = series + (other ? 1 : 0);
  const size_t columns = std::min(rows, kMaxColumns);

  // Where each row begins on the axis, in seconds: the rounds' seconds one after another.
  const RowTimes at = row_times(c, t);
  const double width = at.total / static_cast<double>(columns);  // of a column
  auto column_of = [&](double pos) {
    return std::min(columns - 1, static_cast<size_t>(std::max(0.0, pos / width)));
  };
  // The row over the start of each column (its time on the labels).
  std::vector<size_t> first_row(columns);
  for (size_t col = 0, row = 0; col < columns; ++col) {
    while (row + 1 < rows && at.start[row + 1] <= static_cast<double>(col) * width) ++row;
    first_row[col] = row;
  }
  // The seconds since the start of its input at the start of a column.
  auto column_seconds = [&](size_t col) {
    const size_t row = first_row[col];
    return round_time_s(c, t.rounds[row]) + static_cast<double>(col) * width - at.start[row];
  };

  // values[col * lanes + lane]: blocked threads in the column, averaged over its time.
  std::vector<double> values(columns * lanes, 0);
  for (size_t row = 0; row < rows; ++row) {
    const double from = at.start[row], to = at.start[row + 1];
    for (size_t col = column_of(from); col < columns; ++col) {
      const double lo = static_cast<double>(col) * width, hi = lo + width;
      if (lo >= to) break;
      const double overlap = std::min(hi, to) - std::max(lo, from);
      if (overlap <= 0) continue;
      for (size_t g = 0; g < t.groups.size(); ++g)
        values[col * lanes + std::min(g, lanes - 1)] +=
            static_cast<double>(t.at(row, g)) * overlap / width;
    }
  }
  double ymax = 0;
  for (size_t col = 0; col < columns; ++col) {
    double sum = 0;
    for (size_t lane = 0; lane < lanes; ++lane) sum += values[col * lanes + lane];
    ymax = std::max(ymax, sum);
  }
  ymax = nice_ceiling(ymax);

  auto xof = [&](double col) {
    return columns == 1 ? (kLeft + kRight) / 2
                        : kLeft + (kRight - kLeft) * col / static_cast<double>(columns - 1);
  };
  auto yof = [&](double v) { return kBottom - (kBottom - kTop) * v / ymax; };

  std::string svg;
  auto out = std::back_inserter(svg);
  fmt::format_to(out,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"hs-timeline\" "
                 "viewBox=\"0 0 {} {}\" width=\"100%\" font-family=\"sans-serif\" "
                 "font-size=\"11\">\n",
                 kWidth, kHeight);
  // Axes and grid.
  for (int i = 0; i <= 4; ++i) {
    double v = ymax * i / 4;
    fmt::format_to(out,
                   "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
                   "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" fill=\"#555\">{:g}</text>\n",
                   kLeft, kRight, yof(v), yof(v), kLeft - 6, yof(v) + 4, v);
  }
  fmt::format_to(out,
                 "<text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\" "
                 "fill=\"#333\">blocked threads</text>\n",
                 (kTop + kBottom) / 2, (kTop + kBottom) / 2);
  // Stacked areas, bottom lane first: the heaviest group along the axis.
  std::vector<double> below(columns, 0);
  for (size_t lane = 0; lane < lanes; ++lane) {
    std::string fill = lane < series ? palette.group_color(t.groups[lane]).css() : "hsl(0,0%,70%)";
    std::string name = lane < series ? xml_text(r.classification().groups[t.groups[lane]].name)
                                     : std::string("other groups");
    std::string points;
    std::vector<double> above(columns);
    for (size_t col = 0; col < columns; ++col) above[col] = below[col] + values[col * lanes + lane];
    auto px = [&](size_t col) {
      return columns == 1 ? (col ? kRight : kLeft) : xof(static_cast<double>(col));
    };
    size_t n = columns == 1 ? 2 : columns;
    for (size_t i = 0; i < n; ++i) {
      size_t col = columns == 1 ? 0 : i;
      fmt::format_to(std::back_inserter(points), "{:.1f},{:.1f} ", px(i), yof(above[col]));
    }
    for (size_t i = n; i-- > 0;) {
      size_t col = columns == 1 ? 0 : i;
      fmt::format_to(std::back_inserter(points), "{:.1f},{:.1f} ", px(i), yof(below[col]));
    }
    fmt::format_to(
        out, "<polygon class=\"hs-area\" points=\"{}\" fill=\"{}\"><title>{}</title></polygon>\n",
        points, fill, name);
    below = above;
  }
  // Time ticks: seconds since the start of each round's input.
  const size_t ticks = std::min<size_t>(columns, 8);
  for (size_t i = 0; i < ticks; ++i) {
    size_t col = ticks == 1 ? 0 : i * (columns - 1) / (ticks - 1);
    double x = xof(static_cast<double>(col));
    fmt::format_to(
        out,
        "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"#555\"/>"
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" fill=\"#555\">{:.2f} s</text>\n",
        x, x, kBottom, kBottom + 4, x, kBottom + 16, column_seconds(col));
  }
  // Where one input ends and the next begins.
  for (size_t row = 1; row < rows; ++row) {
    uint16_t a = c.rounds[t.rounds[row - 1]].source;
    uint16_t b = c.rounds[t.rounds[row]].source;
    if (a == b) continue;
    double x = xof(at.start[row] / width - 0.5);
    fmt::format_to(out,
                   "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"#000\" "
                   "stroke-dasharray=\"2 3\"/><text x=\"{:.1f}\" y=\"{}\" dx=\"3\" "
                   "fill=\"#333\">{}</text>\n",
                   x, x, kTop, kBottom, x, kTop + 10, xml_text(c.sources[b].path));
  }
  // The onset, when blocking reached half its peak.
  if (t.onset_row != kNoRound) {
    const size_t col = column_of(at.start[t.onset_row]);
    double x = xof(static_cast<double>(col));
    fmt::format_to(out,
                   "<line class=\"hs-onset\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" "
                   "stroke=\"#c00\" stroke-dasharray=\"4 3\"/><text x=\"{:.1f}\" y=\"{}\" dx=\"4\" "
                   "fill=\"#c00\">onset</text>\n",
                   x, x, kTop, kBottom, x, kTop + 22);
  }
  // What made a capture of hangscope watch, at the first round at or after it fired.
  for (uint16_t src = 0; src < c.sources.size(); ++src) {
    const WatchTrigger& trigger = c.sources[src].watch_trigger;
    if (trigger.kind.empty() || trigger.time_ns < 0) continue;
    const int64_t fired = trigger.time_ns;
    size_t col = columns;
    for (size_t row = 0; row < rows && col == columns; ++row) {
      const Round& round = c.rounds[t.rounds[row]];
      if (round.source == src && round.time_ns >= fired) col = column_of(at.start[row]);
    }
    if (col == columns) continue;
    double x = xof(static_cast<double>(col));
    fmt::format_to(out,
                   "<line class=\"hs-trigger\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" "
                   "stroke=\"#06c\" stroke-dasharray=\"4 3\"/><text x=\"{:.1f}\" y=\"{}\" "
                   "dx=\"4\" fill=\"#06c\">{} fired</text>\n",
                   x, x, kTop, kBottom, x, kTop + 34, xml_text(trigger.kind));
  }
  // Hover: one transparent column per bucket with its numbers.
  double colw = columns == 1 ? kRight - kLeft : (kRight - kLeft) / static_cast<double>(columns - 1);
  for (size_t col = 0; col < columns; ++col) {
    double total = 0;
    std::string parts;
    for (size_t lane = 0; lane < lanes; ++lane) {
      double v = values[col * lanes + lane];
      total += v;
      if (v <= 0) continue;
      std::string name = lane < series ? r.classification().groups[t.groups[lane]].name : "other";
      fmt::format_to(std::back_inserter(parts), "\n{} {:.2f}", name, v);
    }
    fmt::format_to(out,
                   "<rect class=\"hs-col\" x=\"{:.1f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" "
                   "fill=\"transparent\"><title>{:.2f} s: {:.2f} blocked{}</title></rect>\n",
                   xof(static_cast<double>(col)) - colw / 2, kTop, colw, kBottom - kTop,
                   column_seconds(col), total, xml_text(parts));
  }
  // Legend.
  for (size_t lane = 0; lane < lanes; ++lane) {
    std::string fill = lane < series ? palette.group_color(t.groups[lane]).css() : "hsl(0,0%,70%)";
    std::string name =
        lane < series ? r.classification().groups[t.groups[lane]].name : "other groups";
    double x = kLeft + static_cast<double>(lane % 4) * 232;
    double y = kBottom + 28 + static_cast<double>(lane / 4) * 14;
    fmt::format_to(out,
                   "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
                   "<text x=\"{:.0f}\" y=\"{:.0f}\" fill=\"#333\">{}</text>\n",
                   x, y - 9, fill, x + 14, y, xml_text(name));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace hangscope::render
