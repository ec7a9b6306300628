#!/usr/bin/env bash
# Seed 002 ch. 5's one-sided suite (bench/rma/rma_bench.c) against every
# installed MPI: latency per synchronization mode and operation, bandwidth,
# overlap, the five inefficiency patterns (1000 us delays, 1 B or 4 B and
# 1 MiB), the reorder keys and the exclusive-lock accumulate transactions.
# Ferry runs blocking and nonblocking (MPIX_Win_i*), the latter also with
# FERRY_PROGRESS=interrupt; the peers run blocking only (they have no
# MPIX_Win_i*).
#   bench/scripts/run_rma.sh [--iters N] [--reps R] [--rounds K] [--quick] [--only REGEX] [--out CSV]
# --reps: epochs per latency sample (back to back, averaged; default 20)
# --rounds: run the whole selection K times, the configs in turn each time
#     (so load from other processes hits them alike); the table and plots
#     take the median over rounds of each row
# --only: run only the tests whose name matches (e.g. 'lat|bw')
# Output: bench/results/rma.csv (or --out), a markdown table on stdout;
# plots with bench/scripts/rma_plot.py CSV... docs/img.
set -u
. "$(dirname "$0")/common.sh"
iters=30
reps=20
rounds=1
quick=0
only=.
out=$FY_RESULTS/rma.csv
while [ $# -gt 0 ]; do
  case "$1" in
    --iters) iters=$2; shift ;;
    --reps) reps=$2; shift ;;
    --quick) quick=1 ;;
    --only) only=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --out) out=$2; shift ;;
  esac
  shift
done
mkdir -p "$FY_RESULTS" "$(dirname "$out")"
rm -f "$out"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
configs=$(filter_configs ferry ferry-interrupt mpich ompi)
lat_sizes=1,4,256,4096,65536,262144,1048576
bw_sizes=4,4096,65536,1048576
[ $quick = 1 ] && lat_sizes=4,65536,1048576 && bw_sizes=4,1048576
for round in $(seq "$rounds"); do
for cfg in $configs; do
  impl=$(impl_of "$cfg")
  exe=$(build "$impl" rma_bench "$FY_BENCH/rma/rma_bench.c") || continue
  modes=b
  [ "$impl" = ferry ] && modes="b nb"
  [ "$cfg" = ferry-interrupt ] && modes=nb
  for m in $modes; do
    run1() { # np test sizes [args...]
      local np=$1 t=$2 s=$3 tmp it=$iters
      shift 3
      echo "$t" | grep -Eq "$only" || return 0
      [ "$t" = tx ] && it=5   # 0.2 s of transactions per iteration
      tmp=$(mktemp)
      if [ "$impl" = ompi ] && [ "$np" -gt "$(nproc)" ]; then
        # Open MPI refuses to bind more ranks than cores to cores
        env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout "${FY_RUN_TIMEOUT_RMA:-120}" \
          mpirun.openmpi -n "$np" --bind-to none --oversubscribe "$exe" -t "$t" -m "$m" -s "$s" -i "$it" "$@" \
          >"$tmp" 2>"$tmp.err" || { fy_note "$cfg $t -np $np failed:"; tail -3 "$tmp.err" >&2; }
      else
      FY_RUN_TIMEOUT=${FY_RUN_TIMEOUT_RMA:-120} launch "$cfg" "$np" "$exe" -t "$t" -m "$m" -s "$s" -i "$it" "$@" >"$tmp" 2>"$tmp.err" \
        || { fy_note "$cfg $t -np $np -m $m failed:"; tail -3 "$tmp.err" >&2; }
      fi
      rm -f "$tmp.err"
      grep -E '^[a-z-]+,(blocking|nonblocking[a-z+]*),' "$tmp" | sed "s/^/$cfg,/; s/\$/,$round/" >>"$out"
      rm -f "$tmp"
    }
    [ -s "$out" ] || echo "config,test,mode,bytes,np,median_us,p25_us,p75_us,round" >"$out"
    if [ "$cfg" != ferry-interrupt ]; then
      for t in lat-gats lat-fence lat-lock; do
        for o in put get acc; do run1 2 $t $lat_sizes -o $o -r "$reps"; done
      done
      [ "$m" = b ] && for o in put get acc; do run1 2 bw $bw_sizes -o $o; done
      run1 2 overlap-lock 4,1048576
    fi
    run1 3 late-post 1,1048576
    run1 2 late-complete 4,1048576
    run1 2 early-fence 262144,1048576
    run1 2 wait-at-fence 4,1048576
    run1 3 late-unlock 1,1048576
    if [ "$cfg" = ferry ] && [ "$m" = nb ]; then
      # the reorder keys: without, then with (FERRY_RMA_REORDER: all four)
      run1 3 reorder-aaa 1,1048576
      run1 3 reorder-eae 1,1048576
      export FERRY_RMA_REORDER=15
      run1 3 reorder-aaa 1,1048576
      run1 3 reorder-eae 1,1048576
      for np in 2 4; do run1 $np tx 256; done
      [ $quick = 1 ] || run1 8 tx 256
      unset FERRY_RMA_REORDER
    fi
    if [ "$cfg" != ferry-interrupt ]; then
      for np in 2 4; do run1 $np tx 256; done
      [ $quick = 1 ] || run1 8 tx 256
    fi
  done
done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
py=$(command -v python3)
"$py" "$FY_BENCH/scripts/rma_table.py" "$out"
