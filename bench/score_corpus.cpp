// Scores hangscope against a corpus of real inputs from other projects, with their answer
// keys (../shared/corpus: see its README.md). Run on demand by bench/score-corpus; never by
// ctest, since a clone of the project has no such corpus.
//
//   hangscope_score_corpus HANGSCOPE_BIN CORPUS_DIR [-v]
//
// syzkaller/: hung-task reports of google/syzkaller's test data and answers.tsv.
//   - hung tasks counted: every task of a "blocked for more than" / "blocked in I/O wait
//     for more than" / "can't die for more than" header (comm:pid, read from the report's
//     text here, independently of the readers) is a sample of the capture, with a stack;
//   - title in a named group: the first such task whose stack holds the title's function
//     (syzkaller's "INFO: task hung in F", or one of its "ALT:" titles) is in a wait
//     group a rule named;
//   - unclassified share: the samples of blocked tasks in "other:" groups, of all
//     blocked samples, over the whole set.
// flamegraph-tests/, inferno-tests/: `perf script` inputs and upstream's collapsed results.
//   Each input is given to `hangscope report -f folded` (the command itself, so that its
//   exit code and standard error count), and its output compared with upstream's result
//   after the normalisation of normalise_frame() below: frame-name tidying only.
// A corpus with a manifest.jsonl is instead a corpus of reports pasted to mailing lists,
// cut by bench/cut-mail-corpus: see score_mail_corpus.cpp.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hangscope/analysis.hpp"
#include "hangscope/classify.hpp"
#include "hangscope/frame_text.hpp"
#include "hangscope/ingest.hpp"
#include "score_mail_corpus.hpp"

namespace fs = std::filesystem;
using namespace hangscope;

