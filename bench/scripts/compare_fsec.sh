#!/usr/bin/env bash
# Strided array sections through mpi_f08 (bench/fsec): Ferry against MPICH
# and Open MPI (and Open MPI without single copy, ompi-nocma), runs
# interleaved, 2 ranks; prints each figure's median over the runs and
# Ferry's paired ratio to the best peer.
#
#   bench/scripts/compare_fsec.sh [--runs N] [--quick] [--configs "ferry mpich ..."]
# Output: bench/results/fsec/fsec-<stamp>.csv (+ .txt table). Unavailable
# libraries are skipped with a note.
set -uo pipefail
. "$(dirname "$0")/common.sh"

configs="ferry mpich ompi ompi-nocma"
runs=3
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) args+=(quick) ;;
    --runs) runs=$2; shift ;;
    --configs) configs=$2; shift ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck disable=SC2086
configs=$(filter_configs $configs)
[ -n "$configs" ] || { fy_note "no MPI available"; exit 1; }
bench_results fsec
status=0
run_rounds "$runs" "$csv" fsec "$FY_BENCH/fsec/fsec.F90" "$configs" "${args[@]}" || status=1
keep_latest fsec || exit 1
{ python3 "$FY_BENCH/scripts/fsec_table.py" "$csv"; echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"; } \
  | tee "${csv%.csv}.txt"
echo "CSV: $csv"
exit $status
