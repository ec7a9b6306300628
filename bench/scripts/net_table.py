#!/usr/bin/env python3
"""Tables for compare_net.sh: medians over rounds per config, where and size;
Ferry's ratio to the best peer (latency: lower is better, so ratio < 1 wins;
bandwidth and overlap: higher is better)."""
import csv
import statistics
import sys
from collections import defaultdict

PP = ["bytes", "lat_iters", "lat_us", "lat_min_us", "bw_iters", "window", "bw_GBps"]
LATE = ["bytes", "delay_us", "tlat_us", "tcomp_us", "ttotal_us", "overlap_pct", "overlap_p25",
        "overlap_p75", "stolen_us", "hit_pct"]
BOTH = ["order", "bytes", "iters", "cp_recv_us", "eps_recv_us", "cm_recv_us", "d_recv_us", "ovl_recv_pct",
        "cp_send_us", "eps_send_us", "cm_send_us", "d_send_us", "ovl_send_pct"]  # overlap -t eq3


def load(path):
    data = defaultdict(list)  # (bench, where, cfg, bytes, field) -> values
    with open(path) as f:
        for row in csv.reader(f):
            if len(row) < 5:
                continue
            bench, cfg, where, _run = row[:4]
            cols = {"pingpong": PP, "late": LATE, "both": BOTH}.get(bench, LATE)
            vals = dict(zip(cols, row[4:]))
            try:
                b = int(vals["bytes"])
            except (KeyError, ValueError):
                continue
            for k, v in vals.items():
                try:
                    data[(bench, where, cfg, b, k)].append(float(v))
                except ValueError:
                    pass
    return data


def fmt_size(b):
    if b >= 1 << 20:
        return "%dM" % (b >> 20)
    if b >= 1 << 10:
        return "%dK" % (b >> 10)
    return str(b)


def table(data, bench, where, field, title, sizes, lower_better, unit):
    cfgs = sorted({k[2] for k in data if k[0] == bench and k[1] == where})
    if not cfgs:
        return
    print("\n%s (%s), median over rounds, %s" % (title, where, unit))
    peers = [c for c in cfgs if not c.startswith("ferry")]
    hdr = "%8s" % "bytes" + "".join("%14s" % c for c in cfgs) + ("%14s" % "ferry/best" if peers else "")
    print(hdr)
    for b in sizes:
        med = {}
        for c in cfgs:
            v = data.get((bench, where, c, b, field))
            if v:
                med[c] = statistics.median(v)
        if not med:
            continue
        line = "%8s" % fmt_size(b) + "".join("%14.2f" % med[c] if c in med else "%14s" % "-" for c in cfgs)
        f = [c for c in cfgs if c.startswith("ferry") and c in med]
        pv = [med[c] for c in peers if c in med]
        if f and pv:
            best = min(pv) if lower_better else max(pv)
            ok = best > 0 and med[f[0]] >= 0  # a ratio of negative overlaps means nothing
            line += "%14.2f" % (med[f[0]] / best) if ok else "%14s" % "-"
        print(line)


def main():
    data = load(sys.argv[1])
    wheres = sorted({k[1] for k in data})
    for where in wheres:
        pp_sizes = sorted({k[3] for k in data if k[0] == "pingpong" and k[1] == where})
        show = [s for s in pp_sizes if s in (0, 8, 64, 1024, 16384, 65536, 262144, 1 << 20, 4 << 20)]
        table(data, "pingpong", where, "lat_us", "Latency", show, True, "us (half round trip)")
        table(data, "pingpong", where, "lat_min_us", "Latency, best iteration", show, True, "us")
        table(data, "pingpong", where, "bw_GBps", "Bandwidth", show, False, "GB/s")
        late_sizes = sorted({k[3] for k in data if k[0] == "late" and k[1] == where})
        table(data, "late", where, "overlap_pct", "Overlap, late sender d=50us", late_sizes, False, "%")
        table(data, "late", where, "tlat_us", "Transfer time T_lat (late bench)", late_sizes, True, "us")
        both_sizes = sorted({k[3] for k in data if k[0] == "both" and k[1] == where})
        for side in ("recv", "send"):
            table(data, "both", where, "d_%s_us" % side,
                  "Exchange, both ranks computing 300 us, %s side (eq3 rf)" % side, both_sizes, True, "us")


if __name__ == "__main__":
    main()
