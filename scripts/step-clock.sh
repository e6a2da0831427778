# Sourced by .ci/run and scripts/sanitized-tests.sh: `step_done WHAT` prints how long
# the script has run, so that a CI log shows what each step cost.
step_clock_started=$(date +%s)
step_done() {
  step_clock_now=$(( $(date +%s) - step_clock_started ))
  echo "$(basename "$0"): $1 done after $((step_clock_now / 60)) min $((step_clock_now % 60)) s"
}
