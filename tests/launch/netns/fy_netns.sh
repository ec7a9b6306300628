#!/bin/sh
# Test hosts on one machine: network namespaces joined by veth pairs and a
# bridge, each with its own host name, for launching ranks "on other hosts".
#
#   fy_netns.sh [-c] [-r] N -- command [args...]
#
# creates N (2..3) hosts, runs command with
#   FY_NETNS_HOSTS  comma-separated host names (= namespace names), e.g.
#                   fyt1234a,fyt1234b
#   FY_NETNS_EXEC   launcher wrapper: "$FY_NETNS_EXEC host cmd args..." runs
#                   cmd on that host (use as mpiexec -launcher-exec, or
#                   mpiexec.hydra -launcher-exec)
#   FY_NETNS_BRIDGE the bridge (in this namespace) that joins the hosts
#   FY_NETNS_GW     this machine's address on that bridge (the address the
#                   hosts reach it by: give it to mpiexec -pmi-host)
#   FY_NETNS_ADDRS  the hosts' addresses, comma-separated, in order
#   FY_NETNS_CPUS   with -c: each host's CPUs, a CPU list per host in
#                   order, separated by blanks (e.g. "0 1")
#   FY_NETNS_ROUTER with -r: the router's namespace
# and removes everything afterwards, also when the command fails or the
# script is interrupted; what a run killed outright (SIGKILL) left behind
# is removed by the next run (the bridge's alias names its process).
# Exit status: the command's, or 77 (skip) with a "SKIP:" line when this
# machine does not allow namespaces (not root, no ip/unshare, no
# veth/bridge support), 2 on a usage error.
#
# -c gives each host its own share of the CPUs this script may use, as
# separate nodes have their own cores: FY_NETNS_EXEC binds what it starts
# on a host to that host's share (hosts take turns when they outnumber the
# CPUs). For benchmarks: without it the hosts' processes float over all
# the CPUs, the scheduler stacks ranks of different hosts on one core, and
# a rank that sleeps in a wait loses its core to another host's.
# FY_NETNS_TCP_CC=NAME in the environment sets the hosts' TCP congestion
# control (a namespace may use reno or this machine's default; the hosts
# otherwise inherit the default). The banner line names the one in use:
# under bbr, a VM image's choice, large transfers over the veth bridge
# are paced to a fraction of what reno gets (loss-based, as the cubic of
# most clusters).
#
# -r puts each host on a subnet of its own, joined to the others and to
# this machine by a router (a namespace of its own, forwarding), as nodes
# of a cloud or of an L3-routed cluster are: no two hosts share a subnet,
# and a host reaches another only through its default route.
#
# Addresses: 10.X.Y.0/24 with X.Y from the process id, so concurrent runs
# do not collide; .1 is the bridge, .11, .12, ... the hosts. With -r the
# /24 is cut in /26s: 10.X.Y.0/26 the bridge (.1, this machine) and the
# router's uplink (.2); host I (1..3) on 10.X.Y.(64I)/26 at .(64I+11)
# behind the router's .(64I+1) (hosts .75, .139, .203); this machine
# reaches the hosts by a route through the router over the bridge. Nothing
# is written outside the namespaces and the links named fy<id>*.
set -u
cpus=0 routed=0
while :; do
  case ${1:-} in
    -c) cpus=1; shift ;;
    -r) routed=1; shift ;;
    *) break ;;
  esac
done
n=${1:-}
[ "$#" -ge 3 ] && [ "$2" = "--" ] || { echo "usage: fy_netns.sh [-c] [-r] N -- command [args...]" >&2; exit 2; }
case "$n" in 2|3) ;; *) echo "fy_netns.sh: N must be 2 or 3" >&2; exit 2 ;; esac
shift 2

