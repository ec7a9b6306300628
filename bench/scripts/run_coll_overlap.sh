#!/usr/bin/env bash
# Collective overlap (bench/coll/coll_overlap.c, the seeds' template):
# Ialltoall, Ibcast, Iscatter, Igather, Iallreduce and a naive Igather
# (N-1 receives at the root) with a fixed amount of work between start and
# wait, 64 KiB to 1 MiB, for Ferry (default mode), MPICH, MPICH with
# asynchronous progress and Open MPI, interleaved over rounds; a table of
# the medians over the rounds and SVG plots.
#
#   bench/scripts/run_coll_overlap.sh [--runs N] [--np N] [--iters N]
#                                     [--configs "ferry mpich mpich-async ompi"]
#                                     [--ops a,b] [--plot DIR]
# Output: bench/results/coll_overlap/<stamp>/coll_overlap.csv (config,run,
# op,np,bytes,tlat_us,tcomp_us,ttot_us,overlap_pct), table.txt and, with
# --plot DIR, DIR/coll_overlap_<op>.svg.
set -uo pipefail
. "$(dirname "$0")/common.sh"

configs="ferry mpich mpich-async ompi"
runs=3
np=2
iters=20
ops=ialltoall,ibcast,iscatter,igather,iallreduce,naive_igather
plotdir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --configs) configs=$2; shift ;;
    --runs) runs=$2; shift ;;
    --np) np=$2; shift ;;
    --iters) iters=$2; shift ;;
    --ops) ops=$2; shift ;;
    --plot) plotdir=$2; shift ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck disable=SC2086
configs=$(filter_configs $configs)
[ -n "$configs" ] || { fy_note "no MPI available"; exit 1; }

stamp=$(date +%Y%m%d-%H%M%S)
out=$FY_RESULTS/coll_overlap/$stamp
mkdir -p "$out"
ln -sfn "$stamp" "$FY_RESULTS/coll_overlap/latest"
export FY_LOG=$out/run.log
: >"$FY_LOG"
csv=$out/coll_overlap.csv
echo "config,run,op,np,bytes,tlat_us,tcomp_us,ttot_us,overlap_pct" >"$csv"
status=0
for run in $(seq "$runs"); do
  # shellcheck disable=SC2086
  for cfg in $(rotated "$run" $configs); do
    exe=$(build "$(impl_of "$cfg")" coll_overlap "$FY_BENCH/coll/coll_overlap.c") || { status=1; continue; }
    fy_note "coll_overlap: $cfg -n $np (run $run of $runs)"
    # mpich-async: common.sh sets MPICH_ASYNC_PROGRESS=1; the documented
    # control variable too (Hydra passes the environment on).
    async=0; [ "$cfg" = mpich-async ] && async=1
    tmp=$(mktemp)
    MPIR_CVAR_ASYNC_PROGRESS=$async launch "$cfg" "$np" "$exe" -n "$iters" -o "$ops" >"$tmp" 2>"$tmp.err"
    rc=$?
    if [ $rc -ne 0 ]; then
      fy_note "$cfg failed (exit $rc):"; tail -3 "$tmp.err" >&2; status=1
    fi
    grep -v '^#' "$tmp" | tail -n +2 | grep -v '^$' | sed "s/^/$cfg,$run,/" >>"$csv"
    { echo "== $cfg run $run"; cat "$tmp" "$tmp.err"; } >>"$FY_LOG"
    rm -f "$tmp" "$tmp.err"
  done
done
note="load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
python3 "$FY_BENCH/scripts/plot_coll_overlap.py" "$csv" --note "$note" ${plotdir:+--svg "$plotdir"} \
  | tee "$out/table.txt"
echo "results: $out"
exit $status
