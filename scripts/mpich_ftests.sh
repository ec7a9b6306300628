#!/usr/bin/env bash
# MPICH's Fortran test programs (test/mpi/f77, f90, f08 of an MPICH source
# tree) built with Ferry's mpifort and run on Ferry, by hand: a real client
# of the three Fortran bindings. The source tree is not part of Ferry; bring
# it in yourself (e.g. a clone of github.com/pmodels/mpich) and give its path.
#
#   scripts/mpich_ftests.sh MPICH_SRC [--lang "f08 f77 f90"] [--dirs "pt2pt coll ..."]
#
# For each directory's testlist, each program is built from its sources
# (Makefile.am's NAME_SOURCES, else NAME.f90/.f) with the tree's
# util/mtest_<lang> and run with install/bin/mpiexec at the listed process
# count (timeout 60 s); it passes when it exits 0 and prints "No Errors".
# The configure-made include files (typeaints.h ...) are written from their
# .h.in with 8-byte integers, into a copy of the tree under $OUT (default
# /tmp/ferry-mpich-ftests), which also holds the builds and logs. Programs
# that need other configure output or C sources the tree generates are
# reported as BUILD, not run. Prints PASS/FAIL/BUILD per program and
# totals; exit status 1 when a program fails.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=${1:?usage: mpich_ftests.sh MPICH_SRC [--lang L] [--dirs D]}
shift
LANGS="f08 f77 f90"
DIRS="pt2pt coll datatype comm subarray topo attr info misc rma init ext"
while [ $# -gt 0 ]; do
  case "$1" in
    --lang) LANGS=$2; shift ;;
    --dirs) DIRS=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
FC=$ROOT/install/bin/mpifort
MX=$ROOT/install/bin/mpiexec
[ -x "$FC" ] && [ -x "$MX" ] || { echo "mpich_ftests: build Ferry first (make)" >&2; exit 2; }
[ -d "$SRC/test/mpi/util" ] || { echo "mpich_ftests: $SRC has no test/mpi/util" >&2; exit 2; }
OUT=${OUT:-/tmp/ferry-mpich-ftests}
rm -rf "$OUT/tree" && mkdir -p "$OUT/tree" "$OUT/logs"
cp -r "$SRC/test/mpi" "$OUT/tree/"
T=$OUT/tree/mpi
# configure's substitutions: address- and offset-sized integers are 8 bytes
find "$T" -name '*.h.in' | while read -r f; do sed -e 's/@[A-Z0-9_]*@/integer*8/g' "$f" > "${f%.in}"; done
mkdir -p "$T/include"
printf '#define HAVE_STDLIB_H 1\n#define HAVE_STRING_H 1\n#define F77_NAME_LOWER_USCORE 1\n' > "$T/include/mpitestconf.h"

pass=0 fail=0 nobuild=0
for L in $LANGS; do
  B=$OUT/build-$L
  mkdir -p "$B"
  case $L in f08) U=$T/util/mtest_f08.f90 ;; f90) U=$T/util/mtest_f90.f90 ;; *) U=$T/util/mtest_f77.f ;; esac
  (cd "$B" && "$FC" -c -o mtest.o "$U") > "$OUT/logs/$L-util.build" 2>&1 || { echo "BUILD $L/util"; continue; }
  for d in $DIRS; do
    D=$T/$L/$d
    [ -f "$D/testlist" ] || continue
    while read -r name np rest; do
      case "$name" in ''|'#'*|*@*) continue ;; esac
      case "$rest" in *xfail*) continue ;; esac
      srcs=$(sed -n "s/^${name}_SOURCES *= *//p" "$D/Makefile.am" 2>/dev/null)
      if [ -z "$srcs" ]; then for e in f90 F90 f F; do [ -f "$D/$name.$e" ] && srcs=$name.$e && break; done; fi
      log=$OUT/logs/$L-$d-$name
      # shellcheck disable=SC2086
      if [ -z "$srcs" ] || ! (cd "$D" && "$FC" -I"$B" -I"$D" -o "$B/$name" $srcs "$B/mtest.o") > "$log.build" 2>&1; then
        echo "BUILD $L/$d/$name"; nobuild=$((nobuild + 1)); continue
      fi
      timeout 60 "$MX" -n "${np:-1}" "$B/$name" < /dev/null > "$log.out" 2>&1
      rc=$?
      if [ $rc = 0 ] && grep -q "No Errors" "$log.out"; then
        echo "PASS $L/$d/$name"; pass=$((pass + 1))
      else
        echo "FAIL $L/$d/$name (-n ${np:-1}, exit $rc; $log.out)"; fail=$((fail + 1))
      fi
    done < "$D/testlist"
  done
done
echo "mpich_ftests: $pass passed, $fail failed, $nobuild not built (logs in $OUT/logs)"
[ $fail = 0 ]