namespace {

bool verbose = false;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// ---------------------------------------------------------------- syzkaller

struct HungTask {
  std::string comm;  // "" where the line does not show it whole
  int32_t pid = 0;
};

// The hung tasks a report names, in order, each once: "INFO: task comm:pid blocked for
// more than N seconds." and its two other forms.
std::vector<HungTask> hung_tasks(const std::string& text) {
  static const char* const kForms[] = {" blocked for more than ",
                                       " blocked in I/O wait for more than ",
                                       " can't die for more than "};
  std::vector<HungTask> out;
  std::set<std::pair<std::string, int32_t>> seen;
  for (const std::string& line : split(text, '\n')) {
    size_t mid = std::string::npos;
    for (const char* f : kForms) mid = std::min(mid, line.find(f));
    if (mid == std::string::npos) continue;
    size_t at = line.find("INFO: task ");
    std::string who;
    if (at != std::string::npos && at < mid) {
      who = line.substr(at + 11, mid - at - 11);
    } else {  // a command name holding a '\n' cut the line: its pid ends this part
      size_t sp = line.rfind(' ', mid - 1);
      who = line.substr(sp == std::string::npos ? 0 : sp + 1,
                        mid - (sp == std::string::npos ? 0 : sp + 1));
      who = ":" + who.substr(who.rfind(':') == std::string::npos ? 0 : who.rfind(':') + 1);
    }
    size_t colon = who.rfind(':');
    if (colon == std::string::npos) continue;
    HungTask t{who.substr(0, colon), std::atoi(who.c_str() + colon + 1)};
    if (seen.emplace(t.comm, t.pid).second) out.push_back(t);
  }
  return out;
}

// The title's function and syzkaller's alternative titles for the same report
// ("ALT: hang in synchronize_rcu_expedited" beside "INFO: task hung in synchronize_rcu").
std::vector<std::string> title_functions(const std::string& function, const std::string& text) {
  std::vector<std::string> out{function};
  for (const std::string& line : split(text, '\n')) {
    if (!line.starts_with("ALT: ")) {
      if (!line.empty() && !line.starts_with("TITLE:") && !line.starts_with("TYPE:") &&
          !line.starts_with("FRAME:") && !line.starts_with("PANICKED:") &&
          !line.starts_with("CORRUPTED:"))
        break;  // the report's own text begins
      continue;
    }
    size_t at = line.rfind(" in ");
    if (at != std::string::npos) out.push_back(line.substr(at + 4));
  }
  return out;
}

bool stack_has(const Capture& c, StackId s, const std::vector<std::string>& functions) {
  for (FrameId f : c.stacks.stack(s)) {
    std::string_view name = c.stacks.function(f);
    for (const std::string& function : functions)
      if (name == function || canonical_function(name) == function) return true;
  }
  return false;
}

struct SyzScore {
  int reports = 0, reports_counted = 0, uncorrupted = 0, uncorrupted_counted = 0;
  int tasks = 0, tasks_found = 0, tasks_with_stack = 0;
  int titled = 0, titled_named = 0;
  uint64_t blocked_weight = 0, unclassified_weight = 0;
  uint64_t hung_weight = 0, hung_unclassified = 0;
  int unreadable = 0;
};

void score_syzkaller(const fs::path& dir, SyzScore& score) {
  std::ifstream tsv(dir / "answers.tsv");
  std::string line;
  std::getline(tsv, line);  // the column names
  while (std::getline(tsv, line)) {
    std::vector<std::string> col = split(line, '\t');
    if (col.size() < 8) continue;
    const std::string& file = col[0];
    const std::string& function = col[2];
    const bool corrupted = col[7] == "Y";
    std::string text = slurp(dir / file);
    std::vector<HungTask> hung = hung_tasks(text);
    ++score.reports;
    score.uncorrupted += !corrupted;

    Capture c;
    std::string error;
    try {
      read_input((dir / file).string(), "", c);
    } catch (const InputError& e) {
      error = e.what();
      ++score.unreadable;
    }
    Classification cls = classify(c.stacks, builtin_rules());
    std::vector<std::string> notes;
    if (!error.empty()) notes.push_back("error: " + error);

    int found = 0, with_stack = 0;
    std::vector<const TaskSample*> hung_samples;
    for (const HungTask& t : hung) {
      const TaskSample* hit = nullptr;
      for (const TaskSample& s : c.samples)
        if (s.tid == t.pid && (t.comm.empty() || c.strings().get(s.comm) == t.comm)) hit = &s;
      found += hit != nullptr;
      with_stack += hit && hit->stack != 0;
      if (hit) hung_samples.push_back(hit);
      if (!hit || hit->stack == 0)
        notes.push_back(fmt::format("{}:{} {}", t.comm, t.pid, hit ? "without stack" : "not read"));
    }
    score.tasks += static_cast<int>(hung.size());
    score.tasks_found += found;
    score.tasks_with_stack += with_stack;
    const bool counted = with_stack == static_cast<int>(hung.size()) && !hung.empty();
    score.reports_counted += counted;
    score.uncorrupted_counted += counted && !corrupted;

    for (const TaskSample& s : c.samples) {
      if (s.state == 'R') continue;  // running, not blocked
      const bool other = cls.groups[cls.group(s)].unclassified;
      score.blocked_weight += s.weight;
      score.unclassified_weight += other ? s.weight : 0;
    }
    for (const TaskSample* s : hung_samples) {
      score.hung_weight += s->weight;
      score.hung_unclassified += cls.groups[cls.group(*s)].unclassified ? s->weight : 0;
    }

    if (!function.empty() && function != "corrupted") {
      ++score.titled;
      const std::vector<std::string> functions = title_functions(function, text);
      const TaskSample* pick = nullptr;
      for (const TaskSample* s : hung_samples)
        if (!pick && stack_has(c, s->stack, functions)) pick = s;
      for (const TaskSample& s : c.samples)
        if (!pick && stack_has(c, s.stack, functions)) pick = &s;
      const bool named = pick && !cls.groups[cls.group(*pick)].unclassified;
      score.titled_named += named;
      if (!pick)
        notes.push_back(fmt::format("{}: in no stack", function));
      else if (!named)
        notes.push_back(fmt::format("{}: in {}", function, cls.groups[cls.group(*pick)].name));
    }
    if (verbose && !notes.empty()) {
      fmt::print("  {}{}:", file, corrupted ? " (corrupted)" : "");
      for (const std::string& n : notes) fmt::print(" [{}]", n);
      fmt::print("\n");
    }
  }
}

// ---------------------------------------------------------------- perf

struct Run {
  int status = -1;
  std::string out, err;
};

Run run(const std::string& bin, const fs::path& input) {
  fs::path err = fs::temp_directory_path() / fmt::format("score-corpus-{}.err", getpid());
  std::string cmd =
      fmt::format("'{}' report -f folded '{}' 2>'{}'", bin, input.string(), err.string());
  Run r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.err = slurp(err);
  fs::remove(err);
  return r;
}

// Demangles what perf leaves of a Rust legacy symbol: "a..b..Foo$LT$T$GT$::f::h0123456789abcdef"
// -> "a::b::Foo<T>::f". Applied to both sides, since FlameGraph keeps the mangled form.
std::string demangle_rust(std::string s) {
  if (s.size() < 19 || s[s.size() - 17] != 'h') return s;
  for (size_t i = s.size() - 16; i < s.size(); ++i)
    if (!isxdigit(static_cast<unsigned char>(s[i]))) return s;
  s.resize(s.size() - 17);
  if (s.ends_with("::")) s.resize(s.size() - 2);
  if (s.starts_with("_$")) s.erase(0, 1);
  static const std::pair<const char*, const char*> kEscapes[] = {
      {"$SP$", "@"}, {"$BP$", "*"}, {"$RF$", "&"}, {"$LT$", "<"}, {"$GT$", ">"},
      {"$LP$", "("}, {"$RP$", ")"}, {"$C$", ","},  {"$u7e$", "~"}, {"$u20$", " "},
      {"$u27$", "'"}, {"$u3d$", "="}, {"$u5b$", "["}, {"$u5d$", "]"}, {"$u7b$", "{"},
      {"$u7d$", "}"}, {"$u3b$", ";"}, {"$u2b$", "+"}, {"$u21$", "!"}, {"$u22$", "\""}};
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "..") == 0) {
      out += "::";
      i += 2;
      continue;
    }
    bool done = false;
    if (s[i] == '$')
      for (const auto& [from, to] : kEscapes)
        if (s.compare(i, strlen(from), from) == 0) {
          out += to;
          i += strlen(from);
          done = true;
          break;
        }
    if (!done) out += s[i++];
  }
  return out;
}

