#!/bin/sh
# fy_netns_args.sh IMPL [NP]: prints, one per line, the launcher options
# with which IMPL's mpiexec places ranks on the test hosts of fy_netns.sh
# (run it inside fy_netns.sh: it reads the FY_NETNS_* variables). IMPL is
# ferry, mpich or ompi; NP, the number of ranks, matters to ompi only.
#
# The one place that says how each MPI is launched on the test hosts, for
# every script that runs peers there (bench/scripts/common.sh,
# bench/nas/run.sh, scripts/scalapack.sh, scripts/conformance.sh). Bash
# reads it with `mapfile -t`, sh by word splitting (the options hold no
# blanks unless the checkout's path does).
#
# - Ranks go to the hosts one per host in turn, and no launcher binds
#   them: the hosts share this machine's cores, and bound, each host would
#   put its first rank on core 0. Under fy_netns.sh -c (the benchmarks) the
#   hosts' launcher wrapper binds each host's processes to the host's own
#   share of the CPUs instead.
# - Ferry and MPICH start them through the hosts' launcher wrapper
#   (FY_NETNS_EXEC); Ferry is told the address the hosts reach its PMI
#   server by, MPICH the bridge to use.
# - Open MPI is given the hosts by address (their names do not resolve),
#   the wrapper as its rsh agent and the bridge's network for its daemons
#   and TCP traffic. Each host gets an equal share of this machine's CPUs
#   as slots (at least one), so Open MPI sees itself oversubscribed (and
#   yields when idle) exactly when NP exceeds the CPUs, as on one host.
# Exit status 2 on a usage error or outside fy_netns.sh.
set -u
impl=${1:-}
np=${2:-1}
[ -n "${FY_NETNS_HOSTS:-}" ] || { echo "fy_netns_args.sh: run inside tests/launch/netns/fy_netns.sh" >&2; exit 2; }
case "$np" in ''|*[!0-9]*|0) echo "fy_netns_args.sh: NP must be a positive number" >&2; exit 2 ;; esac
case "$impl" in
  ferry)
    printf '%s\n' -launcher-exec "$FY_NETNS_EXEC" -pmi-host "$FY_NETNS_GW" -hosts "$FY_NETNS_HOSTS" -bind-to none ;;
  mpich)
    printf '%s\n' -launcher-exec "$FY_NETNS_EXEC" -iface "$FY_NETNS_BRIDGE" -hosts "$FY_NETNS_HOSTS" -bind-to none ;;
  ompi)
    nh=$(echo "$FY_NETNS_ADDRS" | tr , '\n' | wc -l)
    slots=$(( $(nproc) / nh )); [ "$slots" -ge 1 ] || slots=1
    net=${FY_NETNS_GW%.*}.0/24
    printf '%s\n' --host "$(echo "$FY_NETNS_ADDRS" | sed "s/\(,\|\$\)/:$slots\1/g")" --map-by node --bind-to none
    [ "$np" -gt $(( slots * nh )) ] && echo --oversubscribe
    printf '%s\n' --mca plm_rsh_agent "$FY_NETNS_EXEC" --mca oob_tcp_if_include "$net" \
      --mca btl_tcp_if_include "$net" ;;
  *) echo "usage: fy_netns_args.sh ferry|mpich|ompi [NP]" >&2; exit 2 ;;
esac
exit 0
