#!/bin/sh
# MPICH ABI for Fortran: the tests/fortran programs (the three styles; the
# handle test uses mpi_f08_types' MPI_Sizeof and MPI_Status_f082f) are
# compiled and linked by Debian's MPICH wrappers (mpif90.mpich, against
# MPICH's mpif.h and .mod files and libmpichfort.so.12/libmpich.so.12), then
# run on Ferry's libraries through LD_LIBRARY_PATH (a program that meets an
# unimplemented call exits 77 and is only reported). Skips (77) without
# mpif90.mpich (apt-get install libmpich-dev gfortran).
# usage: mpich_abi.sh MPIEXEC FORTRAN_LIB_DIR MPI_LIB_DIR SOURCE_DIR
mpiexec=$1 fortdir=$2 libdir=$3 src=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v mpif90.mpich >/dev/null && command -v mpicc.mpich >/dev/null \
  || { echo "SKIP: mpif90.mpich absent (apt-get install libmpich-dev gfortran)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-fabi.XXXXXX") || fail mktemp
trap 'rm -rf "$tmp"' EXIT
unset MPICH_CC MPICH_FC MPICH_F90 MPICH_F77
mpicc.mpich -c -D_GNU_SOURCE -I"$src/../mpi/common" "$src/fytest_f.c" -o "$tmp/fytest_f.o" \
  || fail "mpicc.mpich fytest_f.c"
export LD_LIBRARY_PATH="$fortdir:$libdir"
for t in f77_pt2pt.f mpi_pt2pt.f90 f08_pt2pt.f90 handles.f90 f77_coll.f mpi_coll.f90 f08_coll.f90 \
         f77_dtype.f mpi_dtype.f90 f08_dtype.f90; do
  [ -f "$src/$t" ] || continue
  exe=$tmp/${t%.*}
  (cd "$tmp" && mpif90.mpich -ffree-line-length-none "$src/$t" "$tmp/fytest_f.o" -o "$exe") \
    || fail "mpif90.mpich $t"
  for lib in libmpichfort.so.12 libmpich.so.12; do
    got=$(ldd "$exe" | sed -n "s/^[[:space:]]*$lib => \(.*\) (0x[0-9a-f]*)\$/\1/p")
    got=$(readlink -f "$got")
    case $got in "$(readlink -f "$fortdir")"/*|"$(readlink -f "$libdir")"/*) ;;
      *) fail "$t: $lib resolves to '$got', not Ferry's" ;; esac
  done
  "$mpiexec" -n 2 "$exe"
  case $? in
    0) ;;
    77) echo "($t: a call Ferry does not implement yet, skipped)" ;;
    *) fail "$t (built by mpif90.mpich) failed on Ferry" ;;
  esac
done
echo "programs built by mpif90.mpich ran on Ferry"
