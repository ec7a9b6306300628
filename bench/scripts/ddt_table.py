#!/usr/bin/env python3
"""Table of compare_ddt.sh's CSV (bench/ddt figures, MB/s, higher is better).

usage: ddt_table.py RESULTS.csv
Rows kind x type, one column per config: the median over the runs; then
Ferry / best peer: the median over the runs of Ferry's figure over the best
peer's in the same run (paired; the k-th row of a config and figure is run
k). Last, each config's vector / contiguous ping-pong ratio (medians).
"""
import statistics
import sys

from benchtable import ferry_and_peers, rows


def main(argv):
    data, configs = rows(argv[1])
    ferry, peers = ferry_and_peers(configs)
    keys, vals = [], {}
    for r in data:
        k = (r["kind"], r["type"])
        if k not in keys:
            keys.append(k)
        vals.setdefault((k, r["config"]), []).append(float(r["MBps"]))
    med = {kc: statistics.median(v) for kc, v in vals.items()}
    print("median MB/s over %d run(s)" % max(len(v) for v in vals.values()))
    head = "%-10s %-8s" % ("kind", "type") + "".join("%12s" % c for c in configs)
    if ferry and peers:
        head += "%14s" % "ferry/best"
    print(head)
    for k in keys:
        line = "%-10s %-8s" % k + "".join("%12s" % ("%.0f" % med[(k, c)] if (k, c) in med else "-") for c in configs)
        if ferry and peers and (k, ferry) in vals:
            ratios = []
            for run, fv in enumerate(vals[(k, ferry)]):
                pv = [vals[(k, p)][run] for p in peers if run < len(vals.get((k, p), []))]
                if pv and max(pv) > 0:
                    ratios.append(fv / max(pv))
            if ratios:
                line += "%14.2f" % statistics.median(ratios)
        print(line)
    for c in configs:
        v, ct = vals.get((("pingpong", "vector"), c)), vals.get((("pingpong", "contig"), c))
        if not v or not ct:
            continue
        pr = [b / a for a, b in zip(v, ct) if a > 0]
        print("%s: vector / contiguous ping-pong = %.2f (contiguous is %.2fx faster; paired median %.2fx)" % (
            c, med[(("pingpong", "vector"), c)] / med[(("pingpong", "contig"), c)],
            med[(("pingpong", "contig"), c)] / med[(("pingpong", "vector"), c)], statistics.median(pr)))


if __name__ == "__main__":
    main(sys.argv)
