// The words of a diff, shared by its text and HTML renderers: values on the diff's
// basis, ratios, the movement of a group, and where stacks part.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hangscope/diff.hpp"

namespace hangscope::render {

bool by_share(const DiffResult& d);
// "9.70" blocked threads, or "45.3%" of samples.
std::string value_words(const DiffResult& d, double v);
std::string signed_value_words(const DiffResult& d, double v);
// "×24", "new", "gone".
std::string ratio_words(double r);
// "blocked threads" or "share points": the unit of deltas and of --fail-if-grows.
std::string unit_words(const DiffResult& d);
// "[+6.68, +9.28]" (the row's interval, corrected where its table is), or "-" without one.
std::string interval_words(const DiffResult& d, const DiffRow& row);
std::string interval_words(const DiffResult& d, double low, double high);
std::string_view change_word(Change c);
// "6.18.44 (1 run, 288 rounds, 5426 samples)".
std::string side_words(const DiffSide& s);
// Why the sides are compared by threads or by share.
std::string basis_words(const DiffResult& d);
// How values and intervals were computed and what they do not cover, one line each.
std::vector<std::string> basis_lines(const DiffResult& d);
// Why the inputs cannot decide: which side has too few independent units.
std::string undecidable_words(const DiffResult& d);
// "0.40 → 9.70 blocked threads (×24, +9.30 [+8.20, +10.40])".
std::string movement_words(const DiffResult& d, const DiffRow& row);
// "stacks part after ext4_sync_file: the target goes to ...", or "" when there is nothing to say.
std::string divergence_words(const Divergence& dv);
// The heading of the regressions or improvements list.
std::string regressions_heading(const DiffResult& d);
std::string improvements_heading(const DiffResult& d);
// "grew", "did not grow", "cannot decide".
std::string_view growth_verdict_words(GrowthVerdict v);
// The answer to --fail-if-grows and each group it checked; empty without the option.
std::vector<std::string> growth_lines(const DiffResult& d);

}  // namespace hangscope::render