// The normalisation, frame by frame, applied to both outputs: what FlameGraph's and
// inferno's collapsers do to a name that hangscope may leave as perf printed it.
//   - annotations "_[k]", "_[j]", "_[i]" dropped (some results were made with --kernel/--jit);
//   - an argument list dropped: from the first '(' outside brackets, unless a Go method's
//     ".(" or C++'s "(anonymous namespace)" (stackcollapse-perf.pl's tidy_generic);
//   - quotes dropped (stackcollapse-perf.pl removes them, inferno does not);
//   - Java's leading "L" of a class path dropped (tidy_java; only for "java" commands);
//   - Rust legacy symbols demangled (inferno does, FlameGraph does not);
//   - compiler clone suffixes folded ("do_execveat_common.isra.31"), as hangscope folds
//     them in kernel frames (fold_symbol_suffixes);
//   - frames without a symbol compare as one, whatever their name: "[unknown]", "[dso]",
//     upstream's "[[kernel.kallsyms]]", or its blank name for a frame perf printed with
//     no symbol at all ("7f1e2215d058  (/lib/libc-2.15.so)"), which hangscope names
//     "[libc-2.15.so]".
std::string normalise_frame(std::string f, bool java) {
  for (const char* a : {"_[k]", "_[j]", "_[i]"})
    if (f.size() > 4 && f.ends_with(a)) f.resize(f.size() - 4);
  if (f.find_first_not_of(' ') == std::string::npos ||
      (f.size() > 2 && f.front() == '[' && f.back() == ']'))
    return "[?]";
  f = demangle_rust(f);
  f = std::string(fold_symbol_suffixes(f));
  int depth = 0;
  size_t last_dot = std::string::npos;
  for (size_t i = 0; i < f.size(); ++i) {
    char c = f[i];
    if (c == '<' || c == '{' || c == '[') ++depth;
    if (c == '>' || c == '}' || c == ']' || c == ')') --depth;
    if (c == '.') last_dot = i + 1;
    if (c == '(') {
      if (depth == 0 && last_dot != i && f.compare(i, 21, "(anonymous namespace)") != 0) {
        f.resize(i);
        break;
      }
      ++depth;
    }
  }
  std::erase(f, '"');
  std::erase(f, '\'');
  if (java && f.starts_with('L') && f.find('/') != std::string::npos) f.erase(0, 1);
  return f;
}

