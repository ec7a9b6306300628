#!/bin/sh
# MPI across test hosts: hosts.sh CASE MPIEXEC TESTBIN (run by fy_netns.sh,
# which sets FY_NETNS_*). Each run has a time limit; exit 0 pass, 1 fail.
#   pt2pt     2 hosts x 2 ranks: sendrecv ring, order, probe, cancel
#   mix       3 hosts (2+2+1 ranks): net_mix (ANY_SOURCE from shm and
#             fabric peers, split_type by host, a window across hosts and one on a host);
#             net_flood; net_ahead (1+1+1: rendezvous data sent ahead);
#             rma_nodes (one-sided communication across hosts, src/rma/am.c;
#             pef and interrupt: a target computing outside MPI serves;
#             FERRY_RMA_AM_INFLIGHT toward a target on the origin's host)
#   coll      3 hosts, 5 ranks: coll_all, coll_multi
#   progress  2 hosts, 1 rank each: receiver-first rendezvous without MPI
#             calls on the receiver (pef and interrupt with a draining
#             fabric agent); the default agent (auto), which finds both
#             hosts on this machine's CPUs and so only triggers, with a
#             receiver that computes, then waits; with the receiver
#             spinning on its buffer (unbound ranks), a draining agent
#             takes in large eager messages, the default one takes
#             them in on a CPU the sender's blocking wait lends, and,
#             told to pace every rendezvous, drains them at a pace; 2 hosts
#             (2+1 ranks):
#             blocking receives of a rank with both kinds of peer sleep
#             relayed by the fabric agent, or nap in mode none
#   bridge    3 hosts, each with a bridge with ports at one private
#             address, as docker0 while containers run, which libfabric
#             lists first: the job takes the network the hosts share
#             (4 ranks); pinned to the bridge (FI_<PROV>_IFACE), it ends
#             with a message naming the unreachable address instead of
#             hanging: after FERRY_OFI_CONNECT_TIMEOUT (2 s), and with
#             the default limit when the address refuses the rank's own
#             connection (after 5 s)
#   routed    2 hosts, each on a subnet of its own behind a router
#             (fy_netns.sh -r), each with the bridge of case bridge,
#             listed first: no entry shares a subnet with the other host,
#             and the job takes the interface the kernel routes to it by
#             (3 ranks, every one on eth0; before 2026-12-07 each took the
#             bridge and ended after 5 s with "no connection to rank N")
set -u
case=$1 mpiexec=$2 bin=$3
[ -n "${FY_NETNS_HOSTS:-}" ] || { echo "hosts.sh: needs fy_netns.sh"; exit 2; }
. "$(dirname "$0")/../../launch/netns/fy_netns_vars.sh"
# -bind-to none: the test hosts share this machine's cores (each would pin
# its first rank to core 0)
M="$mpiexec -launcher-exec $FY_NETNS_EXEC -pmi-host $FY_NETNS_GW -timeout 100 -bind-to none"
fail=0
# bridges HOST...: a bridge with a port at 172.31.0.1/16 on each host, as
# docker0 while containers run, and waits until libfabric lists it first
# on the first host (once it has carrier; ferry-info names the first).
bridges() {
  for h in "$@"; do
    # (the wrapper, as ssh, runs one command line)
    $FY_NETNS_EXEC "$h" "sh -c 'ip link add fypv0 type bridge && ip link add fypv1 type veth peer name fypv2 &&
      ip link set fypv1 master fypv0 && ip link set fypv1 up && ip link set fypv2 up &&
      ip addr add 172.31.0.1/16 dev fypv0 && ip link set fypv0 up'" || { echo "FAIL: no bridge on $h"; exit 1; }
  done
  i=0
  until $FY_NETNS_EXEC "$1" "$FY_FERRY_INFO" 2>/dev/null | grep -q "provider [^ ]* on fypv0"; do
    i=$((i + 1))
    [ $i -le 50 ] || { echo "FAIL: the bridge is not the first interface listed"; $FY_NETNS_EXEC "$1" "$FY_FERRY_INFO" | grep provider; exit 1; }
    sleep 0.1
  done
}
run() {
  echo "+ $*"
  out=$("$@" 2>&1); rc=$?
  echo "$out" | tail -n 4
  if [ $rc -ne 0 ] || ! echo "$out" | grep -q '^PASS'; then echo "FAIL: exit $rc"; fail=1; fi
}
case $case in
pt2pt)
  for p in sendrecv order probe cancel; do
    run $M -hosts "$H1:2,$H2:2" -n 4 "$bin/pt2pt/pt2pt_$p"
  done
  ;;
