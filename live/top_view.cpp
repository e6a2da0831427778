#include "hangscope/top_view.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <unordered_map>

#include "hangscope/analysis.hpp"
#include "hangscope/capture_writer.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "hangscope/window_capture.hpp"

namespace hangscope {

namespace {

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The rounds of the window from `from_ns` on as the analyzer reads any capture: written
// to an anonymous memory file and read back, as record reports what it sampled.
void read_window(const RoundWindow& w, int64_t from_ns, Capture& out) {
  Fd file{memfd_create("hangscope-top", MFD_CLOEXEC)};
  if (file.fd < 0) throw std::system_error(errno, std::generic_category(), "memfd");
  CaptureWriter writer(file.fd);
  write_window(w, from_ns, {}, writer);
  if (::lseek(file.fd, 0, SEEK_SET) < 0)
    throw std::system_error(errno, std::generic_category(), "memfd");
  read_input(fd_input(file.fd, "window"), "window", "capture", out);
}

std::vector<std::string> frames_of(const StackTable& stacks, StackId id, size_t max) {
  std::vector<std::string> out;
  for (FrameId f : stacks.stack(id)) {
    if (out.size() == max) break;
    out.emplace_back(stacks.function(f));
  }
  return out;
}

// The chain a group is on, from its node on: the first (heaviest) chain through a node
// of that group, on `device` when the group has one there.
std::string chain_of(const Report& r, const std::string& group, const std::string& device) {
  const Analysis& a = r.analysis;
  const WaitGraph& g = a.graph;
  for (const Chain& c : g.chains) {
    for (size_t i = 0; i < c.nodes.size(); ++i) {
      const GraphNode& n = g.nodes[c.nodes[i]];
      if (n.kind != NodeKind::group || a.classification.groups[n.group].name != group) continue;
      if (!device.empty() && !n.device.empty() && n.device != device) continue;
      return chain_words(r, c, i);
    }
  }
  return {};
}

// Whether the verdict ties tasks whose device is not known to one device, journal or
// holder: it assumed one file system, or names a subject of an unknown device.
bool devices_unknown(const WaitGraph& g) {
  for (const Finding& f : g.verdict.findings)
    if (f.assumed_one_fs ||
        (f.subject_device.empty() && f.subject.find("{device}") != std::string::npos))
      return true;
  return false;
}

// What the first frames say instead of such a verdict.
std::string unsettled_words(size_t blocked, size_t rounds) {
  return fmt::format(
      "{} blocked thread{} in the first {}: their devices are not known yet, and what they "
      "wait on is not told apart until they are",
      blocked, blocked == 1 ? "" : "s",
      rounds == 1 ? std::string("round") : fmt::format("{} rounds", rounds));
}

}  // namespace

TopModel::TopModel(const RuleSet& rules, TopSettings settings)
    : rules_(rules), s_(settings), groups_(rules) {}

void TopModel::add_round(const RoundWindow& w) {
  if (const WindowRound* r = w.newest()) blocked_.add(w, *r);
}

TopFrame TopModel::frame(const RoundWindow& w) {
  TopFrame f;
  const WindowRound* newest = w.newest();
  if (!newest) {
    f.verdict = "no rounds yet";
    return f;
  }
  const Classification& cls = groups_.of(w);
  const StringTable& str = w.strings();
  const int64_t now_ns = newest->time_ns;
  f.status.threads = newest->figures.threads;
  f.status.span_s = (now_ns - w.rounds().front().time_ns) / 1e9;

  // The verdict and the chains, by the analyzer, of the last seconds.
  Capture capture;
  read_window(w, now_ns - s_.verdict_span_ns + 1, capture);
  AnalysisOptions ao;
  ao.rules = &rules_;
  Analysis analysis = analyze(capture, ao);
  std::vector<std::string> verdict = verdict_lines(Report{capture, analysis});
  f.verdict = verdict.empty() ? "no blocked tasks in the last " +
                                    std::to_string(s_.verdict_span_ns / 1'000'000'000) + " s"
                              : verdict.front();
  const bool young = now_ns - w.rounds().front().time_ns < s_.settle_ns;
  if (young && devices_unknown(analysis.graph)) {
    auto [begin, end] = w.tasks(*newest);
    const size_t blocked = static_cast<size_t>(std::count_if(begin, end, [&](const WindowTask& t) {
      return !groups_.idle(cls.group(t.stack, t.state));
    }));
    f.verdict = unsettled_words(blocked, w.rounds().size());
  }

  // The groups: loads over both spans, and one pass over the long span for the
  // sparkline, the device and the most sampled stack.
  const size_t buckets = static_cast<size_t>(std::max<int64_t>(1, s_.long_span_ns / s_.bucket_ns));
  std::vector<uint32_t> bucket_rounds(buckets, 0);
  struct Seen {
    std::vector<uint32_t> per_bucket;
    std::unordered_map<StrId, uint32_t> devices;
    std::unordered_map<StackId, uint32_t> stacks;
  };
  std::unordered_map<uint32_t, Seen> seen;
  for (auto r = w.rounds().rbegin(); r != w.rounds().rend(); ++r) {
    if (r->time_ns <= now_ns - s_.long_span_ns) break;
    const size_t b = buckets - 1 - static_cast<size_t>((now_ns - r->time_ns) / s_.bucket_ns);
    ++bucket_rounds[b];
    auto [begin, end] = w.tasks(*r);
    for (auto t = begin; t != end; ++t) {
      Seen& s = seen[cls.group(t->stack, t->state)];
      if (s.per_bucket.empty()) s.per_bucket.assign(buckets, 0);
      ++s.per_bucket[b];
      if (t->context) ++s.devices[w.context(t->context).device];
      ++s.stacks[t->stack];
    }
  }
  auto most = [](const auto& counts) {
    typename std::decay_t<decltype(counts)>::key_type best{};
    uint32_t n = 0;
    for (const auto& [k, c] : counts)
      if (c > n || (c == n && k < best)) best = k, n = c;
    return best;
  };
  std::unordered_map<uint32_t, double> long_avg;
  for (const GroupLoad& l : groups_.loads(w, s_.long_span_ns)) long_avg[l.group] = l.avg;
  std::unordered_map<uint32_t, const GroupLoad*> short_load;
  std::vector<GroupLoad> shorts = groups_.loads(w, s_.short_span_ns);
  for (const GroupLoad& l : shorts) short_load[l.group] = &l;
  for (const auto& [g, avg] : long_avg) {
    if (groups_.idle(g)) continue;
    const WaitGroup& wg = cls.groups[g];
    TopGroupRow row;
    row.name = wg.name;
    row.subsystem = wg.subsystem;
    row.avg_long = avg;
    if (auto it = short_load.find(g); it != short_load.end()) {
      row.avg_short = it->second->avg;
      row.now = it->second->now;
    }
    const Seen& s = seen[g];
    row.device = std::string(str.get(most(s.devices)));
    row.stack = frames_of(w.stacks(), most(s.stacks), s_.max_stack_frames);
    for (size_t b = 0; b < buckets; ++b)
      row.spark.push_back(bucket_rounds[b] ? double(s.per_bucket[b]) / bucket_rounds[b] : 0);
    row.chain = chain_of(Report{capture, analysis}, row.name, row.device);
    f.groups.push_back(std::move(row));
  }

  // The tasks of the newest round, blocked longest first.
  auto [begin, end] = w.tasks(*newest);
  for (auto t = begin; t != end; ++t) {
    const uint32_t g = cls.group(t->stack, t->state);
    if (groups_.idle(g)) continue;
    TopTaskRow row;
    row.pid = t->pid;
    row.tid = t->tid;
    row.comm = std::string(str.get(t->comm));
    row.state = t->state;
    row.blocked_s = blocked_.seconds(t->tid, t->time_ns);
    row.group = cls.groups[g].name;
    if (t->context) {
      const WindowContext& c = w.context(t->context);
      row.syscall = std::string(str.get(c.syscall_name));
      row.file = std::string(str.get(c.file));
      row.device = std::string(str.get(c.device));
      row.container = std::string(str.get(c.container));
    }
    row.stack = frames_of(w.stacks(), t->stack, s_.max_stack_frames);
    f.tasks.push_back(std::move(row));
  }
  apply_view(f, {});
  return f;
}

std::string_view sort_name(GroupSort s) {
  switch (s) {
    case GroupSort::avg_short: return "avg10";
    case GroupSort::now: return "now";
    case GroupSort::avg_long: return "avg60";
    case GroupSort::name: return "name";
  }
  return "?";
}

std::string_view sort_name(TaskSort s) {
  switch (s) {
    case TaskSort::blocked: return "blocked";
    case TaskSort::pid: return "pid";
    case TaskSort::comm: return "comm";
    case TaskSort::group: return "group";
  }
  return "?";
}

GroupSort next(GroupSort s) { return static_cast<GroupSort>((static_cast<int>(s) + 1) % 4); }
TaskSort next(TaskSort s) { return static_cast<TaskSort>((static_cast<int>(s) + 1) % 4); }

void apply_view(TopFrame& f, const TopViewOptions& o) {
  if (!o.filter.empty()) {
    auto has = [&](const std::string& s) { return s.find(o.filter) != std::string::npos; };
    std::erase_if(f.groups, [&](const TopGroupRow& g) { return !has(g.name); });
    std::erase_if(f.tasks, [&](const TopTaskRow& t) { return !has(t.comm) && !has(t.group); });
  }
  // Ties by name (then tid), so that rows do not swap places from frame to frame.
  std::stable_sort(f.groups.begin(), f.groups.end(),
                   [&](const TopGroupRow& a, const TopGroupRow& b) {
                     switch (o.group_sort) {
                       case GroupSort::avg_short:
                         if (a.avg_short != b.avg_short) return a.avg_short > b.avg_short;
                         break;
                       case GroupSort::now:
                         if (a.now != b.now) return a.now > b.now;
                         break;
                       case GroupSort::avg_long:
                         if (a.avg_long != b.avg_long) return a.avg_long > b.avg_long;
                         break;
                       case GroupSort::name: break;
                     }
                     return a.name != b.name ? a.name < b.name : a.device < b.device;
                   });
  std::stable_sort(f.tasks.begin(), f.tasks.end(), [&](const TopTaskRow& a, const TopTaskRow& b) {
    switch (o.task_sort) {
      case TaskSort::blocked:
        if (a.blocked_s != b.blocked_s) return a.blocked_s > b.blocked_s;
        break;
      case TaskSort::pid:
        if (a.pid != b.pid) return a.pid < b.pid;
        break;
      case TaskSort::comm:
        if (a.comm != b.comm) return a.comm < b.comm;
        break;
      case TaskSort::group:
        if (a.group != b.group) return a.group < b.group;
        break;
    }
    return a.tid < b.tid;
  });
}

}  // namespace hangscope
