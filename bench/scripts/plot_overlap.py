#!/usr/bin/env python3
"""Tables and plots for the overlap suite (run_overlap.sh output directory).

  plot_overlap.py DIR            PNG plots next to the CSV files (matplotlib)
  plot_overlap.py --table DIR    text tables only (standard library)

Reads whichever of overhead.csv, eq3.csv, eq4.csv, prog.csv, hidden.csv,
late.csv, vmrss.csv, halo.csv exist; the first column of each is the config (ferry, ferry-<mode>,
mpich, mpich-async, ompi, ompi-nocma).
"""
import csv
import os
import sys


def load(d, name):
    p = os.path.join(d, name + ".csv")
    if not os.path.exists(p):
        return []
    return list(csv.DictReader(open(p)))


def uniq(seq):
    out = []
    for x in seq:
        if x not in out:
            out.append(x)
    return out


def hsize(n):
    n = int(n)
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}M"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10}K"
    return f"{n}B"


def eq4_summary(rows):
    """(config, order, bytes) -> (recv %, send %) at the chosen steps."""
    s = {}
    for r in rows:
        k = (r["config"], r["order"], int(r["bytes"]))
        rv, sv = s.get(k, (None, None))
        if r["chosen_recv"] == "1":
            rv = float(r["ovl_recv_pct"])
        if r["chosen_send"] == "1":
            sv = float(r["ovl_send_pct"])
        s[k] = (rv, sv)
    return s


def fmt(v):
    return "  n/a" if v is None else f"{v:5.0f}"


def tables(d):
    rows = load(d, "eq4")
    if rows:
        s = eq4_summary(rows)
        configs = uniq(r["config"] for r in rows)
        sizes = sorted({int(r["bytes"]) for r in rows})
        for order, title in (("rf", "receiver first"), ("sf", "sender first")):
            if not any(k[1] == order for k in s):
                continue
            print(f"Overlap % by eq. 4.2 ({title}; receiver / sender; 100 = full, 0 = none)")
            print(f"{'config':<16}" + "".join(f"{hsize(b):>14}" for b in sizes))
            for c in configs:
                line = f"{c:<16}"
                for b in sizes:
                    rv, sv = s.get((c, order, b), (None, None))
                    line += f"{fmt(rv):>7} /{fmt(sv):>5}"
                print(line)
            print()
    rows = load(d, "overhead")
    if rows:
        configs = uniq(r["config"] for r in rows)
        print("Latency per message, receiver side (us; overhead = mode - ferry-none)")
        for scen in uniq(r["scenario"] for r in rows):
            sub = [r for r in rows if r["scenario"] == scen]
            sizes = sorted({int(r["bytes"]) for r in sub})
            print(f"  {scen}")
            print(f"  {'config':<16}" + "".join(f"{hsize(b):>10}" for b in sizes))
            v = {(r["config"], int(r["bytes"])): float(r["recv_us"]) for r in sub}
            for c in configs:
                print(f"  {c:<16}" + "".join(
                    f"{v[(c, b)]:>10.1f}" if (c, b) in v else f"{'-':>10}" for b in sizes))
        print()
    rows = load(d, "eq3")
    if rows:
        print("Eq. 3.1-3.3, receiver side: d measured vs ideal eps+max(c_m,c_p) and serialized"
              " eps+c_m+c_p (us); overlap % = hidden / min(c_m, c_p), noisy when c_m is small")
        for r in rows:
            eps, cm, cp = float(r["eps_recv_us"]), float(r["cm_recv_us"]), float(r["cp_recv_us"])
            print(f"  {r['config']:<16}{r['order']:>3}{hsize(r['bytes']):>6}"
                  f"  d {float(r['d_recv_us']):8.1f}  ideal {eps + max(cm, cp):8.1f}"
                  f"  serial {eps + cm + cp:8.1f}"
                  f"  overlap R/S {float(r['ovl_recv_pct']):6.0f} / {float(r['ovl_send_pct']):6.0f}")
        print()
    rows = load(d, "hidden")
    if rows:
        print("Transfer hidden by a computation of 2 x T_lat, receiver first "
              "(receiver / sender %; 100 = all of it)")
        cfgs = uniq(r["config"] for r in rows)
        sizes = uniq(int(r["bytes"]) for r in rows)
        print(f"{'config':<16}" + "".join(f"{hsize(b):>14}" for b in sizes))
        for c in cfgs:
            line = f"{c:<16}"
            for b in sizes:
                m = [r for r in rows if r["config"] == c and int(r["bytes"]) == b]
                line += (f"{float(m[0]['hidden_recv_pct']):>7.0f} / {float(m[0]['hidden_send_pct']):>4.0f}"
                         if m else f"{'-':>14}")
            print(line)
        print()
    rows = load(d, "late")
    if rows:
        print("Late sender: receiver posts, computes a fixed amount of work (2 T_lat + 100 us),")
        print("the sender starts d us later. Overlap % median [p25 .. p75]; CPU taken from the")
        print("computation in us (a signal or a helper thread shows here)")
        cfgs = uniq(r["config"] for r in rows)
        sizes = uniq(int(r["bytes"]) for r in rows)
        for dl in uniq(r["delay_us"] for r in rows):
            print(f"d = {dl} us")
            print(f"{'config':<16}" + "".join(f"{hsize(b):>24}" for b in sizes))
            for c in cfgs:
                line = f"{c:<16}"
                for b in sizes:
                    m = [r for r in rows if r["config"] == c and int(r["bytes"]) == b and r["delay_us"] == dl]
                    if m:
                        r = m[0]
                        cell = (f"{float(r['overlap_pct']):.0f} [{float(r['overlap_p25']):.0f}.."
                                f"{float(r['overlap_p75']):.0f}] {float(r['stolen_us']):.0f}us")
                    else:
                        cell = "-"
                    line += f"{cell:>24}"
                print(line)
            print()
    rows = load(d, "vmrss")
    if rows:
        print("VmRSS per process (kB) and threads after pending large receives")
        for r in rows:
            print(f"  {r['config']:<16} rank {r['rank']}  VmRSS {r['vmrss_kB']:>8}"
                  f"  VmHWM {r['vmhwm_kB']:>8}  threads {r['threads']}")
        print()
    rows = load(d, "halo")
    if rows:
        print("Halo exchange, time per iteration (us) [compute only / comm only / overlap %]")
        for r in rows:
            print(f"  {r['config']:<16}{hsize(r['bytes']):>6}  {float(r['t_iter_us']):9.1f}"
                  f"  [{float(r['t_comp_us']):.0f} / {float(r['t_comm_us']):.0f} /"
                  f" {float(r['overlap_pct']):.0f}]")
        print()


