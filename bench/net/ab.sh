#!/usr/bin/env bash
# A/B runs of bench/net/netlat over the fabric, interleaved, medians.
#
#   bench/net/ab.sh [-r ROUNDS] [-s SIZES] [-n ITERS] [-b] [-B WINDOWS] [-N] [-F] CONFIG...
#
# -b: also streaming bandwidth, over WINDOWS windows of 64 messages if -B
# is given (netlat's default is short: 50 windows below 64 KiB).
# -N: one rank on each of 2 test hosts (network namespaces joined by a
# veth bridge, tests/launch/netns/fy_netns.sh -c; needs root), launched as
# tests/launch/netns/fy_netns_args.sh says, each host bound to a CPU of its
# own as a node has its own cores; without it both ranks run on this
# host, bound to a core each.
# CONFIG is one of
#   ferry[@INSTALL][+VAR=val...]   Ferry with FERRY_NOLOCAL=1 from INSTALL
#                                  (default ./install), extra environment
#                                  after each '+', e.g.
#                                  ferry@/tmp/base  ferry+FERRY_OFI_RNDV=write;
#                                  ferry+LD_LIBRARY_PATH=.peers/mpich-ofi/lib/mpich
#                                  runs Ferry on the libfabric that the
#                                  mpich-ofi peer bundles (2.5: its tcp
#                                  provider is 1.17's net, renamed)
#   ompi                           Open MPI, ob1 + tcp BTL (bound to cores on one host)
#   mpich                          MPICH (Debian's, ch4:ucx) with UCX_TLS=tcp,self
#   fi[+VAR=val...]                a ping-pong over libfabric's net provider
#                                  alone, no MPI (bench/net/fipp.c; FI_PROVIDER
#                                  given after '+' chooses another), an RDM
#                                  endpoint, timed and summarised as netlat
#                                  does (median of every round trip; with -b
#                                  a window of 64 sends as netlat -b): what
#                                  the provider alone costs.
#                                  Server on the first test host (or core
#                                  0), client on the second (core 1).
#   mpich-ofi[@PREFIX][+VAR=val...] MPICH's ch4:ofi device over libfabric's
#                                  tcp provider (FI_PROVIDER=tcp unless
#                                  given), from PREFIX (default $FY_MPICH_OFI
#                                  or .peers/mpich-ofi, which
#                                  scripts/deps.sh --mpich-ofi installs)
# Each round runs every config once, then the next round. Round r starts
# at the r-th config and goes round the list, so that each config runs
# first, second, ... equally often; -F keeps the order given in every
# round. The table is the median over rounds of each run's median
# (latency) and of its bandwidth, the ratio of those medians to the first
# config's, and the median of the per-round ratios ("paired": robust to
# slow spells of the machine that span whole runs). The same config given
# three times, 9 rounds across the test hosts (2026-12-03), read paired
# latency 0.97-1.06 and bandwidth 0.83-1.07 at 64 B-256 KiB (in the fixed
# order: latency 0.84-1.05): smaller differences are not resolved. Meant to
# run under the machine lock; prints the load average at start and end.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/bench/scripts/common.sh" # FY_MPICH_OFI and how it runs
. "$here/net_lib.sh" # spec_of, exe_for, fipp_exe, fipp_places, fipp_cmd, FY_NET_MPICH_ENV
rounds=5 sizes=0,16K,1M n="" bw="" netns=0 fixed=0
limit=300 # seconds a run may take
usage() { sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2; }
args=("$@")
while getopts "r:s:n:bB:NF" o; do
  case $o in
    r) rounds=$OPTARG ;; s) sizes=$OPTARG ;; n) n="-n $OPTARG" ;; b) bw=-b ;; N) netns=1 ;; F) fixed=1 ;;
    B) n="$n -B $OPTARG" ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
# -N: run again inside the test hosts' namespaces (FY_NETNS_HOSTS is set there)
if [ $netns = 1 ] && [ -z "${FY_NETNS_HOSTS:-}" ]; then
  exec sh "$root/tests/launch/netns/fy_netns.sh" -c 2 -- bash "$0" "${args[@]}"
