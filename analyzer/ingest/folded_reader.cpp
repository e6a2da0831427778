// Reader of folded stacks, FlameGraph's collapsed format: "root;...;leaf COUNT", one
// stack per line (stackcollapse-*.pl, hangscope report -f folded, inferno, bcc's
// offcputime -f / offwaketime -f / profile -f).
//
// - Counts are samples, except for bcc's off-CPU tools, whose counts are microseconds:
//   their "-" (user/kernel) and "--" (target/waker) delimiters, or "[Missed ... Stack]"
//   frames, give them away; `--input-format folded-us` says so for any folded file.
// - FlameGraph's annotations "_[k]" (kernel), "_[j]", "_[i]", "_[w]" are dropped, and
//   frames after a "-" delimiter are kernel frames, before it user frames.
// - offwaketime lines ("target;...;--;...waker;waker COUNT"): the target's stack is the
//   sample; its waker becomes a "wakeup" waits-on fact between the two commands.
#include <charconv>
#include <set>
#include <string>
#include <unordered_map>

#include <absl/container/flat_hash_map.h>
#include <vector>

#include "hangscope/frame_text.hpp"
#include "readers.hpp"

namespace hangscope::ingest {

namespace {

constexpr size_t kMaxFrames = 4096;

// Splits "frames COUNT" at the last space; false when the count is not a number.
bool split_count(std::string_view line, std::string_view& frames, uint64_t& count) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  size_t sp = line.find_last_of(" \t");
  if (sp == std::string_view::npos || sp == 0) return false;
  std::string_view num = line.substr(sp + 1);
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), count);
  if (ec != std::errc() || p != num.data() + num.size()) return false;
  frames = line.substr(0, sp);
  while (!frames.empty() && (frames.back() == ' ' || frames.back() == '\t')) frames.remove_suffix(1);
  return !frames.empty();
}

// A frame cache in front of the interning: folded inputs repeat the same few thousand
// frame texts millions of times. Keys point into the StringTable, which never moves them.
class FrameCache {
 public:
  explicit FrameCache(StackTable& stacks) : stacks_(stacks) {}
  FrameId get(std::string_view text, FrameKind kind) {
    auto& map = kind == FrameKind::kernel ? kernel_ : user_;
    if (auto it = map.find(text); it != map.end()) return it->second;
    std::string_view name = text;
    std::string_view module;
    if (kind == FrameKind::kernel) {
      FrameText ft;
      if (parse_kernel_frame(text, ft)) {
        name = ft.function;
        module = ft.module;
      }
    }
    FrameId id = stacks_.intern_frame(name, module, kind, 0);
    StrId key = stacks_.strings().intern(text);
    map.emplace(stacks_.strings().get(key), id);
    return id;
  }

 private:
  StackTable& stacks_;
  absl::flat_hash_map<std::string_view, FrameId> kernel_, user_;
};

class FoldedReader final : public Reader {
 public:
  explicit FoldedReader(bool microseconds) : microseconds_(microseconds) {}
  std::string_view name() const override { return microseconds_ ? "folded-us" : "folded"; }
  std::string_view description() const override {
    return microseconds_ ? "folded stacks whose counts are microseconds (bcc offcputime -f)"
                         : "folded stacks (FlameGraph collapsed format, bcc -f output)";
  }
  Applicability recognizes(std::string_view head) const override {
    if (microseconds_) return Applicability::no;  // only by name
    size_t pos = 0, good = 0, lines = 0;
    while (pos < head.size()) {
      size_t nl = head.find('\n', pos);
      if (nl == std::string_view::npos) break;
      std::string_view l = head.substr(pos, nl - pos);
      pos = nl + 1;
      if (l.empty()) continue;
      ++lines;
      std::string_view frames;
      uint64_t count = 0;
      if (split_count(l, frames, count) && l.front() != ' ' && l.front() != '\t' &&
          l.front() != '[')
        ++good;
    }
    if (lines == 0) return Applicability::no;
    if (good == lines) return Applicability::yes;
    return good * 2 > lines ? Applicability::maybe : Applicability::no;
  }
  void read(LineReader& in, CaptureBuilder& out) const override;

 private:
  bool microseconds_;
};

