#!/bin/sh
# NAS Parallel Benchmarks (NPB 3.4, MPI version) on Ferry, MPICH and Open MPI.
#
#   NPB_DIR=/path/to/NPB3.4-MPI bench/nas/run.sh [options]
#
# Builds each benchmark and class with each MPI's own compiler wrappers (a
# copy of the NPB tree per MPI under bench/results/nas/build-<mpi>/, with a
# config/make.def written here), runs it at each process count, checks that
# it prints "Verification = SUCCESSFUL" and prints one table of times (s,
# NPB's own "Time in seconds") plus a CSV (bench/results/nas/nas-<stamp>.csv).
# The NPB sources are not in this repository: see bench/README.md (NAS).
#
# Options (defaults in brackets):
#   --mpis "ferry mpich ompi"      MPIs to compare [all three; a missing one is skipped]
#   --benchmarks "lu sp bt cg mg ft ep is"
#   --classes "S W A"
#   --np "1 2 4"                   process counts (BT and SP need a square)
#   --timeout SECONDS              per run [600]
#   --ferry-progress MODE          FERRY_PROGRESS for Ferry's runs [library default]
# Environment: NPB_DIR (required), FERRY_PREFIX [<repo>/install].
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mpis="ferry mpich ompi" benchmarks="lu sp bt cg mg ft ep is" classes="S W A" nps="1 2 4"
timeout_s=600 ferry_progress=
while [ $# -gt 0 ]; do
  case $1 in
    --mpis) mpis=$2; shift ;;
    --benchmarks) benchmarks=$2; shift ;;
    --classes) classes=$2; shift ;;
    --np) nps=$2; shift ;;
    --timeout) timeout_s=$2; shift ;;
    --ferry-progress) ferry_progress=$2; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
: "${NPB_DIR:?set NPB_DIR to an NPB 3.4 MPI source tree (see bench/README.md, NAS)}"
[ -f "$NPB_DIR/config/make.def.template" ] && [ -d "$NPB_DIR/LU" ] \
  || { echo "run.sh: $NPB_DIR does not look like NPB 3.4 MPI (config/make.def.template, LU/)" >&2; exit 2; }
ferry=${FERRY_PREFIX:-$root/install}
out=$root/bench/results/nas
mkdir -p "$out"
stamp=$(date +%Y%m%d-%H%M%S)
csv=$out/nas-$stamp.csv
echo "mpi,benchmark,class,np,status,seconds" > "$csv"

# The wrappers and launcher of each MPI: fc cc mpiexec [launcher options].
tools() {
  case $1 in
    ferry) echo "$ferry/bin/mpifort $ferry/bin/mpicc $ferry/bin/mpiexec" ;;
    mpich) echo "mpif90.mpich mpicc.mpich mpiexec.mpich" ;;
    ompi) echo "mpif90.openmpi mpicc.openmpi mpiexec.openmpi --oversubscribe --allow-run-as-root" ;;
  esac
}
have() { command -v "$1" >/dev/null 2>&1 || [ -x "$1" ]; }

# Process counts each benchmark accepts: BT and SP a square, CG, MG, FT, IS
# and LU a power of two, EP any.
np_ok() {
  case $1 in
    bt|sp) case $2 in 1|4|9|16|25|36|49|64) return 0 ;; esac; return 1 ;;
    ep) return 0 ;;
    *) case $2 in 1|2|4|8|16|32|64|128) return 0 ;; esac; return 1 ;;
  esac
}

