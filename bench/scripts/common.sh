# Shared helpers for the benchmark drivers (sourced, not run).
#
# A "config" names one MPI library plus its settings:
#   ferry ferry-none ferry-thread ferry-interrupt ferry-pef
#                      Ferry from ./install (FERRY_PROGRESS unset / set)
#   mpich mpich-async  MPICH 4 through Hydra (MPICH_ASYNC_PROGRESS=1)
#   ompi ompi-nocma    Open MPI 4 (btl_vader_single_copy_mechanism=none)
#   mpich-ofi          MPICH 5 with its ch4:ofi device (PyPI's mpich wheel in
#                      $FY_MPICH_OFI, default .peers/mpich-ofi: scripts/deps.sh
#                      --mpich-ofi); the fabric benchmarks only
# impl_of CONFIG gives the library (ferry, mpich, ompi): the build directory
# bench/results/build-<impl>/ holds the binaries built with its wrapper.
#
# Binding: Hydra -bind-to core, Open MPI --bind-to core, Ferry's mpiexec
# binds by itself when the ranks fit the cores (FERRY_BIND=auto). With
# FY_BENCH_TASKSET=1 each rank is also wrapped in taskset (core = rank mod
# cores). Binding a Ferry rank binds its helper threads to that core too.

FY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FY_BENCH=$FY_ROOT/bench
FY_RESULTS=${FY_RESULTS:-$FY_BENCH/results}
FY_INSTALL=${FY_INSTALL:-$FY_ROOT/install}
FY_RUN_TIMEOUT=${FY_RUN_TIMEOUT:-600}
FY_MPICH_OFI=${FY_MPICH_OFI:-$FY_ROOT/.peers/mpich-ofi}
# How mpich-ofi runs over TCP: its ofi device (the wheel also has ucx), the
# provider Ferry uses, and its own shared memory kept out on one host.
FY_MPICH_OFI_ENV=(MPIR_CVAR_CH4_NETMOD=ofi FI_PROVIDER=tcp MPIR_CVAR_ODD_EVEN_CLIQUES=1)

fy_note() { echo "[bench] $*" >&2; }

impl_of() {
  case "$1" in
    ferry*) echo ferry ;;
    mpich-ofi*) echo mpich-ofi ;;
    mpich*) echo mpich ;;
    ompi*) echo ompi ;;
    *) echo unknown ;;
  esac
}

# impl_available IMPL: 0 when its compiler wrapper and launcher exist.
impl_available() {
  case "$1" in
    ferry) [ -x "$FY_INSTALL/bin/mpicc" ] && [ -x "$FY_INSTALL/bin/mpiexec" ] ;;
    mpich) command -v mpicc.mpich >/dev/null && command -v mpiexec.hydra >/dev/null ;;
    mpich-ofi) [ -x "$FY_MPICH_OFI/bin/mpicc" ] && [ -x "$FY_MPICH_OFI/bin/mpiexec.hydra" ] ;;
    ompi) command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null ;;
    *) return 1 ;;
  esac
}

# impl_cc IMPL [fortran]: IMPL's C compiler wrapper, or its Fortran one.
impl_cc() {
  case "$1:${2:-}" in
    ferry:) echo "$FY_INSTALL/bin/mpicc" ;;
    mpich:) echo mpicc.mpich ;;
    mpich-ofi:) echo "$FY_MPICH_OFI/bin/mpicc" ;;
    ompi:) echo mpicc.openmpi ;;
    ferry:fortran) echo "$FY_INSTALL/bin/mpifort" ;;
    mpich:fortran) echo mpif90.mpich ;;
    ompi:fortran) echo mpif90.openmpi ;;
  esac
}

