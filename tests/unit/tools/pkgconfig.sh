#!/bin/sh
# pkg-config finds Ferry through PKG_CONFIG_PATH at the install tree, as
# ferry and as mpi, and its flags build a program that runs.
# usage: pkgconfig.sh PREFIX CC PKG_CONFIG
. "$(dirname "$0")/lib.sh"
cc=$2 pkgconfig=$3
need_install "$1"
prefix=$1           # ferry.pc holds the configured prefix as written
case $pkgconfig in ''|*NOTFOUND) skip "pkg-config not installed" ;; esac
scratch
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
for pkg in ferry mpi mpi-c mpi-cxx; do
  flags=$("$pkgconfig" --cflags --libs $pkg) || fail "pkg-config --cflags --libs $pkg exited $?"
  case $flags in *"-I$prefix/include"*) ;; *) fail "$pkg: no -I$prefix/include in: $flags" ;; esac
  case $flags in *"-L$prefix/lib"*) ;; *) fail "$pkg: no -L$prefix/lib in: $flags" ;; esac
  case $flags in *"-lmpi"*) ;; *) fail "$pkg: no -lmpi in: $flags" ;; esac
done
[ "$("$pkgconfig" --modversion ferry)" != "" ] || fail "no version"
"$pkgconfig" --print-errors --exists ferry || fail "pkg-config --exists ferry"

cat > "$tmp/hello.c" <<'C'
#include <mpi.h>
int main(void) { int v = 0, s = 0; MPI_Get_version(&v, &s); return v >= 3 ? 0 : 1; }
C
# shellcheck disable=SC2046
"$cc" -o "$tmp/hello" "$tmp/hello.c" $("$pkgconfig" --cflags --libs ferry) \
  || fail "could not build with pkg-config flags"
"$tmp/hello" || fail "program built with pkg-config flags did not run"
echo "pkg-config OK: $("$pkgconfig" --cflags --libs ferry)"
