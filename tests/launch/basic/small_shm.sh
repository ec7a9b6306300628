#!/bin/sh
# A /dev/shm too small for the node's segment (a container's 64 MiB with
# many ranks): MPI_Init fails on every rank with a message that says so
# and how much room there is, instead of a bus error at the first touch of
# a page that finds none. The test mounts a 2 MiB tmpfs over /dev/shm in a
# mount namespace of its own; where that is not allowed it is skipped.
# usage: small_shm.sh JOB_SH MPIEXEC PROGRAM
job=$1 mpiexec=$2 prog=$3
if ! unshare -m sh -c 'mount -t tmpfs -o size=2m tmpfs /dev/shm' 2>/dev/null; then
  echo "SKIP: no mount namespace with a tmpfs of our own here"
  exit 77
fi
exec unshare -m sh -c 'mount -t tmpfs -o size=2m tmpfs /dev/shm && exec sh "$0" --rc nonzero --match "no room for the [0-9]+-byte segment" --match "MiB free in /dev/shm" --timeout 30 -- "$1" -n 4 "$2" 4' "$job" "$mpiexec" "$prog"
