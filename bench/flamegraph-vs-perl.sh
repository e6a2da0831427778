#!/bin/sh
# The flamegraph side by side with FlameGraph's flamegraph.pl, in one run, on the same
# ~100 MB folded file (about 200,000 distinct kernel-like stacks, made at run time and
# removed afterwards). Prints wall time and peak memory of each, and their ratios.
#
# usage: bench/flamegraph-vs-perl.sh BUILD_DIR [FLAMEGRAPH_PL]
#   FLAMEGRAPH_PL (or $FLAMEGRAPH_PL): path to flamegraph.pl; without it, only hangscope
#   is measured. It is not part of this repository or of Debian: get it from FlameGraph.
#
# hangscope's side is what a user runs: `hangscope report -f svg -o OUT FILE` (reader,
# analyses, SVG), and the ratios are taken from it. The benchmark's --svg mode is shown
# too, for its break-down: the same stacks generated straight into the model (the
# generation counts as "build model"), then the analyses and the SVG, each timed.
set -eu
build=${1:?usage: $0 BUILD_DIR [FLAMEGRAPH_PL]}
perl_fg=${2:-${FLAMEGRAPH_PL:-}}
bench=$build/bench/hangscope_flamegraph_bench
[ -x "$bench" ] || { echo "$bench not built" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (Debian package time)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hangscope-fg-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

"$bench" --write-folded "$work/stacks.folded"
size=$(stat -c %s "$work/stacks.folded")

# "<wall seconds> <peak KiB> <cpu seconds>" of a command, its output to $1. CPU time
# (user + system) is quoted too: the machine is shared, and wall time moves with it.
measure() {
  out=$1; shift
  /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" > "$out"
  awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$work/time"
}

echo "input: $(echo "$size" | awk '{printf "%.1f MB", $1/1e6}')"
hs=$(measure "$work/hangscope.log" "$bench" --svg "$work/hangscope.svg")
cat "$work/hangscope.log"
set -- $hs
hs_s=$1 hs_kb=$2 hs_cpu=$3
echo "hangscope (model + analyses + svg): $hs_s s wall, $hs_cpu s cpu, peak $((hs_kb / 1024)) MiB, svg $(stat -c %s "$work/hangscope.svg") bytes"

if "$build/hangscope" report -f svg -o "$work/report.svg" "$work/stacks.folded" 2>/dev/null; then
  r=$(measure /dev/null "$build/hangscope" report -f svg -o "$work/report.svg" "$work/stacks.folded")
  set -- $r
  hs_s=$1 hs_kb=$2 hs_cpu=$3
  echo "hangscope report -f svg FILE (reader + analyses + svg): $1 s wall, $3 s cpu, peak $(($2 / 1024)) MiB, svg $(stat -c %s "$work/report.svg") bytes"
else
  echo "hangscope report does not read folded stacks in this build: the ratios are the benchmark's"
fi

if [ -n "$perl_fg" ]; then
  p=$(measure "$work/perl.svg" perl "$perl_fg" "$work/stacks.folded")
  set -- $p
  echo "flamegraph.pl: $1 s wall, $3 s cpu, peak $(($2 / 1024)) MiB, svg $(stat -c %s "$work/perl.svg") bytes"
  awk -v a="$1" -v b="$hs_s" -v c="$2" -v d="$hs_kb" -v s="$size" -v e="$3" -v f="$hs_cpu" 'BEGIN {
    printf "ratio: hangscope is %.1fx faster in wall time, %.1fx in cpu time; peak memory %.2fx the input (flamegraph.pl %.2fx)\n", a / b, e / f, d * 1024 / s, c * 1024 / s }'
else
  echo "flamegraph.pl not given: no side-by-side figure"
fi
