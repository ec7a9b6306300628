#!/usr/bin/env bash
# make demo: a short tour of Ferry (a few minutes) once it is built and
# installed in ./install. Every figure is a median with its spread:
#   1. ping-pong latency and bandwidth at 8 B, 64 KiB, 1 MiB and 4 MiB,
#      Ferry against MPICH and Open MPI (also without single copy), 5
#      interleaved runs: median [min..max] and the median of the paired
#      Ferry / best-peer ratios (run once more when the machine changed
#      speed during the runs, which marks ratios with '*');
#   2. overlap when the sender is late: the receiver posts MPI_Irecv and
#      computes a fixed amount of work, the sender starts 50 us later;
#      median of the per-iteration overlap over 30 iterations [p25..p75]
#      (each paired with the same work timed alone) and the CPU the
#      progress mechanism took from the computation.
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/scripts/common.sh

if ! impl_available ferry; then
  echo "demo: Ferry is not installed in ./install (run 'make' first)" >&2
  exit 1
fi
peers=""
impl_available mpich && peers+=" mpich mpich-async"
impl_available ompi && peers+=" ompi ompi-nocma"
[ -n "$peers" ] || echo "demo: MPICH / Open MPI not installed (scripts/deps.sh --peers): Ferry only" >&2

echo "== Ping-pong, 2 ranks (quick budget per size; a busy machine widens the ranges)"
pingpong() {
  bench/scripts/compare_pingpong.sh --quick --runs 5 --sizes 8,65536,1048576,4194304 \
    --configs "ferry${peers/ mpich-async/}" | tee "$pp_out" || echo "demo: pingpong failed" >&2
}
pp_out=$(mktemp)
pingpong
# A shared VM that changes speed during the runs marks ratios with '*'
# (pingpong_table.py): one more try, whose table then stands.
if grep -q '^note: \*' "$pp_out"; then
  echo
  echo "== Ping-pong once more (the machine changed speed during those runs)"
  pingpong
fi
rm -f "$pp_out"
echo
echo "== Overlap when the sender arrives late (the receiver-first case applications meet)"
FY_RUN_TIMEOUT_QUICK=120 bench/scripts/run_overlap.sh --quick --tests late --no-plot \
  --configs "ferry ferry-none$peers" || echo "demo: some overlap runs failed" >&2
echo
echo "ferry = the default (direct writes into published receives + the PEF);"
echo "ferry-none = no agent. docs/progress.md explains the modes and the figures."