using Folded = std::map<std::string, uint64_t>;

Folded normalised(const std::string& text) {
  Folded out;
  for (const std::string& line : split(text, '\n')) {
    size_t sp = line.rfind(' ');
    if (line.empty() || sp == std::string::npos) continue;
    std::vector<std::string> frames = split(line.substr(0, sp), ';');
    const bool java = frames[0].starts_with("java");
    std::string key;
    for (size_t i = 0; i < frames.size(); ++i)
      key += (i ? ";" : "") + normalise_frame(frames[i], java);
    out[key] += std::stoull(line.substr(sp + 1));
  }
  return out;
}

// FlameGraph's stackcollapse-perf.pl drops a file's last sample when no blank line follows
// it: a difference of exactly that sample's weight, in one stack, is its quirk, not ours.
uint64_t last_sample_dropped_upstream(const std::string& input) {
  std::string t = input;
  if (t.empty() || t.ends_with("\n\n")) return 0;
  std::vector<std::string> lines = split(t, '\n');
  for (size_t i = lines.size(); i-- > 0;) {
    const std::string& l = lines[i];
    if (l.empty() || l[0] == '\t' || l[0] == ' ') continue;
    // "comm tid [cpu] time: [period] event:": the number before the event, or 1.
    std::vector<std::string> words;
    std::istringstream ws(l);
    for (std::string w; ws >> w;) words.push_back(w);
    // A period follows the time ("123.456:") or the cpu ("[001]"), and comes before the event.
    for (size_t j = 2; j < words.size(); ++j)
      if (words[j].ends_with(':') && isalpha(static_cast<unsigned char>(words[j][0])) &&
          words[j - 1].find_first_not_of("0123456789") == std::string::npos &&
          (words[j - 2].ends_with(':') || words[j - 2].starts_with('[')))
        return std::stoull(words[j - 1]);
    return 1;
  }
  return 0;
}

struct PerfScore {
  int inputs = 0, read = 0, compared = 0, equal = 0;
};

void score_perf_input(const std::string& bin, const fs::path& input, const fs::path& expected,
                      bool flamegraph, PerfScore& score) {
  ++score.inputs;
  Run r = run(bin, input);
  const bool empty_input = fs::file_size(input) == 0;
  // Read: exit 0 with folded output; an empty input has nothing to read (exit 1, one line).
  const bool read_ok = r.status == 0 || (empty_input && r.status == 1);
  score.read += read_ok;
  std::string verdict = read_ok ? "read" : fmt::format("exit {}", r.status);
  std::string first_err = r.err.substr(0, r.err.find('\n'));
  if (!expected.empty() && fs::exists(expected)) {
    ++score.compared;
    Folded ours = normalised(r.out), theirs = normalised(slurp(expected));
    std::vector<std::string> diffs;
    uint64_t dropped = flamegraph ? last_sample_dropped_upstream(slurp(input)) : 0;
    for (const auto& [k, v] : ours) {
      auto it = theirs.find(k);
      uint64_t t = it == theirs.end() ? 0 : it->second;
      if (t == v) continue;
      if (dropped && v == t + dropped) {
        dropped = 0;  // upstream's lost last sample
        continue;
      }
      diffs.push_back(fmt::format("ours {} upstream {}: {}", v, t, k));
    }
    for (const auto& [k, v] : theirs)
      if (!ours.contains(k)) diffs.push_back(fmt::format("ours 0 upstream {}: {}", v, k));
    score.equal += diffs.empty() && read_ok;
    verdict += diffs.empty() ? ", folded equal" : fmt::format(", {} stacks differ", diffs.size());
    if (verbose)
      for (size_t i = 0; i < diffs.size() && i < 4; ++i)
        verdict += "\n      " + diffs[i].substr(0, 300);
  }
  if (verbose || !read_ok)
    fmt::print("  {}: {}{}\n", input.filename().string(), verdict,
               first_err.empty() ? "" : "\n      stderr: " + first_err);
}

