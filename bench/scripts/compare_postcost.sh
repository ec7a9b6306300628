#!/usr/bin/env bash
# The cost of posting one small nonblocking operation (bench/postcost),
# Ferry against MPICH and Open MPI, interleaved rounds, medians and ratios.
#
#   bench/scripts/compare_postcost.sh [--runs N] [--configs "ferry mpich ..."] [-- postcost options]
# Prints, per side (send: MPI_Isend, recv: MPI_Irecv), the median over the
# rounds of each config's time per post and per window's MPI_Waitall, and
# Ferry / best peer (the median of the per-round ratios; < 1 is faster).
# Output: bench/results/postcost/postcost-<stamp>.csv.
set -uo pipefail
. "$(dirname "$0")/common.sh"

configs="ferry mpich ompi ompi-nocma"
runs=5
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --configs) configs=$2; shift ;;
    --runs) runs=$2; shift ;;
    --) shift; args+=("$@"); break ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# shellcheck disable=SC2086
configs=$(filter_configs $configs)
[ -n "$configs" ] || { fy_note "no MPI available"; exit 1; }

bench_results postcost
status=0
run_rounds "$runs" "$csv" postcost "$FY_BENCH/postcost/postcost.c" "$configs" "${args[@]}" || status=1
keep_latest postcost || exit 1
python3 - "$csv" <<'PY' | tee "${csv%.csv}.txt"
import collections, statistics as st, sys
rows = collections.defaultdict(list)          # (config, side) -> [(post, wait)] in round order
for line in open(sys.argv[1]).read().splitlines()[1:]:
    cfg, side, post, wait = line.split(",")
    rows[(cfg, side)].append((float(post), float(wait)))
cfgs = list(dict.fromkeys(c for c, _ in rows))
peers = [c for c in cfgs if not c.startswith("ferry")]
print("time per post and per MPI_Waitall of the window, ns, median over rounds")
print("%-5s %-12s %10s %12s" % ("side", "config", "post", "waitall"))
for side in ("send", "recv"):
    for c in cfgs:
        v = rows[(c, side)]
        print("%-5s %-12s %10.1f %12.0f" % (side, c, st.median(p for p, _ in v), st.median(w for _, w in v)))
    for c in (c for c in cfgs if c.startswith("ferry")):
        if not peers:
            continue
        f = rows[(c, side)]
        ratios = [p / min(rows[(q, side)][i][0] for q in peers)
                  for i, (p, _) in enumerate(f) if all(i < len(rows[(q, side)]) for q in peers)]
        if ratios:
            print("%-5s %-12s post / best peer %.2f (median of %d paired rounds)" % (side, c, st.median(ratios), len(ratios)))
PY
echo "CSV: $csv"
exit $status
