#!/bin/sh
# Tools for Fortran users of an installed Ferry: mpifort -show, the
# mpif77/mpif90 links, pkg-config mpi-fort and CMake's find_package(MPI)
# Fortran component (tests/fortran/projects/findmpi). Runs after `make install`;
# skips (77) when the install tree or its Fortran part is absent.
# usage: findmpi.sh CMAKE PREFIX SOURCE_DIR FC
cmake=$1 prefix=$2 src=$3 fc=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$prefix/bin/mpifort" ] || { echo "SKIP: $prefix/bin/mpifort absent (run make install)"; exit 77; }
prefix=$(cd "$prefix" && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-ffind.XXXXXX") || fail mktemp
trap 'rm -rf "$tmp"' EXIT
unset MPI_HOME MPI_ROOT MPICH_FC FERRY_FC FC FFLAGS LDFLAGS PKG_CONFIG_PATH CMAKE_PREFIX_PATH LD_LIBRARY_PATH

for w in mpifort mpif77 mpif90; do
  show=$("$prefix/bin/$w" -show) || fail "$w -show"
  case $show in *"-lmpifort -lmpi"*) ;; *) fail "$w -show lacks -lmpifort -lmpi: $show" ;; esac
  "$prefix/bin/$w" -compile-info | grep -q -- "-I" || fail "$w -compile-info"
done
"$prefix/bin/mpifort" "$src/projects/findmpi/hello_f08.f90" -o "$tmp/hello_wrapper" || fail "mpifort build"
"$tmp/hello_wrapper" || fail "mpifort-built program"

if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  libs=$(pkg-config --libs mpi-fort) || fail "pkg-config mpi-fort"
  cflags=$(pkg-config --cflags mpi-fort)
  # shellcheck disable=SC2086
  "$fc" $cflags "$src/projects/findmpi/hello_f08.f90" -o "$tmp/hello_pc" $libs || fail "pkg-config build"
  "$tmp/hello_pc" || fail "pkg-config-built program"
  unset PKG_CONFIG_PATH
fi

"$cmake" -S "$src/projects/findmpi" -B "$tmp/build" -DCMAKE_Fortran_COMPILER="$fc" \
  -DMPI_Fortran_COMPILER="$prefix/bin/mpifort" -DFERRY_PREFIX="$prefix" \
  || fail "configure with find_package(MPI COMPONENTS Fortran) failed"
"$cmake" --build "$tmp/build" || fail "build failed"
lib=$(ldd "$tmp/build/hello_f08" | sed -n 's/^[[:space:]]*libmpifort\.so\.12 => \(.*\) (0x[0-9a-f]*)$/\1/p')
case $(readlink -f "$lib") in "$prefix"/*) ;; *) fail "hello_f08 loads '$lib', not Ferry's libmpifort" ;; esac
"$tmp/build/hello_f08" || fail "hello_f08 exited $?"
echo "mpifort, pkg-config mpi-fort and find_package(MPI) Fortran found Ferry in $prefix"
