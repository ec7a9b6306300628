#!/usr/bin/env python3
"""SVG plots of the one-sided suite (run_rma.sh's rma.csv), standard library only.

  rma_plot.py CSV... OUTDIR      (e.g. bench/results/rma.csv docs/img)

Writes rma-latency-{put,get,acc}.svg (epoch latency against size, one panel
per synchronization), rma-bw.svg (bandwidth), rma-patterns.svg (the five
inefficiency patterns), rma-reorder.svg (the reorder keys) and rma-tx.svg
(exclusive-lock accumulate transactions against the number of processes).
Series: "<config> <mode>" as in the CSV (ferry blocking, ferry nonblocking,
ferry-interrupt nonblocking, mpich blocking, ompi blocking, ...).
"""
import csv
import math
import os
import sys
from collections import defaultdict

COLORS = {
    "ferry blocking": "#1f77b4",
    "ferry nonblocking": "#2ca02c",
    "ferry nonblocking+reorder": "#17becf",
    "ferry-interrupt nonblocking": "#9467bd",
    "mpich blocking": "#d62728",
    "ompi blocking": "#ff7f0e",
}
OTHER = ["#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"]


def color(s, _seen={}):
    if s in COLORS:
        return COLORS[s]
    if s not in _seen:
        _seen[s] = OTHER[len(_seen) % len(OTHER)]
    return _seen[s]


def esc(t):
    return str(t).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def size_label(b):
    b = int(b)
    if b >= 1 << 20:
        return "%dM" % (b >> 20)
    if b >= 1 << 10:
        return "%dK" % (b >> 10)
    return str(b)


def fmt(v):
    if v >= 1e6:
        return "%gM" % (v / 1e6)
    if v >= 1e3:
        return "%gk" % (v / 1e3)
    return "%g" % v


class Svg:
    def __init__(self, w, h):
        self.w, self.h, self.items = w, h, []

    def add(self, s):
        self.items.append(s)

    def text(self, x, y, t, size=11, anchor="start", rot=None, bold=False):
        tr = ' transform="rotate(%d %.1f %.1f)"' % (rot, x, y) if rot else ""
        wt = ' font-weight="bold"' if bold else ""
        self.add('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s"%s%s>%s</text>'
                 % (x, y, size, anchor, tr, wt, esc(t)))

    def line(self, x1, y1, x2, y2, c="#000", w=1, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%g"%s/>'
                 % (x1, y1, x2, y2, c, w, d))

    def save(self, path):
        with open(path, "w") as f:
            f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                    'font-family="DejaVu Sans, Arial, sans-serif">\n' % (self.w, self.h))
            f.write('<rect width="100%" height="100%" fill="white"/>\n')
            f.write("\n".join(self.items))
            f.write("\n</svg>\n")


def log_ticks(lo, hi):
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    return [10.0 ** k for k in range(a, b + 1)]


class Panel:
    """A plot area with log or linear axes."""

    def __init__(self, svg, x, y, w, h, title, xlabel, ylabel, ylog=True):
        self.s, self.x, self.y, self.w, self.h = svg, x, y, w, h
        self.title, self.xlabel, self.ylabel, self.ylog = title, xlabel, ylabel, ylog

    def yrange(self, vals):
        vals = [v for v in vals if v > 0] or [1]
        if self.ylog:
            self.ylo, self.yhi = 10 ** math.floor(math.log10(min(vals))), 10 ** math.ceil(math.log10(max(vals)))
            if self.ylo == self.yhi:
                self.yhi *= 10
        else:
            self.ylo, self.yhi = 0, max(vals) * 1.1

    def ypos(self, v):
        if self.ylog:
            v = max(v, self.ylo)
            f = (math.log10(v) - math.log10(self.ylo)) / (math.log10(self.yhi) - math.log10(self.ylo))
        else:
            f = (v - self.ylo) / (self.yhi - self.ylo)
        return self.y + self.h - f * self.h

    def frame(self):
        s = self.s
        s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#000"/>'
              % (self.x, self.y, self.w, self.h))
        s.text(self.x + self.w / 2, self.y - 8, self.title, 12, "middle", bold=True)
        s.text(self.x + self.w / 2, self.y + self.h + 34, self.xlabel, 11, "middle")
        s.text(self.x - 46, self.y + self.h / 2, self.ylabel, 11, "middle", rot=-90)
        ticks = log_ticks(self.ylo, self.yhi) if self.ylog else \
            [self.yhi * k / 5 for k in range(6)]
        for t in ticks:
            if t < self.ylo * 0.999 or t > self.yhi * 1.001:
                continue
            y = self.ypos(t)
            s.line(self.x, y, self.x + self.w, y, "#ddd")
            s.text(self.x - 4, y + 4, fmt(t), 10, "end")