def plots(d):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []

    def save(fig, name):
        p = os.path.join(d, name)
        fig.tight_layout()
        fig.savefig(p, dpi=110)
        plt.close(fig)
        made.append(p)

    rows = load(d, "overhead")
    if rows:
        scen = uniq(r["scenario"] for r in rows)
        configs = uniq(r["config"] for r in rows)
        base = "ferry-none" if "ferry-none" in configs else None
        nr = 2 if base else 1
        fig, ax = plt.subplots(nr, len(scen), figsize=(5 * len(scen), 4 * nr), squeeze=False)
        for j, s in enumerate(scen):
            sub = [r for r in rows if r["scenario"] == s]
            ref = {int(r["bytes"]): float(r["recv_us"]) for r in sub if r["config"] == base}
            for c in configs:
                pts = sorted((int(r["bytes"]), float(r["recv_us"])) for r in sub if r["config"] == c)
                ax[0][j].plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=c)
                if base and c.startswith("ferry"):
                    ax[1][j].plot([p[0] for p in pts if p[0] in ref],
                                  [p[1] - ref[p[0]] for p in pts if p[0] in ref], "o-", label=c)
            ax[0][j].set(title=f"latency: {s}", xscale="log", yscale="log",
                         xlabel="bytes", ylabel="us (receiver)")
            if base:
                ax[1][j].axhline(0, color="k", lw=0.5)
                ax[1][j].set(title=f"overhead vs ferry-none: {s}", xscale="log",
                             xlabel="bytes", ylabel="us")
        ax[0][0].legend(fontsize=7)
        save(fig, "overhead.png")

    rows = load(d, "eq3")
    if rows:
        orders = uniq(r["order"] for r in rows)
        configs = uniq(r["config"] for r in rows)
        fig, ax = plt.subplots(2, len(orders), figsize=(6 * len(orders), 8), squeeze=False)
        for j, o in enumerate(orders):
            for i, side in enumerate(("recv", "send")):
                a = ax[i][j]
                for c in configs:
                    pts = sorted((int(r["bytes"]), float(r[f"d_{side}_us"]), float(r[f"cp_{side}_us"]),
                                  float(r[f"eps_{side}_us"]), float(r[f"cm_{side}_us"]))
                                 for r in rows if r["config"] == c and r["order"] == o)
                    line, = a.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=c)
                    a.plot([p[0] for p in pts], [p[3] + p[4] + p[2] for p in pts], ":",
                           color=line.get_color(), lw=0.8)
                cp = float(rows[0][f"cp_{side}_us"])
                a.axhline(cp, color="k", lw=0.8, ls="--", label="c_p (ideal when c_m < c_p)")
                a.set(title=f"eq. 3.1-3.3 d(size), {o}, {side} side (dotted: serialized)",
                      xscale="log", xlabel="bytes", ylabel="d (us)")
        ax[0][0].legend(fontsize=7)
        save(fig, "eq3.png")

    rows = load(d, "eq4")
    if rows:
        s = eq4_summary(rows)
        orders = uniq(r["order"] for r in rows)
        configs = uniq(r["config"] for r in rows)
        sizes = sorted({int(r["bytes"]) for r in rows})
        fig, ax = plt.subplots(2, len(orders), figsize=(6 * len(orders), 8), squeeze=False)
        w = 0.8 / max(1, len(configs))
        for j, o in enumerate(orders):
            for i, side in enumerate(("receiver", "sender")):
                a = ax[i][j]
                for k, c in enumerate(configs):
                    ys = [s.get((c, o, b), (None, None))[i] for b in sizes]
                    a.bar([x + k * w for x in range(len(sizes))], [y or 0 for y in ys], w, label=c)
                a.set_xticks([x + w * (len(configs) - 1) / 2 for x in range(len(sizes))])
                a.set_xticklabels([hsize(b) for b in sizes])
                a.axhline(100, color="k", lw=0.5)
                a.set(title=f"eq. 4.2 overlap, {'receiver first' if o == 'rf' else 'sender first'},"
                      f" {side}", ylabel="overlap %", ylim=(-20, 120))
        ax[0][0].legend(fontsize=7)
        save(fig, "eq4.png")

    rows = load(d, "prog")
    if rows:
        rows = [r for r in rows if r["order"] == "rf"] or rows
        sizes = sorted({int(r["bytes"]) for r in rows})
        configs = uniq(r["config"] for r in rows)
        fig, ax = plt.subplots(1, len(sizes), figsize=(4 * len(sizes), 4), squeeze=False)
        for j, b in enumerate(sizes):
            for c in configs:
                pts = sorted((float(r["factor"]), float(r["t_recv_us"])) for r in rows
                             if r["config"] == c and int(r["bytes"]) == b)
                ax[0][j].plot([p[0] for p in pts], [p[1] for p in pts], "o-", ms=3, label=c)
            ax[0][j].set(title=f"progression {hsize(b)} (flat = ideal)",
                         xlabel="T_syn / T_lat", ylabel="time to data (us)")
        ax[0][0].legend(fontsize=7)
        save(fig, "prog.png")

    rows = load(d, "late")
    if rows:
        cfgs = uniq(r["config"] for r in rows)
        delays = uniq(r["delay_us"] for r in rows)
        fig, ax = plt.subplots(1, len(delays), figsize=(5 * len(delays), 4), squeeze=False)
        for j, dl in enumerate(delays):
            for c in cfgs:
                pts = sorted((int(r["bytes"]), float(r["overlap_pct"]), float(r["overlap_p25"]),
                              float(r["overlap_p75"])) for r in rows
                             if r["config"] == c and r["delay_us"] == dl)
                x = [p[0] for p in pts]
                ax[0][j].errorbar(x, [p[1] for p in pts],
                                  yerr=[[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]],
                                  fmt="o-", ms=3, capsize=2, label=c)
            ax[0][j].set(xscale="log", title=f"late sender, d = {dl} us",
                         xlabel="bytes", ylabel="overlap % (median, p25..p75)")
        ax[0][0].legend(fontsize=7)
        save(fig, "late.png")
    rows = load(d, "vmrss")
    if rows:
        configs = uniq(r["config"] for r in rows)
        fig, a = plt.subplots(figsize=(max(5, len(configs) * 0.9), 4))
        vals = [sum(float(r["vmrss_kB"]) for r in rows if r["config"] == c) /
                max(1, sum(1 for r in rows if r["config"] == c)) for c in configs]
        a.bar(range(len(configs)), vals)
        a.set_xticks(range(len(configs)))
        a.set_xticklabels(configs, rotation=30, ha="right")
        a.set(ylabel="VmRSS per process (kB)", title="memory")
        save(fig, "vmrss.png")

    rows = load(d, "halo")
    if rows:
        configs = uniq(r["config"] for r in rows)
        fig, a = plt.subplots(figsize=(6, 4))
        for c in configs:
            pts = sorted((int(r["bytes"]), float(r["t_iter_us"])) for r in rows if r["config"] == c)
            a.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=c)
        a.set(xscale="log", xlabel="halo bytes", ylabel="us per iteration (lower is better)",
              title="1-D halo exchange, compute between post and Waitall")
        a.legend(fontsize=7)
        save(fig, "halo.png")
    for p in made:
        print("plot:", p)


def main(argv):
    if len(argv) >= 3 and argv[1] == "--table":
        tables(argv[2])
    elif len(argv) == 2:
        plots(argv[1])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
