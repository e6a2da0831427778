// Scores a hangscope binary on a corpus of hung-task reports pasted to mailing lists, cut
// by bench/cut-mail-corpus (its manifest.jsonl holds each report's answer key).
#pragma once

#include <filesystem>
#include <string>

namespace hangscope::bench {

// Prints the corpus's figures; true when every report could be run.
bool score_mail_corpus(const std::string& hangscope_bin, const std::filesystem::path& corpus,
                       bool verbose);

}  // namespace hangscope::bench
