#!/usr/bin/env bash
# Network benchmarks: Ferry's ofi transport against MPICH and Open MPI over
# TCP, interleaved, medians and ratios.
#
#   bench/scripts/compare_net.sh [--runs N] [--quick] [--netns] [--configs "..."]
#                                [--benches "pingpong late both"] [--max BYTES]
#
# Configs (2 ranks):
#   ferry-net   Ferry with FERRY_NOLOCAL=1 and its default provider (net on
#               libfabric 1.17; every message through libfabric, also on
#               one host)
#   ferry-rxm   the same over FERRY_OFI_PROVIDER="tcp;ofi_rxm" (not in the
#               default set)
#   mpich-tcp   Debian's MPICH 4.0.2, whose device is ch4:ucx (not ch4:ofi:
#               `mpichversion`), with UCX_TLS=tcp,self; on one host also
#               MPIR_CVAR_ODD_EVEN_CLIQUES=1, without which its own
#               shared-memory path carries the messages (UCX_TLS does not
#               reach it)
#   ompi-tcp    Open MPI with --mca pml ob1 --mca btl tcp,self
#   mpich-ofi   MPICH 5.0.2's ch4:ofi device over libfabric's tcp provider
#               (PyPI's mpich wheel, which bundles libfabric 2.5, whose tcp
#               is 1.17's net renamed: scripts/deps.sh --mpich-ofi), also
#               with MPIR_CVAR_ODD_EVEN_CLIQUES=1; skipped with a note when
#               it is not installed
# Where: "local" = both ranks on this host (loopback TCP). --netns adds
# "hosts" = one rank on each of 2 test hosts (network namespaces joined by a
# veth bridge, tests/launch/netns/fy_netns.sh -c; needs root; each host
# bound to a CPU of its own, as a node has its own cores): Ferry through its
# mpiexec -launcher-exec, MPICH through mpiexec.hydra -launcher-exec, Open
# MPI through mpirun with the hosts' launcher wrapper as its rsh agent
# (tests/launch/netns/fy_netns_args.sh).
# Benchmarks: bench/pingpong (latency, streaming bandwidth),
# bench/overlap/late (receiver-first, late sender, d = 50 us: overlap %) and
# bench/overlap/overlap -t eq3 -o rf -c 300 ("both": receiver first, both
# ranks compute 300 us between posting and waiting, as in a halo exchange:
# the time of one exchange per side, where CPU an agent takes from the
# computing peer shows; with 2 ranks on 2 cores no library can overlap it).
# --benches runs only those of the three, --max caps pingpong's sizes (a
# focused look at small messages takes about a minute a round).
# Every round runs every config once (interleaved, each round starting at
# the next config: common.sh's rotated); the table gives the
# median over rounds and Ferry / best peer two ways: the ratio of the
# medians, and the median of each round's ratio ("paired", marked * where
# the machine changed speed during the runs: bench/scripts/net_table.py).
# Output:
# bench/results/net/net-<stamp>.csv and .txt. Note the load average printed
# at the top: on a shared machine the figures are noisy.
set -uo pipefail
. "$(dirname "$0")/common.sh"

runs=3
quick=0
netns=0
configs="ferry-net mpich-tcp mpich-ofi ompi-tcp"
benches="pingpong late both"
maxb=4194304
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift ;;
    --quick) quick=1 ;;
    --netns) netns=1 ;;
    --configs) configs=$2; shift ;;
    --benches) benches=$2; shift ;;
    --max) maxb=$2; shift ;;
    --inside-netns) netns=2 ;;  # internal: re-run under fy_netns.sh
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if [ $netns = 1 ]; then
  args=(--runs "$runs" --configs "$configs" --benches "$benches" --max "$maxb" --inside-netns)
  [ $quick = 1 ] && args+=(--quick)
  exec sh "$FY_ROOT/tests/launch/netns/fy_netns.sh" -c 2 -- bash "$0" "${args[@]}"
fi

sel=()
for c in $configs; do
  case $c in
    ferry-net|ferry-rxm) impl_available ferry && sel+=("$c") || fy_note "Ferry not installed: skipping $c" ;;
    mpich-tcp) impl_available mpich && sel+=("$c") || fy_note "MPICH not installed: skipping $c" ;;
    mpich-ofi) impl_available mpich-ofi && sel+=("$c") ||
                 fy_note "MPICH with ch4:ofi not installed (scripts/deps.sh --mpich-ofi): skipping $c" ;;
    ompi-tcp) impl_available ompi && sel+=("$c") || fy_note "Open MPI not installed: skipping $c" ;;
    *) fy_note "unknown config $c" ;;
  esac
