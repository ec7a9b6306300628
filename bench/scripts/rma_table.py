#!/usr/bin/env python3
"""Markdown tables from bench/results/rma.csv (run_rma.sh)."""
import csv
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
series = []
for r in rows:
    s = "%s %s" % (r["config"], r["mode"])
    if s not in series:
        series.append(s)
tab = defaultdict(dict)
for r in rows:
    key = (r["test"], int(r["bytes"]), int(r["np"]))
    tab[key]["%s %s" % (r["config"], r["mode"])] = r
print("| test | bytes | np | " + " | ".join(series) + " |")
print("|---|---:|---:|" + "---:|" * len(series))
for key in sorted(tab, key=lambda k: (k[0], k[2], k[1])):
    cells = []
    for s in series:
        r = tab[key].get(s)
        if not r:
            cells.append("")
        elif key[0] == "tx":
            cells.append("%.0f" % float(r["median_us"]))
        else:
            cells.append("%.1f" % float(r["median_us"]))
    print("| %s | %d | %d | %s |" % (key[0], key[1], key[2], " | ".join(cells)))
print("\nMedians in microseconds (tx: transactions per second per process).")
