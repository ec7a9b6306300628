# Shared by the tools tests: fail/skip helpers and a scratch directory.
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
# need_install PREFIX: skip unless installed; sets $prefix to its physical
# path, as the wrappers report it.
need_install() {
  [ -d "$1/bin" ] && [ -d "$1/lib" ] || skip "install tree $1 absent (run make install)"
  prefix=$(cd "$1" && pwd -P)
}
scratch() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-tools-test.XXXXXX") || fail "mktemp"
  tmp=$(cd "$tmp" && pwd -P)
  trap 'rm -rf "$tmp"' EXIT
}
