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
#include <algorithm>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <absl/container/flat_hash_map.h>

#include <set>
#include <string>
#include <vector>

#include "frame_cache.hpp"
#include "hangscope/frame_text.hpp"
#include "hangscope/text.hpp"
#include "input_parts.hpp"
#include "readers.hpp"

namespace hangscope::ingest {

namespace {

constexpr size_t kMaxFoldedFrames = 4096;

// Splits "frames COUNT" at the last space; false when the count is not a number.
bool split_count(std::string_view line, std::string_view& frames, uint64_t& count) {
  line = text::trim_right(line);
  size_t sp = line.find_last_of(" \t");
  if (sp == std::string_view::npos || sp == 0) return false;
  if (!text::whole_number(line.substr(sp + 1), count)) return false;
  frames = text::trim_right(line.substr(0, sp));
  return !frames.empty();
}

// Cuts the frames of a line at every ';', sixteen bytes at a time where SSE2 is there
// (frame names are short: a byte loop spent more time here than on anything else).
void split_frames(std::string_view frames, std::vector<std::string_view>& out) {
  out.clear();
  const char* const begin = frames.data();
  const size_t n = frames.size();
  size_t start = 0, i = 0;
#if defined(__SSE2__)
  const __m128i semicolon = _mm_set1_epi8(';');
  for (; i + 16 <= n; i += 16) {
    __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(begin + i));
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, semicolon)));
    while (mask) {
      size_t at = i + static_cast<size_t>(__builtin_ctz(mask));
      out.emplace_back(begin + start, at - start);
      start = at + 1;
      mask &= mask - 1;
    }
  }
#endif
  for (; i < n; ++i) {
    if (begin[i] == ';') {
      out.emplace_back(begin + start, i - start);
      start = i + 1;
    }
  }
  out.emplace_back(begin + start, n - start);
}

// A frame text the cache has not seen: kernel frames may carry an offset or module.
FrameId make_frame(StackTable& stacks, std::string_view text, FrameKind kind) {
  std::string_view name = text;
  std::string_view module;
  if (kind == FrameKind::kernel) {
    FrameText ft;
    if (parse_kernel_frame(text, ft)) {
      name = ft.function;
      module = ft.module;
    }
  }
  return stacks.intern_frame(name, module, kind, 0);
}

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
    size_t good = 0, lines = 0;
    for (std::string_view l : text::CompleteLines(head)) {
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
  // Every line is a record.
  size_t record_start(std::string_view text, size_t from) const override {
    if (from == 0) return 0;
    size_t nl = text.find('\n', from - 1);
    return nl == std::string_view::npos ? text.size() : nl + 1;
  }
  void read_parts(const InputParts& input, CaptureBuilder& out) const override;

 private:
  bool microseconds_;
};

// What the lines of an input, or of a part of it, add up to.
class FoldedTotals {
 public:
  struct Total {
    StackId stack;
    StrId comm;
    uint64_t weight;
  };
  // The total of a (stack, command) pair, added in order of first appearance.
  Total& of(StackId stack, StrId comm) {
    uint32_t next = static_cast<uint32_t>(order_.size());
    uint32_t* at;
    if (comm == 0) {
      if (stack >= by_stack_.size())
        by_stack_.resize(std::max<size_t>(stack + 1, by_stack_.size() * 2), UINT32_MAX);
      at = &by_stack_[stack];
      if (*at == UINT32_MAX) *at = next;
    } else {
      at = &by_stack_and_comm_.try_emplace((uint64_t{stack} << 32) | comm, next).first->second;
    }
    if (*at == next) order_.push_back({stack, comm, 0});
    return order_[*at];
  }
  const BulkVector<Total>& order() const { return order_; }

  bool bcc = false;       // bcc's delimiters or missed-stack frames: microseconds
  bool commands = false;  // some line began with a command (bcc's "-" delimited lines)
  std::set<std::pair<StrId, StrId>> wakeups;  // offwaketime's (target, waker) commands

 private:
  BulkVector<Total> order_;  // in order of first appearance
  // Where a (stack, command) pair is in `order`: by stack id where the line names no
  // command (most folded files), a direct index with no hashing; in a map otherwise.
  BulkVector<uint32_t> by_stack_;
  absl::flat_hash_map<uint64_t, uint32_t> by_stack_and_comm_;
};

// The totals as the input's samples, and what they say of its source.
void add_totals(const FoldedTotals& totals, bool microseconds, CaptureBuilder& out) {
  out.add_samples(
      totals.order().size(),
      [&](size_t i, TaskSample& s) {
        const FoldedTotals::Total& t = totals.order()[i];
        s.stack = t.stack;
        s.comm = t.comm;
        s.weight = t.weight;
        s.state = '?';
      },
      out.options().threads);
  if (microseconds || totals.bcc) out.info().unit = WeightUnit::microseconds;
  // bcc's lines begin with the command, taken out of the frames: folded output puts it back.
  out.info().command_root = totals.commands;
}

