#!/bin/sh
# Side by side, in one run, on the same perf script input: hangscope reading it (to the
# folded output) and FlameGraph's stackcollapse-perf.pl collapsing it.
#   bench/compare-stackcollapse.sh BUILD_DIR STACKCOLLAPSE_PERF [COPIES]
# The input is a committed perf script fixture of the storm, concatenated COPIES times:
# the cpu-clock one by default (on-CPU samples, what stackcollapse-perf.pl is made for;
# 100 copies are about 190 MB), or FIXTURE=sched-switch; or INPUT=FILE, any perf script
# file (gzip or zstd or plain), such as the largest of FlameGraph's test inputs. FlameGraph
# is not packaged for Debian: give the path of stackcollapse-perf.pl from a checkout of it.
# The two outputs are compared too (lines and total count).
set -eu
build=$(cd "${1:?usage: compare-stackcollapse.sh BUILD_DIR STACKCOLLAPSE_PERF [COPIES]}" && pwd)
script=${2:?path of stackcollapse-perf.pl}
copies=${3:-100}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${INPUT:-}" ]; then
  case "$INPUT" in
    *.gz) gzip -dc "$INPUT" ;;
    *.zst) zstd -dc "$INPUT" ;;
    *) cat "$INPUT" ;;
  esac > "$work/one.txt"
  # A last sample needs its blank line, or stackcollapse-perf.pl loses it at each copy's end.
  [ -z "$(tail -c 1 "$work/one.txt")" ] && [ -n "$(tail -n 1 "$work/one.txt")" ] && echo >> "$work/one.txt"
  what=$(basename "$INPUT")
else
  zstd -dc "$here/../fixtures/perf/storm-6.18-perf-6.1-${FIXTURE:-cpu-clock}.txt.zst" > "$work/one.txt"
  what="the ${FIXTURE:-cpu-clock} fixture"
fi
i=0
while [ "$i" -lt "$copies" ]; do cat "$work/one.txt"; i=$((i + 1)); done > "$work/perf.txt"
size=$(stat -c %s "$work/perf.txt")
now() { date +%s.%N; }
t0=$(now)
"$build/hangscope" report --input-format perf-script -f folded "$work/perf.txt" > "$work/hs.folded"
t1=$(now)
perl "$script" "$work/perf.txt" > "$work/pl.folded"
t2=$(now)
echo "input: $size bytes of perf script ($copies copies of $what)"
awk -v s="$size" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
  hs = b - a; pl = c - b;
  printf "hangscope report -f folded:  %7.2f s  %7.1f MB/s\n", hs, s / hs / 1e6;
  printf "stackcollapse-perf.pl:       %7.2f s  %7.1f MB/s\n", pl, s / pl / 1e6;
  printf "ratio: hangscope is %.1f times faster\n", pl / hs }'
awk '{ n++; s += $NF } END { printf "hangscope:             %d lines, %.0f in all\n", n, s }' "$work/hs.folded"
awk '{ n++; s += $NF } END { printf "stackcollapse-perf.pl: %d lines, %.0f in all\n", n, s }' "$work/pl.folded"
