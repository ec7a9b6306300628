#!/usr/bin/env python3
"""Table and SVG plots of run_coll_overlap.sh's CSV (standard library only).

usage: plot_coll_overlap.py CSV [--note TEXT] [--svg DIR]
Table: per operation and size, the median over the rounds of each config's
overlap % (and of T_lat in microseconds). --svg DIR writes one plot per
operation, DIR/coll_overlap_<op>.svg: overlap % against message size, one
line per config.
"""
import csv
import os
import statistics
import sys

from benchtable import human

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]


def svg_plot(path, op, configs, sizes, med):
    W, H, L, R, T, B = 520, 320, 60, 130, 30, 50
    pw, ph = W - L - R, H - T - B
    def x(i):
        return L + (pw * i / max(1, len(sizes) - 1))
    def y(v):
        return T + ph * (1 - v / 100.0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L + pw / 2}" y="18" text-anchor="middle" font-size="13">{op}: overlap % (-n 2, median of rounds)</text>']
    for v in range(0, 101, 20):
        out.append(f'<line x1="{L}" x2="{L + pw}" y1="{y(v)}" y2="{y(v)}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{y(v) + 4}" text-anchor="end">{v}</text>')
    out.append(f'<line x1="{L}" x2="{L + pw}" y1="{y(90)}" y2="{y(90)}" stroke="#888" stroke-dasharray="4,3"/>')
    for i, s in enumerate(sizes):
        out.append(f'<text x="{x(i)}" y="{T + ph + 16}" text-anchor="middle">{human(s)}</text>')
    out.append(f'<text x="{L + pw / 2}" y="{H - 8}" text-anchor="middle">bytes per process</text>')
    out.append(f'<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="black"/>')
    for ci, c in enumerate(configs):
        col = COLORS[ci % len(COLORS)]
        pts = [(x(i), y(med[(op, s, c)])) for i, s in enumerate(sizes) if (op, s, c) in med]
        if not pts:
            continue
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                   % (col, " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)))
        for a, b in pts:
            out.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{col}"/>')
        ly = T + 14 + 16 * ci
        out.append(f'<line x1="{L + pw + 10}" x2="{L + pw + 30}" y1="{ly - 4}" y2="{ly - 4}" stroke="{col}" stroke-width="2"/>')
        out.append(f'<text x="{L + pw + 34}" y="{ly}">{c}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main(argv):
    path = argv[1]
    note = argv[argv.index("--note") + 1] if "--note" in argv else None
    svgdir = argv[argv.index("--svg") + 1] if "--svg" in argv else None
    rows = list(csv.DictReader(open(path)))
    configs, ops, sizes = [], [], []
    ov, lat = {}, {}
    for r in rows:
        c, op, b = r["config"], r["op"], int(r["bytes"])
        for lst, v in ((configs, c), (ops, op), (sizes, b)):
            if v not in lst:
                lst.append(v)
        ov.setdefault((op, b, c), []).append(float(r["overlap_pct"]))
        lat.setdefault((op, b, c), []).append(float(r["tlat_us"]))
    sizes.sort()
    med = {k: statistics.median(v) for k, v in ov.items()}
    mlat = {k: statistics.median(v) for k, v in lat.items()}
    nruns = len({r["run"] for r in rows})
    print(f"overlap % (T_lat in us), median over {nruns} round(s)")
    w = 18
    print(f"{'op':>14} {'size':>8} " + "".join(f"{c:>{w}}" for c in configs))
    for op in ops:
        for b in sizes:
            cells = []
            for c in configs:
                k = (op, b, c)
                cells.append(f"{med[k]:6.0f} ({mlat[k]:7.0f})" if k in med else "-")
            print(f"{op:>14} {human(b):>8} " + "".join(f"{x:>{w}}" for x in cells))
    if note:
        print(note)
    if svgdir:
        os.makedirs(svgdir, exist_ok=True)
        for op in ops:
            svg_plot(os.path.join(svgdir, f"coll_overlap_{op}.svg"), op, configs, sizes, med)


if __name__ == "__main__":
    main(sys.argv)
