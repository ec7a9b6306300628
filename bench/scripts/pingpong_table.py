#!/usr/bin/env python3
"""Side-by-side ping-pong table from the merged CSV of compare_pingpong.sh.

usage: pingpong_table.py RESULTS.csv [--note TEXT] [--only CONFIG]
Columns: one per config; the last column is Ferry / best peer (latency:
below 1 is better; bandwidth: above 1 is better). Standard library only.
"""
import csv
import sys


def human(n):
    n = int(n)
    for unit, sh in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << sh and n % (1 << sh) == 0:
            return f"{n >> sh} {unit}"
    return f"{n} B"


def main(argv):
    path, note, only = argv[1], None, None
    if "--note" in argv:
        note = argv[argv.index("--note") + 1]
    if "--only" in argv:
        only = argv[argv.index("--only") + 1]
    rows = list(csv.DictReader(open(path)))
    configs = []
    data = {}
    for r in rows:
        c = r["config"]
        if only and c != only:
            continue
        if c not in configs:
            configs.append(c)
        data[(c, int(r["bytes"]))] = (float(r["lat_us"]), float(r["bw_GBps"]))
    sizes = sorted({b for (_, b) in data})
    ferry = next((c for c in configs if c.startswith("ferry")), None)
    peers = [c for c in configs if not c.startswith("ferry")]
    ratio = ferry is not None and peers
    w = max(11, max(len(c) for c in configs) + 1)

    def table(title, idx, best, fmt):
        head = f"{'size':>9} " + "".join(f"{c:>{w}}" for c in configs)
        if ratio:
            head += f"{'Ferry/best':>{12}}"
        print(title)
        print(head)
        for s in sizes:
            if idx == 1 and s == 0:
                continue
            line = f"{human(s):>9} "
            for c in configs:
                v = data.get((c, s))
                line += f"{fmt(v[idx]) if v else '-':>{w}}"
            if ratio and (ferry, s) in data:
                pv = [data[(p, s)][idx] for p in peers if (p, s) in data]
                if pv and best(pv) > 0:
                    line += f"{data[(ferry, s)][idx] / best(pv):>12.2f}"
            print(line)
        print()

    table("Latency (us, half round trip; lower is better)", 0, min, lambda v: f"{v:.2f}")
    table("Bandwidth (GB/s, window of nonblocking sends; higher is better)", 1, max,
          lambda v: f"{v:.2f}")
    if not ferry:
        print("note: no Ferry column (Ferry is not installed yet)")
    if note:
        print("note:", note)


if __name__ == "__main__":
    main(sys.argv)
