#!/bin/sh
# Launcher wrapper for the test hosts of fy_netns.sh, used like ssh:
#   fy_netns_exec.sh [ssh options] HOST command [args...]
# runs the command on HOST: in HOST's network namespace, with HOST as its
# host name (a UTS namespace of its own). HOST is a host name or one of
# the hosts' addresses (FY_NETNS_ADDRS, in the order of FY_NETNS_HOSTS:
# Open MPI's mpirun is given addresses, which need no name resolution). As
# with ssh, the words after HOST form one shell command line (Hydra and
# Open MPI's mpirun quote what needs it; Ferry's mpiexec passes words that
# need no quoting), and ssh options before HOST (Hydra passes -x) are
# skipped. Under fy_netns.sh -c, the command is bound to the host's
# CPUs (FY_NETNS_CPUS). Every step execs, so the command keeps this process's
# pid: signals sent to the wrapper reach it, and its exit status is the
# wrapper's.
while [ $# -gt 0 ]; do
  case $1 in
    -[bcDEeFIiJLlmOoPpQRSWw]) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "usage: fy_netns_exec.sh [ssh options] HOST command [args...]" >&2; exit 255; }
h=$1
shift
# The host's position among FY_NETNS_HOSTS (by name or address).
i=1 a=
for n in $(echo "${FY_NETNS_HOSTS:-}" | tr , ' '); do
  [ "$n" = "$h" ] || [ "$(echo "${FY_NETNS_ADDRS:-}" | cut -d, -f$i)" = "$h" ] && { a=$n; break; }
  i=$((i + 1))
done
case $h in
  *[!0-9.]*) ;;
  *) [ -n "$a" ] || { echo "fy_netns_exec.sh: $h is not a test host's address" >&2; exit 255; }
    h=$a ;;
esac
# fy_netns.sh -c: bound to the host's share of the CPUs
bind=
if [ -n "${FY_NETNS_CPUS:-}" ] && [ -n "$a" ]; then
  bind="taskset -c $(echo "$FY_NETNS_CPUS" | cut -d' ' -f$i)"
fi
exec $bind ip netns exec "$h" unshare --uts sh -c 'hostname "$0" && exec sh -c "exec $1"' "$h" "$*"
