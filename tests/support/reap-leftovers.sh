#!/bin/sh
# tests/support/reap-leftovers.sh DIR [--remove]
# What the tests of one build directory left behind when a test died before its own
# cleanup ran (ctest's timeout kills with SIGKILL, which runs no destructor and no
# trap): ctest runs the tests with TMPDIR=DIR, a directory of that build alone, and
# runs this before the tests (leftovers of an earlier run) and after them. Everything
# under DIR goes, and nothing else: processes whose working directory, root or
# arguments are under DIR (FUSE daemons, storms, readers), FUSE connections of mounts
# under DIR (aborted, so that readers stuck in D are freed), the mounts themselves
# (deepest first), loop devices whose backing file is under DIR, then DIR, made again
# empty (or, with --remove, after the last test, removed). Prints what it removed; exits 1 when something could not be removed.
set -u
dir=${1:?usage: reap-leftovers.sh DIR}
case $dir in
  /tmp/hangscope-ctest-*) ;;
  *) echo "reap-leftovers.sh: refusing to reap $dir (not /tmp/hangscope-ctest-*)" >&2; exit 2 ;;
esac
failed=0
if [ ! -d "$dir" ]; then
  [ "${2:-}" = --remove ] || mkdir -p "$dir"
  exit 0
fi

under() {  # whether path $1 is DIR or below it
  case $1 in "$dir" | "$dir"/*) return 0 ;; esac
  return 1
}

# Cgroups that live tests made (support/test_cgroup.hpp names them after DIR) and the
# processes in them.
cgroot=$(awk '{ for (i = 7; i <= NF && $i != "-"; ++i) {} if ($(i + 1) == "cgroup2") { print $5; exit } }' \
  /proc/self/mountinfo)
cgroups=""
if [ -n "$cgroot" ]; then
  cgroups=$(find "$cgroot" -mindepth 1 -maxdepth 1 -type d -name "$(basename "$dir")-*" 2>/dev/null)
fi

# Processes: by working directory, root or any argument under DIR, or by cgroup.
# (One find and one grep over /proc, not a command per process: there are many.)
pids=$( {
  find /proc/[0-9]*/cwd /proc/[0-9]*/root -maxdepth 0 \( -lname "$dir" -o -lname "$dir/*" \) \
    2>/dev/null
  grep -lzs -e "^$dir\$" -e "^$dir/" /proc/[0-9]*/cmdline
} | cut -d/ -f3 | sort -u | grep -vx "$$" | tr '\n' ' ')
for cg in $cgroups; do
  pids="$pids $(find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null | tr '\n' ' ')"
done
for pid in $pids; do
  [ -d "/proc/$pid" ] || continue  # gone (find and grep above match themselves)
  echo "reap-leftovers.sh: killing $pid ($(tr '\0' ' ' </proc/$pid/cmdline 2>/dev/null))"
  kill -KILL "$pid" 2>/dev/null
done

# Mounts under DIR: mount point (mountinfo field 5, with the kernel's octal escapes),
# device number and file system type, deepest first (a longer path is never a parent
# of a shorter one).
mounts=$(awk -v d="$dir" '$5 == d || index($5, d "/") == 1 {
    for (i = 7; i <= NF && $i != "-"; ++i) {}
    print length($5), $5, $3, $(i + 1) }' /proc/self/mountinfo | sort -rn)
while read -r _ mnt devno fstype; do
  [ -n "$mnt" ] || continue
  case $fstype in
    fuse | fuse.*)
      conn=$(( (${devno%%:*} << 20) | ${devno#*:} ))
      [ -d /sys/fs/fuse/connections/$conn ] ||
        mount -t fusectl fusectl /sys/fs/fuse/connections 2>/dev/null
      if [ -w /sys/fs/fuse/connections/$conn/abort ]; then
        echo 1 >/sys/fs/fuse/connections/$conn/abort
        echo "reap-leftovers.sh: aborted the FUSE connection $conn of $mnt"
      fi ;;
  esac
  mnt=$(printf '%b' "$(echo "$mnt" | sed 's/\\\([0-7][0-7][0-7]\)/\\0\1/g')")
  if umount -l -- "$mnt"; then
    echo "reap-leftovers.sh: unmounted $mnt"
  else
    echo "reap-leftovers.sh: cannot unmount $mnt" >&2
    failed=1
  fi
done <<EOF_MOUNTS
$mounts
EOF_MOUNTS

# Loop devices backed by files under DIR.
for b in /sys/block/loop*/loop/backing_file; do
  [ -r "$b" ] || continue
  under "$(cat "$b" 2>/dev/null)" || continue
  dev=/dev/${b#/sys/block/}
  dev=${dev%/loop/backing_file}
  losetup -d "$dev" && echo "reap-leftovers.sh: detached $dev" ||
    { echo "reap-leftovers.sh: cannot detach $dev" >&2; failed=1; }
done

# The cgroups, deepest first, once their processes are moved out (killed ones may
# still be exiting).
for cg in $cgroups; do
  find "$cg" -depth -type d | while read -r d; do
    while read -r p; do echo "$p" >"$cgroot/cgroup.procs"; done <"$d/cgroup.procs" 2>/dev/null
    rmdir "$d" && echo "reap-leftovers.sh: removed the cgroup $d"
  done
done

# The killed processes are gone once they are no longer in /proc (a reader in D only
# after its connection was aborted): up to 10 s.
for _ in $(seq 100); do
  left=""
  for pid in $pids; do [ -d /proc/$pid ] && [ "$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null)" != Z ] && left="$left $pid"; done
  [ -z "$left" ] && break
  sleep 0.1
done
[ -n "${left:-}" ] && { echo "reap-leftovers.sh: still running:$left" >&2; failed=1; }

rm -rf "$dir" 2>/dev/null || { echo "reap-leftovers.sh: cannot remove $dir" >&2; failed=1; }
[ "${2:-}" = --remove ] || mkdir -p "$dir"
exit $failed
