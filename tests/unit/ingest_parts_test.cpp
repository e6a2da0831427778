// Reading an input in parts on several threads (analyzer/ingest/input_parts.hpp) gives
// the capture one thread reading it whole gives: the same strings, frames and stacks with
// the same ids, the same samples in the same order, the same facts and the same account
// of the input, on the committed folded and perf script fixtures, cut anywhere, and
// through the mapped file of read_input.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "input_parts.hpp"
#include "readers.hpp"
#include "support/capture_text.hpp"
#include "support/temp_dir.hpp"
#include "support/text_file.hpp"

using namespace hangscope;

namespace {

// Every part of the model a reader of folded stacks fills, compared field by field.
void expect_same(const Capture& a, const Capture& b) {
  ASSERT_EQ(a.strings().size(), b.strings().size());
  for (StrId i = 0; i < a.strings().size(); ++i)
    ASSERT_EQ(a.strings().get(i), b.strings().get(i)) << i;
  ASSERT_EQ(a.stacks.frame_count(), b.stacks.frame_count());
  for (FrameId i = 0; i < a.stacks.frame_count(); ++i)
    ASSERT_EQ(a.stacks.frame(i), b.stacks.frame(i)) << i;
  ASSERT_EQ(a.stacks.stack_count(), b.stacks.stack_count());
  for (StackId i = 0; i < a.stacks.stack_count(); ++i)
    ASSERT_TRUE(std::ranges::equal(a.stacks.stack(i), b.stacks.stack(i))) << i;
  ASSERT_EQ(a.samples.size(), b.samples.size());
  for (size_t i = 0; i < a.samples.size(); ++i) {
    const TaskSample &x = a.samples[i], &y = b.samples[i];
    ASSERT_EQ(std::tie(x.stack, x.comm, x.weight, x.state, x.source, x.pid, x.tid, x.round),
              std::tie(y.stack, y.comm, y.weight, y.state, y.source, y.pid, y.tid, y.round))
        << "sample " << i;
  }
  ASSERT_EQ(a.facts.size(), b.facts.size());
  for (size_t i = 0; i < a.facts.size(); ++i)
    EXPECT_EQ(std::tie(a.facts[i].waiter_comm, a.facts[i].holder_comm, a.facts[i].kind),
              std::tie(b.facts[i].waiter_comm, b.facts[i].holder_comm, b.facts[i].kind));
  ASSERT_EQ(a.sources.size(), b.sources.size());
  for (size_t i = 0; i < a.sources.size(); ++i) {
    const SourceInfo &x = a.sources[i], &y = b.sources[i];
    EXPECT_EQ(x.format, y.format);
    EXPECT_EQ(x.unit, y.unit);
    EXPECT_EQ(x.command_root, y.command_root);
    EXPECT_EQ(x.skipped.lines, y.skipped.lines);
    EXPECT_EQ(x.skipped.first, y.skipped.first);
    EXPECT_EQ(x.skipped.first_in_task, y.skipped.first_in_task);
    EXPECT_EQ(x.event, y.event);
    EXPECT_EQ(x.period, y.period);
    EXPECT_EQ(x.span_s, y.span_s);
    EXPECT_EQ(x.header, y.header);
    ASSERT_EQ(x.left_out.size(), y.left_out.size());
    for (size_t l = 0; l < x.left_out.size(); ++l) {
      EXPECT_EQ(x.left_out[l].what, y.left_out[l].what);
      EXPECT_EQ(x.left_out[l].count, y.left_out[l].count);
    }
  }
}

// `text` cut before the record starts at or after `at`, the parts read on their threads.
Capture in_parts(const std::string& text, const std::string& name, std::span<const size_t> at,
                 const Reader& reader = ingest::folded_reader()) {
  Capture c;
  SourceInfo info;
  info.path = name;
  info.format = std::string(reader.name());
  CaptureBuilder b(c, info);
  InputParts input{ingest::cut_at_records(text, at, reader), name};
  reader.read_parts(input, b);
  return c;
}

Capture one_thread(const std::string& text, const std::string& name,
                   std::string_view format = "folded") {
  return hangscope::testing::read_text(text, name, format);
}

// A fixture's text, decompressed as read_input decompresses it.
std::string fixture(const std::string& rel) {
  const std::string path = HANGSCOPE_FIXTURES "/" + rel;
  std::unique_ptr<ByteSource> src = decompressing(open_input(path), path);
  std::string text;
  char buf[1 << 16];
  for (size_t n; (n = src->read(buf, sizeof buf)) > 0;) text.append(buf, n);
  return text;
}

// `text` in 2 to 7 parts of about equal size.
void expect_same_in_parts(const std::string& text, const std::string& name, std::string_view format,
                          const Reader& reader) {
  const Capture expected = one_thread(text, name, format);
  ASSERT_GT(expected.samples.size(), 0u);
  for (size_t parts = 2; parts <= 7; ++parts) {
    SCOPED_TRACE(parts);
    std::vector<size_t> at;
    for (size_t i = 1; i < parts; ++i) at.push_back(text.size() / parts * i);
    expect_same(in_parts(text, name, at, reader), expected);
  }
}

}  // namespace

