# Sourced by bash scripts of the tests and fixtures (tests/storm/with-storm.sh,
# fixtures/zoo/make-zoo.sh): the process tree under some pids, from /proc.

# The pids of all live descendants of the pids given (children before grandchildren),
# from each task's status file: not stat, which blocks its reader while the task is
# stuck in execve.
descendants() {
    local -A kids=()
    local f line pid ppid queue=("$@") found=()
    for f in /proc/[0-9]*/status; do
        ppid=""
        while read -r line; do
            [[ $line == PPid:* ]] && { ppid=${line#PPid:}; ppid=${ppid//[[:space:]]/}; break; }
        done 2>/dev/null <"$f" || continue
        [[ -n $ppid ]] || continue
        pid=${f#/proc/}
        kids[$ppid]+=" ${pid%/status}"
    done
    while ((${#queue[@]})); do
        pid=${queue[0]}
        queue=("${queue[@]:1}")
        for f in ${kids[$pid]:-}; do
            found+=("$f")
            queue+=("$f")
        done
    done
    echo "${found[@]}"
}
