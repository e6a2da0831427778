#!/usr/bin/env bash
# with-storm.sh: run a command while a "journal storm" (hangscope-storm) hammers
# an overlayfs whose upper layer is a small-journal ext4 on a loop device.
#
# usage: with-storm.sh [--procs N] [--dirs N] [--bytes N] [--rounds N]
#                      [--storm-bin PATH] [--keep-going] [--no-seed] -- CMD [ARGS...]
#
#   --procs/--dirs/--bytes/--rounds   passed to hangscope-storm (see its --help)
#   --storm-bin PATH   the hangscope-storm binary (default: $STORM_BIN)
#   --keep-going       a failing storm does not change the exit status
#                      (it is still reported on stderr)
#   --no-seed          leave the overlay's lower layer empty (by default it
#                      is seeded with the storm's own tree, see below)
#
# CMD runs while the storm runs, with these variables exported:
#   STORM_DIR    the overlay mount the storm writes into
#   STORM_DEV    the loop device backing the ext4, without /dev/ (e.g. loop3)
#   STORM_PID    pid of the hangscope-storm parent process
#   STORM_IMAGE  the ext4 image file
#
# After CMD: with --rounds 0 the storm is stopped (SIGTERM to its pid),
# otherwise the script waits for it to finish. Exit status: CMD's, or the
# storm's if CMD succeeded and the storm failed (unless --keep-going);
# 77 = skipped (not root, tools or overlay or loop devices missing),
# 2 = usage error; 130/143/129 when interrupted by SIGINT/SIGTERM/SIGHUP.
#
# Everything set up (storm, mounts, loop device, work dir) is torn down on
# exit, on failure and on SIGINT/SIGTERM, in reverse order.

# Functions below are invoked from traps, which shellcheck cannot see.
# shellcheck disable=SC2317
set -euo pipefail

prog=with-storm.sh

die_usage() {
    echo "$prog: $*" >&2
    echo "usage: $prog [--procs N] [--dirs N] [--bytes N] [--rounds N] [--storm-bin PATH] [--keep-going] [--no-seed] -- CMD [ARGS...]" >&2
    exit 2
}
skip() {
    echo "$prog: skipped: $*" >&2
    exit 77
}
err() {
    echo "$prog: error: $*" >&2
}