// The real folded inputs, cut into 2 to 7 parts of about equal size.
TEST(IngestParts, FoldedFixturesReadInPartsAsWhole) {
  for (const char* rel :
       {"folded/storm-6.18-perf-sched-switch.stackcollapse.folded",
        "folded/storm-6.18-hangscope.folded", "folded/bcc-0.26-offcputime-f-d.written.folded",
        "folded/bcc-0.26-offwaketime-f.written.folded"}) {
    SCOPED_TRACE(rel);
    expect_same_in_parts(fixture(rel), rel, "folded", ingest::folded_reader());
  }
}

// The real perf script inputs (on-CPU, sched_switch, off-CPU, two events, Java, Rust, old
// layouts), cut into 2 to 7 parts at samples.
TEST(IngestParts, PerfScriptFixturesReadInPartsAsWhole) {
  for (const char* rel :
       {"perf/storm-6.18-perf-6.1-sched-switch.txt.zst",
        "perf/storm-6.18-perf-6.1-cpu-clock.txt.zst",
        "perf/spin-mappers-6.18-perf-6.1-cpu-clock.txt",
        "perf/perf-5.15-two-events-java.written.txt", "perf/perf-3.16-old-layouts.written.txt",
        "perf/perf-5.4-kernel-paths-rust.written.txt",
        "perf/storm-6.6-perf-6.6-off-cpu.written.txt",
        "perf/fio-dio-6.9-perf-6.9-cycles.written.txt"}) {
    SCOPED_TRACE(rel);
    expect_same_in_parts(fixture(rel), rel, "perf-script", ingest::perf_script_reader());
  }
}

// The sched_switch fixture's figures in three parts: 10,159 switches out in D, 14,077
// not, as one thread counts them (tests/unit/ingest_dumps_test.cpp).
TEST(IngestParts, SchedSwitchFixtureFiguresInParts) {
  const std::string rel = "perf/storm-6.18-perf-6.1-sched-switch.txt.zst";
  const std::string text = fixture(rel);
  const size_t at[] = {text.size() / 3, text.size() / 3 * 2};
  Capture c = in_parts(text, rel, at, ingest::perf_script_reader());
  uint64_t total = 0;
  for (const TaskSample& s : c.samples) total += s.weight;
  EXPECT_EQ(total, 10159u);
  EXPECT_EQ(c.sources[0].header.at("perf.switches_not_blocked"), "14077");
}

