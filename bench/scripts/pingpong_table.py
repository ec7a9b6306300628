#!/usr/bin/env python3
"""Side-by-side ping-pong table from the merged CSV of compare_pingpong.sh.

usage: pingpong_table.py RESULTS.csv [--note TEXT] [--only CONFIG] [--sizes a,b,...]
Columns: one per config; the last column is Ferry / best peer (latency:
below 1 is better; bandwidth: above 1 is better). With several runs in the
CSV (compare_pingpong.sh --runs N: the k-th row of a config and size is run
k), each cell is the median over the runs with its range [min..max], and
the ratio is the median of the per-run ratios (paired runs). A ratio is
marked `*` when some config's runs at that size spread by more than 1.5x
(max/min): the machine changed speed during the runs (a shared VM's slow
and fast spells), so runs paired across the change compare different
speeds; a note then says so. Standard library only.
"""
import sys

from benchtable import UNSTEADY_NOTE, cell, ferry_and_peers, human, paired, rows as read_rows


def main(argv):
    path, note, only, want = argv[1], None, None, None
    if "--note" in argv:
        note = argv[argv.index("--note") + 1]
    if "--only" in argv:
        only = argv[argv.index("--only") + 1]
    if "--sizes" in argv:
        want = {int(x) for x in argv[argv.index("--sizes") + 1].split(",")}
    rows, configs = read_rows(path)
    if only:
        configs = [c for c in configs if c == only]
    data = {}
    for r in rows:
        c = r["config"]
        if only and c != only:
            continue
        data.setdefault((c, int(r["bytes"])), []).append((float(r["lat_us"]), float(r["bw_GBps"])))
    sizes = sorted({b for (_, b) in data if want is None or b in want})
    runs = max(len(v) for v in data.values())
    ferry, peers = ferry_and_peers(configs)
    ratio = ferry is not None and peers
    w = max(11, max(len(c) for c in configs) + 1) + (14 if runs > 1 else 0)

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
                line += f"{cell([x[idx] for x in v], fmt) if v else '-':>{w}}"
            if ratio and (ferry, s) in data:
                runs = {c: {k: x[idx] for k, x in enumerate(data[(c, s)])} for c in configs if (c, s) in data}
                r, wild = paired(runs.pop(ferry), runs, best)
                if r is not None:
                    if wild:
                        unsteady.add(s)
                    line += f"{r:>11.2f}{'*' if wild else ' '}"
            print(line)
        print()

    unsteady = set()

    sfx = f", median of {runs} interleaved runs [min..max]" if runs > 1 else ""
    table(f"Latency (us, half round trip; lower is better{sfx})", 0, min, lambda v: f"{v:.2f}")
    table(f"Bandwidth (GB/s, window of nonblocking sends; higher is better{sfx})", 1, max,
          lambda v: f"{v:.2f}")
    if unsteady:
        print(UNSTEADY_NOTE)
    if not ferry:
        print("note: no Ferry column (Ferry is not installed yet)")
    if note:
        print("note:", note)


if __name__ == "__main__":
    main(sys.argv)
