#!/usr/bin/env python3
"""Tables for compare_net.sh: medians over rounds per config, where and size,
and Ferry's ratio to the best peer two ways (latency: lower is better, so
ratio < 1 wins; bandwidth and overlap: higher is better):
  ferry/best  Ferry's median over the best peer's median;
  paired      the median over the rounds of Ferry / the best peer of that
              round (benchtable.paired). The configs of a round run minutes
              apart at most, and the machine's fast and slow spells last
              minutes, so a paired ratio compares runs taken at one speed
              more often than the medians do. A "*" marks a ratio whose runs
              spread by more than 1.5x (the machine changed speed)."""
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchtable import UNSTEADY_NOTE, paired  # noqa: E402

PP = ["bytes", "lat_iters", "lat_us", "lat_min_us", "bw_iters", "window", "bw_GBps"]
LATE = ["bytes", "delay_us", "tlat_us", "tcomp_us", "ttotal_us", "overlap_pct", "overlap_p25",
        "overlap_p75", "stolen_us", "hit_pct"]
BOTH = ["order", "bytes", "iters", "cp_recv_us", "eps_recv_us", "cm_recv_us", "d_recv_us", "ovl_recv_pct",
        "cp_send_us", "eps_send_us", "cm_send_us", "d_send_us", "ovl_send_pct"]  # overlap -t eq3


def load(path):
    data = defaultdict(dict)  # (bench, where, cfg, bytes, field) -> {round: value}
    with open(path) as f:
        for row in csv.reader(f):
            if len(row) < 5:
                continue
            bench, cfg, where, run = row[:4]
            cols = {"pingpong": PP, "late": LATE, "both": BOTH}.get(bench, LATE)
            vals = dict(zip(cols, row[4:]))
            try:
                b = int(vals["bytes"])
            except (KeyError, ValueError):
                continue
            for k, v in vals.items():
                try:
                    data[(bench, where, cfg, b, k)][run] = float(v)
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
    """Prints the table; returns whether a paired ratio was marked unsteady."""
    cfgs = sorted({k[2] for k in data if k[0] == bench and k[1] == where})
    if not cfgs:
        return False
    print("\n%s (%s), median over rounds, %s" % (title, where, unit))
    peers = [c for c in cfgs if not c.startswith("ferry")]
    hdr = "%8s" % "bytes" + "".join("%14s" % c for c in cfgs)
    print(hdr + ("%14s%10s" % ("ferry/best", "paired") if peers else ""))
    wild_any = False
    for b in sizes:
        runs = {c: data[(bench, where, c, b, field)] for c in cfgs if data.get((bench, where, c, b, field))}
        if not runs:
            continue
        med = {c: statistics.median(v.values()) for c, v in runs.items()}
        line = "%8s" % fmt_size(b) + "".join("%14.2f" % med[c] if c in med else "%14s" % "-" for c in cfgs)
        f = next((c for c in cfgs if c.startswith("ferry") and c in med), None)
        pv = [med[c] for c in peers if c in med]
        if f and pv:
            best = min(pv) if lower_better else max(pv)
            ok = best > 0 and med[f] >= 0  # a ratio of negative overlaps means nothing
            line += "%14.2f" % (med[f] / best) if ok else "%14s" % "-"
            r, wild = paired(runs[f], {c: runs[c] for c in peers if c in runs}, min if lower_better else max)
            ok = r is not None and min(runs[f].values()) >= 0
            line += "%9.2f%s" % (r, "*" if wild else " ") if ok else "%10s" % "-"
            wild_any = wild_any or (ok and wild)
        print(line)
    return wild_any


def main():
    data = load(sys.argv[1])
    wheres = sorted({k[1] for k in data})
    wild = False
    for where in wheres:
        pp_sizes = sorted({k[3] for k in data if k[0] == "pingpong" and k[1] == where})
        show = [s for s in pp_sizes if s in (0, 8, 64, 1024, 16384, 65536, 262144, 1 << 20, 4 << 20)]
        wild |= table(data, "pingpong", where, "lat_us", "Latency", show, True, "us (half round trip)")
        wild |= table(data, "pingpong", where, "lat_min_us", "Latency, best iteration", show, True, "us")
        wild |= table(data, "pingpong", where, "bw_GBps", "Bandwidth", show, False, "GB/s")
        late_sizes = sorted({k[3] for k in data if k[0] == "late" and k[1] == where})
        wild |= table(data, "late", where, "overlap_pct", "Overlap, late sender d=50us", late_sizes, False, "%")
        wild |= table(data, "late", where, "tlat_us", "Transfer time T_lat (late bench)", late_sizes, True, "us")
        both_sizes = sorted({k[3] for k in data if k[0] == "both" and k[1] == where})
        for side in ("recv", "send"):
            wild |= table(data, "both", where, "d_%s_us" % side,
                  "Exchange, both ranks computing 300 us, %s side (eq3 rf)" % side, both_sizes, True, "us")
    if wild:
        print("\n" + UNSTEADY_NOTE)


if __name__ == "__main__":
    main()
