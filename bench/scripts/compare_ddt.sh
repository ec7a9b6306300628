#!/usr/bin/env bash
# Derived-datatype benchmark (bench/ddt): Ferry against MPICH and Open MPI
# (and Open MPI without single-copy, ompi-nocma), runs interleaved; prints
# the median of each figure per config, Ferry's ratio to the best peer, and
# Ferry's vector/contiguous ratio.
#
#   bench/scripts/compare_ddt.sh [--runs N] [--quick] [--configs "ferry mpich ..."] [-- ddt options]
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
    --) shift; args+=("$@"); break ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck disable=SC2086
configs=$(filter_configs $configs)
[ -n "$configs" ] || { fy_note "no MPI available"; exit 1; }
outdir=$FY_RESULTS/ddt
mkdir -p "$outdir"
stamp=$(date +%Y%m%d-%H%M%S)
csv=$outdir/ddt-$stamp.csv
export FY_LOG=$outdir/ddt-$stamp.log
: >"$FY_LOG"
status=0
for run in $(seq "$runs"); do
  for cfg in $configs; do
    exe=$(build "$(impl_of "$cfg")" ddt "$FY_BENCH/ddt/ddt.c") || { status=1; continue; }
    fy_note "ddt: $cfg (run $run of $runs)"
    run_csv "$cfg" "$csv" "$exe" "${args[@]}" || status=1
  done
done
[ -s "$csv" ] || { fy_note "no results"; exit 1; }
cp "$csv" "$outdir/ddt-latest.csv"
python3 - "$csv" <<'PY' | tee "${csv%.csv}.txt"
import csv, sys, statistics
rows = list(csv.DictReader(open(sys.argv[1])))
cfgs = []
for r in rows:
    if r["config"] not in cfgs: cfgs.append(r["config"])
keys = []
vals = {}
for r in rows:
    k = (r["kind"], r["type"])
    if k not in keys: keys.append(k)
    vals.setdefault((k, r["config"]), []).append(float(r["MBps"]))
med = {kc: statistics.median(v) for kc, v in vals.items()}
print("median MB/s over %d run(s)" % max(len(v) for v in vals.values()))
hdr = "%-10s %-8s" % ("kind", "type") + "".join("%12s" % c for c in cfgs) + "%14s" % "ferry/best"
print(hdr)
for k in keys:
    line = "%-10s %-8s" % k + "".join("%12s" % ("%.0f" % med[(k, c)] if (k, c) in med else "-") for c in cfgs)
    peers = [med[(k, c)] for c in cfgs if c != "ferry" and (k, c) in med]
    if (k, "ferry") in med and peers:
        line += "%14.2f" % (med[(k, "ferry")] / max(peers))
    print(line)
for c in cfgs:
    try:
        print("%s: vector / contiguous ping-pong = %.2f (contiguous is %.2fx faster)" % (c,
              med[(("pingpong", "vector"), c)] / med[(("pingpong", "contig"), c)],
              med[(("pingpong", "contig"), c)] / med[(("pingpong", "vector"), c)]))
    except KeyError:
        pass
PY
echo "CSV: $csv"
exit $status