def legend(svg, x, y, series):
    for i, name in enumerate(series):
        yy = y + 16 * i
        svg.line(x, yy - 4, x + 22, yy - 4, color(name), 3)
        svg.text(x + 28, yy, name, 11)


def load(paths):
    """Rows of every file; rows of the same (series, test, bytes, np) from
    several rounds are merged into one holding the median of their medians."""
    groups = defaultdict(list)
    for path in paths:
        for r in csv.DictReader(open(path)):
            key = ("%s %s" % (r["config"], r["mode"]), r["test"], int(r["bytes"]), int(r["np"]))
            groups[key].append(float(r["median_us"]))
    rows = []
    for (series, test, b, n), v in groups.items():
        v.sort()
        m = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
        rows.append({"series": series, "test": test, "bytes": b, "np": n, "v": m})
    return rows


def ordered(rows):
    out = []
    for r in rows:
        if r["series"] not in out:
            out.append(r["series"])
    return out


def lines_by_size(rows, tests, fname, title, ylabel, ylog=True, xlabel="bytes"):
    """One panel per test: value against size (log x), one line per series."""
    rows = [r for r in rows if r["test"] in tests]
    if not rows:
        return False
    series = ordered(rows)
    pw, ph, left, top = 300, 240, 70, 50
    svg = Svg(left + len(tests) * (pw + 60) + 220, top + ph + 70)
    svg.text(10, 18, title, 13, bold=True)
    for i, t in enumerate(tests):
        tr = [r for r in rows if r["test"] == t]
        if not tr:
            continue
        p = Panel(svg, left + i * (pw + 60), top, pw, ph, t, xlabel, ylabel, ylog)
        p.yrange([r["v"] for r in tr])
        p.frame()
        sizes = sorted({r["bytes"] for r in tr})
        xs = {b: p.x + (k + 0.5) * p.w / len(sizes) for k, b in enumerate(sizes)}
        for b in sizes:
            svg.text(xs[b], p.y + p.h + 14, size_label(b), 10, "middle")
        for sname in series:
            pts = sorted((r["bytes"], r["v"]) for r in tr if r["series"] == sname)
            if not pts:
                continue
            d = " ".join("%.1f,%.1f" % (xs[b], p.ypos(v)) for b, v in pts)
            svg.add('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>' % (d, color(sname)))
            for b, v in pts:
                svg.add('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>' % (xs[b], p.ypos(v), color(sname)))
    legend(svg, left + len(tests) * (pw + 60) - 20, top + 10, series)
    svg.save(fname)
    return True


