// The weighed functions whose bodies differ between two source trees (no history): each
// a suspect with its diff (tree_changes.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "definition_index.hpp"
#include "hangscope/suspects.hpp"
#include "kernel_tree.hpp"
#include "suspects_internal.hpp"

namespace hangscope::suspects_detail {

struct TreeChangesInput {
  const KernelTree& old_tree;
  const KernelTree& new_tree;
  const Resolutions& old_res;
  const Resolutions& new_res;
  const Definitions& old_defs;  // every definition of the weighed names in the old tree
  std::map<std::string, double> weights;
  Callees callees;
};

struct TreeChanges {
  std::vector<Suspect> suspects;  // unranked, their weights totalled
  size_t examined = 0;            // functions compared
};

TreeChanges tree_changes(const TreeChangesInput& in);

}  // namespace hangscope::suspects_detail
