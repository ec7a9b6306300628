#!/usr/bin/env bash
# Paired A/B of Ferry settings on the collective latency benchmark: runs
# bench/coll/coll_lat.c with environment A, then B, interleaved for N
# rounds, and prints per cell the medians and the median of the per-round
# B/A ratios (below 1: B is faster). For tuning a setting on a busy
# machine, where only interleaved ratios mean something.
#
#   bench/scripts/ab_coll.sh [--runs N] [--np "2 4"] [--ops a,b] [--max BYTES]
#                            [--min BYTES] [--factor F] [--time SEC] "A_ENV" "B_ENV"
# A_ENV/B_ENV: space-separated VAR=value settings ("" for the defaults), e.g.
#   bench/scripts/ab_coll.sh --np 2 --ops alltoall "FERRY_RNDV_EXCHANGE=0" ""
# FY_INSTALL=DIR in A_ENV or B_ENV runs another Ferry install (same binary:
# the benchmark is built once, against this tree's install).
set -uo pipefail
. "$(dirname "$0")/common.sh"
runs=5; nps="2 4"; ops=alltoall,allgather; maxb=1048576; minb=8; fac=8; tsec=0.02
while [ $# -gt 2 ]; do
  case "$1" in
    --runs) runs=$2; shift ;;
    --np) nps=$2; shift ;;
    --ops) ops=$2; shift ;;
    --max) maxb=$2; shift ;;
    --min) minb=$2; shift ;;
    --factor) fac=$2; shift ;;
    --time) tsec=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ $# -eq 2 ] || { sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2; }
A=$1; B=$2
exe=$(build ferry coll_lat "$FY_BENCH/coll/coll_lat.c") || exit 1
out=$(mktemp)
echo "side,run,op,np,bytes,iters,lat_us" >"$out"
for run in $(seq "$runs"); do
  for np in $nps; do
    for side in A B; do
      if [ $side = A ]; then e=$A; else e=$B; fi
      # shellcheck disable=SC2086
      env $e bash -c '. "$1"; shift; launch ferry "$@"' _ "$FY_BENCH/scripts/common.sh" \
        "$np" "$exe" -m "$maxb" -s "$minb" -f "$fac" -t "$tsec" -o "$ops" 2>/dev/null \
        | grep -v '^#' | tail -n +2 | grep -v '^$' | sed "s/^/$side,$run,/" >>"$out"
    done
  done
done
python3 - "$out" "$A" "$B" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = {}
for r in rows:
    d.setdefault((int(r["np"]), r["op"], int(r["bytes"])), {}).setdefault(r["side"], {})[r["run"]] = float(r["lat_us"])
print(f"A = [{sys.argv[2]}]  B = [{sys.argv[3]}]  (us, medians; B/A = median of per-round ratios)")
print(f"{'np':>3} {'op':>10} {'bytes':>8} {'A':>10} {'B':>10} {'B/A':>6}")
for k in sorted(d):
    a, b = d[k].get("A", {}), d[k].get("B", {})
    rs = [b[x] / a[x] for x in a if x in b and a[x] > 0]
    if not a or not b:
        continue
    print(f"{k[0]:>3} {k[1]:>10} {k[2]:>8} {statistics.median(a.values()):>10.1f} "
          f"{statistics.median(b.values()):>10.1f} {statistics.median(rs) if rs else float('nan'):>6.2f}")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$out"
