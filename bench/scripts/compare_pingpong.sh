#!/usr/bin/env bash
# Ping-pong latency and streaming bandwidth, Ferry against MPICH and Open MPI,
# on this machine in one go; prints one side-by-side table and writes CSV.
#
#   bench/scripts/compare_pingpong.sh [--quick] [--runs N] [--sizes a,b,..]
#                                     [--configs "ferry mpich ..."] [-- extra pingpong options]
# --runs N: N interleaved rounds (every config once per round, each round
#           starting at the next config); the table shows medians with
#           their range and the median of paired ratios.
# --sizes:  only these sizes in the table (bytes, comma list).
# Output: bench/results/pingpong/pingpong-<stamp>.csv (+ pingpong-latest.csv,
# and the table as .txt). Ferry is skipped with a note when ./install has no
# mpicc. Figures taken while the machine is busy are noisy.
set -uo pipefail
. "$(dirname "$0")/common.sh"

configs="ferry mpich ompi ompi-nocma"
ppargs=()
runs=1
sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) ppargs+=(-q) ;;
    --configs) configs=$2; shift ;;
    --runs) runs=$2; shift ;;
    --sizes) sizes=(--sizes "$2"); shift ;;
    --) shift; ppargs+=("$@"); break ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# shellcheck disable=SC2086
configs=$(filter_configs $configs)
[ -n "$configs" ] || { fy_note "no MPI available"; exit 1; }

bench_results pingpong
status=0
run_rounds "$runs" "$csv" pingpong "$FY_BENCH/pingpong/pingpong.c" "$configs" "${ppargs[@]}" || status=1
keep_latest pingpong || exit 1
if [ "${FY_BENCH_TASKSET:-0}" = 1 ]; then ferry_bind="taskset per rank"; else ferry_bind="bound by its mpiexec (FERRY_BIND=${FERRY_BIND:-auto})"; fi
notes="binding: Hydra -bind-to core, Open MPI --bind-to core, Ferry $ferry_bind"
python3 "$FY_BENCH/scripts/pingpong_table.py" "$csv" --note "$notes" "${sizes[@]}" | tee "${csv%.csv}.txt"
echo "CSV: $csv"
exit $status
