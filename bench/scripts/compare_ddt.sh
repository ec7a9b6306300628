#!/usr/bin/env bash
# Derived-datatype benchmark (bench/ddt): Ferry against MPICH and Open MPI
# (and Open MPI without single-copy, ompi-nocma), runs interleaved; prints
# the median of each figure per config, Ferry's ratio to the best peer, and
# Ferry's vector/contiguous ratio.
#
#   bench/scripts/compare_ddt.sh [--runs N] [--quick] [--np 1|2] [--configs "ferry mpich ..."] [-- ddt options]
# --np 1: pack and unpack only, one rank (no partner polling in a barrier);
# ddt's -B (best iteration, not the median) suits a loaded machine.
# Output: bench/results/ddt/ddt-<stamp>.csv (+ .txt table). Unavailable
# libraries are skipped with a note.
set -uo pipefail
. "$(dirname "$0")/common.sh"

configs="ferry mpich ompi ompi-nocma"
runs=3
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) args+=(-q) ;;
    --runs) runs=$2; shift ;;
    --configs) configs=$2; shift ;;
    --np) export FY_NP=$2; shift ;;
    --) shift; args+=("$@"); break ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck disable=SC2086
configs=$(filter_configs $configs)
[ -n "$configs" ] || { fy_note "no MPI available"; exit 1; }
bench_results ddt
status=0
run_rounds "$runs" "$csv" ddt "$FY_BENCH/ddt/ddt.c" "$configs" "${args[@]}" || status=1
keep_latest ddt || exit 1
python3 "$FY_BENCH/scripts/ddt_table.py" "$csv" | tee "${csv%.csv}.txt"
echo "CSV: $csv"
exit $status
