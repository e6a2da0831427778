#!/bin/sh
# `hangscope report -f svg` on every CPU against one thread (--threads 1), in one run:
# runs paired (one of each after the other, RUNS times), on several shapes of input, each
# a file of distinct stacks made at run time and removed afterwards (the shapes of
# bench/flamegraph-vs-perl.sh, bench/generated_files.hpp). With BASE, an older build's
# hangscope is run in the same pairs, for the ratio before and after a change.
#
# Prints each run's wall time (to the millisecond) and CPU time, then per shape: the
# median wall times, the median of the pairs' ratios, and the ratio of the fastest runs.
# Each pair also times two one-thread runs started at once: twice the work of one, shared
# by nothing but the machine (its caches, memory and the host's scheduling of its CPUs).
# Their ratio, 2 x one run's time / both runs' time, is what the machine's CPUs give on
# this work: the ceiling of the ratio on threads, beside it in the same minutes.
# On a shared machine runs are slowed at random (another guest's load, memory the host
# has to back again on its first touch): the pairs' ratio and the fastest runs' ratio
# are the figures, not the seconds.
#
# usage: bench/threads-vs-one.sh BUILD_DIR
#   SHAPES="kernel random shared:1.6"   the shapes, in order
#   MIN_WIDTH=1    --min-width, in pixels
#   RUNS=9         paired runs per shape
#   THREADS=0      the threads of the first of each pair (0: one per CPU)
#   BASE=PATH      another hangscope binary, run in the same pairs
set -eu
build=${1:?usage: $0 BUILD_DIR}
shapes=${SHAPES:-kernel random shared:1.6}
min_width=${MIN_WIDTH:-1}
runs=${RUNS:-9}
threads=${THREADS:-0}
base=${BASE:-}
gen=$build/bench/hangscope_flamegraph_bench
hs=$build/hangscope
for x in "$gen" "$hs" ${base:+"$base"}; do [ -x "$x" ] || { echo "$x not built" >&2; exit 1; }; done
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (Debian package time)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hangscope-threads-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# One report of $input by binary $1 on $2 threads: "<wall s> <cpu s>".
measure() {
  start=$(date +%s%N)
  /usr/bin/time -f "%U %S" -o "$work/time" "$1" report -f svg --min-width "$min_width" \
    --threads "$2" "$input" > /dev/null
  end=$(date +%s%N)
  awk -v ns=$((end - start)) '{ printf "%.3f %.2f\n", ns / 1e9, $1 + $2 }' "$work/time"
}

# Two one-thread reports of $input by binary $1 started at once: "<wall s>" until both end.
measure_two() {
  start=$(date +%s%N)
  "$1" report -f svg --min-width "$min_width" --threads 1 "$input" > /dev/null &
  first=$!
  "$1" report -f svg --min-width "$min_width" --threads 1 "$input" > /dev/null
  wait "$first"
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.3f\n", ns / 1e9 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The summary of one binary's runs, kept in $work/$1: lines "<wall many> <cpu many>
# <wall one> <cpu one>".
summary() {
  many=$(awk '{ print $1 }' "$work/$1" | median)
  one=$(awk '{ print $3 }' "$work/$1" | median)
  pairs=$(awk '{ print $3 / $1 }' "$work/$1" | median)
  fastest=$(awk 'NR == 1 || $1 < m { m = $1 } NR == 1 || $3 < o { o = $3 } END { printf "%.2f", o / m }' "$work/$1")
  cpu_many=$(awk '{ print $2 }' "$work/$1" | median)
  cpu_one=$(awk '{ print $4 }' "$work/$1" | median)
  printf "  %-9s median %s s (CPU %s s) on --threads %s, %s s (CPU %s s) on one: pairs %.2fx, fastest runs %sx\n" \
    "$1" "$many" "$cpu_many" "$threads" "$one" "$cpu_one" "$pairs" "$fastest"
}

echo "report -f svg --min-width $min_width; $runs paired runs per shape; --threads $threads against --threads 1; $(nproc) CPUs"
for shape in $shapes; do
  input=$work/stacks.folded
  "$gen" --write-folded "$input" "$shape" 2> /dev/null
  # Written back and read once before the first measured run: no writeback beside it.
  sync "$input"
  measure "$hs" "$threads" > /dev/null
  [ -z "$base" ] || measure "$base" "$threads" > /dev/null
  echo
  echo "shape $shape: $(awk -v s="$(stat -c %s "$input")" 'BEGIN { printf "%.1f MB", s / 1e6 }'), $(wc -l < "$input") distinct stacks"
  : > "$work/hangscope"
  : > "$work/base"
  : > "$work/two"
  i=0
  while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    r="$(measure "$hs" "$threads") $(measure "$hs" 1)"
    echo "$r" >> "$work/hangscope"
    echo "  run $i hangscope: $r (wall s, CPU s on --threads $threads; on one)"
    two=$(measure_two "$hs")
    echo "$two $r" >> "$work/two"
    echo "  run $i two one-thread runs at once: $two s"
    if [ -n "$base" ]; then
      r="$(measure "$base" "$threads") $(measure "$base" 1)"
      echo "$r" >> "$work/base"
      echo "  run $i base:      $r"
    fi
  done
  summary hangscope
  awk '{ print 2 * $4 / $1 }' "$work/two" | median |
    awk '{ printf "  the machine: two one-thread runs at once, pairs %.2fx (2 x one run / both)", $1 }'
  awk '{ print $1 / (2 * $2) }' "$work/two" | median |
    awk '{ printf "; the threads reach %.0f%% of it\n", 100 * $1 }'
  [ -n "$base" ] && summary base
  rm -f "$input"
done