done
[ ${#sel[@]} -gt 0 ] || { fy_note "nothing to run"; exit 1; }

outdir=$FY_RESULTS/net
mkdir -p "$outdir"
stamp=$(date +%Y%m%d-%H%M%S)
csv=$outdir/net-$stamp.csv
log=$outdir/net-$stamp.log
: >"$log"
if [ $quick = 1 ]; then ppargs=(-q -m "$maxb"); lateargs=(-n 15 -s 64K,1M,4M -d 50)
  bothargs=(-t eq3 -o rf -c 300 -n 60 -s 64K,256K,1M)
else ppargs=(-t 0.1 -m "$maxb"); lateargs=(-n 40 -s 64K,256K,1M,4M -d 50)
  bothargs=(-t eq3 -o rf -c 300 -n 200 -s 64K,256K,1M,4M); fi

# launch CONFIG WHERE EXE ARGS...
launch_net() {
  local cfg=$1 where=$2; shift 2
  fy_netns_args=()
  case $cfg in
    ferry-net|ferry-rxm)
      local prov=auto
      [ "$cfg" = ferry-rxm ] && prov="tcp;ofi_rxm"
      [ "$where" = hosts ] && netns_args ferry 2
      env -u FI_PROVIDER FERRY_NOLOCAL=1 FERRY_OFI_PROVIDER="$prov" \
          LD_LIBRARY_PATH="$FY_INSTALL/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
          timeout "$FY_RUN_TIMEOUT" "$FY_INSTALL/bin/mpiexec" "${fy_netns_args[@]}" -n 2 "$@" ;;
    mpich-tcp)
      local m=(-bind-to core)
      [ "$where" = hosts ] && netns_args mpich 2 && m=("${fy_netns_args[@]}")
      env UCX_TLS=tcp,self MPIR_CVAR_ODD_EVEN_CLIQUES=1 timeout "$FY_RUN_TIMEOUT" mpiexec.hydra "${m[@]}" -n 2 "$@" ;;
    mpich-ofi)
      local m=(-bind-to core)
      [ "$where" = hosts ] && netns_args mpich 2 && m=("${fy_netns_args[@]}")
      env "${FY_MPICH_OFI_ENV[@]}" \
          timeout "$FY_RUN_TIMEOUT" "$FY_MPICH_OFI/bin/mpiexec.hydra" "${m[@]}" -n 2 "$@" ;;
    ompi-tcp)
      local m=(--bind-to core)
      [ "$where" = hosts ] && netns_args ompi 2 && m=("${fy_netns_args[@]}")
      env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout "$FY_RUN_TIMEOUT" \
          mpirun.openmpi --mca pml ob1 --mca btl tcp,self "${m[@]}" -n 2 "$@" ;;
  esac
}

# run_one CONFIG WHERE RUN BENCH EXE ARGS...: appends "bench,config,where,run,<csv row>"
run_one() {
  local cfg=$1 where=$2 run=$3 bench=$4; shift 4
  local tmp rc
  tmp=$(mktemp)
  launch_net "$cfg" "$where" "$@" >"$tmp" 2>>"$log"
  rc=$?
  { echo "== $bench $cfg $where run $run (exit $rc)"; cat "$tmp"; } >>"$log"
  [ $rc -eq 0 ] || fy_note "$bench $cfg $where: exit $rc (see $log)"
  grep -v '^#' "$tmp" | tail -n +2 | grep -v '^$' | sed "s/^/$bench,$cfg,$where,$run,/" >>"$csv"
  rm -f "$tmp"
}

wheres=local
if [ $netns = 2 ]; then wheres="local hosts"; fi
pp=$(build ferry pingpong "$FY_BENCH/pingpong/pingpong.c") || exit 1
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
: >"$csv"
for run in $(seq "$runs"); do
  for where in $wheres; do
    for cfg in $(rotated "$run" "${sel[@]}"); do
      impl=$(impl_of "$cfg")
      ppx=$(build "$impl" pingpong "$FY_BENCH/pingpong/pingpong.c") || continue
      latex=$(build "$impl" late "$FY_BENCH/overlap/late.c") || continue
      ovx=$(build "$impl" overlap "$FY_BENCH/overlap/overlap.c") || continue
      fy_note "run $run/$runs: $cfg $where"
      for b in $benches; do
        case $b in
          pingpong) run_one "$cfg" "$where" "$run" pingpong "$ppx" "${ppargs[@]}" ;;
          late) run_one "$cfg" "$where" "$run" late "$latex" "${lateargs[@]}" ;;
          both) run_one "$cfg" "$where" "$run" both "$ovx" "${bothargs[@]}" ;;
          *) fy_note "unknown bench $b" ;;
        esac
      done
    done
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
: "$pp"
python3 "$FY_BENCH/scripts/net_table.py" "$csv" | tee "${csv%.csv}.txt"
echo "CSV: $csv"
