# Sourced by the shell tests: skip REASON exits 77 (ctest's SKIP_RETURN_CODE), or 1
# under HANGSCOPE_REQUIRE_LIVE=1 (CI, where everything a test needs is installed), as
# tests/support/skip.hpp does for the C++ tests.
skip() {
  if [ "${HANGSCOPE_REQUIRE_LIVE:-}" = 1 ]; then
    echo "FAILED (HANGSCOPE_REQUIRE_LIVE=1 and this test cannot run here): $*" >&2
    exit 1
  fi
  echo "SKIPPED: $*"
  exit 77
}
