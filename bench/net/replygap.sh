#!/usr/bin/env bash
# The time a library takes to answer a message, between its system calls:
# from the read that brings a ping-pong's message to the send of the
# answer, on the answering rank, over TCP on this host.
#
#   bench/net/replygap.sh [-s BYTES] [-t SECONDS] [-r ROUNDS] CONFIG...
#
# CONFIG: ferry[@INSTALL][+VAR=val...] (FERRY_NOLOCAL=1, libfabric's
# provider), fi[+VAR=val...] (bench/net/fipp.c: the provider alone, no
# MPI) or mpich (Debian's, UCX over TCP). Each runs a long ping-pong of
# BYTES (default 8) with its two sides bound to cores 0 and 1; after 2 s
# `perf record -e raw_syscalls:sys_enter,raw_syscalls:sys_exit` follows
# the answering thread for SECONDS (default 1), and the gap from each
# read that returned data to the next send is summarised over all rounds:
# minimum, 1st and 10th percentiles, median, 90th percentile, in
# microseconds, then each run's median. The tracepoints add to every gap,
# the same for every library, so the differences between configs are what
# to read. Within a run the gaps are tight (10th percentile to median
# within 0.1 us), but the machine has spells, minutes long, in which every
# library's gaps move 0.6-1 us up, for part of a run or all of it (runs
# of the same build on 2026-12-07, evening: Ferry's run medians
# 1.67-1.84 us in some sets, 2.1-3.1 in others; the provider alone's
# 1.28-2.11): the overall median then says which config met more of them.
# The 1st percentile moved less, and with every config of a set alike
# (8 bytes, five sets: Ferry 1.65-1.74, the provider alone 1.27-1.32,
# MPICH over UCX 1.27; at 1 KiB 1.81, 1.31, 1.31): read it within a set
# ("p1 - first config's", resolving about 0.03 us), and the run medians
# for the spells. ROUNDS (default 3) repeats the configs
# interleaved. Needs root (perf on tracepoints) and linux-perf.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
size=8 secs=1 rounds=3
usage() { sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2; }
while getopts "s:t:r:" o; do
  case $o in s) size=$OPTARG ;; t) secs=$OPTARG ;; r) rounds=$OPTARG ;; *) usage ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
command -v perf >/dev/null || { echo "replygap.sh: perf not found (scripts/deps.sh --pkg=linux-perf)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. "$here/net_lib.sh" # spec_of, exe_for, fipp_exe, fipp_places, fipp_cmd, FY_NET_MPICH_ENV
iters=3000000 # (the run is killed once traced; netlat keeps one double a round trip)

answerer() { # EXE-PATTERN -> the pid of the answering side (rank 1, or fipp's server)
  local p
  for p in $(pgrep -f "$1"); do
    if [[ $1 == *fipp* ]] || tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'PMI_RANK=1'; then
      echo "$p"
      return 0
    fi
  done
  return 1
}
one() { # CONFIG -> trace file of the answering thread
  local cfg=$1 inst envs exe pat pid fipp_srv fipp_cli fipp_at fipp_run
  spec_of "$cfg" "$root/install"
  case ${cfg%%[@+]*} in
    ferry)
      exe=$(exe_for "$inst") || return 1
      env -u FI_PROVIDER FERRY_NOLOCAL=1 LD_LIBRARY_PATH="$inst/lib" "${envs[@]}" \
        "$inst/bin/mpiexec" -n 2 "$exe" -s "$size" -n $iters >/dev/null 2>&1 &
      pat="^$exe" ;;
    mpich)
      exe=$(exe_for mpich) || return 1
      env "${FY_NET_MPICH_ENV[@]}" "${envs[@]}" \
        mpiexec.hydra -bind-to core -n 2 "$exe" -s "$size" -n $iters >/dev/null 2>&1 &
      pat="^$exe" ;;
    fi)
      exe=$(fipp_exe) || return 1
      fipp_places 0
      rm -rf "$out/names" && mkdir "$out/names"
      fipp_cmd server "$out/names" "$exe" "${envs[@]}"
      "${fipp_run[@]}" -s "$size" -n $iters >/dev/null 2>&1 &
      fipp_cmd client "$out/names" "$exe" "${envs[@]}"
      "${fipp_run[@]}" -s "$size" -n $iters >/dev/null 2>&1 &
      pat="^$exe -r server" ;;
    *) echo "replygap.sh: unknown config $cfg" >&2; return 1 ;;
  esac
  sleep 2
  pid=$(answerer "$pat") || { echo "replygap.sh: $cfg: no answering process found" >&2; pkill -f "$pat"; wait; return 1; }
  perf record -q -o "$out/perf.data" -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -t "$pid" -- sleep "$secs" \
    >/dev/null 2>&1
  # (the launcher ends the job once a rank is gone)
  pkill -f "${pat%% -r server}"
  wait
  perf script --ns -i "$out/perf.data" 2>/dev/null
}
echo "# $size-byte ping-pong, answering thread traced ${secs} s a run; load average $(cut -d' ' -f1-3 /proc/loadavg)"
cfgs=("$@")
for r in $(seq "$rounds"); do
  for k in $(seq 0 $(($# - 1))); do
    i=$(((k + r - 1) % $#))
    one "${cfgs[$i]}" >"$out/trace" || continue
    python3 - "$out/trace" "$i" "$r" >>"$out/gaps" <<'EOF'
import re, sys
RECV = {0, 17, 19, 45, 47}   # read pread64 readv recvfrom recvmsg
SEND = {1, 18, 20, 44, 46}   # write pwrite64 writev sendto sendmsg
t0 = None
for l in open(sys.argv[1]):
    m = re.search(r'\s(\d+\.\d+):\s+raw_syscalls:sys_(enter|exit):\s+NR (\d+)(?:.*= (-?\d+))?', l)
    if not m:
        continue
    t, kind, nr = float(m.group(1)), m.group(2), int(m.group(3))
    if kind == 'exit' and nr in RECV and m.group(4) and int(m.group(4)) > 0:
        t0 = t
    elif kind == 'enter' and nr in SEND and t0 is not None:
        print(sys.argv[2], sys.argv[3], round((t - t0) * 1e6, 3))
        t0 = None
EOF
  done
done
python3 - "$out/gaps" "$@" <<'EOF'
import sys, statistics as S
cfgs = sys.argv[2:]
g, runs = {}, {}
for l in open(sys.argv[1]):
    i, r, v = l.split()
    g.setdefault(int(i), []).append(float(v))
    runs.setdefault(int(i), {}).setdefault(int(r), []).append(float(v))
base = None
for i, c in enumerate(cfgs):
    v = sorted(g.get(i, []))
    if not v:
        print(f"  {c:40s} no answers traced")
        continue
    n = len(v)
    med = v[n // 2]
    if base is None:
        base = v[n // 100]
    rm = " ".join(f"{S.median(runs[i][r]):.2f}" for r in sorted(runs[i]))
    print(f"  {c:40s} n={n:7d}  min {v[0]:.2f}  p1 {v[n // 100]:.2f}  p10 {v[n // 10]:.2f}  median {med:.2f}"
          f"  p90 {v[9 * n // 10]:.2f} us  p1 - first config's {v[n // 100] - base:+.2f}  run medians [{rm}]")
EOF
