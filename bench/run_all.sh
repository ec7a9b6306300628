#!/usr/bin/env bash
# Every benchmark, full length (make bench): ping-pong comparison, then the
# overlap suite (overhead, eq. 3.1-3.3, eq. 4.1/4.2, progression, VmRSS, halo)
# for Ferry in each progress mode, MPICH (+ async progress) and Open MPI.
# Results under bench/results/ (CSV, PNG, tables). Extra arguments go to
# run_overlap.sh (e.g. --configs "ferry mpich").
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
bench/scripts/compare_pingpong.sh || status=1
echo
bench/scripts/run_overlap.sh "$@" || status=1
exit $status
