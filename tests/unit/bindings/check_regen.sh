#!/bin/sh
# The committed generated files (C and Fortran bindings) must be what the
# generator produces now.
# usage: check_regen.sh SOURCE_DIR
src=$1
py=$src/.venv/bin/python
if [ ! -x "$py" ]; then
  echo "SKIP: $py missing (python3 -m venv .venv && .venv/bin/pip install -r scripts/requirements.txt)"
  exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$py" "$src/src/binding/gen/generate.py" --out "$tmp" || { echo "FAIL: generator failed"; exit 1; }
# Every generated file is compared below; the Fortran bindings must be among them.
for f in src/binding/fortran/mpif.h src/binding/fortran/mpi.f90 src/binding/fortran/mpi_f08.f90 \
         src/binding/fortran/mpi_f08_wrappers.f90 src/binding/fortran/mpif_h/pt2pt.c; do
  [ -f "$tmp/$f" ] || { echo "FAIL: the generator did not write $f"; exit 1; }
done
rc=0
for f in $(cd "$tmp" && find . -type f | sort); do
  if ! diff -u "$src/$f" "$tmp/$f" >"$tmp.diff" 2>&1; then
    echo "FAIL: $f differs from the generator's output:"
    head -40 "$tmp.diff"
    rc=1
  fi
done
rm -f "$tmp.diff"
[ $rc = 0 ] || echo "Regenerate with: make regen-bindings (then review and commit the result)"
exit $rc
