#!/bin/sh
# Debian's ScaLAPACK test suite, MPICH build (package scalapack-mpi-test,
# directory mpich-tests: BLACS, PBLAS and ScaLAPACK testers linked against
# libmpich.so.12 and libmpichfort.so.12), run unchanged on Ferry through
# LD_LIBRARY_PATH, and on MPICH itself as the reference.
#
#   scripts/scalapack.sh [-R REGEX] [-E REGEX] [--ferry-only|--mpich-only] [--timeout SECONDS]
#                        [--netns H] [--with-llt]
#
# The CTest files are Debian's, copied to bench/results/scalapack/<mpi>/
# with the launcher replaced (Ferry: install/bin/mpiexec with
# LD_LIBRARY_PATH=install/lib, where libmpich.so.12 and libmpichfort.so.12
# are Ferry's) and the BLACS testers run directly (their runtest.cmake is not
# packaged): a run passes when it reaches its last test, BLACS_ABORT (which
# ends the job with an error on purpose), and no line reports a non-zero
# FAILED count.
# Prints the pass counts and every test that passes on MPICH but not on
# Ferry. -R limits the tests (ctest -R), -E leaves some out; the whole suite takes about an hour
# per MPI on 2 cores. --ferry-only/--mpich-only run one side (e.g. at
# different times); the comparison is made from the two lists of passed
# tests whenever both exist.
# --netns H runs Ferry alone with each job's 4 ranks spread over H test
# hosts (network namespaces on this machine, tests/launch/netns/fy_netns.sh;
# root), so shared memory and the fabric mix; results in
# bench/results/scalapack/ferry-netns.
# The LLt testers (xsllt, xdllt, xcllt, xzllt) are left out unless
# --with-llt: in Debian's ScaLAPACK 2.2.1, p?lacon reads its output EST
# before setting it, so the ranks of a grid can take different branches
# and wait in different calls (upstream issue #121, fixed after 2.2.2);
# MPICH hangs there too (docs/fortran.md).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
regex= exclude= only= timeout_s=1800 netns= llt=
llt_re='^x[sdcz]llt$' # the LLt testers (below)
# --netns: the whole script again inside the test hosts' helper
prev=
for a in "$@"; do [ "$prev" = --netns ] && netns=$a; prev=$a; done
if [ -n "$netns" ] && [ -z "${FY_NETNS_HOSTS:-}" ]; then
  exec sh "$root/tests/launch/netns/fy_netns.sh" "$netns" -- sh "$0" "$@"
fi
while [ $# -gt 0 ]; do
  case $1 in
    -R) regex=$2; shift ;;
    -E) exclude=$2; shift ;;
    --ferry-only) only=ferry ;;
    --mpich-only) only=mpich ;;
    --timeout) timeout_s=$2; shift ;;
    --netns) netns=$2; only=ferry; shift ;;
    --with-llt) llt=1 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "scalapack.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$llt" ]; then
  echo "scalapack: leaving out the LLt testers (ScaLAPACK 2.2.1's p?lacon bug; --with-llt runs them)"
  exclude=${exclude:+$exclude|}$llt_re
fi
"$root/scripts/deps.sh" --mpich --pkg=scalapack-mpi-test --pkg=scalapack-test-common
tests=$(ls -d /usr/lib/*/scalapack/mpich-tests 2>/dev/null | head -1)
[ -n "$tests" ] || { echo "scalapack: mpich-tests directory not found" >&2; exit 1; }
ferry=${FERRY_PREFIX:-$root/install}
[ -x "$ferry/bin/mpiexec" ] && [ -e "$ferry/lib/libmpichfort.so.12" ] \
  || { echo "scalapack: Ferry with Fortran not installed in $ferry (make, with gfortran)" >&2; exit 1; }
out=$root/bench/results/scalapack
mkdir -p "$out"

# Copy the test tree for one MPI with its launcher in the CTest files.
setup() {
  mpi=$1 launcher=$2
  d=$out/$mpi
  rm -rf "$d"
  cp -RL "$tests" "$d" 2>/dev/null || cp -R "$tests" "$d"
  cp -f --remove-destination /usr/share/scalapack/BLACS/*.dat "$d/BLACS/"
  find "$d" -name CTestTestfile.cmake | while read -r f; do
    sed -i "s|\"/usr/bin/mpiexec.mpich\"|\"$launcher\"|g" "$f"
    # BLACS: run the tester in BLACS/ (where its .dat inputs are).
    sed -i -E "s|^add_test\\((x[CF]btest) \"/usr/bin/cmake\".*\$|add_test(\\1 \"$launcher\" \"-n\" \"4\" \"../\\1\")\\nset_tests_properties(\\1 PROPERTIES PASS_REGULAR_EXPRESSION \"The final auxiliary test is for BLACS_ABORT\" FAIL_REGULAR_EXPRESSION \" [1-9][0-9]* FAILED\")|" "$f"
  done
}

run() {
  mpi=$1
  shift
  log=$out/$mpi.log
  echo "== $mpi: ctest in $out/$mpi (log $log)"
  : >"$log"
  # The top directory's CTest file has the ScaLAPACK testers; BLACS and
  # PBLAS have their own, not reached from it.
  for sub in . BLACS PBLAS; do
    [ -f "$out/$mpi/$sub/CTestTestfile.cmake" ] || continue
    # shellcheck disable=SC2086
    (cd "$out/$mpi/$sub" && env "$@" ctest --output-on-failure --timeout "$timeout_s" ${regex:+-R "$regex"} ${exclude:+-E "$exclude"}) >>"$log" 2>&1 || true
    printf '%s: ' "$sub"
    grep -E "tests passed|tests failed|No tests were found" "$log" | tail -1
  done
  sed -n 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .*Passed.*/\1/p' "$log" | sort > "$out/$mpi.passed"
}

if [ "$only" != ferry ]; then
  setup mpich /usr/bin/mpiexec.mpich
  run mpich LD_LIBRARY_PATH=
fi
if [ -n "$netns" ]; then
  # a launcher that spreads the ranks over the test hosts (the CTest
  # files take one program as the launcher)
  wrap=$out/mpiexec-netns
  { printf '#!/bin/sh\nexec "%s"' "$ferry/bin/mpiexec"
    sh "$root/tests/launch/netns/fy_netns_args.sh" ferry 4 | sed 's/.*/ "&"/' | tr -d '\n'
    printf ' "$@"\n'; } >"$wrap"
  chmod +x "$wrap"
  setup ferry-netns "$wrap"
  run ferry-netns LD_LIBRARY_PATH="$ferry/lib"
  exit 0
fi
if [ "$only" != mpich ]; then
  setup ferry "$ferry/bin/mpiexec"
  run ferry LD_LIBRARY_PATH="$ferry/lib"
fi
if [ -s "$out/mpich.passed" ] && [ -s "$out/ferry.passed" ]; then
  regress=$(comm -23 "$out/mpich.passed" "$out/ferry.passed")
  # a tester this run left out proves nothing either way
  [ -n "$llt" ] || regress=$(echo "$regress" | grep -Ev "$llt_re" || true)
  if [ -n "$regress" ]; then
    echo "passing on MPICH, not on Ferry:"
    echo "$regress" | sed 's/^/  /'
    exit 1
  fi
  echo "every test that passes on MPICH passes on Ferry"
fi
