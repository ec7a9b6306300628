#!/bin/sh
# Configure, build and run tests/cmake/findmpi/project against Ferry's
# install tree. The project itself asserts (at configure time) that FindMPI's
# include directories and libraries are Ferry's, not the system MPICH's or
# Open MPI's; here we check the built programs load Ferry's libmpi.
# usage: run.sh CMAKE PREFIX PROJECT_DIR CC CXX
cmake=$1 prefix=$2 project=$3 cc=$4 cxx=$5
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$prefix/bin/mpicc" ] && [ -d "$prefix/lib" ] \
  || { echo "SKIP: install tree $prefix absent (run make install)" >&2; exit 77; }
prefix=$(cd "$prefix" && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-findmpi.XXXXXX") || fail mktemp
trap 'rm -rf "$tmp"' EXIT

# A clean environment for the nested project: nothing may point FindMPI at
# another MPI.
unset MPI_HOME MPI_ROOT MPICH_CC MPICH_CXX FERRY_CC FERRY_CXX CC CXX CFLAGS LDFLAGS \
      PKG_CONFIG_PATH CMAKE_PREFIX_PATH LD_LIBRARY_PATH

"$cmake" -S "$project" -B "$tmp/build" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DMPI_C_COMPILER="$prefix/bin/mpicc" -DMPI_CXX_COMPILER="$prefix/bin/mpicxx" \
  -DFERRY_PREFIX="$prefix" || fail "configure with find_package(MPI) failed"
"$cmake" --build "$tmp/build" || fail "build failed"

for exe in hello_c hello_cxx; do
  lib=$(ldd "$tmp/build/$exe" | sed -n 's/^[[:space:]]*libmpi\.so\.12 => \(.*\) (0x[0-9a-f]*)$/\1/p')
  [ -n "$lib" ] || fail "$exe does not load libmpi.so.12: $(ldd "$tmp/build/$exe")"
  lib=$(readlink -f "$lib")
  case $lib in "$prefix"/*) ;; *) fail "$exe loads $lib, not Ferry's" ;; esac
  "$tmp/build/$exe" || fail "$exe exited $?"
done
echo "find_package(MPI) found Ferry in $prefix"
