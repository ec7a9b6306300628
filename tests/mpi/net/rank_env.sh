#!/bin/sh
# rank_env.sh RANK NAME=VALUE... -- PROGRAM [ARGS...]: runs PROGRAM with
# the given variables set only in the rank RANK of the job (PMI_RANK),
# for tests of ranks whose settings differ.
rank=$1
shift
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  [ "${PMI_RANK:-}" = "$rank" ] && export "$1"
  shift
done
[ "${1:-}" = "--" ] && shift
exec "$@"
