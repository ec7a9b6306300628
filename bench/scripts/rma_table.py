#!/usr/bin/env python3
"""Markdown tables from run_rma.sh's CSV files (bench/results/rma.csv).

  rma_table.py CSV...

Rows with the same (config, test, mode, bytes, np) from several rounds or
files are merged: the median of their medians (the number of rounds is
shown when more than one)."""
import csv
import statistics
import sys
from collections import defaultdict

rows = []
for path in sys.argv[1:]:
    rows += list(csv.DictReader(open(path)))
series = []
for r in rows:
    s = "%s %s" % (r["config"], r["mode"])
    if s not in series:
        series.append(s)
tab = defaultdict(lambda: defaultdict(list))
for r in rows:
    key = (r["test"], int(r["bytes"]), int(r["np"]))
    tab[key]["%s %s" % (r["config"], r["mode"])].append(float(r["median_us"]))
rounds = max((len(v) for t in tab.values() for v in t.values()), default=1)
print("| test | bytes | np | " + " | ".join(series) + " |")
print("|---|---:|---:|" + "---:|" * len(series))
for key in sorted(tab, key=lambda k: (k[0], k[2], k[1])):
    cells = []
    for s in series:
        v = tab[key].get(s)
        if not v:
            cells.append("")
            continue
        m = statistics.median(v)
        cells.append("%.0f" % m if key[0] == "tx" or key[0].startswith("bw-") else "%.1f" % m)
    print("| %s | %d | %d | %s |" % (key[0], key[1], key[2], " | ".join(cells)))
print("\nMedians in microseconds (tx: transactions per second per process; bw: MB/s)%s."
      % (", median over %d rounds" % rounds if rounds > 1 else ""))
