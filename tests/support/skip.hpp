// Skips of a test that cannot run here (a privilege, a device, a tool or a reader
// missing). On a developer's machine they skip; where everything is meant to be there,
// as on CI (root on a VM after scripts/install-deps.sh, which .ci/run says by setting
// HANGSCOPE_REQUIRE_LIVE=1), the same reason fails the test: ctest counts a skip as a
// pass, and a live test that no longer runs would otherwise turn CI green.
//
//   if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
//
// A skip that is about this build's configuration (a sanitizer build, for instance)
// and not about the machine stays a plain GTEST_SKIP.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace hangscope::testing {

// True when skips for the environment are failures (HANGSCOPE_REQUIRE_LIVE=1).
inline bool live_required() {
  const char* v = std::getenv("HANGSCOPE_REQUIRE_LIVE");
  return v && std::strcmp(v, "1") == 0;
}

inline ::testing::TestPartResult::Type skip_result() {
  return live_required() ? ::testing::TestPartResult::kFatalFailure
                         : ::testing::TestPartResult::kSkip;
}

inline const char* skip_preamble() {
  return live_required() ? "HANGSCOPE_REQUIRE_LIVE=1 and this test cannot run here:" : "";
}

}  // namespace hangscope::testing

// As GTEST_SKIP(): returns from the test body; a message may be streamed into it.
#define HANGSCOPE_SKIP()                                                                  \
  return ::testing::internal::AssertHelper(::hangscope::testing::skip_result(), __FILE__, \
                                           __LINE__, ::hangscope::testing::skip_preamble()) = \
             ::testing::Message()
