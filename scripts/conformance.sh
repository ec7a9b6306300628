#!/usr/bin/env bash
# The mpi4py test suite on Ferry and on MPICH 4.0.2, side by side.
#
#   scripts/conformance.sh [--np "1 2 4"] [--modules FILE] [--only ferry|mpich] [--keep] [--netns H]
#                          [--lib DIR]
#
# The wheel from PyPI loads the MPI library through the MPICH ABI
# (MPI4PY_MPIABI=mpich, dlopen of libmpi.so.12): LD_LIBRARY_PATH picks Ferry's
# install/lib, or a directory where libmpi.so.12 points at Debian's
# libmpich.so.12. The tests come from the sdist of the same version. Each
# module runs as its own job, so a module that aborts costs only itself.
# --keep adds to the logs of the previous run instead of starting afresh
# (e.g. MPICH at -n 4 busy-polls for minutes per module on 2 cores: run it
# once, then Ferry alone as often as needed).
#
# --netns H runs Ferry alone across H test hosts (network namespaces on
# this machine, tests/launch/netns/fy_netns.sh; root): the ranks spread
# over the hosts, so shared memory and the fabric mix (logs in logs-netns).
#
# --lib DIR runs Ferry alone on the libmpi.so.12 in DIR instead of
# install/lib, e.g. build-asan (make check-asan's sanitizer build): the
# sanitizer runtimes it needs are preloaded into every rank, leak reports
# are off unless ASAN_OPTIONS says otherwise (Python's own would drown
# Ferry's), any report fails the module (logs in logs-lib).
#
# Prints pass/fail/error/skip per module and process count, and totals.
# Exit status: 1 when Ferry fails a module at a process count where MPICH
# passes it, unless the module is listed in tests/conformance/mpi4py.xfail
# (known gaps, each with its reason).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ARGS=("$@")
NPS="1 2 4"
MODFILE=tests/conformance/mpi4py_modules.txt
ONLY=
KEEP=0
NETNS=
LIB=
while [ $# -gt 0 ]; do
  case "$1" in
    --np) NPS=$2; shift 2 ;;
    --modules) MODFILE=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --netns) NETNS=$2; shift 2 ;;
    --lib) LIB=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    *) echo "usage: $0 [--np \"1 2 4\"] [--modules FILE] [--only ferry|mpich] [--keep] [--netns H] [--lib DIR]" >&2; exit 2 ;;
  esac
done
LAUNCH=()
if [ -n "$NETNS" ]; then
  # the whole script again inside the test hosts' helper
  [ -n "${FY_NETNS_HOSTS:-}" ] || exec sh tests/launch/netns/fy_netns.sh "$NETNS" -- bash "$0" "${ARGS[@]}"
  ONLY=ferry
  mapfile -t LAUNCH < <(sh tests/launch/netns/fy_netns_args.sh ferry)
fi
M4P_VERSION=${M4P_VERSION:-4.1.2}
WORK=${CONFORMANCE_DIR:-$ROOT/build/conformance}
mkdir -p "$WORK"
scripts/deps.sh --mpich >/dev/null
if [ ! -x "$WORK/venv/bin/python" ] || ! "$WORK/venv/bin/python" -c "import mpi4py, numpy" 2>/dev/null; then
  python3 -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install -q "mpi4py==$M4P_VERSION" numpy || exit 1
fi
if [ ! -d "$WORK/mpi4py-$M4P_VERSION/test" ]; then
  # (mpi4py alone from source: --no-binary :all: would build its build
  # dependencies from source too, Cython among them, for many minutes)
  "$WORK/venv/bin/pip" download -q --no-deps --no-binary mpi4py "mpi4py==$M4P_VERSION" -d "$WORK" || exit 1
  tar -xzf "$WORK/mpi4py-$M4P_VERSION.tar.gz" -C "$WORK"
fi
mkdir -p "$WORK/mpichlib"
ln -sf "$(ls /usr/lib/x86_64-linux-gnu/libmpich.so.12 2>/dev/null || echo /usr/lib/libmpich.so.12)" "$WORK/mpichlib/libmpi.so.12"
[ -x install/bin/mpiexec ] || { echo "conformance: build Ferry first (make)" >&2; exit 1; }
FERRYLIB=$ROOT/install/lib
PRELOAD=()
if [ -n "$LIB" ]; then
  [ -f "$LIB/libmpi.so.12" ] || { echo "conformance: no $LIB/libmpi.so.12" >&2; exit 1; }
  FERRYLIB=$LIB
  ONLY=ferry
  # an instrumented library in an uninstrumented Python: its runtime goes first
  san=$(ldd "$LIB/libmpi.so.12" | sed -n 's/.*=> \(\S*\/lib\(a\|t\|ub\)san\.so\S*\).*/\1/p' | paste -sd:)
  [ -n "$san" ] && PRELOAD=(env "LD_PRELOAD=$san" "ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}")
fi

modules=$(grep -v '^#' "$MODFILE" | grep .)
export MPI4PY_MPIABI=mpich
LOGS="$WORK/logs${NETNS:+-netns}${LIB:+-lib}"
[ $KEEP = 1 ] || rm -rf "$LOGS"
mkdir -p "$LOGS"
run() {  # impl np module
  local impl=$1 np=$2 mod=$3 log="$LOGS/$1.np$2.$3.log"
  (
    cd "$WORK/mpi4py-$M4P_VERSION/test"
    if [ "$impl" = ferry ]; then
      LD_LIBRARY_PATH="$FERRYLIB" "${PRELOAD[@]}" timeout 600 "$ROOT/install/bin/mpiexec" "${LAUNCH[@]}" -n "$np" \
        "$WORK/venv/bin/python" main.py --no-builddir -v "$mod"
    else
      LD_LIBRARY_PATH="$WORK/mpichlib" timeout 600 mpiexec.hydra -n "$np" \
        "$WORK/venv/bin/python" main.py --no-builddir -v "$mod"
    fi
  ) >"$log" 2>&1
  echo $? >"$log.rc"
}
impls="ferry mpich"
[ -n "$ONLY" ] && impls=$ONLY
for np in $NPS; do
  for mod in $modules; do
    for impl in $impls; do run "$impl" "$np" "$mod"; done
  done
done
python3 scripts/conformance_table.py "$LOGS" tests/conformance/mpi4py.xfail "$NPS" $modules
