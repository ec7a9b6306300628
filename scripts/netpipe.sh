#!/usr/bin/env bash
# NetPIPE 3.7 as Debian builds it (packages netpipe-mpich2 and
# netpipe-openmpi): NPmpich2, linked against libmpich.so.12, runs unchanged
# on Ferry through LD_LIBRARY_PATH=install/lib (Ferry's libmpich.so.12),
# and on MPICH itself; NPopenmpi runs on Open MPI.
#
#   scripts/netpipe.sh [--runs N] [--upper BYTES] [--configs "ferry mpich ompi ompi-nocma"]
#                      [--no-integrity] [--integrity-only] [--nolocal] [--np-args "ARGS"]
#                      [--netns]
#
# 1. Integrity (Ferry only): NPmpich2 -i, which fills every message with a
#    pattern and checks it on arrival, in each of NetPIPE's MPI modes
#    (plain, -a preposted receives, -S synchronous sends, -a -2 both
#    directions at once, -O 1,3 unaligned buffers) up to --upper bytes; any
#    "failed" line fails the script. Left out because NetPIPE 3.7 itself
#    does not support them (MPICH 4.0.2 behaves the same): -z
#    (MPI_ANY_SOURCE) hangs after its first size (one rank leaves the loop),
#    -2 without -a is two blocking sends against each other (it deadlocks
#    once messages go by rendezvous, as NetPIPE warns), -B refuses -i.
# 2. Performance: --runs interleaved rounds (each starting at the next
#    config) of a ping-pong sweep (-p 0, no perturbed sizes) to --upper
#    bytes for every config; prints latency
#    (one-way time, us) and bandwidth (Mbit/s as NetPIPE reports it) at a few
#    sizes, medians over the rounds with their range, and Ferry / best peer
#    (time ratio: below 1 Ferry is faster).
# --nolocal runs Ferry with FERRY_NOLOCAL=1 (everything through libfabric);
# --np-args passes extra NetPIPE options to every performance run (e.g. "-I"
# to invalidate the cache, "-a" for preposted receives).
# --netns runs the two ranks on two test hosts (network namespaces on this
# machine joined by a veth bridge, tests/launch/netns/fy_netns.sh -c; root;
# each host bound to a CPU of its own): Ferry over libfabric, MPICH over
# UCX's tcp, Open MPI over its tcp BTL.
# Output: bench/results/netpipe/<config>-<round>.out (NetPIPE's own files:
# bytes, Mbit/s, seconds) and netpipe-<stamp>.txt with the table.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/scripts/common.sh"

orig=("$@")
runs=3 upper=8388608 configs="ferry mpich ompi ompi-nocma"
integrity=1 perf=1 nolocal=0 npargs= netns=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift ;;
    --upper) upper=$2; shift ;;
    --configs) configs=$2; shift ;;
    --no-integrity) integrity=0 ;;
    --integrity-only) perf=0 ;;
    --nolocal) nolocal=1 ;;
    --np-args) npargs=$2; shift ;;
    --netns) netns=1 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "netpipe.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if [ $netns = 1 ] && [ -z "${FY_NETNS_HOSTS:-}" ]; then
  # the whole script again inside the test hosts' helper
  exec sh "$root/tests/launch/netns/fy_netns.sh" -c 2 -- bash "$0" "${orig[@]}"
fi
pkgs=(--pkg=netpipe-mpich2 --mpich)
case " $configs " in *" ompi"*) pkgs+=(--pkg=netpipe-openmpi --peers) ;; esac
"$root/scripts/deps.sh" "${pkgs[@]}" >&2 || exit 1
[ -x "$FY_INSTALL/bin/mpiexec" ] && [ -e "$FY_INSTALL/lib/libmpich.so.12" ] \
  || { echo "netpipe: Ferry not installed in $FY_INSTALL (run make)" >&2; exit 1; }
# shellcheck disable=SC2046
configs=$(filter_configs $configs)

out=$FY_RESULTS/netpipe${FY_NETNS_HOSTS:+-netns}
mkdir -p "$out"
stamp=$(date +%Y%m%d-%H%M%S)
[ $nolocal = 1 ] && export FERRY_NOLOCAL=1

exe_of() {
  case "$(impl_of "$1")" in
    ompi) command -v NPopenmpi ;;
    *) command -v NPmpich2 ;;
  esac
}

