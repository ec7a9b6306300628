#!/usr/bin/env bash
# Paired, interleaved latency runs of rma_bench: each round runs every
# config once (in turn, each round starting at the next config), so load
# from other processes hits them alike; the table gives per config the
# median over rounds of the per-run medians, and the ratio to the best peer
# (MPICH / Open MPI) as the median of per-round ratios.
#   bench/scripts/compare_rma_lat.sh [--rounds N] [--sizes LIST] [--tests LIST] [--ops LIST]
#       [--before DIR]   also run a Ferry install at DIR (e.g. main's) as "ferry-before"
set -u
. "$(dirname "$0")/common.sh"
rounds=5
sizes=1,4,256,4096,65536,262144,1048576
tests="lat-lock lat-gats lat-fence"
ops="put get acc"
before=
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --tests) tests=$2; shift ;;
    --ops) ops=$2; shift ;;
    --before) before=$2; shift ;;
  esac
  shift
done
configs=$(filter_configs ferry mpich ompi)
out=$FY_RESULTS/rma_lat_pairs.csv
mkdir -p "$FY_RESULTS"
echo "round,config,test,mode,bytes,np,median_us,p25_us,p75_us" >"$out"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for c in $configs; do build "$(impl_of "$c")" rma_bench "$FY_BENCH/rma/rma_bench.c" >/dev/null || exit 1; done
for r in $(seq "$rounds"); do
  for t in $tests; do
    for o in $ops; do
      # shellcheck disable=SC2086
      for c in $(rotated "$r" $configs ${before:+ferry-before}); do
        impl=$(impl_of "$c")
        if [ "$c" = ferry-before ]; then
          FY_INSTALL=$before launch ferry 2 "$FY_RESULTS/build-ferry/rma_bench" -t "$t" -o "$o" -s "$sizes" -i 30 -r 20
        else
          launch "$c" 2 "$FY_RESULTS/build-$impl/rma_bench" -t "$t" -o "$o" -s "$sizes" -i 30 -r 20
        fi 2>/dev/null | grep -E '^[a-z-]+,' | grep -v '^test,' | sed "s/^/$r,$c,/" >>"$out"
      done
    done
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 - "$out" <<'EOF'
import csv, sys, statistics as st
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
val = defaultdict(dict)          # (test, bytes) -> config -> {round: us}
for r in rows:
    val[(r["test"], int(r["bytes"]))].setdefault(r["config"], {})[r["round"]] = float(r["median_us"])
cfgs = []
for r in rows:
    if r["config"] not in cfgs:
        cfgs.append(r["config"])
peers = [c for c in cfgs if c in ("mpich", "ompi")]
print("| test | bytes | " + " | ".join(cfgs) + " | ferry / best peer |")
print("|---|---:|" + "---:|" * (len(cfgs) + 1))
for key in sorted(val, key=lambda k: (k[0], k[1])):
    v = val[key]
    cells = ["%.2f" % st.median(v[c].values()) if c in v else "" for c in cfgs]
    ratios = []
    for rnd, f in v.get("ferry", {}).items():
        best = [v[p][rnd] for p in peers if p in v and rnd in v[p]]
        if best and min(best) > 0:
            ratios.append(f / min(best))
    ratio = "%.2f" % st.median(ratios) if ratios else ""
    print("| %s | %d | %s | %s |" % (key[0], key[1], " | ".join(cells), ratio))
print("\nMedian over rounds of each run's median epoch time (us; each sample is 20 epochs back to back);")
print("ratio: median over rounds of ferry / the faster peer of that round.")
EOF
