#!/usr/bin/env bash
# The overlap suite (bench/overlap, bench/halo) against Ferry in every progress
# mode, MPICH (also with MPICH_ASYNC_PROGRESS=1) and Open MPI; CSV + PNG plots.
#
#   bench/scripts/run_overlap.sh [--quick] [--configs "ferry ferry-none mpich ..."]
#                                [--tests "late hidden overhead eq3 eq4 prog vmrss halo"] [--no-plot]
# --quick: late and hidden only (fewer iterations), then the overlap tables.
# Output: bench/results/overlap/<stamp>/<test>.csv, *.png, table.txt, run.log
#         (bench/results/overlap/latest points at the last run).
# Ferry configs are skipped with a note while ./install has no Ferry.
set -uo pipefail
. "$(dirname "$0")/common.sh"

configs="ferry ferry-none ferry-thread ferry-interrupt ferry-pef mpich mpich-async ompi ompi-nocma"
tests=""
quick=0
plot=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --configs) configs=$2; shift ;;
    --tests) tests=$2; shift ;;
    --no-plot) plot=0 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$tests" ]; then
  if [ $quick = 1 ]; then tests="late hidden"; else tests="late hidden overhead eq3 eq4 prog vmrss halo"; fi
fi
qflag=()
[ $quick = 1 ] && qflag=(-q) && FY_RUN_TIMEOUT=${FY_RUN_TIMEOUT_QUICK:-120}

# shellcheck disable=SC2086
configs=$(filter_configs $configs)
[ -n "$configs" ] || { fy_note "no MPI available"; exit 1; }

stamp=$(date +%Y%m%d-%H%M%S)
out=$FY_RESULTS/overlap/$stamp
mkdir -p "$out"
ln -sfn "$stamp" "$FY_RESULTS/overlap/latest"
export FY_LOG=$out/run.log
: >"$FY_LOG"
status=0
for cfg in $configs; do
  impl=$(impl_of "$cfg")
  ovl=$(build "$impl" overlap "$FY_BENCH/overlap/overlap.c") || { status=1; continue; }
  halo=$(build "$impl" halo "$FY_BENCH/halo/halo.c") || { status=1; continue; }
  hidden=$(build "$impl" hidden "$FY_BENCH/overlap/hidden.c") || { status=1; continue; }
  late=$(build "$impl" late "$FY_BENCH/overlap/late.c") || { status=1; continue; }
  for t in $tests; do
    fy_note "$t: $cfg"
    if [ "$t" = halo ]; then
      run_csv "$cfg" "$out/halo.csv" "$halo" "${qflag[@]}" || status=1
    elif [ "$t" = late ]; then
      # quick: 30 iterations (the median of at least 30), d = 50 us; full: 10, 50, 200 us
      if [ $quick = 1 ]; then ln=(-n 30 -d 50); else ln=(-n 60 -d 10,50,200); fi
      run_csv "$cfg" "$out/late.csv" "$late" "${ln[@]}" || status=1
    elif [ "$t" = hidden ]; then
      hn=(); [ $quick = 1 ] && hn=(-n 60)
      run_csv "$cfg" "$out/hidden.csv" "$hidden" "${hn[@]}" || status=1
    else
      run_csv "$cfg" "$out/$t.csv" "$ovl" -t "$t" "${qflag[@]}" || status=1
    fi
  done
done

py=python3
if [ $plot = 1 ]; then
  ppy=$(plot_python)
  if [ -n "$ppy" ]; then
    "$ppy" "$FY_BENCH/scripts/plot_overlap.py" "$out" || fy_note "plotting failed"
  else
    fy_note "matplotlib unavailable: no plots"
  fi
fi
"$py" "$FY_BENCH/scripts/plot_overlap.py" --table "$out" | tee "$out/table.txt"
echo "results: $out"
exit $status
