#!/bin/sh
# The flamegraph side by side with FlameGraph's flamegraph.pl (and inferno-flamegraph when
# given), in one run: the same folded file handed to each, the same minimum frame width
# (as a share of the whole) passed to each in its own unit, runs paired (one of each tool after the other, RUNS times), on several
# shapes of input, each a file of distinct stacks made at run time and removed afterwards
# (bench/generated_files.hpp):
#   kernel     about 200,000 kernel-like stacks, about 17 flame-tree nodes per stack, 100 MB
#   random     200,000 distinct stacks, depth 27 on average, frames drawn at random from
#              5,000 names at every level, about 117 MB
#   shared:N   200,000 stacks, each an earlier one with about N frames replaced: N tree
#              nodes per stack, as real perf profiles make (1.6 to 8.3)
# Prints wall time, CPU time and peak memory of each run, the SVG's size, and the ratios
# of the medians (by wall time: flamegraph.pl / hangscope, inferno / hangscope).
#
# usage: bench/flamegraph-vs-perl.sh BUILD_DIR [FLAMEGRAPH_PL]
#   FLAMEGRAPH_PL (or $FLAMEGRAPH_PL): flamegraph.pl; without it, hangscope alone. It is
#     not part of this repository or of Debian: get it from FlameGraph.
#   INFERNO=PATH   inferno-flamegraph, measured too (a build of inferno, FlameGraph's Rust port)
#   SHAPES="kernel random shared:3"   the shapes, in order
#   MIN_WIDTH=1    pixels of a 1200-pixel picture under which frames are merged away, for
#                  every tool, each in its unit: hangscope --min-width (pixels of its
#                  1200), flamegraph.pl --minwidth (pixels of its 1180 between the
#                  margins: MIN_WIDTH * 1180 / 1200) and inferno --minwidth (percent of
#                  the whole: MIN_WIDTH * 100 / 1200), so that all merge away the same
#                  frames
#   RUNS=3         paired runs per shape
#   THREADS=0      hangscope report --threads (0: one per CPU; 1: one thread)
set -eu
build=${1:?usage: $0 BUILD_DIR [FLAMEGRAPH_PL]}
perl_fg=${2:-${FLAMEGRAPH_PL:-}}
inferno=${INFERNO:-}
shapes=${SHAPES:-kernel random shared:3}
min_width=${MIN_WIDTH:-1}
runs=${RUNS:-3}
threads=${THREADS:-0}
# The same share of the whole in each tool's unit.
pl_min_width=$(awk -v w="$min_width" 'BEGIN { printf "%.6g", w * 1180 / 1200 }')
inferno_min_width=$(awk -v w="$min_width" 'BEGIN { printf "%.6g", w * 100 / 1200 }')
gen=$build/bench/hangscope_flamegraph_bench
hs=$build/hangscope
for x in "$gen" "$hs"; do [ -x "$x" ] || { echo "$x not built" >&2; exit 1; }; done
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (Debian package time)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hangscope-fg-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# One run of a command, its output to $1: "<wall s> <cpu s> <peak KiB>". CPU time (user +
# system) is quoted too: the machine may be shared, and wall time moves with it.
measure() {
  out=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > "$out"
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/time"
}

# The median of the first fields of the lines of a file.
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "min width ${min_width} px of 1200 for every tool (flamegraph.pl --minwidth $pl_min_width px of 1180, inferno --minwidth $inferno_min_width %); $runs paired runs per shape; hangscope --threads $threads"
for shape in $shapes; do
  input=$work/stacks.folded
  "$gen" --write-folded "$input" "$shape" 2> /dev/null
  size=$(stat -c %s "$input")
  stacks=$(wc -l < "$input")
  echo
  echo "shape $shape: $(awk -v s="$size" 'BEGIN { printf "%.1f MB", s / 1e6 }'), $stacks distinct stacks"
  : > "$work/hs" ; : > "$work/pl" ; : > "$work/inf"
  i=0
  while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    r=$(measure "$work/hs.svg" "$hs" report -f svg --min-width "$min_width" --threads "$threads" "$input")
    echo "$r" >> "$work/hs"
    echo "  run $i hangscope report -f svg:  $r (wall s, cpu s, peak KiB), svg $(stat -c %s "$work/hs.svg") bytes"
    if [ -n "$perl_fg" ]; then
      r=$(measure "$work/pl.svg" perl "$perl_fg" --minwidth "$pl_min_width" "$input")
      echo "$r" >> "$work/pl"
      echo "  run $i flamegraph.pl:            $r, svg $(stat -c %s "$work/pl.svg") bytes"
    fi
    if [ -n "$inferno" ]; then
      r=$(measure "$work/inf.svg" "$inferno" --minwidth "$inferno_min_width" "$input")
      echo "$r" >> "$work/inf"
      echo "  run $i inferno-flamegraph:       $r, svg $(stat -c %s "$work/inf.svg") bytes"
    fi
  done
  hs_s=$(median "$work/hs")
  hs_kb=$(awk '{ print $3 }' "$work/hs" | sort -n | tail -1)
  line="  median hangscope $hs_s s, peak $(awk -v k="$hs_kb" -v s="$size" 'BEGIN { printf "%.0f MiB = %.2fx the input", k / 1024, k * 1024 / s }')"
  [ -s "$work/pl" ] && line="$line; flamegraph.pl $(median "$work/pl") s: hangscope $(awk -v a="$(median "$work/pl")" -v b="$hs_s" 'BEGIN { printf "%.1fx", a / b }') faster"
  [ -s "$work/inf" ] && line="$line; inferno $(median "$work/inf") s: hangscope $(awk -v a="$(median "$work/inf")" -v b="$hs_s" 'BEGIN { printf "%.2fx", a / b }') faster"
  echo "$line"
  rm -f "$input"
done