mix)
  run $M -hosts "$H1:2,$H2:2,$H3" -n 5 "$bin/net/net_mix"
  run $M -hosts "$H1:2,$H2:2,$H3" -n 5 "$bin/net/net_flood"
  # (one rank per host: every message crosses the fabric, its data ahead)
  run env FYTEST_EXPECT_AHEAD=1 $M -hosts "$H1,$H2,$H3" -n 3 "$bin/net/net_ahead"
  run env FERRY_PROGRESS=interrupt $M -hosts "$H1:2,$H2" -n 3 "$bin/net/net_mix"
  run $M -hosts "$H1:2,$H2:2,$H3" -n 5 "$bin/rma/rma_nodes"
  # (the busy target, rank 0, has a peer on its host, whose messages wake
  # the doorbell agent, or in pef the doorbell listener)
  run env FERRY_PROGRESS=interrupt $M -hosts "$H1:2,$H2" -n 3 "$bin/rma/rma_nodes"
  # (rank 1 reaches its target, rank 0, through the shared-memory
  # rendezvous: FERRY_RMA_AM_INFLIGHT bounds what waits there too)
  run env FERRY_RMA_AM_INFLIGHT=1m FERRY_RMA_AM_AGENT=0 FYTEST_THROTTLE=1 $M -hosts "$H1:2,$H2" -n 3 \
    "$bin/rma/rma_nodes"
  run $M -hosts "$H1:2,$H2:2,$H3" -n 5 "$bin/rma/rma_nodes_nb"
  run $M -hosts "$H1:2,$H2" -n 3 "$bin/rma/rma_sync_mix"
  run env FERRY_RMA_NATIVE=0 $M -hosts "$H1:2,$H2:2,$H3" -n 5 "$bin/rma/rma_sync_mix"
  ;;
coll)
  run $M -hosts "$H1:2,$H2:2,$H3" -n 5 "$bin/coll/coll_all"
  run $M -hosts "$H1:2,$H2:2,$H3" -n 5 "$bin/coll/coll_multi"
  ;;