// A perf script cut at every byte: samples of two events, one with a period that
// changes (no common period), a CRLF blank line, a line no reader understands inside a
// sample, blank lines of blanks, and no final newline.
TEST(IngestParts, PerfScriptCutAnywhere) {
  const std::string text =
      "a 10 [000] 1.000000: 1000 cpu-clock:\n"
      "\tffffffff81000010 f1+0x10 ([kernel.kallsyms])\n"
      "\tffffffff81000020 f2+0x10 ([kernel.kallsyms])\n"
      "\r\n"
      "b 11 [001] 1.000100: 1000 cpu-clock:\n"
      "\tffffffff81000010 f1+0x10 ([kernel.kallsyms])\n"
      "garbage in a sample\n"
      " \t\n"
      "a 10 [000] 1.000200: 2000 cpu-clock:\n"
      "\tffffffff81000010 f1+0x10 ([kernel.kallsyms])\n"
      "\tffffffff81000020 f2+0x10 ([kernel.kallsyms])\n"
      "\n"
      "c 12 [000] 1.000300: 7 cycles:\n"
      "\tffffffff81000030 f3+0x10 ([kernel.kallsyms])";
  const Capture expected = one_thread(text, "cut.perf", "perf-script");
  ASSERT_EQ(expected.samples.size(), 2u);
  EXPECT_EQ(expected.samples[0].weight, 3000u);
  EXPECT_EQ(expected.sources[0].period, 0u);
  EXPECT_EQ(expected.sources[0].skipped.first, "cut.perf:7");
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    SCOPED_TRACE(cut);
    const size_t at[] = {cut};
    expect_same(in_parts(text, "cut.perf", at, ingest::perf_script_reader()), expected);
    if (cut % 13) continue;  // and pairs of cuts, some
    for (size_t second = cut + 1; second <= text.size(); second += 17) {
      const size_t two[] = {cut, second};
      expect_same(in_parts(text, "cut.perf", two, ingest::perf_script_reader()), expected);
    }
  }
}

// The stackcollapse fixture's figures, read in three parts: its 1,182 lines, a distinct
// stack each, and its 24,236 switches.
TEST(IngestParts, StackcollapseFixtureFiguresInParts) {
  const std::string rel = "folded/storm-6.18-perf-sched-switch.stackcollapse.folded";
  const std::string text = fixture(rel);
  const size_t at[] = {text.size() / 3, text.size() / 3 * 2};
  Capture c = in_parts(text, rel, at);
  uint64_t total = 0;
  for (const TaskSample& s : c.samples) total += s.weight;
  EXPECT_EQ(c.samples.size(), 1182u);
  EXPECT_EQ(total, 24236u);
}

// A cut at every byte of a text with what makes a cut awkward: a repeated stack (its
// total adds up over parts), a CRLF line, a line no reader understands (its number is
// the whole text's), bcc's commands and delimiters, a blank line, and no final newline.
TEST(IngestParts, CutAnywhere) {
  const std::string text =
      "a;b;c 3\r\n"
      "a;b;d 4\n"
      "not folded\n"
      "\n"
      "x;y 1\n"
      "a;b;c 5\n"
      "cmd;-;k1;k2 7\r\n"
      "x;y;z 2";
  const Capture expected = one_thread(text, "cut.folded");
  ASSERT_EQ(expected.samples.size(), 5u);
  EXPECT_EQ(expected.samples[0].weight, 8u);
  EXPECT_EQ(expected.sources[0].skipped.first, "cut.folded:3");
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    SCOPED_TRACE(cut);
    const size_t at[] = {cut};
    expect_same(in_parts(text, "cut.folded", at), expected);
    for (size_t second = cut + 1; second <= text.size(); second += 3) {
      const size_t two[] = {cut, second};
      expect_same(in_parts(text, "cut.folded", two), expected);
    }
  }
}

// offwaketime's wakeups, a fact each (target, waker), once however the parts fall.
TEST(IngestParts, WakeupsOnceOverParts) {
  const std::string text =
      "t1;f1;--;w2;w1 10\n"
      "t1;f2;--;w2;w1 10\n"
      "t2;f1;--;w3;w1 10\n";
  const Capture expected = one_thread(text, "w.folded");
  ASSERT_EQ(expected.facts.size(), 2u);
  for (size_t cut = 1; cut < text.size(); ++cut) {
    const size_t at[] = {cut};
    expect_same(in_parts(text, "w.folded", at), expected);
  }
}

