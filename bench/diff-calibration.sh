#!/bin/sh
# diff-calibration.sh: the calibration and power of `hangscope diff` as the table of
# docs/diff.md ("Calibration and power"): runs hangscope_diff_calibration_bench (the
# designs of tests/nullpairs/calibration.cpp, 100 pairs each) and prints one row a design.
#
#   bench/diff-calibration.sh BUILD_DIR [BENCHMARK_FILTER]
#
# BUILD_DIR: a build with the tests and benchmarks (cmake --build BUILD_DIR --target
# hangscope_diff_calibration_bench). A few minutes on two cores.
set -eu
build=${1:?usage: diff-calibration.sh BUILD_DIR [BENCHMARK_FILTER]}
filter=${2:-/100/}
out=$(mktemp "${TMPDIR:-/tmp}/diff-calibration.XXXXXX")
trap 'rm -f "$out"' EXIT INT TERM HUP
"$build/bench/hangscope_diff_calibration_bench" --benchmark_filter="$filter" \
  --benchmark_format=json --benchmark_out="$out" --benchmark_out_format=json >/dev/null
python3 - "$out" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["benchmarks"]
print("| design | runs a side | run effects | growth | pairs | flagged | found first | t's df | CPU a pair |")
print("|---|---|---|---|---|---|---|---|---|")
for b in rows:
    name = b["name"].split("/")[0]
    n = b["pairs"]
    grow = b["growth"]
    found = f'{b["found_first"]:.0f} ({100 * b["found_first"] / n:.0f}%)' if grow else "-"
    print(f'| {name} | {b["runs"]:.0f} | {100 * b["spread"]:.0f}% | '
          f'{"+%g" % grow if grow else "none"} | {n:.0f} | {b["flagged"]:.0f} ({100 * b["flagged"] / n:.0f}%) | '
          f'{found} | {b["df"]:.0f} | {1000 * b["cpu_time"] / n:.0f} ms |')
PY
