#!/usr/bin/env python3
"""Table of compare_fsec.sh's CSV (bench/fsec, microseconds, lower is better).

usage: fsec_table.py RESULTS.csv
Rows case x count, one column per config: the median over the runs with
[min..max]; then Ferry / best peer, paired run by run (the k-th row of a
config for a figure is run k), marked * when the machine changed speed.
"""
import sys

from benchtable import UNSTEADY_NOTE, cell, ferry_and_peers, paired, rows


def main(argv):
    data, configs = rows(argv[1])
    ferry, peers = ferry_and_peers(configs)
    keys, runs = [], {}
    for r in data:
        k = (r["case"], int(r["count"]))
        if k not in keys:
            keys.append(k)
        byrun = runs.setdefault((k, r["config"]), {})
        byrun[len(byrun)] = float(r["us"])
    nruns = max(len(v) for v in runs.values())
    print("time in us (one-way ping-pong, or one MPI_Allreduce), median [min..max] over %d run(s)" % nruns)
    head = "%-18s %8s" % ("case", "REALs") + "".join("%24s" % c for c in configs)
    if ferry and peers:
        head += "%12s" % "ferry/best"
    print(head)
    any_unsteady = False
    for k in keys:
        line = "%-18s %8d" % k
        for c in configs:
            v = list(runs.get((k, c), {}).values())
            line += "%24s" % (cell(v, lambda x: "%.2f" % x) if v else "-")
        if ferry and peers:
            ratio, unst = paired(runs.get((k, ferry), {}), {p: runs.get((k, p), {}) for p in peers})
            any_unsteady |= unst
            line += "%12s" % ("-" if ratio is None else "%.2f%s" % (ratio, "*" if unst else ""))
        print(line)
    if any_unsteady:
        print(UNSTEADY_NOTE)


if __name__ == "__main__":
    main(sys.argv)
