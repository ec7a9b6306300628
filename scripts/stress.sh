#!/usr/bin/env bash
# Run the test suite N times and count passes and failures (make stress).
#   scripts/stress.sh [-n N] [--load] [--build DIR] [-- extra ctest args]
# -n N      runs (default 20)
# --load    keep one busy loop per core running meanwhile (the suite must
#           pass on a loaded machine too)
# --build   the CMake build directory (default build)
# Prints one line per run, then the pass/fail count and, for every test
# that failed at least once, how often. Exit status 0 only if every run passed.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=20; load=0; build=build; extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=$2; shift ;;
    --load) load=1 ;;
    --build) build=$2; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "stress: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -d "$build" ] || { echo "stress: no build directory $build (run make first)" >&2; exit 2; }
pids=()
cleanup() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; }
trap cleanup EXIT
if [ $load = 1 ]; then
  for _ in $(seq "$(nproc)"); do
    sh -c 'while :; do :; done' &
    pids+=($!)
  done
  echo "stress: $(nproc) busy loop(s) running"
fi
pass=0; fail=0
declare -A failed
for i in $(seq "$runs"); do
  t0=$(date +%s)
  out=$(cd "$build" && ctest -j 2 --timeout 600 "${extra[@]}" 2>&1)
  rc=$?
  t=$(( $(date +%s) - t0 ))
  if [ $rc -eq 0 ]; then
    pass=$((pass + 1)); echo "run $i: pass (${t} s)"
  else
    fail=$((fail + 1))
    # failed tests only: ctest lists skipped ones the same way
    names=$(printf '%s\n' "$out" | grep -v '(Skipped)\|(Not Run)\|(Disabled)' |
            sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p')
    echo "run $i: FAIL (${t} s):" $names
    # keep what the failing tests printed: the next run overwrites LastTest.log
    printf '%s\n' "$out" > "$build/stress-run$i.log"
    cp "$build/Testing/Temporary/LastTest.log" "$build/stress-run$i.LastTest.log" 2>/dev/null
    echo "  output: $build/stress-run$i.log, $build/stress-run$i.LastTest.log"
    for n in $names; do failed[$n]=$(( ${failed[$n]:-0} + 1 )); done
  fi
done
echo "stress: $runs runs, $pass passed, $fail failed$([ $load = 1 ] && echo ' (under load)')"
for n in "${!failed[@]}"; do echo "  $n failed ${failed[$n]} time(s)"; done
[ $fail -eq 0 ]
