// The mail corpus (bench/cut-mail-corpus): hung-task reports as people pasted them to
// kernel mailing lists, each with an answer key read from its own text by the cutter.
// The binary under test is run on each report as a user would run it
// (`hangscope report -f pprof`), so that any build can be scored, and its profile read
// back: one sample per task with labels tid, comm, wait_group and state.
//
//   - a file is read whole when the report exits 0 and every hung task of its key is a
//     sample (same tid; the same command where several samples have that tid) whose stack
//     holds every function of its key's trace
//     (compiler clone suffixes folded on both sides), or, where the key has no trace, a
//     sample at all;
//   - a hung task read is one such sample;
//   - a hung task in a named group is a sample with a stack whose group is not "other:",
//     of the hung tasks whose key has a trace (a paste that shows a task's hung line
//     alone gives nothing to classify);
//   - the share in "other:" is of the weight of every blocked sample of every report.
#include "score_mail_corpus.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "hangscope/classify.hpp"
#include "profile.pb.h"

namespace hangscope::bench {

namespace {

namespace fs = std::filesystem;
namespace pb = perftools::profiles;

struct KeyTask {
  std::string comm;
  int32_t pid = 0;
  std::vector<std::string> functions;
};

struct Report {
  std::string file, list;
  std::vector<KeyTask> hung;
};

// One task of the profile that hangscope wrote.
struct Sample {
  int64_t tid = 0;
  std::string comm, group;
  bool blocked = true;
  int64_t weight = 0;
  std::vector<std::string> functions;
};

struct Run {
  int status = -1;
  std::string first_error;  // the first line hangscope wrote to standard error
  std::vector<Sample> samples;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string gunzip(const std::string& in) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return {};
  std::string out;
  char buf[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END ? out : std::string();
}

std::vector<Sample> samples_of(const pb::Profile& p) {
  auto str = [&](int64_t i) -> std::string {
    return i >= 0 && i < p.string_table_size() ? p.string_table(static_cast<int>(i)) : "";
  };
  std::map<uint64_t, std::string> function_name, location_function;
  for (const pb::Function& f : p.function()) function_name[f.id()] = str(f.name());
  for (const pb::Location& l : p.location())
    if (l.line_size() > 0) location_function[l.id()] = function_name[l.line(0).function_id()];
  std::vector<Sample> out;
  for (const pb::Sample& s : p.sample()) {
    Sample t;
    t.weight = s.value_size() > 0 ? s.value(0) : 0;
    for (uint64_t loc : s.location_id()) t.functions.push_back(location_function[loc]);
    for (const pb::Label& l : s.label()) {
      const std::string key = str(l.key());
      if (key == "tid") t.tid = l.num();
      if (key == "comm") t.comm = str(l.str());
      if (key == "wait_group") t.group = str(l.str());
      if (key == "state") t.blocked = str(l.str()) != "on-cpu";
    }
    out.push_back(std::move(t));
  }
  return out;
}

Run run_report(const std::string& bin, const fs::path& input) {
  const fs::path tmp = fs::temp_directory_path();
  const fs::path out = tmp / fmt::format("score-mail-{}.pprof", getpid());
  const fs::path err = tmp / fmt::format("score-mail-{}.err", getpid());
  const std::string cmd = fmt::format("'{}' report -f pprof -o '{}' '{}' 2>'{}'", bin,
                                      out.string(), input.string(), err.string());
  Run r;
  const int st = std::system(cmd.c_str());
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  const std::string e = slurp(err);
  r.first_error = e.substr(0, e.find('\n'));
  if (r.status == 0) {
    pb::Profile p;
    if (p.ParseFromString(gunzip(slurp(out)))) r.samples = samples_of(p);
  }
  fs::remove(out);
  fs::remove(err);
  return r;
}

std::vector<Report> read_manifest(const fs::path& path) {
  std::vector<Report> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line);
    Report r{j.at("file"), j.at("list"), {}};
    for (const auto& t : j.at("hung"))
      r.hung.push_back({t.at("comm"), t.at("pid"), t.at("functions")});
    out.push_back(std::move(r));
  }
  return out;
}

bool holds_all(const Sample& s, const std::vector<std::string>& functions,
               std::string& missing) {
  for (const std::string& f : functions) {
    const std::string_view want = canonical_function(f);
    const bool found = std::any_of(s.functions.begin(), s.functions.end(), [&](const auto& g) {
      return canonical_function(g) == want;
    });
    if (!found) {
      missing = f;
      return false;
    }
  }
  return true;
}

struct Figures {
  int files = 0, accepted = 0, whole = 0;
  int tasks = 0, read = 0, traced = 0, named = 0;
  int64_t blocked = 0, other = 0;
};

double percent(int64_t a, int64_t b) { return b ? 100.0 * static_cast<double>(a) / b : 0; }

// Scores one report into `f`; the reasons it falls short go to `notes`.
void score(const Report& rep, const Run& run, Figures& f, std::vector<std::string>& notes) {
  ++f.files;
  f.accepted += run.status == 0;
  if (run.status != 0) notes.push_back(fmt::format("exit {}: {}", run.status, run.first_error));
  bool whole = run.status == 0;
  for (const KeyTask& k : rep.hung) {
    ++f.tasks;
    // The task of that pid, by its command where several have it; a thread may rename
    // itself between the hung line and its header ("java" / "skyframe-evalua").
    const Sample* hit = nullptr;
    for (const Sample& s : run.samples) {
      if (s.tid != k.pid) continue;
      const bool better = !hit || (s.comm == k.comm && hit->comm != k.comm) ||
                          ((s.comm == k.comm) == (hit->comm == k.comm) &&
                           s.functions.size() > hit->functions.size());
      if (better) hit = &s;
    }
    std::string missing;
    const bool read = hit && (k.functions.empty() || holds_all(*hit, k.functions, missing));
    f.read += read;
    whole = whole && read;
    const bool named = hit && !hit->functions.empty() && !hit->group.starts_with("other:");
    f.traced += !k.functions.empty();
    f.named += named && !k.functions.empty();
    if (!hit)
      notes.push_back(fmt::format("{}:{} not read", k.comm, k.pid));
    else if (!read)
      notes.push_back(fmt::format("{}:{} without {}", k.comm, k.pid, missing));
    else if (!named && !k.functions.empty())
      notes.push_back(fmt::format("{}:{} in {}", k.comm, k.pid, hit->group));
  }
  f.whole += whole;
  for (const Sample& s : run.samples) {
    if (!s.blocked) continue;
    f.blocked += s.weight;
    f.other += s.group.starts_with("other:") ? s.weight : 0;
  }
}

void print(const std::string& label, const Figures& f) {
  fmt::print("{}: {} reports, {} hung tasks\n", label, f.files, f.tasks);
  fmt::print("  files accepted (exit 0): {}/{} ({:.1f}%)\n", f.accepted, f.files,
             percent(f.accepted, f.files));
  fmt::print("  files read whole: {}/{} ({:.1f}%)\n", f.whole, f.files, percent(f.whole, f.files));
  fmt::print("  hung tasks read: {}/{} ({:.1f}%)\n", f.read, f.tasks, percent(f.read, f.tasks));
  fmt::print("  hung tasks in a named group: {}/{} with a trace ({:.1f}%)\n", f.named, f.traced,
             percent(f.named, f.traced));
  fmt::print("  blocked samples in other: {:.1f}% ({}/{})\n", percent(f.other, f.blocked), f.other,
             f.blocked);
}

}  // namespace

bool score_mail_corpus(const std::string& bin, const fs::path& corpus, bool verbose) {
  const std::vector<Report> reports = read_manifest(corpus / "manifest.jsonl");
  Figures all;
  std::map<std::string, Figures> by_list;
  bool ran = true;
  for (const Report& rep : reports) {
    const Run run = run_report(bin, corpus / rep.file);
    ran = ran && run.status < 128;
    std::vector<std::string> notes;
    score(rep, run, all, notes);
    std::vector<std::string> ignored;
    score(rep, run, by_list[rep.list], ignored);
    if (verbose && !notes.empty()) {
      fmt::print("  {}:", rep.file);
      for (const std::string& n : notes) fmt::print(" [{}]", n);
      fmt::print("\n");
    }
  }
  print(fmt::format("mail corpus ({})", corpus.string()), all);
  if (verbose)
    for (const auto& [list, f] : by_list)
      fmt::print("  {}: read whole {}/{}, tasks read {}/{}, named {}/{}, other {:.1f}%\n", list,
                 f.whole, f.files, f.read, f.tasks, f.named, f.traced, percent(f.other, f.blocked));
  return ran;
}

}  // namespace hangscope::bench
