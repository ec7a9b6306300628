"""Helpers shared by the benchmark table scripts (standard library only).

rows(path): the CSV rows and the configs in order of first appearance;
ferry_and_peers(configs): Ferry's config (or None) and the others;
human(bytes): "8 MiB", "4 KiB", "100 B"; cell(vals, fmt): the median, with
[min..max] when there are several values; paired(...): Ferry / best peer
over paired runs, and whether the machine changed speed during them.
"""
import csv
import statistics


def rows(path):
    with open(path) as f:
        out = list(csv.DictReader(f))
    configs = []
    for r in out:
        if r["config"] not in configs:
            configs.append(r["config"])
    return out, configs


def ferry_and_peers(configs):
    ferry = next((c for c in configs if c.startswith("ferry")), None)
    return ferry, [c for c in configs if not c.startswith("ferry")]


def human(n):
    n = int(n)
    for unit, sh in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << sh and n % (1 << sh) == 0:
            return f"{n >> sh} {unit}"
    return f"{n} B"


def cell(vals, fmt):
    m = statistics.median(vals)
    if len(vals) == 1:
        return fmt(m)
    return f"{fmt(m)} [{fmt(min(vals))}..{fmt(max(vals))}]"


# A shared VM alternates fast and slow spells: runs of one config that
# spread by more than this (max/min) straddled a change of speed, and a
# ratio pairing them with another config's runs means little.
SPREAD = 1.5
UNSTEADY_NOTE = ("note: * the runs of a config there spread by more than 1.5x: the machine "
                 "changed speed during the runs, and a ratio of runs taken at different "
                 "speeds means little; run it again")


def unsteady(value_lists):
    """True when some list of positive run values spreads beyond SPREAD."""
    return any(v and min(v) > 0 and max(v) / min(v) > SPREAD for v in value_lists)


def paired(ferry_runs, peer_runs, best=min):
    """Ferry / best peer, run by run: ferry_runs maps a run to Ferry's value,
    peer_runs a peer to such a map; best picks the best peer value (min for
    times, max for rates). Returns (the median of the per-run ratios, or
    None when no run pairs; whether Ferry's runs or those of a peer a ratio
    used spread beyond SPREAD). A slower peer's noise does not count."""
    ratios, used = [], set()
    for run, fv in ferry_runs.items():
        pv = [(v[run], p) for p, v in peer_runs.items() if run in v]
        if pv and best(pv)[0] > 0:
            ratios.append(fv / best(pv)[0])
            used.add(best(pv)[1])
    if not ratios:
        return None, False
    runs = [list(ferry_runs.values())] + [list(peer_runs[p].values()) for p in used]
    return statistics.median(ratios), unsteady(runs)
