#!/bin/sh
# Side by side, in one run, on the same perf script input: hangscope reading it (to the
# folded output) and FlameGraph's stackcollapse-perf.pl collapsing it.
#   bench/compare-stackcollapse.sh BUILD_DIR STACKCOLLAPSE_PERF
# The input is made at run time of distinct samples (bench/generated_files.hpp: perf
# script's cpu-clock samples with kernel callchains, one per distinct stack), so that no
# part of it is a repeat a reader answers from what it has seen: SHAPES="random
# shared:3" (the default; see bench/flamegraph-vs-perl.sh for the shapes), one input
# each. INPUT=FILE reads any perf script file instead (gzip or zstd or plain), once.
# FlameGraph is not packaged for Debian: give the path of stackcollapse-perf.pl from a
# checkout of it. The two outputs are compared too (lines and total count).
set -eu
build=$(cd "${1:?usage: compare-stackcollapse.sh BUILD_DIR STACKCOLLAPSE_PERF}" && pwd)
script=${2:?path of stackcollapse-perf.pl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }

compare() {
  what=$1
  size=$(stat -c %s "$work/perf.txt")
  t0=$(now)
  "$build/hangscope" report --input-format perf-script -f folded "$work/perf.txt" > "$work/hs.folded"
  t1=$(now)
  perl "$script" "$work/perf.txt" > "$work/pl.folded"
  t2=$(now)
  echo "input: $size bytes of perf script ($what)"
  awk -v s="$size" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
    hs = b - a; pl = c - b;
    printf "  hangscope report -f folded:  %7.2f s  %7.1f MB/s\n", hs, s / hs / 1e6;
    printf "  stackcollapse-perf.pl:       %7.2f s  %7.1f MB/s\n", pl, s / pl / 1e6;
    printf "  ratio: hangscope is %.1f times faster\n", pl / hs }'
  awk '{ n++; s += $NF } END { printf "  hangscope:             %d lines, %.0f in all\n", n, s }' "$work/hs.folded"
  awk '{ n++; s += $NF } END { printf "  stackcollapse-perf.pl: %d lines, %.0f in all\n", n, s }' "$work/pl.folded"
}

if [ -n "${INPUT:-}" ]; then
  case "$INPUT" in
    *.gz) gzip -dc "$INPUT" ;;
    *.zst) zstd -dc "$INPUT" ;;
    *) cat "$INPUT" ;;
  esac > "$work/perf.txt"
  compare "$(basename "$INPUT")"
  exit 0
fi
for shape in ${SHAPES:-random shared:3}; do
  "$build/bench/hangscope_flamegraph_bench" --write-perf-script "$work/perf.txt" "$shape" 2> /dev/null
  compare "distinct samples of shape $shape"
done