prepare() {   # mpi -> build tree with config/make.def for its wrappers
  b=$out/build-$1
  if [ ! -d "$b" ]; then
    cp -R "$NPB_DIR" "$b" || return 1
    rm -rf "$b/bin" && mkdir -p "$b/bin"
  fi
  set -- $(tools "$1")
  # gfortran >= 10: NPB's mpif.h calls pass buffers of several types.
  cat > "$b/config/make.def" <<MAKEDEF
# Written by Ferry's bench/nas/run.sh
MPIFC = $1
FLINK = \$(MPIFC)
FMPI_LIB =
FMPI_INC =
FFLAGS = -O3 -fallow-argument-mismatch
FLINKFLAGS = \$(FFLAGS)
MPICC = $2
CLINK = \$(MPICC)
CMPI_LIB =
CMPI_INC =
CFLAGS = -O3
CLINKFLAGS = \$(CFLAGS)
CC = gcc -g
BINDIR = ../bin
CONVERTFLAG = -DFORTRAN_REC_SIZE=1
RAND = randi8
MAKEDEF
}

printf '# NPB 3.4 MPI from %s, %s\n' "$NPB_DIR" "$(date)"
results=
for mpi in $mpis; do
  set -- $(tools "$mpi")
  if ! have "$1" || ! have "$2" || ! have "$3"; then
    echo "# $mpi: wrappers absent ($1 $2 $3), skipped"
    continue
  fi
  prepare "$mpi" || { echo "# $mpi: cannot copy $NPB_DIR" >&2; continue; }
  b=$out/build-$mpi
  launcher=$3; shift 3; lopts=$*
  for bm in $benchmarks; do
    for cl in $classes; do
      exe=$b/bin/$bm.$cl.x
      log=$out/build-$mpi/$bm.$cl.build.log
      if ! (cd "$b" && make "$bm" CLASS="$cl") >"$log" 2>&1 || [ ! -x "$exe" ]; then
        echo "# $mpi $bm.$cl: build failed, see $log"
        for np in $nps; do echo "$mpi,$bm,$cl,$np,build-failed," >> "$csv"; done
        continue
      fi
      for np in $nps; do
        if ! np_ok "$bm" "$np"; then
          echo "$mpi,$bm,$cl,$np,n/a," >> "$csv"
          continue
        fi
        rlog=$out/build-$mpi/$bm.$cl.np$np.log
        env_prog=
        [ "$mpi" = ferry ] && [ -n "$ferry_progress" ] && env_prog="FERRY_PROGRESS=$ferry_progress"
        # shellcheck disable=SC2086
        (cd "$b/bin" && env $env_prog timeout "$timeout_s" "$launcher" $lopts -n "$np" "$exe") >"$rlog" 2>&1
        rc=$?
        t=$(sed -n 's/^ *Time in seconds *= *\([0-9.eE+-]*\).*/\1/p' "$rlog" | head -1)
        if grep -q 'Verification *= *SUCCESSFUL' "$rlog"; then
          st=ok
        elif [ $rc = 124 ]; then
          st=timeout t=
        else
          st=failed t=
        fi
        echo "$mpi,$bm,$cl,$np,$st,$t" >> "$csv"
        [ "$st" = ok ] || echo "# $mpi $bm.$cl np=$np: $st (exit $rc), see $rlog"
      done
    done
  done
  results="$results $mpi"
done

# Table: one row per benchmark, class and process count, one column per MPI.
echo
awk -F, -v mpis="$results" '
  NR == 1 { next }
  { key = $2 "." $3 " np=" $4; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    v[key, $1] = ($5 == "ok") ? sprintf("%.2f", $6) : $5 }
  END {
    m = split(mpis, col, " ")
    printf "%-16s", "benchmark"; for (i = 1; i <= m; i++) printf " %12s", col[i]; printf "\n"
    for (k = 1; k <= n; k++) {
      printf "%-16s", order[k]
      for (i = 1; i <= m; i++) { x = v[order[k], col[i]]; printf " %12s", x == "" ? "-" : x }
      printf "\n"
    }
    print "(seconds, NPB \"Time in seconds\"; ok only when Verification = SUCCESSFUL)"
  }' "$csv"
cp "$csv" "$out/nas-latest.csv"
echo "# CSV: $csv"
