#!/usr/bin/env bash
# Collective latency (bench/coll/coll_lat.c), Ferry against MPICH and Open MPI
# on this machine in one go, at -n 2 and -n 4; prints one table per process
# count and writes CSV.
#
#   bench/scripts/compare_coll.sh [--runs N] [--np "2 4"] [--ops a,b,..]
#                                 [--max BYTES] [--min BYTES] [--factor F] [--time SEC]
#                                 [--configs "ferry mpich ompi"]
# --ops: also scatter, gather, scatterv, gatherv, reduce_scatter and the nonblocking forms ibcast, ireduce,
#        iallreduce, iallgather, ialltoall, iscatter, igather (start + wait);
# sizes: from --min (8) times --factor (8) up to --max (1 MiB).
# --runs N: N interleaved rounds (every config once per round and process
#           count, each round starting at the next config); cells are
#           medians over the rounds with their range, the ratio column is
#           the median of the per-round Ferry/best-peer ratios (below 1:
#           Ferry is faster).
# Output: bench/results/coll/coll-<stamp>.csv (+ coll-latest.csv and the
# table as .txt). Figures taken while the machine is busy are noisy.
set -uo pipefail
. "$(dirname "$0")/common.sh"

configs="ferry mpich ompi"
runs=3
nps="2 4"
ops=barrier,bcast,reduce,allreduce,allgather,alltoall
maxb=1048576
minb=8
fac=8
tsec=0.05
while [ $# -gt 0 ]; do
  case "$1" in
    --configs) configs=$2; shift ;;
    --runs) runs=$2; shift ;;
    --np) nps=$2; shift ;;
    --ops) ops=$2; shift ;;
    --max) maxb=$2; shift ;;
    --min) minb=$2; shift ;;
    --factor) fac=$2; shift ;;
    --time) tsec=$2; shift ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# Open MPI refuses to bind more ranks than cores to cores: beyond the core
# count its ranks run unbound (and oversubscribed); everything else as in
# common.sh's launch.
launch_np() {
  local cfg=$1 np=$2; shift 2
  if [ "$(impl_of "$cfg")" = ompi ] && [ "$np" -gt "$(nproc)" ]; then
    env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      timeout "$FY_RUN_TIMEOUT" mpirun.openmpi -n "$np" --oversubscribe --bind-to none "$@"
  else
    launch "$cfg" "$np" "$@"
  fi
}

# shellcheck disable=SC2086
configs=$(filter_configs $configs)
[ -n "$configs" ] || { fy_note "no MPI available"; exit 1; }

outdir=$FY_RESULTS/coll
mkdir -p "$outdir"
stamp=$(date +%Y%m%d-%H%M%S)
csv=$outdir/coll-$stamp.csv
export FY_LOG=$outdir/coll-$stamp.log
: >"$FY_LOG"
status=0
for run in $(seq "$runs"); do
  for np in $nps; do
    # shellcheck disable=SC2086
    for cfg in $(rotated "$run" $configs); do
      exe=$(build "$(impl_of "$cfg")" coll_lat "$FY_BENCH/coll/coll_lat.c") || { status=1; continue; }
      fy_note "coll_lat: $cfg -n $np (run $run of $runs)"
      tmp=$(mktemp)
      launch_np "$cfg" "$np" "$exe" -m "$maxb" -s "$minb" -f "$fac" -t "$tsec" -o "$ops" >"$tmp" 2>"$tmp.err"
      rc=$?
      if [ $rc -ne 0 ]; then
        fy_note "$cfg -n $np failed (exit $rc):"; tail -3 "$tmp.err" >&2; status=1
      fi
      [ -s "$csv" ] || echo "config,run,op,np,bytes,iters,lat_us" >"$csv"
      grep -v '^#' "$tmp" | tail -n +2 | grep -v '^$' | sed "s/^/$cfg,$run,/" >>"$csv"
      { echo "== $cfg -n $np run $run"; cat "$tmp" "$tmp.err"; } >>"$FY_LOG"
      rm -f "$tmp" "$tmp.err"
    done
  done
done
[ -s "$csv" ] || { fy_note "no results"; exit 1; }
cp "$csv" "$outdir/coll-latest.csv"
python3 "$FY_BENCH/scripts/coll_table.py" "$csv" \
  --note "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); binding: Hydra -bind-to core, Open MPI --bind-to core (unbound with --oversubscribe beyond $(nproc) ranks), Ferry by its mpiexec" \
  | tee "${csv%.csv}.txt"
echo "CSV: $csv"
exit $status
