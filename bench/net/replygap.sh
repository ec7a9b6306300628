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
# read that returned data to the next send is summarised: minimum, 10th
# percentile, median, 90th percentile, in microseconds, over all rounds.
# The tracepoints add to every gap, the same for every library, so the
# differences between configs are what to read. Within a run the gaps
# are tight (10th percentile to median within 0.1 us) but some runs of
# the machine put a mode about 1 us slower beside it, for any library;
# ROUNDS (default 3) repeats the configs interleaved, and the medians
# over 4 rounds moved by less than 0.1 us (2026-12-07: fi 1.31, Ferry
# 1.78, MPICH over UCX 1.31 at 8 bytes), where latency runs on this VM
# resolve 5 %. Needs root (perf on tracepoints) and linux-perf.
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
. "$here/net_lib.sh" # spec_of, exe_for, fipp_exe, fipp_prov, FY_NET_MPICH_ENV
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
  local cfg=$1 inst envs exe pat pid prov
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
      prov=$(fipp_prov "${envs[@]}")
      rm -rf "$out/names" && mkdir "$out/names"
      env "${envs[@]}" taskset -c 0 "$exe" -r server -d "$out/names" -p "$prov" -a 127.0.0.1 -s "$size" -n $iters >/dev/null 2>&1 &
      env "${envs[@]}" taskset -c 1 "$exe" -r client -d "$out/names" -p "$prov" -a 127.0.0.1 -s "$size" -n $iters >/dev/null 2>&1 &
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
    python3 - "$out/trace" "$i" >>"$out/gaps" <<'EOF'
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
        print(sys.argv[2], round((t - t0) * 1e6, 3))
        t0 = None
EOF
  done
done
python3 - "$out/gaps" "$@" <<'EOF'
import sys, statistics as S
cfgs = sys.argv[2:]
g = {}
for l in open(sys.argv[1]):
    i, v = l.split()
    g.setdefault(int(i), []).append(float(v))
base = None
for i, c in enumerate(cfgs):
    v = sorted(g.get(i, []))
    if not v:
        print(f"  {c:40s} no answers traced")
        continue
    n = len(v)
    med = v[n // 2]
    if base is None:
        base = med
    print(f"  {c:40s} n={n:7d}  min {v[0]:.2f}  p10 {v[n // 10]:.2f}  median {med:.2f}  p90 {v[9 * n // 10]:.2f} us"
          f"  median - first config's {med - base:+.2f}")
EOF