rc=0
if [ $integrity = 1 ] && [[ " $configs " == *" ferry "* ]]; then
  for mode in "" "-a" "-S" "-a -2" "-O 1,3"; do
    log=$out/integrity-$stamp.log
    # shellcheck disable=SC2086
    FY_RUN_TIMEOUT=300 launch ferry 2 "$(exe_of ferry)" -i -p 0 -n 10 -u "$upper" $mode -o /dev/null \
      >"$log.tmp" 2>&1
    st=$?
    cat "$log.tmp" >>"$log"
    n_ok=$(grep -c "Integrity check passed" "$log.tmp")
    n_bad=$(grep -ci "fail" "$log.tmp")
    if [ $st -ne 0 ] || [ "$n_bad" -gt 0 ] || [ "$n_ok" -eq 0 ]; then
      echo "integrity ${mode:-plain}: FAILED (exit $st, $n_ok sizes passed, $n_bad failures; log $log)"
      rc=1
    else
      echo "integrity ${mode:-plain}: $n_ok sizes passed (1 B to $upper B)"
    fi
    rm -f "$log.tmp"
  done
fi
[ $perf = 1 ] || exit $rc

for r in $(seq "$runs"); do
  # shellcheck disable=SC2086
  for cfg in $(rotated "$r" $configs); do
    fy_note "NetPIPE: $cfg (round $r of $runs)"
    # shellcheck disable=SC2086
    launch "$cfg" 2 "$(exe_of "$cfg")" -p 0 -u "$upper" $npargs -o "$out/$cfg-$r.out" \
      >"$out/$cfg-$r.log" 2>&1 || { fy_note "$cfg round $r failed (log $out/$cfg-$r.log)"; rc=1; }
  done
done

python3 - "$out" "$runs" $configs <<'EOF' | tee "$out/netpipe-$stamp.txt"
import os, statistics, sys
out, runs, cfgs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
data = {}  # cfg -> round -> {bytes: (mbps, seconds)}
for c in cfgs:
    for r in range(1, runs + 1):
        p = os.path.join(out, f"{c}-{r}.out")
        if not os.path.exists(p):
            continue
        d = {}
        for line in open(p):
            f = line.split()
            if len(f) >= 3:
                d[int(f[0])] = (float(f[1]), float(f[2]))
        if d:
            data.setdefault(c, {})[r] = d
sizes = [1, 8, 1024, 8192, 65536, 1048576, 4194304, 8388608]
sizes = [s for s in sizes if any(s in d for rr in data.values() for d in rr.values())]
def cell(c, s, k):
    v = [d[s][k] for d in data.get(c, {}).values() if s in d]
    if not v:
        return None, "-"
    m = statistics.median(v)
    if k == 1:
        return m, f"{m*1e6:.2f} [{min(v)*1e6:.2f}..{max(v)*1e6:.2f}]"
    return m, f"{m:.0f} [{min(v):.0f}..{max(v):.0f}]"
def ratio(s):
    # median over rounds of Ferry's time / the best peer's time in that round
    if "ferry" not in data:
        return "-"
    rs = []
    for r, d in data["ferry"].items():
        peers = [data[c][r][s][1] for c in data if c != "ferry" and r in data[c] and s in data[c][r]]
        if s in d and peers:
            rs.append(d[s][1] / min(peers))
    return f"{statistics.median(rs):.2f}" if rs else "-"
where = " across the test hosts " + os.environ["FY_NETNS_HOSTS"] if os.environ.get("FY_NETNS_HOSTS") else ""
print(f"NetPIPE ping-pong{where}, medians [min..max] over {runs} round(s); load average {os.getloadavg()[0]:.2f}")
w = 28
print("one-way time (us)")
print(f"{'bytes':>9} " + "".join(f"{c:>{w}}" for c in data) + f"{'Ferry/best':>12}")
for s in sizes:
    print(f"{s:>9} " + "".join(f"{cell(c, s, 1)[1]:>{w}}" for c in data) + f"{ratio(s):>12}")
print("bandwidth (Mbit/s)")
print(f"{'bytes':>9} " + "".join(f"{c:>{w}}" for c in data))
for s in sizes:
    print(f"{s:>9} " + "".join(f"{cell(c, s, 0)[1]:>{w}}" for c in data))
EOF
exit $rc