progress)
  run env FERRY_OFI_AGENT=drain $M -hosts "$H1,$H2" -n 2 "$bin/progress/progress_async" 12
  run env FERRY_OFI_AGENT=drain FERRY_PROGRESS=interrupt $M -hosts "$H1,$H2" -n 2 "$bin/progress/progress_async" 12
  run env FERRY_STATS=1 $M -hosts "$H1,$H2" -n 2 "$bin/progress/progress_async" 6 compute
  # (two hosts of one machine: each rank counts both on its machine)
  n=$(echo "$out" | grep -c 'ofi:.* machine_ranks=2')
  [ "$n" -eq 2 ] || { echo "FAIL: $n of 2 ranks counted 2 ranks on their machine"; fail=1; }
  # The receiver spins on its buffer: a draining agent takes eager
  # messages in, kept off the spinning thread's CPU (unbound ranks); the
  # default agent, trigger-only here, drains every rendezvous at a pace.
  # (Both need the agent to run beside the spin: 2 CPUs.)
  if [ "$(nproc)" -ge 2 ]; then
    run env FERRY_OFI_AGENT=drain $M -hosts "$H1,$H2" -n 2 "$bin/progress/progress_async" 6 eager
    run env FERRY_OFI_PACE_MIN=64k FERRY_OFI_PACE_US=50 $M -hosts "$H1,$H2" -n 2 "$bin/progress/progress_async" 6
    # the default agent takes eager messages in on the CPU the sender's
    # next blocking wait lends (FERRY_OFI_LEND), across the hosts
    run $M -hosts "$H1,$H2" -n 2 "$bin/progress/progress_async" 6 eager
  else
    echo "note: 1 CPU, the eager take-in and pacing are not tried"
  fi
  # Late senders, one on rank 0's host and one across: rank 0's blocking
  # receives sleep on the doorbell while the fabric agent watches the fd
  # for them (the relay), in the default mode and in interrupt; in mode
  # none, with no agent, they nap and poll the fabric between naps. The
  # program reads its counters around its rounds. No spin or yield polls
  # first: on a loaded machine each yield can last a time slice, and the
  # waits then ended before any slept.
  for mode in auto interrupt none; do
    want=relay; [ $mode = none ] && want=nap
    run env FERRY_SPIN=0 FERRY_YIELD=0 FERRY_PROGRESS=$mode $M -hosts "$H1:2,$H2" -n 3 \
      "$bin/net/net_wait_mixed" $want
  done
  ;;
bridge)
  bridges $H1 $H2 $H3
  run env FERRY_STATS=1 $M -hosts "$H1:2,$H2,$H3" -n 4 "$bin/pt2pt/pt2pt_sendrecv"
  n=$(echo "$out" | grep -c 'ofi: provider=[^ ]* domain=eth0 ')
  [ "$n" -eq 4 ] || { echo "FAIL: $n of 4 ranks on eth0"; echo "$out" | grep 'ofi:'; fail=1; }
  echo "+ pinned to the bridge"
  out=$(env FI_NET_IFACE=fypv0 FI_TCP_IFACE=fypv0 FERRY_OFI_CONNECT_TIMEOUT=2 $M -hosts "$H1,$H2" -n 2 \
        "$bin/pt2pt/pt2pt_sendrecv" 2>&1); rc=$?
  echo "$out" | tail -n 3
  if [ $rc -eq 0 ] || ! echo "$out" | grep -q 'no connection to rank [01] at [^ ]*172\.31\.0\.1:.* name the one that joins them with FI_'; then
    echo "FAIL: exit $rc, without the message"; fail=1
  fi
  # ... and with the default limit: after 5 s the rank tries the address
  # itself, is refused, and says so
  echo "+ pinned to the bridge, the default limit"
  out=$(env FI_NET_IFACE=fypv0 FI_TCP_IFACE=fypv0 $M -hosts "$H1,$H2" -n 2 "$bin/pt2pt/pt2pt_sendrecv" 2>&1); rc=$?
  echo "$out" | tail -n 3
  if [ $rc -eq 0 ] || ! echo "$out" | grep -q 'no connection to rank [01] at [^ ]*172\.31\.0\.1:.*: Connection refused there'; then
    echo "FAIL: exit $rc, without the message"; fail=1
  fi
  ;;
routed)
  [ -n "${FY_NETNS_ROUTER:-}" ] || { echo "hosts.sh: case routed needs fy_netns.sh -r"; exit 2; }
  bridges $H1 $H2
  run env FERRY_STATS=1 $M -hosts "$H1:2,$H2" -n 3 "$bin/pt2pt/pt2pt_sendrecv"
  n=$(echo "$out" | grep -c 'ofi: provider=[^ ]* domain=eth0 ')
  [ "$n" -eq 3 ] || { echo "FAIL: $n of 3 ranks on eth0"; echo "$out" | grep 'ofi:'; fail=1; }
  ;;
*) echo "hosts.sh: unknown case $case"; exit 2 ;;
esac
[ $fail -eq 0 ] && echo "CASE $case: PASS" || echo "CASE $case: FAIL"
exit $fail
