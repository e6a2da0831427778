// The commits of a git range that touch the weighed functions (git_changes.cpp).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "hangscope/suspects.hpp"
#include "suspects_internal.hpp"

namespace hangscope::suspects_detail {

struct GitChangesInput {
  std::string git_dir;
  std::string a_id, b_id;  // full commit ids
  // Each weighed frame's files, at both ends: a change elsewhere is another function of
  // the same name.
  std::map<std::string, std::set<std::string>> files;
  std::map<std::string, double> weights;
  Callees callees;
};

struct GitChanges {
  std::vector<Suspect> suspects;  // unranked, their weights totalled
  size_t examined = 0;            // commits read
  std::string error;              // what git said when the log failed
};

GitChanges git_changes(const GitChangesInput& in);

}  // namespace hangscope::suspects_detail