void score_perf(const std::string& bin, const fs::path& corpus, PerfScore& score) {
  std::vector<fs::path> fg, inf;
  for (const auto& e : fs::directory_iterator(corpus / "flamegraph-tests"))
    if (e.is_regular_file()) fg.push_back(e.path());
  for (const auto& e : fs::directory_iterator(corpus / "inferno-tests"))
    if (e.is_regular_file()) inf.push_back(e.path());
  std::sort(fg.begin(), fg.end());
  std::sort(inf.begin(), inf.end());
  for (const fs::path& p : fg)
    score_perf_input(bin, p,
                     corpus / "flamegraph-tests/generated" /
                         (p.stem().string() + "-collapsed-default.txt"),
                     true, score);
  for (const fs::path& p : inf) {
    std::string stem = p.filename().string();
    stem = stem.substr(0, stem.find('.'));
    fs::path expected;
    for (const char* suffix : {"-collapsed.txt", "-collapsed-jit.txt", "-collapsed-kernel.txt"})
      if (fs::exists(corpus / "inferno-tests/results" / (stem + suffix)))
        expected = corpus / "inferno-tests/results" / (stem + suffix);
    score_perf_input(bin, p, expected, false, score);
  }
}

double percent(uint64_t a, uint64_t b) { return b ? 100.0 * a / b : 0; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr, "usage: {} HANGSCOPE_BIN CORPUS_DIR [-v]\n", argv[0]);
    return 2;
  }
  const std::string bin = argv[1];
  const fs::path corpus = argv[2];
  verbose = argc > 3 && std::string(argv[3]) == "-v";
  if (fs::exists(corpus / "manifest.jsonl"))
    return hangscope::bench::score_mail_corpus(bin, corpus, verbose) ? 0 : 1;
  if (!fs::exists(corpus / "syzkaller/answers.tsv")) {
    fmt::print(stderr, "{}: no corpus here (neither syzkaller/answers.tsv nor manifest.jsonl)\n",
               corpus.string());
    return 1;
  }
  SyzScore syz;
  if (verbose) fmt::print("syzkaller:\n");
  score_syzkaller(corpus / "syzkaller", syz);
  PerfScore perf;
  if (verbose) fmt::print("perf:\n");
  score_perf(bin, corpus, perf);

  fmt::print("syzkaller ({} reports, {} not marked corrupted):\n", syz.reports, syz.uncorrupted);
  fmt::print("  reports with every hung task read, with its stack: {}/{} ({}/{} not corrupted)\n",
             syz.reports_counted, syz.reports, syz.uncorrupted_counted, syz.uncorrupted);
  fmt::print("  hung tasks read: {}/{}, with a stack: {}/{}\n", syz.tasks_found, syz.tasks,
             syz.tasks_with_stack, syz.tasks);
  fmt::print("  title's hung function in a named group: {}/{}\n", syz.titled_named, syz.titled);
  fmt::print("  unclassified: {:.1f}% of blocked samples ({}/{}), {:.1f}% of hung tasks\n",
             percent(syz.unclassified_weight, syz.blocked_weight), syz.unclassified_weight,
             syz.blocked_weight, percent(syz.hung_unclassified, syz.hung_weight));
  fmt::print("  inputs refused: {}\n", syz.unreadable);
  fmt::print("perf script ({} inputs of FlameGraph and inferno):\n", perf.inputs);
  fmt::print("  read: {}/{}\n", perf.read, perf.inputs);
  fmt::print("  -f folded equal to upstream after normalisation: {}/{} with a result\n",
             perf.equal, perf.compared);
  return 0;
}