# ------------------------------------------------------------------ args ----
storm_args=()
rounds=1
storm_bin=${STORM_BIN:-}
keep_going=0
seed=1
while (($#)); do
    case $1 in
        --procs|--dirs|--bytes|--rounds)
            (($# >= 2)) || die_usage "$1 needs a value"
            [[ $2 =~ ^[0-9]+$ ]] || die_usage "$1: not a non-negative integer: '$2'"
            storm_args+=("$1" "$2")
            [[ $1 == --rounds ]] && rounds=$((10#$2))
            shift 2 ;;
        --procs=*|--dirs=*|--bytes=*|--rounds=*)
            v=${1#*=}
            [[ $v =~ ^[0-9]+$ ]] || die_usage "${1%%=*}: not a non-negative integer: '$v'"
            storm_args+=("${1%%=*}" "$v")
            [[ $1 == --rounds=* ]] && rounds=$((10#$v))
            shift ;;
        --storm-bin)
            (($# >= 2)) || die_usage "--storm-bin needs a value"
            storm_bin=$2
            shift 2 ;;
        --storm-bin=*)
            storm_bin=${1#*=}
            shift ;;
        --keep-going)
            keep_going=1
            shift ;;
        --no-seed)
            seed=0
            shift ;;
        --)
            shift
            break ;;
        *)
            die_usage "unexpected argument '$1' (the command goes after --)" ;;
    esac
done
(($# >= 1)) || die_usage "missing CMD after --"
cmd=("$@")

[[ -n $storm_bin ]] || die_usage "no storm binary: pass --storm-bin PATH or set STORM_BIN"
[[ -f $storm_bin && -x $storm_bin ]] || die_usage "storm binary '$storm_bin' is not an executable file"
# Absolute, so that it does not depend on the directory CMD or the storm run in.
storm_bin=$(cd "$(dirname -- "$storm_bin")" && pwd -P)/$(basename -- "$storm_bin")

# ----------------------------------------------------------- environment ----
# Root's tools live in sbin, which a non-login PATH may lack.
PATH=$PATH:/usr/sbin:/sbin

(( EUID == 0 )) || skip "not running as root (euid $EUID)"
for tool in losetup mkfs.ext4 mount umount mountpoint truncate mktemp; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not found in PATH"
done
if ! grep -qw overlay /proc/filesystems 2>/dev/null; then
    if ! command -v modprobe >/dev/null 2>&1; then
        skip "overlay filesystem not in /proc/filesystems and modprobe not available"
    fi
    if ! modprobe overlay >/dev/null 2>&1 || ! grep -qw overlay /proc/filesystems; then
        skip "overlay filesystem not supported (not in /proc/filesystems, modprobe overlay failed)"
    fi
fi
if ! loop_probe=$(losetup --find 2>&1); then
    skip "no free loop device (losetup --find: ${loop_probe//$'\n'/ })"
fi

# ----------------------------------------------------------------- state ----
# Everything cleanup() may have to undo. Each step clears its variable when
# done, so cleanup is idempotent.
work=""        # mktemp -d directory
img=""         # ext4 image
loopdev=""     # /dev/loopN we attached
fs=""          # ext4 mount point
merged=""      # overlay mount point
storm_pid=""   # hangscope-storm parent
cmd_pid=""     # CMD
cleanup_failed=0

# True while process $1 exists and is not a zombie.
alive() {
    local stat
    [[ -r /proc/$1/stat ]] || return 1
    read -r stat 2>/dev/null < "/proc/$1/stat" || return 1
    stat=${stat##*) }
    [[ ${stat%% *} != Z ]]
}

# Wait up to $1 tenths of a second for all pids $2... to go away.
wait_gone() {
    local tenths=$1 i pid busy
    shift
    for ((i = 0; i <= tenths; i++)); do
        busy=0
        for pid; do
            if alive "$pid"; then busy=1; break; fi
        done
        ((busy)) || return 0
        ((i == tenths)) || sleep 0.1
    done
    return 1
}

# descendants PID...: the pids of their live descendants.
# shellcheck source=../support/proc-tree.bash
. "$(dirname -- "${BASH_SOURCE[0]}")/../support/proc-tree.bash"

# Terminate one of our children and whatever it started (by pid, never by
# name): SIGTERM, then SIGKILL after a few seconds, then reap it.
stop_child() {
    local pid=$1 what=$2 tree
    if alive "$pid"; then
        # Snapshot the tree first: once $pid dies its children are reparented.
        # shellcheck disable=SC2207
        tree=($(descendants "$pid"))
        kill -TERM "$pid" "${tree[@]}" 2>/dev/null
        if ! wait_gone 50 "$pid" "${tree[@]}"; then
            echo "$prog: $what (pid $pid) or its children still alive after SIGTERM, sending SIGKILL" >&2
            kill -KILL "$pid" "${tree[@]}" 2>/dev/null
            wait_gone 50 "$pid" "${tree[@]}"
        fi
    fi
    wait "$pid" 2>/dev/null
}

# Unmount one of our mount points: retry while busy, lazy as a last resort.
unmount() {
    local dir=$1 i
    mountpoint -q -- "$dir" 2>/dev/null || return 0
    for ((i = 0; i < 30; i++)); do
        umount -- "$dir" 2>/dev/null && return 0
        mountpoint -q -- "$dir" 2>/dev/null || return 0
        sleep 0.2
    done
    echo "$prog: $dir still busy, unmounting lazily" >&2
    umount -l -- "$dir" 2>/dev/null && return 0
    mountpoint -q -- "$dir" 2>/dev/null || return 0
    echo "$prog: cannot unmount $dir" >&2
    return 1
}

cleanup() {
    set +e
    trap '' INT TERM HUP   # do not let a second ^C abort the teardown half-way
    if [[ -n $cmd_pid ]]; then
        stop_child "$cmd_pid" "command"
        cmd_pid=""
    fi
    if [[ -n $storm_pid ]]; then
        stop_child "$storm_pid" "storm"
        storm_pid=""
    fi
    # A background job started just before a signal, whose pid was not
    # recorded yet, is still one of our jobs.
    local job
    for job in $(jobs -p); do
        stop_child "$job" "background job"
    done
    if [[ -n $merged ]]; then
        unmount "$merged" || cleanup_failed=1
        merged=""
    fi
    if [[ -n $fs ]]; then
        unmount "$fs" || cleanup_failed=1
        fs=""
    fi
    if [[ -n $img ]]; then
        # Detach whatever loop device is backed by our image (covers an
        # interruption between attaching and recording the device name).
        local devs d
        devs=$(losetup -j "$img" -n -O NAME 2>/dev/null)
        [[ -n $loopdev ]] && devs+=$'\n'$loopdev
        for d in $(printf '%s\n' "$devs" | sort -u); do
            [[ -b $d ]] || continue
            losetup "$d" >/dev/null 2>&1 || continue   # already detached
            losetup -d "$d" || { echo "$prog: cannot detach $d" >&2; cleanup_failed=1; }
        done
        loopdev=""
    fi
    if [[ -n $work ]]; then
        # --one-file-system: never descend into a mount that failed to go away.
        rm -rf --one-file-system -- "$work" || cleanup_failed=1
        work=""
        img=""
    fi
}

on_exit() {
    local rc=$?
    cleanup
    if ((cleanup_failed)); then
        echo "$prog: warning: cleanup was incomplete" >&2
        ((rc != 0)) || rc=1
    fi
    exit "$rc"
}
on_signal() {
    echo "$prog: interrupted by SIG$1, cleaning up" >&2
    exit "$2"   # runs on_exit
}
trap on_exit EXIT
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM
trap 'on_signal HUP 129' HUP

# ----------------------------------------------------------------- setup ----
work=$(mktemp -d "${TMPDIR:-/tmp}/with-storm.XXXXXX")
img=$work/ext4.img
fs=$work/lower-fs
merged=$work/merged
mkdir -- "$fs" "$merged"

# 1 GiB sparse image, 4 MiB journal: big enough not to run out of blocks or
# inodes, journal small enough that the storm fills it and must checkpoint.
truncate -s 1G -- "$img"
if ! out=$(mkfs.ext4 -q -F -J size=4 -- "$img" 2>&1); then
    err "mkfs.ext4 $img failed: $out"
    exit 1
fi
if ! loopdev=$(losetup --find --show -- "$img" 2>&1); then
    err "losetup --find --show $img failed: $loopdev"
    loopdev=""
    exit 1
fi
if ! out=$(mount -t ext4 -- "$loopdev" "$fs" 2>&1); then
    err "mount -t ext4 $loopdev $fs failed: $out"
    exit 1
fi
mkdir -- "$fs/lower" "$fs/upper" "$fs/work"
# Seed the lower layer with the tree the storm is about to write (same
# --procs/--dirs, empty files), like a container image that already ships
# __pycache__ directories and .pyc files. Replacing and removing lower-layer
# entries makes overlayfs create whiteouts and rename in its workdir, i.e.
# take the upper ext4's rename lock (lock_rename) around journalled
# operations, which is where the containers of the report piled up.
if ((seed)); then
    if ! out=$("$storm_bin" "${storm_args[@]}" --rounds 1 --bytes 0 --no-fsync -- "$fs/lower" 2>&1); then
        err "seeding the lower layer failed: $out"
        exit 1
    fi
fi
if ! out=$(mount -t overlay with-storm \
        -o "lowerdir=$fs/lower,upperdir=$fs/upper,workdir=$fs/work" -- "$merged" 2>&1); then
    err "mount -t overlay on $merged failed: $out"
    exit 1
fi

# ----------------------------------------------------------------- storm ----
"$storm_bin" "${storm_args[@]}" -- "$merged" &
storm_pid=$!

export STORM_DIR=$merged
export STORM_DEV=${loopdev#/dev/}
export STORM_PID=$storm_pid
export STORM_IMAGE=$img

# CMD runs as a background job + wait so that a SIGINT/SIGTERM to this script
# is handled at once instead of after CMD ends. Keep our stdin for it (a
# background job would otherwise get /dev/null).
"${cmd[@]}" <&0 &
cmd_pid=$!
cmd_rc=0
wait "$cmd_pid" || cmd_rc=$?
cmd_pid=""

storm_rc=0
if ((rounds == 0)); then
    kill -TERM "$storm_pid" 2>/dev/null || true
fi
wait "$storm_pid" || storm_rc=$?
storm_pid=""

if ((storm_rc != 0)); then
    if ((keep_going)); then
        echo "$prog: storm failed (exit $storm_rc), ignored (--keep-going)" >&2
    else
        echo "$prog: storm failed (exit $storm_rc)" >&2
    fi
fi

rc=$cmd_rc
if ((rc == 0 && storm_rc != 0 && !keep_going)); then
    rc=$storm_rc
fi
exit "$rc"
