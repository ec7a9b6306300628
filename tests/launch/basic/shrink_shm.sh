#!/bin/sh
# A /dev/shm with room for the node's segment only with smaller ring cells
# (a container's 64 MiB with a dozen ranks, here 14 MiB with 4): local
# rank 0 lays the segment out with the former 16 KiB cells and says so
# once; every rank then sends eagerly only what fits them. PROGRAM sends
# 16385..65536-byte messages, which must go by the pipe or by rendezvous
# (eager ones would not fit a cell). Skipped where no mount namespace with
# a tmpfs of its own is allowed.
# usage: shrink_shm.sh JOB_SH MPIEXEC PROGRAM
job=$1 mpiexec=$2 prog=$3
if ! unshare -m sh -c 'mount -t tmpfs -o size=14m tmpfs /dev/shm' 2>/dev/null; then
  echo "SKIP: no mount namespace with a tmpfs of our own here"
  exit 77
fi
exec unshare -m sh -c 'mount -t tmpfs -o size=14m tmpfs /dev/shm && exec sh "$0" --match "too little for the [0-9]+-byte segment of 4 local processes" --count "using cells of" 1 --match "PASS" --timeout 120 -- "$1" -n 4 "$2"' "$job" "$mpiexec" "$prog"