fi
place() { # IMPL -> launcher options, one per line (on one host: the peers bound
  # to a core each, as Ferry's mpiexec binds ranks that fit by default)
  local impl=${1%-ofi} # mpich-ofi: Hydra too
  [ "$impl" = fi ] && return 0 # fi_rows places its own
  if [ $netns = 1 ]; then sh "$root/tests/launch/netns/fy_netns_args.sh" "$impl" 2
  elif [ "$impl" = ompi ]; then printf '%s\n' --bind-to core
  elif [ "$impl" = mpich ]; then printf '%s\n' -bind-to core; fi
}
out=$(mktemp -d)
fi_rows() { # ENV... -> netlat's rows from fipp, the provider alone, all sizes in one run
  local exe ad=$out/fipp-names fipp_srv fipp_cli fipp_at fipp_run
  exe=$(fipp_exe) || return 1
  fipp_places $netns
  rm -rf "$ad" && mkdir -p "$ad"
  fipp_cmd server "$ad" "$exe" "$@"
  timeout $limit "${fipp_run[@]}" -s "$sizes" $n $bw >/dev/null &
  fipp_cmd client "$ad" "$exe" "$@"
  timeout $limit "${fipp_run[@]}" -s "$sizes" $n $bw
  local rc=$?
  wait
  return $rc
}
run() { # CONFIG -> CSV rows on stdout
  local cfg=$1 inst envs=() exe pl
  mapfile -t pl < <(place "${cfg%%[@+]*}")
  case $cfg in
    ompi)
      exe=$(exe_for ompi) || return 1
      env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout $limit \
        mpirun.openmpi --mca pml ob1 --mca btl tcp,self "${pl[@]}" -n 2 "$exe" -s "$sizes" $n $bw ;;
    mpich)
      exe=$(exe_for mpich) || return 1
      env "${FY_NET_MPICH_ENV[@]}" timeout $limit \
        mpiexec.hydra "${pl[@]}" -n 2 "$exe" -s "$sizes" $n $bw ;;
    fi|fi+*)
      spec_of "$cfg" ""
      fi_rows "${envs[@]}" ;;
    mpich-ofi*)
      spec_of "$cfg" "$FY_MPICH_OFI"
      exe=$(exe_for "$inst") || return 1
      env "${FY_MPICH_OFI_ENV[@]}" "${envs[@]}" \
        timeout $limit "$inst/bin/mpiexec.hydra" "${pl[@]}" -n 2 "$exe" -s "$sizes" $n $bw ;;
    ferry*)
      spec_of "$cfg" "$root/install"
      exe=$(exe_for "$inst") || return 1
      env -u FI_PROVIDER FERRY_NOLOCAL=1 LD_LIBRARY_PATH="$inst/lib" "${envs[@]}" timeout $limit \
        "$inst/bin/mpiexec" "${pl[@]}" -n 2 "$exe" -s "$sizes" $n $bw ;;
  esac
}
row='^[0-9]+(,[^,]*){6}' # netlat's CSV: bytes and 6 more fields
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
cfgs=("$@")
for r in $(seq "$rounds"); do
  for k in $(seq 0 $(($# - 1))); do
    i=$(( fixed ? k : (k + r - 1) % $# )) # rotated: round r starts at config r
    c=${cfgs[$i]}
    # netlat's CSV rows only: a launcher's notice on stdout is not a row
    run "$c" 2>>"$out/err" >"$out/one"
    rc=$?
    [ $rc = 0 ] || echo "round $r, $c: exit status $rc$( [ $rc = 124 ] && echo " (timed out after $limit s)")" >>"$out/failed"
    grep -E "$row" "$out/one" | sed "s|^|$i,$r,|" >>"$out/rows"
    grep -vE "$row|^bytes" "$out/one" >>"$out/other" # (a row cut short too)
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -s "$out/err" ] && { echo "# stderr:"; sed 's/^/#   /' "$out/err" | tail -5; }
[ -s "$out/failed" ] && sed 's/^/# failed run: /' "$out/failed"
[ -s "$out/other" ] && sort "$out/other" | uniq -c | sed 's/^/# other output: /' | head -5
touch "$out/rows"
python3 - "$out/rows" "$@" <<'EOF'
import sys, statistics as S
rows = [l.strip().split(',') for l in open(sys.argv[1]) if l.strip()]
cfgs = sys.argv[2:]
data = {}
byround = {}
bwround = {}
for c, r, b, it, med, mn, bw, *rest in rows:
    data.setdefault((int(c), int(b)), []).append((float(med), float(mn), float(bw)))
    byround[(int(c), int(b), int(r))] = float(med)
    bwround[(int(c), int(b), int(r))] = float(bw)
sizes = sorted({b for _, b in data})
for b in sizes:
    base = data.get((0, b))
    print(f"size {b}:")
    for i, c in enumerate(cfgs):
        v = data.get((i, b))
        if not v: continue
        lat = S.median(x[0] for x in v); mn = min(x[1] for x in v); bw = S.median(x[2] for x in v)
        ratio = lat / S.median(x[0] for x in base) if base else 0
        # the same round's runs, paired: robust to the machine's slow spells
        pr = [byround[(i, b, r)] / byround[(0, b, r)] for (ci, bi, r) in list(byround)
              if ci == i and bi == b and (0, b, r) in byround]
        paired = S.median(pr) if pr else 0
        runs = ' '.join(f"{x[0]:.1f}" for x in v)
        pb = [bwround[(i, b, r)] / bwround[(0, b, r)] for (ci, bi, r) in list(bwround)
              if ci == i and bi == b and bwround.get((0, b, r))]
        bws = (f"  bw {bw:.3f} GB/s paired x{S.median(pb):.3f} (" + ' '.join(f"{x[2]:.2f}" for x in v) + ")") if bw else ""
        print(f"  {c:40s} lat {lat:8.2f} us  x{ratio:.3f} paired x{paired:.3f}  min {mn:7.2f}  runs [{runs}]{bws}")
EOF
rm -rf "$out"