skip() { echo "SKIP: test hosts unavailable: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "network namespaces need root (uid $(id -u))"
for c in ip unshare hostname $( [ $cpus = 1 ] && echo taskset); do
  command -v $c >/dev/null 2>&1 || skip "$c not installed"
done

id=$(( $$ % 100000 ))
x=$(( 100 + $$ % 150 )); y=$(( ($$ / 150) % 250 ))
net=10.$x.$y
br=fyb$id
hosts=""; addrs=""; router=""
# host_addr I: the address of host I (1..3)
host_addr() { if [ $routed = 1 ]; then echo "$net.$((64 * $1 + 11))"; else echo "$net.$((10 + $1))"; fi; }
here=$(cd "$(dirname "$0")" && pwd)

# remove ID HOSTS...: the test hosts, bridge and veths of run ID.
remove() {
  rid=$1; shift
  for h in "$@"; do
    # Whatever still runs on a test host ends with it.
    pids=$(ip netns pids "$h" 2>/dev/null)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    ip netns del "$h" 2>/dev/null
    rm -rf "/etc/netns/$h"
  done
  ip link del "fyb$rid" 2>/dev/null
  for i in 1 2 3; do ip link del "fyv${rid}h$i" 2>/dev/null; done
  ip link del "fyv${rid}r" 2>/dev/null
}
cleanup() {
  trap - EXIT INT TERM HUP
  remove "$id" $hosts $router
}
# A run killed outright (SIGKILL: a test driver's timeout) could not clean
# up: its bridge's alias names its process, and what a run whose process is
# gone left behind is removed here (a live run's is never touched).
reap_stale() {
  for d in /sys/class/net/fyb*; do
    [ -e "$d" ] || continue
    owner=$(sed -n 's/^fy_netns pid \([0-9][0-9]*\)$/\1/p' "$d/ifalias" 2>/dev/null)
    [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null || continue
    rid=${d##*/fyb}
    echo "fy_netns.sh: removing the test hosts of an earlier run (process $owner is gone)" >&2
    remove "$rid" "fyt${rid}a" "fyt${rid}b" "fyt${rid}c" "fyt${rid}r"
  done
}
trap 'cleanup' EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap 'cleanup; exit 129' HUP

reap_stale
ip link add "$br" type bridge 2>/dev/null || skip "cannot create a bridge (ip link add type bridge)"
ip link set "$br" alias "fy_netns pid $$" 2>/dev/null
if [ $routed = 1 ]; then
  # The router: its uplink on the bridge at .2, forwarding (its own
  # namespace's setting: this machine's is left alone); this machine
  # reaches the hosts' subnets through it.
  router=fyt${id}r
  ip addr add "$net.1/26" dev "$br" && ip link set "$br" up || skip "cannot configure the bridge"
  ip netns add "$router" 2>/dev/null || skip "cannot create network namespaces (ip netns add)"
  ip link add "fyv${id}r" type veth peer name uplink netns "$router" 2>/dev/null || skip "cannot create veth pairs"
  ip link set "fyv${id}r" master "$br" && ip link set "fyv${id}r" up &&
    ip -n "$router" link set lo up && ip -n "$router" addr add "$net.2/26" dev uplink &&
    ip -n "$router" link set uplink up && ip netns exec "$router" sysctl -qw net.ipv4.ip_forward=1 &&
    ip route add "$net.0/24" via "$net.2" dev "$br" ||
    { echo "fy_netns.sh: cannot configure the router $router" >&2; exit 1; }
else
  ip addr add "$net.1/24" dev "$br" && ip link set "$br" up || skip "cannot configure the bridge"
fi
i=1
for s in a b c; do
  [ $i -gt "$n" ] && break
  h=fyt$id$s
  ip netns add "$h" 2>/dev/null || skip "cannot create network namespaces (ip netns add)"
  hosts="$hosts $h"
  if [ $routed = 1 ]; then
    # (host I on its own /26, its default route the router's address there)
    gw=$net.$((64 * i + 1))
    ip -n "$router" link add "h$i" type veth peer name eth0 netns "$h" 2>/dev/null ||
      skip "cannot create veth pairs"
    ip -n "$router" addr add "$gw/26" dev "h$i" && ip -n "$router" link set "h$i" up &&
      ip -n "$h" link set lo up && ip -n "$h" addr add "$(host_addr $i)/26" dev eth0 &&
      ip -n "$h" link set eth0 up && ip -n "$h" route add default via "$gw" ||
      { echo "fy_netns.sh: cannot configure host $h" >&2; exit 1; }
  else
    ip link add "fyv${id}h$i" type veth peer name eth0 netns "$h" 2>/dev/null ||
      skip "cannot create veth pairs"
    ip link set "fyv${id}h$i" master "$br" && ip link set "fyv${id}h$i" up &&
      ip -n "$h" link set lo up && ip -n "$h" addr add "$net.$((10 + i))/24" dev eth0 &&
      ip -n "$h" link set eth0 up && ip -n "$h" route add default via "$net.1" ||
      { echo "fy_netns.sh: cannot configure host $h" >&2; exit 1; }
  fi
  addrs="$addrs,$(host_addr $i)"
  i=$((i + 1))
done
# The hosts' names resolve on every host: `ip netns exec` mounts the files
# of /etc/netns/HOST over those of /etc (programs that pass a host name to
# one another, as MPI_Get_processor_name's answer to gethostbyname in
# MPICH's spawn/join; where /etc is read-only they do not resolve).
for h in $hosts; do
  mkdir -p "/etc/netns/$h" 2>/dev/null &&
    { printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n'
      j=1
      for g in $hosts; do printf '%s\t%s\n' "$(host_addr $j)" "$g"; j=$((j + 1)); done
    } > "/etc/netns/$h/hosts" 2>/dev/null || rm -rf "/etc/netns/$h"
done
ip netns exec "fyt${id}a" unshare --uts true 2>/dev/null || skip "cannot create UTS namespaces (unshare --uts)"
# The hosts must reach this machine before the test starts (links come up
# asynchronously): the bridge up with its ports, and a ping when ping exists.
try=0
while [ "$(cat /sys/class/net/$br/operstate 2>/dev/null)" != up ] && [ $try -lt 25 ]; do
  sleep 0.2; try=$((try + 1))
done
# (host h pings address a until it answers, 2 s at most)
ping_wait() {
  try=0
  until ip netns exec "$1" ping -c1 -W1 "$2" >/dev/null 2>&1; do
    try=$((try + 1))
    [ $try -ge 10 ] && { echo "fy_netns.sh: warning: host $1 gets no answer to a ping of $2" >&2; break; }
    sleep 0.2
  done
}
if command -v ping >/dev/null 2>&1; then
  for h in $hosts; do ping_wait "$h" "$net.1"; done
  # (-r: and each other host, through the router)
  for h in $([ $routed = 1 ] && echo $hosts); do
    for a in $(echo "${addrs#,}" | tr , ' '); do ping_wait "$h" "$a"; done
  done
fi

FY_NETNS_HOSTS=$(echo $hosts | tr ' ' ',')
FY_NETNS_EXEC=$here/fy_netns_exec.sh
FY_NETNS_BRIDGE=$br
FY_NETNS_GW=$net.1
FY_NETNS_ADDRS=${addrs#,}
export FY_NETNS_HOSTS FY_NETNS_EXEC FY_NETNS_BRIDGE FY_NETNS_GW FY_NETNS_ADDRS
notes=""
if [ $routed = 1 ]; then
  FY_NETNS_ROUTER=$router
  export FY_NETNS_ROUTER
  notes=", each on its own subnet behind the router $router"
fi
if [ $cpus = 1 ]; then
  # The allowed CPUs in order, split into N runs of consecutive ones (C >=
  # N), or one CPU per host in turn (C < N).
  FY_NETNS_CPUS=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr , '\n' |
    awk -F- -v n="$n" '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) cpu[k++] = c }
      END { for (h = 0; h < n; h++) {
              s = ""
              if (k >= n) { for (j = int(h * k / n); j < int((h + 1) * k / n); j++) s = s (s == "" ? "" : ",") cpu[j] }
              else s = cpu[h % k]
              printf "%s%s", (h ? " " : ""), s } }')
  [ -n "$FY_NETNS_CPUS" ] || { echo "fy_netns.sh: cannot read this process's CPUs" >&2; exit 1; }
  export FY_NETNS_CPUS
  notes=", CPUs $FY_NETNS_CPUS"
fi
if [ -n "${FY_NETNS_TCP_CC:-}" ]; then
  for h in $hosts; do
    ip netns exec "$h" sysctl -qw net.ipv4.tcp_congestion_control="$FY_NETNS_TCP_CC" 2>/dev/null || {
      echo "fy_netns.sh: cannot give the test hosts TCP congestion control '$FY_NETNS_TCP_CC' (FY_NETNS_TCP_CC): a namespace may use reno or this machine's default, $(sysctl -n net.ipv4.tcp_congestion_control 2>/dev/null)" >&2
      exit 2
    }
  done
fi
cc=$(ip netns exec "fyt${id}a" sysctl -n net.ipv4.tcp_congestion_control 2>/dev/null)
notes="$notes${cc:+, TCP congestion control $cc}"
echo "fy_netns.sh: test hosts $FY_NETNS_HOSTS ($FY_NETNS_ADDRS$notes), this machine $FY_NETNS_GW on $br"
"$@"
rc=$?
exit $rc
