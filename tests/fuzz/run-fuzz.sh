#!/bin/sh
# Builds the libFuzzer target with clang in BUILD_DIR/fuzz and runs it on every reader
# (the ones the target lists: ingest's reader_names()) and on format detection, each for
# a fixed time on its committed corpus (tests/fuzz/corpus/<format>/; a reader without one
# starts from nothing), after replaying every committed crash input:
#   tests/fuzz/run-fuzz.sh SOURCE_DIR BUILD_DIR [SECONDS_PER_TARGET]
# Exit 77 (skipped) when clang or its libFuzzer runtime is missing (1 under
# HANGSCOPE_REQUIRE_LIVE=1: tests/support/skip.sh). A crash leaves its
# input in BUILD_DIR/fuzz/artifacts/: once fixed, add it to tests/fuzz/crashes/<format>/.
set -eu
src=$(cd "$1" && pwd)
. "$src/tests/support/skip.sh"
out=$2/fuzz
seconds=${3:-15}
clangxx=$(command -v clang++ || true)
if [ -z "$clangxx" ]; then
  skip "run-fuzz.sh: clang++ is not installed (scripts/install-deps.sh installs it)"
fi
mkdir -p "$out/artifacts"
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
  > "$out/probe.cpp"
if ! "$clangxx" -fsanitize=fuzzer "$out/probe.cpp" -o "$out/probe" 2>/dev/null; then
  skip "run-fuzz.sh: clang has no libFuzzer runtime (install libclang-rt-dev)"
fi
cmake -S "$src" -B "$out/build" -G Ninja -DCMAKE_CXX_COMPILER="$clangxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHANGSCOPE_FUZZ=ON -DHANGSCOPE_BUILD_TESTS=OFF \
  -DHANGSCOPE_BUILD_BENCH=OFF > "$out/configure.log" || { cat "$out/configure.log"; exit 1; }
cmake --build "$out/build" -j2 --target fuzz_all > "$out/build.log" || { tail -50 "$out/build.log"; exit 1; }

bin="$out/build/tests/fuzz/fuzz_reader"
formats="$(HANGSCOPE_FUZZ_LIST=1 "$bin") detect"
status=0
for format in $formats; do
  export HANGSCOPE_FUZZ_FORMAT="$format"
  corpus="$src/tests/fuzz/corpus/$format"
  crashes="$src/tests/fuzz/crashes/$format"
  work="$out/corpus/$format"
  mkdir -p "$work"
  [ -d "$corpus" ] || corpus=""
  # The crash corpus first: every input that once failed must pass now.
  inputs=$(find "$crashes" -type f ! -name '.*' 2>/dev/null | sort)
  if [ -n "$inputs" ]; then
    # shellcheck disable=SC2086  # paths under tests/fuzz/crashes hold no spaces
    if ! "$bin" -rss_limit_mb=2048 $inputs > "$out/$format-crashes.log" 2>&1; then
      echo "run-fuzz.sh: $format: a committed crash input fails again:"
      tail -30 "$out/$format-crashes.log"
      status=1
      continue
    fi
  fi
  if "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
      -artifact_prefix="$out/artifacts/$format-" -print_final_stats=1 \
      "$work" ${corpus:+"$corpus"} > "$out/$format.log" 2>&1; then
    echo "run-fuzz.sh: $format: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/$format.log" | cut -d' ' -f2) runs, no failure"
  else
    echo "run-fuzz.sh: $format: FAILED, input saved in $out/artifacts/:"
    grep -E 'ERROR|SUMMARY|==[0-9]+==' "$out/$format.log" | head -20
    status=1
  fi
done
exit $status
