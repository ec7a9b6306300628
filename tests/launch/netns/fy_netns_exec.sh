#!/bin/sh
# Launcher wrapper for the test hosts of fy_netns.sh, used like ssh:
#   fy_netns_exec.sh [ssh options] HOST command [args...]
# runs the command on HOST: in HOST's network namespace, with HOST as its
# host name (a UTS namespace of its own). As with ssh, the words after HOST
# form one shell command line (Hydra quotes its proxy's path for that; Ferry's
# mpiexec passes words that need no quoting), and ssh options before HOST
# (Hydra passes -x) are skipped. Every step execs, so the command keeps this
# process's pid: signals sent to the wrapper reach it, and its exit status
# is the wrapper's.
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
exec ip netns exec "$h" unshare --uts sh -c 'hostname "$0" && exec sh -c "exec $1"' "$h" "$*"