def bars(rows, groups, fname, title, ylabel, ylog=True, note=None):
    """Grouped bars: groups = [(label, test, bytes, np or None)]."""
    sel = []
    for label, t, b, n in groups:
        g = [r for r in rows if r["test"] == t and r["bytes"] == b and (n is None or r["np"] == n)]
        if g:
            sel.append((label, g))
    if not sel:
        return False
    series = ordered([r for _, g in sel for r in g])
    gw = 26 * len(series) + 30
    left, top, ph = 80, 50, 280
    svg = Svg(left + gw * len(sel) + 260, top + ph + 90)
    svg.text(10, 18, title, 13, bold=True)
    if note:
        svg.text(10, 34, note, 10)
    p = Panel(svg, left, top, gw * len(sel), ph, "", "", ylabel, ylog)
    p.yrange([r["v"] for _, g in sel for r in g])
    p.frame()
    for i, (label, g) in enumerate(sel):
        x0 = left + i * gw + 15
        for k, sname in enumerate(series):
            r = [r for r in g if r["series"] == sname]
            if not r:
                continue
            v = r[0]["v"]
            y = p.ypos(v)
            svg.add('<rect x="%.1f" y="%.1f" width="22" height="%.1f" fill="%s"/>'
                    % (x0 + 26 * k, y, p.y + p.h - y, color(sname)))
            svg.text(x0 + 26 * k + 11, y - 3, fmt(round(v, 1)), 8, "middle")
        for j, part in enumerate(label.split("\n")):
            svg.text(x0 + 26 * len(series) / 2, p.y + p.h + 16 + 13 * j, part, 10, "middle")
    legend(svg, left + gw * len(sel) + 20, top + 10, series)
    svg.save(fname)
    return True


def main():
    srcs, outdir = sys.argv[1:-1], sys.argv[-1]
    os.makedirs(outdir, exist_ok=True)
    rows = load(srcs)
    made = []
    for op in ("put", "get", "acc"):
        f = os.path.join(outdir, "rma-latency-%s.svg" % op)
        if lines_by_size(rows, ["lat-lock-" + op, "lat-gats-" + op, "lat-fence-" + op], f,
                         "Epoch latency, one %s per epoch (origin; median, us; log scale)" % op, "us"):
            made.append(f)
    f = os.path.join(outdir, "rma-bw.svg")
    if lines_by_size(rows, ["bw-put", "bw-get", "bw-acc"], f,
                     "Bandwidth inside a lock_all epoch (MB/s, median)", "MB/s"):
        made.append(f)
    pats = [("late post\n1 B", "late-post", 1, None), ("late post\n1 MiB", "late-post", 1048576, None),
            ("late complete\n4 B", "late-complete", 4, None), ("late complete\n1 MiB", "late-complete", 1048576, None),
            ("early fence\n256 KiB", "early-fence", 262144, None), ("early fence\n1 MiB", "early-fence", 1048576, None),
            ("wait at fence\n4 B", "wait-at-fence", 4, None), ("wait at fence\n1 MiB", "wait-at-fence", 1048576, None),
            ("late unlock\n1 B", "late-unlock", 1, None), ("late unlock\n1 MiB", "late-unlock", 1048576, None)]
    f = os.path.join(outdir, "rma-patterns.svg")
    if bars(rows, pats, f, "Inefficiency patterns, 1000 us delays (median, us; log scale)", "us",
            note="late post: origin's follow-up send done; late complete, early fence, wait at fence: "
                 "the target; late unlock: the second origin's epoch"):
        made.append(f)
    ro = [("A_A_A_R\n1 B", "reorder-aaa", 1, None), ("A_A_A_R\n1 MiB", "reorder-aaa", 1048576, None),
          ("E_A_E_R\n1 B", "reorder-eae", 1, None), ("E_A_E_R\n1 MiB", "reorder-eae", 1048576, None)]
    f = os.path.join(outdir, "rma-reorder.svg")
    if bars(rows, ro, f, "Reorder keys: the epoch behind a late one (median, us; log scale)", "us"):
        made.append(f)
    tx = [r for r in rows if r["test"] == "tx"]
    if tx:
        for r in tx:
            r["test"], r["bytes"] = "tx", r["np"]
        f = os.path.join(outdir, "rma-tx.svg")
        if lines_by_size(tx, ["tx"], f, "Exclusive-lock 256 B accumulate transactions per second per process "
                         "(2 cores)", "tx/s", xlabel="processes"):
            made.append(f)
    for m in made:
        print(m)


if __name__ == "__main__":
    main()
