#!/usr/bin/env python3
"""Summarise the mpi4py logs written by scripts/conformance.sh.

Each log is one module at one process count; every rank prints unittest's
summary, and the worst rank counts. A log without a summary (the job
aborted or timed out) counts as one error."""
import os
import re
import sys


def parse(path):
    if not os.path.exists(path):
        return None
    text = open(path, errors="replace").read()
    # (unanchored: two ranks' summaries can share a line, "----Ran 16 tests")
    ran = [int(n) for n in re.findall(r"Ran (\d+) tests? in ", text)]
    if not ran:
        return {"pass": 0, "fail": 0, "error": 1, "skip": 0, "aborted": True}
    worst = None
    for m in re.finditer(r"^(OK|FAILED)(?: \(([^)]*)\))?$", text, re.M):
        counts = dict(failures=0, errors=0, skipped=0, expected_failures=0)
        for kv in (m.group(2) or "").split(","):
            if "=" in kv:
                k, v = kv.strip().split("=")
                counts[k] = int(v)
        if worst is None or counts["failures"] + counts["errors"] > worst["failures"] + worst["errors"]:
            worst = counts
    if worst is None:
        # ranks' lines can interleave ("OKOK"): then the job's exit status decides
        rc = open(path + ".rc").read().strip() if os.path.exists(path + ".rc") else ""
        if rc == "0" and re.search(r"^(?:OK)+", text, re.M):
            worst = dict(failures=0, errors=0, skipped=0)
        else:
            return {"pass": 0, "fail": 0, "error": 1, "skip": 0, "aborted": True}
    # a rank's "OK (skipped=N)" may be the line another rank's output broke
    skips = [int(k) for k in re.findall(r"\(skipped=(\d+)\)", text)]
    worst["skipped"] = max([worst["skipped"]] + skips)
    n = max(ran)
    bad = worst["failures"] + worst["errors"]
    # subtests can fail several times within one test: never below zero
    return {"pass": max(0, n - bad - worst["skipped"]), "fail": worst["failures"],
            "error": worst["errors"], "skip": worst["skipped"], "aborted": False}


def fmt(r):
    if r is None:
        return "-"
    if r["aborted"]:
        return "aborted"
    s = f"{r['pass']}"
    if r["fail"] or r["error"]:
        s += f" F{r['fail'] + r['error']}"
    if r["skip"]:
        s += f" s{r['skip']}"
    return s


def main():
    logs, xfile, nps = sys.argv[1], sys.argv[2], sys.argv[3].split()
    modules = sys.argv[4:]
    xfail = set()
    if os.path.exists(xfile):
        for line in open(xfile):
            line = line.split("#")[0].strip()
            if line:
                xfail.add(line)
    cols = [(impl, np) for np in nps for impl in ("ferry", "mpich")]
    head = ["module"] + [f"{i} n{np}" for i, np in cols]
    rows, totals, regress = [], {c: [0, 0, 0] for c in cols}, []
    for mod in modules:
        row = [mod + (" (xfail)" if mod in xfail else "")]
        for c in cols:
            r = parse(os.path.join(logs, f"{c[0]}.np{c[1]}.{mod}.log"))
            row.append(fmt(r))
            if r:
                totals[c][0] += r["pass"]
                totals[c][1] += r["fail"] + r["error"]
                totals[c][2] += r["skip"]
        for np in nps:
            f = parse(os.path.join(logs, f"ferry.np{np}.{mod}.log"))
            m = parse(os.path.join(logs, f"mpich.np{np}.{mod}.log"))
            if f and (f["fail"] or f["error"]) and not (m and (m["fail"] or m["error"])) \
                    and mod not in xfail:
                regress.append(f"{mod} n{np}")
        rows.append(row)
    rows.append(["total pass/fail/skip"] + [f"{t[0]}/{t[1]}/{t[2]}" for t in totals.values()])
    width = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    print("mpi4py test suite: passed, F = failures+errors, s = skipped")
    for r in [head] + rows:
        print("  ".join(x.ljust(w) for x, w in zip(r, width)))
    if regress:
        print("Ferry fails where MPICH passes:", ", ".join(regress))
        sys.exit(1)
    print("No module fails on Ferry where MPICH passes (xfail modules excepted).")


main()