// Each cut is at the next line's start, whatever the offset asked for.
TEST(IngestParts, CutsAtLineStarts) {
  const std::string text = "a 1\nbb 2\r\nccc 3";
  const size_t at[] = {1, 4, 5, 12};
  std::vector<std::string_view> parts = ingest::cut_at_records(text, at, ingest::folded_reader());
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], "a 1\n");
  EXPECT_EQ(parts[1], "bb 2\r\n");
  EXPECT_EQ(parts[2], "ccc 3");
}

// read_input of a large plain file, on 2 and 3 threads against 1: the mapped file, its
// pages given back as they are read, cut where the sizes fall. The real stackcollapse
// fixture, repeated to pass the size from which a file is read in parts, with a line of
// no stack between copies whose numbers must come out as one thread counts them.
TEST(IngestParts, LargeFileOnThreadsAsOnOne) {
  const std::string one = fixture("folded/storm-6.18-perf-sched-switch.stackcollapse.folded");
  hangscope::testing::TempDir dir;
  const std::string path = dir.file("large.folded");
  size_t bytes = 0, copies = 0;
  {
    std::ofstream out(path, std::ios::binary);
    // A line no reader understands after each copy but the last.
    for (; bytes < 3 * ingest::kMinPartBytes; ++copies) {
      out << one << "no count here\n";
      bytes += one.size() + 14;
    }
    out << one;
  }
  auto read = [&](unsigned threads) {
    ReadOptions options;
    options.threads = threads;
    Capture c;
    read_input(path, options, c);
    return c;
  };
  const Capture expected = read(1);
  EXPECT_EQ(expected.sources[0].skipped.lines, copies);
  EXPECT_EQ(expected.sources[0].skipped.first,
            path + ":" + std::to_string(hangscope::testing::count_lines(one) + 1));
  expect_same(read(2), expected);
  expect_same(read(3), expected);
}

namespace {

// Lines "f<i % 97>;g<i % 89>;h<i> <i>\n", enough for 2 parts of more than the 1 MiB a
// LineReader asks for at once: a part then has bytes left to take after its first line.
std::string numbered_lines() {
  std::string text;
  for (size_t i = 0; text.size() < (3 << 20); ++i)
    text += fmt::format("f{};g{};h{} {}\n", i % 97, i % 89, i, i + 1);
  return text;
}

// Holds part 0 after its first line until a part taken from it has been read whole,
// so that the thread of part 1 takes from part 0 whatever the machine's timing.
class HoldFirstPart {
 public:
  // Called by the reader of part 0 after its first line: false if no part was taken.
  bool hold() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(60), [&] { return taken_read_; });
  }
  void taken_part_read() {
    std::lock_guard lock(mutex_);
    taken_read_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool taken_read_ = false;
};

constexpr size_t kSmallTake = 64 << 10;

}  // namespace

