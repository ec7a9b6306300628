#!/bin/sh
# Every ABI fact (constant values, type sizes, struct layouts) printed by
# abi_print.c must be identical built against MPICH's mpi.h and Ferry's.
# usage: check_abi.sh CC SOURCE_DIR [MPICH_INCLUDE_DIR]
cc=$1 src=$2 mpich=${3:-/usr/include/x86_64-linux-gnu/mpich}
if [ ! -f "$mpich/mpi.h" ]; then
  echo "SKIP: MPICH's mpi.h not found in $mpich"
  exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
prog=$src/tests/unit/bindings/abi_print.c
"$cc" -std=gnu11 -DMPICH_SKIP_MPICXX -I"$mpich" -o "$tmp/mpich" "$prog" || exit 1
"$cc" -std=gnu11 -Wall -Werror -I"$src/include" -o "$tmp/ferry" "$prog" || exit 1
"$tmp/mpich" >"$tmp/mpich.out" && "$tmp/ferry" >"$tmp/ferry.out" || exit 1
if ! diff -u "$tmp/mpich.out" "$tmp/ferry.out"; then
  echo "FAIL: Ferry's mpi.h differs from the MPICH ABI (lines above: - MPICH, + Ferry)"
  exit 1
fi
echo "OK: $(wc -l <"$tmp/ferry.out") ABI facts match"
