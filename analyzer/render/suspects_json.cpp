// The suspects for scripts: every suspect, frame and problem, numbers unrounded.
#include "hangscope/suspects_render.hpp"
#include "suspects_sections.hpp"

namespace hangscope::render {

namespace {

using json = nlohmann::ordered_json;

std::string_view unit_name(FrameWeightUnit u) {
  return u == FrameWeightUnit::blocked_threads ? "blocked_threads"
         : u == FrameWeightUnit::share         ? "share"
                                               : "samples";
}

std::string_view from_name(FramesFrom f) {
  return f == FramesFrom::regressions ? "regressions"
         : f == FramesFrom::growth    ? "growth"
                                      : "dominant";
}

std::string_view problem_name(SuspectsProblemKind k) {
  switch (k) {
    case SuspectsProblemKind::not_a_kernel_tree:
      return "not_a_kernel_tree";
    case SuspectsProblemKind::bad_range:
      return "bad_range";
    case SuspectsProblemKind::not_found:
      return "not_found";
    case SuspectsProblemKind::git_failed:
      return "git_failed";
  }
  return "";
}

json touched(const TouchedFrame& t) {
  return {{"function", t.function}, {"file", t.file},
          {"weight", t.weight},     {"added", t.added},
          {"removed", t.removed},   {"call", call_change_name(t.call)},
          {"callee", t.callee},     {"call_weight", t.call_weight},
          {"created", t.created},   {"deleted", t.deleted}};
}

json suspect(const Suspect& s, size_t rank) {
  json j = {{"rank", rank}, {"kind", s.kind == SuspectKind::commit ? "commit" : "function"}};
  if (s.kind == SuspectKind::commit) {
    j["commit"] = s.commit;
    j["subject"] = s.subject;
    j["author"] = s.author;
    j["date"] = s.date;
    j["merge"] = s.merge;
    j["moved_only"] = s.moved_only;
  } else {
    j["function"] = s.function;
    j["old_function"] = s.old_function;
    j["old_file"] = s.old_file;
    j["new_file"] = s.new_file;
  }
  j["files"] = s.files;
  j["path_weight"] = s.path_weight;
  j["weight"] = s.weight;
  j["added"] = s.added;
  j["removed"] = s.removed;
  j["frames"] = json::array();
  for (const TouchedFrame& t : s.frames) j["frames"].push_back(touched(t));
  j["diff"] = s.diff;
  return j;
}

}  // namespace

json suspects_json(const SuspectsResult& r) {
  json source =
      r.source.git()
          ? json{{"kind", "git"}, {"git_dir", r.source.git_dir}, {"range", r.source.range}}
          : json{{"kind", "trees"}, {"old_dir", r.source.old_dir}, {"new_dir", r.source.new_dir}};
  json frames = json::array();
  for (const ResolvedFrame& f : r.frames)
    frames.push_back({{"function", f.function},
                      {"weight", f.weight},
                      {"files", f.files},
                      {"old_files", f.old_files},
                      {"resolved_by", resolved_by_words(f.by)},
                      {"candidates", f.candidates}});
  json suspects = json::array();
  for (size_t i = 0; i < r.suspects.size(); ++i) suspects.push_back(suspect(r.suspects[i], i + 1));
  json problems = json::array();
  for (const SuspectsProblem& p : r.problems)
    problems.push_back({{"kind", problem_name(p.kind)},
                        {"subject", p.subject},
                        {"detail", p.detail},
                        {"message", suspects_problem_words(p)}});
  return {{"source", source},
          {"old", {{"name", r.old_name}, {"id", r.old_id}, {"version", r.old_version}}},
          {"new", {{"name", r.new_name}, {"id", r.new_id}, {"version", r.new_version}}},
          {"unit", unit_name(r.unit)},
          {"from", from_name(r.from)},
          {"groups", r.groups},
          {"frames", frames},
          {"examined", r.examined},
          {"suspects", suspects},
          {"bisect",
           {{"bad", r.bisect_bad},
            {"good", r.bisect_good},
            {"paths", r.bisect_paths},
            {"command", bisect_words(r)}}},
          {"frame_paths", r.frame_paths},
          {"problems", problems},
          {"index_cached", r.index_cached},
          {"index_seconds", r.index_seconds},
          {"seconds", r.seconds}};
}

}  // namespace hangscope::render