# Keep only the configs whose library is installed; note the others once.
# (Configs are words; commas separate them too: "ferry,ompi-nocma".)
filter_configs() {
  local c out=() skipped=() all="$*"
  for c in ${all//,/ }; do
    if impl_available "$(impl_of "$c")"; then out+=("$c"); else skipped+=("$c"); fi
  done
  if [ ${#skipped[@]} -gt 0 ]; then
    if [[ " ${skipped[*]} " == *" ferry"* ]]; then
      fy_note "Ferry not installed ($FY_INSTALL/bin/mpicc missing; run 'make'): skipping ${skipped[*]}"
    else
      fy_note "not installed (scripts/deps.sh --peers installs MPICH and Open MPI): skipping ${skipped[*]}"
    fi
  fi
  echo "${out[@]}"
}

# build IMPL NAME SRC... : builds bench/results/build-IMPL/NAME when a source
# is newer (with IMPL's C wrapper, or its Fortran one for a .f90); prints
# the binary's path.
build() {
  local impl=$1 name=$2; shift 2
  local dir=$FY_RESULTS/build-$impl exe src stale=0 cc
  mkdir -p "$dir"
  exe=$dir/$name
  # a Fortran source is built with the library's Fortran wrapper; a
  # preprocessed one (.F90) may test FY_IMPL_<IMPL> (FY_IMPL_OMPI...) to
  # leave out what a library cannot compile
  cc=$(impl_cc "$impl")
  case "$1" in *.f90|*.F90) cc=$(impl_cc "$impl" fortran) ;; esac
  for src in "$@"; do [ "$src" -nt "$exe" ] && stale=1; done
  [ "$cc" -nt "$exe" ] 2>/dev/null && stale=1
  if [ ! -x "$exe" ] || [ $stale = 1 ]; then
    # shellcheck disable=SC2046
    "$cc" -O2 -Wall -Wextra "-DFY_IMPL_$(echo "$impl" | tr 'a-z-' 'A-Z_')" -o "$exe" "$@" -lm >&2 \
      || { fy_note "build of $name against $impl failed"; return 1; }
  fi
  echo "$exe"
}

# netns_args IMPL NP: sets the array fy_netns_args to IMPL's launcher
# options that place NP ranks on the test hosts of
# tests/launch/netns/fy_netns.sh (tests/launch/netns/fy_netns_args.sh says
# how, for every script that launches there).
netns_args() {
  mapfile -t fy_netns_args < <(sh "$FY_ROOT/tests/launch/netns/fy_netns_args.sh" "$1" "$2")
}

# launch CONFIG NP EXE ARGS... : runs the program under CONFIG's launcher and
# environment (a timeout guards against hangs).
launch() {
  local cfg=$1 np=$2; shift 2
  local envs=() cmd=()
  case "$cfg" in
    ferry-*) envs+=("FERRY_PROGRESS=${cfg#ferry-}") ;;
    ferry) envs+=("-u" "FERRY_PROGRESS") ;;
    mpich-async) envs+=("MPICH_ASYNC_PROGRESS=1") ;;
    ompi-nocma) envs+=("OMPI_MCA_btl_vader_single_copy_mechanism=none") ;;
  esac
  case "$(impl_of "$cfg")" in
    ferry)
      envs+=("LD_LIBRARY_PATH=$FY_INSTALL/lib:$FY_INSTALL/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
      cmd=("$FY_INSTALL/bin/mpiexec" -n "$np")
      # inside tests/launch/netns/fy_netns.sh: on its test hosts
      [ -n "${FY_NETNS_HOSTS:-}" ] && netns_args ferry "$np" && cmd+=("${fy_netns_args[@]}")
      [ "${FY_BENCH_TASKSET:-0}" = 1 ] && cmd+=("$FY_BENCH/scripts/bindrank.sh") ;;
    mpich)
      if [ -n "${FY_NETNS_HOSTS:-}" ]; then
        netns_args mpich "$np"
        cmd=(mpiexec.hydra -n "$np" "${fy_netns_args[@]}")
        envs+=("UCX_TLS=tcp,self")
      else
        cmd=(mpiexec.hydra -n "$np" -bind-to core)
      fi ;;
    ompi)
      envs+=("OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
      if [ -n "${FY_NETNS_HOSTS:-}" ]; then
        netns_args ompi "$np"
        cmd=(mpirun.openmpi -n "$np" "${fy_netns_args[@]}")
      else
        cmd=(mpirun.openmpi -n "$np" --bind-to core)
        [ "$np" -gt "$(nproc)" ] && cmd+=(--oversubscribe)
      fi ;;
  esac
  env "${envs[@]}" timeout "$FY_RUN_TIMEOUT" "${cmd[@]}" "$@"
}

