#!/bin/sh
# Live: the seed's fio case (fixtures/oncpu/make-fio-capture.sh: direct-I/O random
# overwrites on ext4 on a loop device) recorded for 3 s with record --on-cpu: the
# capture holds fio's on-CPU kernel stacks in ext4's direct-I/O write path, and the
# report has its section for CPU spent spinning for locks.
#   fio-oncpu.sh HANGSCOPE SOURCE_DIR
set -eu
# shellcheck source=SCRIPTDIR/../support/skip.sh
. "$(dirname "$0")/../support/skip.sh"
bin=$1 src=$2
[ "$(id -u)" = 0 ] || skip "needs root (loop device, mount, perf_event_open)"
command -v fio >/dev/null || skip "fio is missing (scripts/install-deps.sh installs it)"
out=$(mktemp -d "${TMPDIR:-/tmp}/hangscope-fio-test.XXXXXX")
trap 'rm -rf "$out"' EXIT INT TERM
"$src/fixtures/oncpu/make-fio-capture.sh" "$bin" "$out/fio.capture" 3
fail() { echo "FAILED: $*" >&2; exit 1; }
"$bin" report "$out/fio.capture" > "$out/report.txt"
grep -q "on-CPU samples" "$out/report.txt" || fail "no on-CPU samples in the report: $(head -5 "$out/report.txt")"
grep -q "^CPU spinning for locks: " "$out/report.txt" || fail "no spinning section in the report"
"$bin" report -f folded "$out/fio.capture" > "$out/fio.folded"
grep -q ";ext4_file_write_iter;" "$out/fio.folded" ||
  fail "no on-CPU stack in ext4's direct-I/O write: $(head -3 "$out/fio.folded")"
echo "ok: $(grep -c . "$out/fio.folded") folded stacks"
