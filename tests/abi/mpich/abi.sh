#!/bin/sh
# MPICH ABI test: build some MPI test programs with Debian's mpicc.mpich
# (against MPICH's own mpi.h) and run them on Ferry: Ferry's mpiexec, with
# LD_LIBRARY_PATH at Ferry's library directory.
#   abi.sh FERRY_LIBDIR MPIEXEC TESTS_SRC_DIR WORKDIR
# Exit 0 pass, 1 fail, 77 skip (no mpicc.mpich).
libdir=$1 mpiexec=$2 src=$3 work=$4
command -v mpicc.mpich >/dev/null 2>&1 || { echo "SKIP: mpicc.mpich not installed"; exit 77; }
mkdir -p "$work" || exit 1
fail=0
# Every MPI symbol MPICH's library exports, Ferry's exports too: a program
# built against any MPICH mpi.h may use it (the MPI-1 functions MPI 3.0
# removed included: older MPICH headers declared them).
mpich_lib=$(ldconfig -p | sed -n 's/.*libmpich\.so\.12 .*=> //p' | head -1)
if [ -n "$mpich_lib" ] && command -v nm >/dev/null 2>&1; then
  nm -D --defined-only "$mpich_lib" | awk '$3 ~ /^P?MPI_/ {print $3}' | sort -u > "$work/mpich.syms"
  nm -D --defined-only "$libdir/libmpi.so.12" | awk '$3 ~ /^P?MPI_/ {print $3}' | sort -u > "$work/ferry.syms"
  missing=$(comm -23 "$work/mpich.syms" "$work/ferry.syms" | tr '\n' ' ')
  if [ -n "$missing" ]; then echo "FAIL: libmpi.so.12 lacks MPICH's $missing"; fail=1
  else echo "== every MPI symbol of $mpich_lib is in Ferry's libmpi.so.12"; fi
fi
progs="pt2pt/modes pt2pt/probe pt2pt/order pt2pt/status pt2pt/completion datatype/predefined errors/badargs"
for p in $progs; do
  exe="$work/$(echo "$p" | tr / _)"
  if ! mpicc.mpich -O1 -D_GNU_SOURCE -I"$src/common" "$src/$p.c" -o "$exe" -lm; then
    echo "FAIL: mpicc.mpich could not build $p"; fail=1; continue
  fi
  # The MPI library the binary needs (libmpich.so.12 from Debian's mpicc,
  # libmpi.so.12 from upstream MPICH) must resolve to Ferry's.
  needed=$(readelf -d "$exe" | sed -n 's/.*NEEDED.*\[\(libmpi[a-z]*\.so\.12\)\].*/\1/p' | head -1)
  if [ -z "$needed" ]; then echo "FAIL: $p does not need an MPICH-ABI library"; fail=1; continue; fi
  resolved=$(LD_LIBRARY_PATH="$libdir" ldd "$exe" | sed -n "s/^[[:space:]]*$needed => \([^ ]*\).*/\1/p")
  real=$(readlink -f "$resolved" 2>/dev/null)
  case "$real" in
    "$(readlink -f "$libdir")"/*) ;;
    *) echo "FAIL: $p: $needed resolves to '${resolved:-nothing}', not into $libdir" \
            "(Ferry must provide $needed there)"; fail=1; continue ;;
  esac
  for np in 2 4; do
    echo "== $p (mpicc.mpich) on Ferry, np $np"
    if ! LD_LIBRARY_PATH="$libdir" timeout -k 5 120 "$mpiexec" -n $np "$exe"; then
      echo "FAIL: $p np $np"; fail=1
    fi
  done
done
[ $fail -eq 0 ] && echo "PASS abi.mpich" || echo "FAIL abi.mpich"
exit $fail