# Run a program that prints '#' comment lines and one CSV table; append the
# table to OUT with the config as first column (header written once).
# It runs on FY_NP ranks (default 2).
# run_csv CONFIG OUT EXE ARGS...
run_csv() {
  local cfg=$1 out=$2; shift 2
  local tmp rc
  tmp=$(mktemp)
  launch "$cfg" "${FY_NP:-2}" "$@" >"$tmp" 2>"$tmp.err"
  rc=$?
  if [ $rc -ne 0 ]; then
    fy_note "$cfg: $(basename "$1") failed (exit $rc); stderr:"
    tail -5 "$tmp.err" >&2
  fi
  local hdr
  hdr=$(grep -v '^#' "$tmp" | head -1)
  if [ -n "$hdr" ]; then
    [ -s "$out" ] || echo "config,$hdr" >"$out"
    grep -v '^#' "$tmp" | tail -n +2 | grep -v '^$' | sed "s/^/$cfg,/" >>"$out"
  fi
  [ -n "${FY_LOG:-}" ] && { echo "== $cfg $*"; cat "$tmp" "$tmp.err"; } >>"$FY_LOG"
  rm -f "$tmp" "$tmp.err"
  return $rc
}

# bench_results KIND: where one driver run writes (bench/results/KIND/):
# sets outdir, stamp, csv (KIND-<stamp>.csv) and FY_LOG (its .log, emptied).
bench_results() {
  outdir=$FY_RESULTS/$1
  mkdir -p "$outdir"
  stamp=$(date +%Y%m%d-%H%M%S)
  csv=$outdir/$1-$stamp.csv
  export FY_LOG=$outdir/$1-$stamp.log
  : >"$FY_LOG"
}

# rotated N WORD...: the words from the N-th on, going round (N counts from
# 1, modulo their number). Round N of an interleaved run goes through its
# configs in this order, so that each one runs first, second, ... equally
# often instead of always after the same neighbour.
rotated() {
  local n=$1
  shift
  [ $# -gt 0 ] || return 0
  local k=$(((n - 1) % $#)) w=("$@")
  echo "${w[@]:k}" "${w[@]:0:k}"
}

# run_rounds RUNS CSV NAME SRC "CONFIGS" ARGS...: RUNS interleaved rounds
# (every config once per round, the order rotated each round) of the
# benchmark NAME built from SRC with each config's library, its rows
# appended to CSV (run_csv). Returns 1 if a build or a run failed.
run_rounds() {
  local runs=$1 out=$2 name=$3 src=$4 cfgs=$5 run cfg exe rc=0
  shift 5
  for run in $(seq "$runs"); do
    # shellcheck disable=SC2086 # (the configs are words)
    for cfg in $(rotated "$run" $cfgs); do
      exe=$(build "$(impl_of "$cfg")" "$name" "$src") || { rc=1; continue; }
      fy_note "$name: $cfg (run $run of $runs)"
      run_csv "$cfg" "$out" "$exe" "$@" || rc=1
    done
  done
  return $rc
}

# keep_latest KIND: 1 (with a note) when the run wrote no rows; else copies
# the CSV to KIND-latest.csv.
keep_latest() {
  [ -s "$csv" ] || { fy_note "no results"; return 1; }
  cp "$csv" "$outdir/$1-latest.csv"
}

# Project venv with matplotlib (for the plots); prints the python to use or
# nothing when it cannot be had (plots are then skipped).
plot_python() {
  local py=$FY_ROOT/.venv/bin/python
  if [ ! -x "$py" ]; then
    python3 -m venv "$FY_ROOT/.venv" >&2 || return 0
  fi
  if ! "$py" -c 'import matplotlib' 2>/dev/null; then
    fy_note "installing matplotlib into .venv"
    "$FY_ROOT/.venv/bin/pip" install -q matplotlib >&2 || return 0
  fi
  echo "$py"
}
