#!/usr/bin/env python3
"""Side-by-side collective latency table from compare_coll.sh's CSV.

usage: coll_table.py RESULTS.csv [--note TEXT]
One table per process count: rows op x size, one column per config (median
latency in microseconds over the runs, with [min..max] when there are
several), and Ferry / best peer: the median over the runs of the ratio of
Ferry's latency to the best peer's in the same run (below 1: Ferry faster),
marked * when some config's runs there spread by more than 1.5x (the
machine changed speed during the runs: benchtable.paired). Standard
library only.
"""
import csv
import statistics
import sys

from benchtable import UNSTEADY_NOTE, human, paired


def main(argv):
    path = argv[1]
    note = argv[argv.index("--note") + 1] if "--note" in argv else None
    rows = list(csv.DictReader(open(path)))
    configs, data = [], {}
    for r in rows:
        c = r["config"]
        if c not in configs:
            configs.append(c)
        key = (int(r["np"]), r["op"], int(r["bytes"]))
        data.setdefault(key, {}).setdefault(c, {})[r["run"]] = float(r["lat_us"])
    ferry = next((c for c in configs if c.startswith("ferry")), None)
    peers = [c for c in configs if not c.startswith("ferry")]
    order = ["barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "scatter", "gather"]
    order += ["i" + o for o in order[1:]]
    w = 24
    marked = False
    for np in sorted({k[0] for k in data}):
        print(f"\n-n {np}: latency in microseconds, median [min..max] over runs")
        head = f"{'op':>10} {'size':>8} " + "".join(f"{c:>{w}}" for c in configs)
        if ferry and peers:
            head += f"{'Ferry/best':>12}"
        print(head)
        keys = sorted((k for k in data if k[0] == np), key=lambda k: (order.index(k[1]) if k[1] in order else 99, k[1], k[2]))
        for k in keys:
            cells = data[k]
            line = f"{k[1]:>10} {human(k[2]):>8} "
            for c in configs:
                v = list(cells.get(c, {}).values())
                if not v:
                    line += f"{'-':>{w}}"
                elif len(v) == 1:
                    line += f"{v[0]:>{w}.1f}"
                else:
                    line += f"{f'{statistics.median(v):.1f} [{min(v):.1f}..{max(v):.1f}]':>{w}}"
            if ferry and peers:
                r, wild = paired(cells.get(ferry, {}), {p: cells[p] for p in peers if p in cells})
                marked |= wild
                line += f"{r:>11.2f}{'*' if wild else ' '}" if r is not None else f"{'-':>12}"
            print(line)
    if marked:
        print(f"\n{UNSTEADY_NOTE}")
    if note:
        print(f"\n{note}")


if __name__ == "__main__":
    main(sys.argv)
