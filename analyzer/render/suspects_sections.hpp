// The suspects' section of each output format, shared by report and diff.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hangscope/suspects.hpp"

namespace hangscope::render {

// suspects_words.cpp
std::string suspects_weight_words(FrameWeightUnit unit, double v);
std::string_view suspects_unit_words(FrameWeightUnit unit);
// "the commits of v6.6..v6.12 that touch the frames of the groups that grew (...)".
std::string suspects_heading(const SuspectsResult& s);
// "1 commit read in 15 files, indexes read from the cache, 3.2 s".
std::string suspects_figures(const SuspectsResult& s);
// "ovl_copy_up_metadata (adds the call to ovl_sync_file)", "ovl_sync_file (new)".
std::string touched_words(const TouchedFrame& t);
// The suspect's name in a table: a commit's short id, or a function.
std::string suspect_name(const Suspect& s);
// "git bisect start v6.12 v6.1 -- fs/overlayfs/copy_up.c", or "" when no suspect.
std::string bisect_words(const SuspectsResult& s);
std::string_view resolved_by_words(ResolvedBy by);
std::string_view call_change_name(CallChange c);

// suspects_text.cpp: the section of the text outputs.
void suspects_text(std::string& out, const SuspectsResult& s);
// suspects_json.cpp: the "suspects" object of the JSON outputs.
nlohmann::ordered_json suspects_json(const SuspectsResult& s);
// suspects_html.cpp: the section of the HTML pages.
void suspects_html(std::string& out, const SuspectsResult& s);

}  // namespace hangscope::render
