#!/usr/bin/env bash
# make demo: a short tour of Ferry (about 2 minutes) once it is built and
# installed in ./install:
#   1. ping-pong latency and bandwidth table (Ferry; quick budget);
#   2. the quick overlap table (eq. 4.2, receiver first and sender first):
#      Ferry's default progress mode against FERRY_PROGRESS=none, plus MPICH
#      and Open MPI when they are installed (scripts/deps.sh --peers).
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/scripts/common.sh

if ! impl_available ferry; then
  echo "demo: Ferry is not installed in ./install (run 'make' first)" >&2
  exit 1
fi
peers=""
impl_available mpich && peers+=" mpich"
impl_available ompi && peers+=" ompi"
[ -n "$peers" ] || echo "demo: MPICH / Open MPI not installed (scripts/deps.sh --peers): Ferry only" >&2

echo "== Ferry ping-pong (2 ranks, quick run; figures on a busy machine are noisy)"
bench/scripts/compare_pingpong.sh --quick --configs "ferry" || echo "demo: pingpong failed" >&2
echo
echo "== Overlap: Irecv / compute / Wait (eq. 4.2; 100 % = the transfer is hidden)"
FY_RUN_TIMEOUT_QUICK=60 bench/scripts/run_overlap.sh --quick --no-plot \
  --configs "ferry ferry-none$peers" || echo "demo: some overlap runs failed" >&2