void FoldedReader::read(LineReader& in, CaptureBuilder& out) const {
  StackTable& stacks = out.stacks();
  FrameCache cache(stacks);
  std::vector<FrameId> root_first, leaf_first;
  std::vector<std::string_view> segments;
  std::set<std::pair<StrId, StrId>> wakeups;
  struct Total {
    StackId stack;
    StrId comm;
    uint64_t weight;
  };
  std::vector<Total> order;                       // in order of first appearance
  absl::flat_hash_map<uint64_t, size_t> totals;  // (stack, comm) -> index in order
  bool bcc = microseconds_;
  std::string_view line;
  while (in.next(line)) {
    if (line.empty()) continue;
    std::string_view frames;
    uint64_t count = 0;
    if (!split_count(line, frames, count)) {
      out.skip_line(in);
      continue;
    }
    // One pass splits the frames; the delimiters and annotations are then told apart by
    // looking at the pieces, not by searching the line again.
    segments.clear();
    const char* start = frames.data();
    const char* const stop = frames.data() + frames.size();
    for (const char* c = start; c != stop; ++c) {
      if (*c == ';') {
        segments.emplace_back(start, static_cast<size_t>(c - start));
        start = c + 1;
      }
    }
    segments.emplace_back(start, static_cast<size_t>(stop - start));
    size_t target_end = segments.size();  // offwaketime: the target's frames end at "--"
    bool delimited = false, annotated = false;
    for (size_t i = 0; i < segments.size(); ++i) {
      std::string_view f = segments[i];
      if (f == "--" && target_end == segments.size()) {
        target_end = i;
        bcc = true;
      } else if (f == "-") {
        delimited = delimited || i < target_end;
        bcc = true;
      } else if (!f.empty() && f.front() == '[' && f.starts_with("[Missed ")) {
        bcc = true;
      } else if (f.ends_with("_[k]")) {
        annotated = true;
      }
    }
    root_first.clear();
    // Frames before a "-" are user frames in bcc's delimited output; after, kernel. In a
    // line that annotates kernel frames ("_[k]"), the frames without it are user frames.
    FrameKind kind = delimited || annotated ? FrameKind::user : FrameKind::kernel;
    bool too_deep = false;
    size_t first = 0;
    StrId comm = 0;
    if (delimited) {  // bcc: the root frame is the task's command
      comm = out.intern(segments[0]);
      first = 1;
    }
    for (size_t i = first; i < target_end; ++i) {
      std::string_view f = segments[i];
      if (f.empty()) continue;
      if (f == "-") {
        kind = FrameKind::kernel;
        continue;
      }
      FrameKind k = kind;
      if (f.size() > 4 && f[f.size() - 4] == '_' && f[f.size() - 3] == '[' && f.back() == ']') {
        if (f[f.size() - 2] == 'k') k = FrameKind::kernel;
        f.remove_suffix(4);
      }
      if (root_first.size() >= kMaxFrames) {
        too_deep = true;
        break;
      }
      root_first.push_back(cache.get(f, k));
    }
    if (too_deep || root_first.empty()) {
      out.skip_line(in);
      continue;
    }
    leaf_first.assign(root_first.rbegin(), root_first.rend());
    // A folded line is already an aggregate: lines of the same stack and command add up.
    StackId stack = stacks.intern_stack(leaf_first);
    auto [it, added] = totals.try_emplace((uint64_t{stack} << 32) | comm, order.size());
    if (added) order.push_back({stack, comm, 0});
    order[it->second].weight += count;
    if (target_end + 1 < segments.size()) {
      // offwaketime: "...;--;<waker kernel leaf..root>;-;<waker user>;waker": last is comm.
      std::string_view waker_comm = segments.back();
      std::string_view target_comm = segments[0];
      StrId t = out.intern(target_comm), w = out.intern(waker_comm);
      if (wakeups.emplace(t, w).second) {
        WaitsOnFact fact;
        fact.waiter_comm = t;
        fact.holder_comm = w;
        fact.kind = out.intern("wakeup");
        out.add_fact(fact);
      }
    }
  }
  for (const Total& t : order) {
    TaskSample s;
    s.stack = t.stack;
    s.comm = t.comm;
    s.weight = t.weight;
    s.state = '?';
    out.add_sample(s);
  }
  if (bcc) out.info().weight_unit = "us";
}

}  // namespace

const Reader& folded_reader() {
  static const FoldedReader reader(false);
  return reader;
}

const Reader& folded_us_reader() {
  static const FoldedReader reader(true);
  return reader;
}

}  // namespace hangscope::ingest
