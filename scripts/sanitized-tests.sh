#!/bin/sh
# The tests built with sanitizers, from the top of the source tree (as root, after
# scripts/install-deps.sh): AddressSanitizer and UndefinedBehaviorSanitizer (the unit,
# command-line and live tests; the fuzzers, which are sanitized builds of their own, the
# browser test and the package stay in the plain build), and the threaded unit tests
# built with ThreadSanitizer. Build directories build-asan and build-tsan; the stages'
# libraries compiled as unity files (HANGSCOPE_UNITY_STAGES, cmake/Stage.cmake).
# .ci/run runs it; docs/testing.md says how long each step takes.
set -eu
cd "$(dirname "$0")/.."
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_NOHASHDIR=true CCACHE_BASEDIR="$PWD"
fi
. scripts/step-clock.sh
export HANGSCOPE_REQUIRE_LIVE="${HANGSCOPE_REQUIRE_LIVE:-1}"

cmake -S . -B build-asan -G Ninja -DHANGSCOPE_SANITIZE=ON -DHANGSCOPE_BUILD_BENCH=OFF \
  -DHANGSCOPE_UNITY_STAGES=ON
cmake --build build-asan
step_done "the ASan and UBSan build"
# ThreadSanitizer: the unit tests whose code runs threads or hands data to them, an
# executable of their own (tests/CMakeLists.txt: hangscope_threaded_tests, label
# "threaded").
cmake -S . -B build-tsan -G Ninja -DHANGSCOPE_SANITIZE_THREAD=ON -DHANGSCOPE_BUILD_BENCH=OFF \
  -DHANGSCOPE_UNITY_STAGES=ON
cmake --build build-tsan --target hangscope_threaded_tests
step_done "the ThreadSanitizer build"

# ASan and UBSan: any report ends the test that made it with a failure. On every CPU:
# the live tests wait for the states they sample, not for a time, so they hold under
# the load of each other.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j "$(nproc)" \
  -E '^(fuzz_readers|browser\.pictures|install\.package)$'
step_done "the ASan and UBSan tests"
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
ctest --test-dir build-tsan --output-on-failure -L threaded
step_done "the ThreadSanitizer tests"
