#!/bin/sh
# mpicc/mpicxx: -show and the FindMPI queries print the install tree's
# include and library paths; compile-only adds no link flags; a program
# builds and runs against the installed libmpi; a moved tree still works.
# usage: wrappers.sh PREFIX
. "$(dirname "$0")/lib.sh"
prefix=$1
need_install "$prefix"
for w in mpicc mpicxx; do [ -x "$prefix/bin/$w" ] || fail "$w not installed"; done
scratch
mpicc=$prefix/bin/mpicc

show=$("$mpicc" -show) || fail "mpicc -show exited $?"
case $show in *"-I$prefix/include"*) ;; *) fail "mpicc -show lacks -I$prefix/include: $show" ;; esac
case $show in *"-L$prefix/lib"*) ;; *) fail "mpicc -show lacks -L$prefix/lib: $show" ;; esac
case $show in *" -lmpi"*) ;; *) fail "mpicc -show lacks -lmpi: $show" ;; esac
case $show in *"-Wl,$prefix/lib"*) ;; *) fail "mpicc -show lacks the rpath: $show" ;; esac
for q in -compile-info -link-info -showme -showme:compile -showme:link; do
  "$mpicc" $q > /dev/null || fail "mpicc $q exited $?"
done
"$mpicc" -compile-info | grep -q -- "-I$prefix/include" || fail "-compile-info"
"$mpicc" -link-info | grep -q -- "-lmpi" || fail "-link-info"
"$mpicc" -showme:compile | grep -q -- "^-I$prefix/include" || fail "-showme:compile"
"$mpicc" -showme:link | grep -q -- "-L$prefix/lib" || fail "-showme:link"
"$prefix/bin/mpicxx" -show | grep -q -- "-I$prefix/include" || fail "mpicxx -show"
for flag in -c -E -S -M; do
  "$mpicc" -show $flag x.c | grep -q -- '-lmpi' && fail "mpicc -show $flag adds link flags"
done
FERRY_CC=my-cc "$mpicc" -show | grep -q '^my-cc ' || fail "FERRY_CC not honoured"
MPICH_CC=their-cc "$mpicc" -show | grep -q '^their-cc ' || fail "MPICH_CC not honoured"
FERRY_CXX=my-cxx "$prefix/bin/mpicxx" -show | grep -q '^my-cxx ' || fail "FERRY_CXX not honoured"

# Build and run, compile and link in one step and in two.
cat > "$tmp/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(void) {
  int v = 0, s = 0;
  MPI_Get_version(&v, &s);
  printf("MPI %d.%d\n", v, s);
  return v >= 3 ? 0 : 1;
}
C
cp "$tmp/hello.c" "$tmp/hello.cpp"
"$mpicc" -o "$tmp/hello" "$tmp/hello.c" || fail "mpicc could not build a program"
"$tmp/hello" || fail "program built by mpicc did not run"
"$mpicc" -c -o "$tmp/hello.o" "$tmp/hello.c" || fail "mpicc -c"
"$mpicc" -o "$tmp/hello2" "$tmp/hello.o" || fail "mpicc link of an object"
"$tmp/hello2" > /dev/null || fail "program linked from an object did not run"
"$prefix/bin/mpicxx" -o "$tmp/hellocxx" "$tmp/hello.cpp" || fail "mpicxx could not build a program"
"$tmp/hellocxx" > /dev/null || fail "program built by mpicxx did not run"

# The standard's sentinel arguments compile without a warning at -O2
# (gcc 12 had warned at every MPI_STATUSES_IGNORE while array-of-status
# parameters were declared as arrays).
cat > "$tmp/sentinels.c" <<'C'
#include <mpi.h>
int f(MPI_Comm c, MPI_Request *r, int *idx) {
  int flag, out;
  MPI_Comm g;
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
  MPI_Waitsome(2, r, &out, idx, MPI_STATUSES_IGNORE);
  MPI_Testsome(2, r, &out, idx, MPI_STATUSES_IGNORE);
  MPI_Request_get_status_all(2, r, &flag, MPI_STATUSES_IGNORE);
  MPI_Wait(r, MPI_STATUS_IGNORE);
  MPI_Dist_graph_create_adjacent(c, 1, idx, MPI_UNWEIGHTED, 1, idx, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
  return MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, c, &g, MPI_ERRCODES_IGNORE);
}
C
"$mpicc" -O2 -Wall -Wextra -Werror -c -o "$tmp/sentinels.o" "$tmp/sentinels.c" || fail "mpi.h: warnings at the standard's sentinel arguments"

# A moved install (path with a space) reports and uses its new location.
cp -a "$prefix" "$tmp/moved tree"
m=$tmp/moved\ tree
"$m/bin/mpicc" -show | grep -q -- "-I\"$m/include\"" || fail "moved mpicc: $("$m/bin/mpicc" -show)"
"$m/bin/mpicc" -o "$tmp/hello3" "$tmp/hello.c" || fail "moved mpicc could not build"
readelf -d "$tmp/hello3" 2>/dev/null | grep -q "$m/lib" || fail "moved mpicc: rpath not the new tree"
"$tmp/hello3" > /dev/null || fail "program built by moved mpicc did not run"
echo "wrappers OK: $show"
