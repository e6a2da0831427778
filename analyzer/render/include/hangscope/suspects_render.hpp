// The suspects of report --suspects and diff --suspects in words: the sections the text,
// JSON and HTML outputs add (analyzer/render/suspects_*.cpp), and a problem of the
// stage as the one line the command line also writes on standard error.
#pragma once

#include <string>

#include "hangscope/suspects.hpp"

namespace hangscope {

// "/tmp/x is not a kernel tree: no top-level Makefile with VERSION and PATCHLEVEL, ...".
std::string suspects_problem_words(const SuspectsProblem& problem);

}  // namespace hangscope