// A thread whose part has ended takes the second half of what is left of another, again
// while there is enough left: the parts, in the order returned, hold every line once, in
// input order, each counted as its part read it.
TEST(IngestParts, EndedThreadTakesTheRestOfASlowPart) {
  const std::string text = numbered_lines();
  const InputParts input{ingest::split_at_records(text, 2, ingest::folded_reader()), "n"};
  ASSERT_EQ(input.parts.size(), 2u);
  HoldFirstPart first;
  std::mutex mutex;
  std::map<size_t, std::vector<std::string>> lines;  // by part number
  bool held = true;
  const std::vector<ingest::PartRead> parts = ingest::for_each_part(
      input, ingest::folded_reader(),
      [&](size_t part, LineReader& in) {
        std::vector<std::string> read;
        for (std::string_view line; in.next(line);) {
          read.emplace_back(line);
          if (part == 0 && read.size() == 1) held = first.hold();
        }
        if (part >= 2) first.taken_part_read();
        std::lock_guard lock(mutex);
        lines[part] = std::move(read);
      },
      kSmallTake);
  ASSERT_TRUE(held) << "no part was taken from part 0 while it was held";
  ASSERT_GE(parts.size(), 3u);
  ASSERT_LE(parts.size(), ingest::max_parts(input, kSmallTake));
  EXPECT_EQ(parts.front().part, 0u);
  std::string joined;
  std::set<size_t> numbers;
  for (const ingest::PartRead& p : parts) {
    EXPECT_TRUE(numbers.insert(p.part).second) << p.part;
    EXPECT_EQ(p.lines, lines[p.part].size()) << p.part;
    for (const std::string& line : lines[p.part]) joined += line + "\n";
  }
  EXPECT_EQ(joined, text);
}

namespace {

// A ByteSource of a string.
class TextSource final : public ByteSource {
 public:
  explicit TextSource(std::string_view text) : text_(text) {}
  size_t read(char* buf, size_t n) override {
    n = std::min(n, text_.size());
    std::memcpy(buf, text_.data(), n);
    text_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view text_;
};

// A line's frames (split at ';') as a stack, its count as a sample's weight.
void read_counted_stacks(LineReader& in, CaptureBuilder& out) {
  for (std::string_view line; in.next(line);) {
    const size_t space = line.rfind(' ');
    std::vector<FrameId> leaf_first;
    for (std::string_view frames = line.substr(0, space); !frames.empty();) {
      const size_t semi = frames.rfind(';');
      const std::string_view f = semi == std::string_view::npos ? frames : frames.substr(semi + 1);
      leaf_first.push_back(out.stacks().intern_frame(f));
      frames = semi == std::string_view::npos ? std::string_view() : frames.substr(0, semi);
    }
    TaskSample s;
    s.stack = out.stacks().intern_stack(leaf_first);
    s.weight = std::stoull(std::string(line.substr(space + 1)));
    out.add_sample(s);
  }
}

}  // namespace

// Parts taken from a held part are merged in input order, not in the order they were
// taken: the ids and samples come out as one thread reading the whole gives them.
TEST(IngestParts, TakenPartsMergeInInputOrder) {
  const std::string text = numbered_lines();
  SourceInfo info;
  info.path = "n";
  Capture expected;
  {
    CaptureBuilder b(expected, info);
    LineReader in(std::make_unique<TextSource>(text), "n");
    read_counted_stacks(in, b);
  }
  Capture c;
  CaptureBuilder b(c, info);
  const InputParts input{ingest::split_at_records(text, 2, ingest::folded_reader()), "n"};
  HoldFirstPart first;
  std::atomic<size_t> parts_read = 0;
  bool held = true;
  struct NoState {};
  NoState none;
  ingest::read_and_merge(
      input, ingest::folded_reader(), b, none,
      [&](LineReader& in, CaptureBuilder& into, NoState&) {
        if (&into == &b) {  // part 0: its first line, then held
          std::string_view line;
          ASSERT_TRUE(in.next(line));
          std::string rest(line);
          rest += '\n';
          held = first.hold();
          for (std::string_view more; in.next(more);) rest.append(more).append("\n");
          LineReader again(std::make_unique<TextSource>(rest), "n");
          read_counted_stacks(again, into);
          return;
        }
        read_counted_stacks(in, into);
        if (++parts_read == 2) first.taken_part_read();  // part 1 and one taken
      },
      [&](const Capture& part, const ingest::MergedIds& ids, NoState&) {
        for (TaskSample s : part.samples) {
          s.stack = ids.stacks[s.stack];
          b.add_sample(s);
        }
      },
      kSmallTake);
  ASSERT_TRUE(held) << "no part was taken from part 0 while it was held";
  EXPECT_GE(parts_read.load(), 2u);
  expect_same(c, expected);
}