// The lines of `in` into `out`'s tables and `totals`.
void read_folded_lines(LineReader& in, CaptureBuilder& out, FoldedTotals& totals) {
  StackTable& stacks = out.stacks();
  FrameCache kernel_frames, user_frames;
  auto new_kernel_frame = [&](std::string_view text) {
    return make_frame(stacks, text, FrameKind::kernel);
  };
  auto new_user_frame = [&](std::string_view text) {
    return make_frame(stacks, text, FrameKind::user);
  };
  // A line's frames, root first, hashed (and their cache slots asked for) before any is
  // looked up.
  struct LineFrame {
    std::string_view text;
    uint64_t hash;
    FrameKind kind;
  };
  std::vector<LineFrame> line_frames;
  std::vector<FrameId> leaf_first;
  std::vector<std::string_view> segments;
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
    split_frames(frames, segments);
    size_t target_end = segments.size();  // offwaketime: the target's frames end at "--"
    bool delimited = false, annotated = false;
    for (size_t i = 0; i < segments.size(); ++i) {
      std::string_view f = segments[i];
      if (f == "--" && target_end == segments.size()) {
        target_end = i;
        totals.bcc = true;
      } else if (f == "-") {
        delimited = delimited || i < target_end;
        totals.bcc = true;
      } else if (!f.empty() && f.front() == '[' && f.starts_with("[Missed ")) {
        totals.bcc = true;
      } else if (f.ends_with("_[k]")) {
        annotated = true;
      }
    }
    line_frames.clear();
    // Frames before a "-" are user frames in bcc's delimited output; after, kernel. In a
    // line that annotates kernel frames ("_[k]"), the frames without it are user frames.
    FrameKind kind = delimited || annotated ? FrameKind::user : FrameKind::kernel;
    bool too_deep = false;
    size_t first = 0;
    StrId comm = 0;
    if (delimited) {  // bcc: the root frame is the task's command
      comm = out.intern(segments[0]);
      first = 1;
      totals.commands = true;
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
      if (line_frames.size() >= kMaxFoldedFrames) {
        too_deep = true;
        break;
      }
      const uint64_t h = text_hash::hash(f);
      (k == FrameKind::kernel ? kernel_frames : user_frames).prefetch(h);
      line_frames.push_back({f, h, k});
    }
    if (too_deep || line_frames.empty()) {
      out.skip_line(in);
      continue;
    }
    leaf_first.clear();
    for (size_t i = line_frames.size(); i-- > 0;) {
      const LineFrame& f = line_frames[i];
      leaf_first.push_back(f.kind == FrameKind::kernel
                               ? kernel_frames.get(f.text, f.hash, new_kernel_frame)
                               : user_frames.get(f.text, f.hash, new_user_frame));
    }
    // A folded line is already an aggregate: lines of the same stack and command add up.
    StackId stack = stacks.intern_stack(leaf_first);
    totals.of(stack, comm).weight += count;
    if (target_end + 1 < segments.size()) {
      // offwaketime: "...;--;<waker kernel leaf..root>;-;<waker user>;waker": last is comm.
      std::string_view waker_comm = segments.back();
      std::string_view target_comm = segments[0];
      StrId t = out.intern(target_comm), w = out.intern(waker_comm);
      if (totals.wakeups.emplace(t, w).second) {
        WaitsOnFact fact;
        fact.waiter_comm = t;
        fact.holder_comm = w;
        fact.kind = out.intern("wakeup");
        out.add_fact(fact);
      }
    }
  }
}

void FoldedReader::read(LineReader& in, CaptureBuilder& out) const {
  FoldedTotals totals;
  read_folded_lines(in, out, totals);
  add_totals(totals, microseconds_, out);
}

// Part 0 is read into the capture itself, the others into tables of their own, merged
// after it in order: their frames, stacks, totals and wakeups then come out as reading
// every line in order makes them.
void FoldedReader::read_parts(const InputParts& input, CaptureBuilder& out) const {
  FoldedTotals totals;
  read_and_merge(input, *this, out, totals, read_folded_lines,
                 [&](const Capture& part, const MergedIds& ids, const FoldedTotals& more) {
                   for (const FoldedTotals::Total& t : more.order())
                     totals.of(ids.stacks[t.stack], ids.strings[t.comm]).weight += t.weight;
                   for (WaitsOnFact f : part.facts) {
                     f.waiter_comm = ids.strings[f.waiter_comm];
                     f.holder_comm = ids.strings[f.holder_comm];
                     f.kind = ids.strings[f.kind];
                     if (totals.wakeups.emplace(f.waiter_comm, f.holder_comm).second)
                       out.add_fact(f);
                   }
                   totals.bcc = totals.bcc || more.bcc;
                   totals.commands = totals.commands || more.commands;
                 });
  add_totals(totals, microseconds_, out);
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
