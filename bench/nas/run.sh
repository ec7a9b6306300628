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
# With --repeat N the runs are interleaved (repetition by repetition, every
# MPI in turn for each benchmark, class and process count) and the table
# gives the median with the min-max spread, then each column's median as a
# ratio to the first column's, then the paired ratio: the median over the
# repetitions of each run's time divided by the first column's run of the
# same repetition. On a VM whose speed drifts, only the paired ratio is
# trustworthy (docs/progress.md, the LU experiment).
# The NPB sources are not in this repository: see bench/README.md (NAS).
#
# Options (defaults in brackets):
#   --mpis "ferry mpich ompi"      MPIs to compare [all three; a missing one is
#                                  skipped]; ferry:MODE is Ferry's build run
#                                  with FERRY_PROGRESS=MODE (e.g. "ferry:none ferry")
#   --benchmarks "lu sp bt cg mg ft ep is"
#   --classes "S W A"
#   --np "1 2 4"                   process counts (BT and SP need a square)
#   --repeat N                     interleaved repetitions [1]
#   --rotate                       rotate the order of the MPIs by one place
#                                  each repetition (on this VM the first run
#                                  of a round tends to be the fastest)
#   --timers                       run with NPB's timer.flag; LU and the others
#                                  that have it then report their communication
#                                  time, added as a second table (LU: "totcomm")
#   --timeout SECONDS              per run [600]
#   --ferry-progress MODE          FERRY_PROGRESS for plain "ferry" runs [library default]
#   --netns H                      run every job across H test hosts (network
#                                  namespaces, tests/launch/netns/fy_netns.sh
#                                  -c; root), each host bound to its own
#                                  share of the CPUs as a node has its own
#                                  cores: the ranks spread over the hosts, so
#                                  shared memory and the fabric mix (MPICH
#                                  with UCX_TLS=tcp,self, Open MPI through
#                                  the hosts' addresses and its tcp BTL)
# Environment: NPB_DIR (required), FERRY_PREFIX [<repo>/install].
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# --netns: the whole script runs again inside the test hosts' helper
if [ -z "${FY_NETNS_HOSTS:-}" ]; then
  prev=
  for a in "$@"; do
    if [ "$prev" = --netns ]; then
      exec sh "$root/tests/launch/netns/fy_netns.sh" -c "$a" -- sh "$here/run.sh" "$@"
    fi
    prev=$a
  done
fi
mpis="ferry mpich ompi" benchmarks="lu sp bt cg mg ft ep is" classes="S W A" nps="1 2 4"
timeout_s=600 ferry_progress= repeat=1 timers=no rotate=no
while [ $# -gt 0 ]; do
  case $1 in
    --mpis) mpis=$2; shift ;;
    --benchmarks) benchmarks=$2; shift ;;
    --classes) classes=$2; shift ;;
    --np) nps=$2; shift ;;
    --timeout) timeout_s=$2; shift ;;
    --repeat) repeat=$2; shift ;;
    --timers) timers=yes ;;
    --rotate) rotate=yes ;;
    --ferry-progress) ferry_progress=$2; shift ;;
    --netns) shift ;;  # (handled above)
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
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
echo "mpi,benchmark,class,np,rep,status,seconds,comm_seconds" > "$csv"

# The wrappers and launcher of each MPI: fc cc mpiexec.
tools() {
  case $1 in
    ferry) echo "$ferry/bin/mpifort $ferry/bin/mpicc $ferry/bin/mpiexec" ;;
    mpich) echo "mpif90.mpich mpicc.mpich mpiexec.mpich" ;;
    ompi) echo "mpif90.openmpi mpicc.openmpi mpiexec.openmpi" ;;
  esac
}
# lopts MPI NP: its launcher's options for NP ranks, on the test hosts
# those of tests/launch/netns/fy_netns_args.sh.
lopts() {
  [ "$1" = ompi ] && echo --allow-run-as-root
  if [ -n "${FY_NETNS_HOSTS:-}" ]; then
    sh "$root/tests/launch/netns/fy_netns_args.sh" "$1" "$2"
  else
    [ "$1" = ompi ] && echo --oversubscribe
  fi
  return 0
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
  # (a tree copied from another NPB_DIR is copied afresh: stale objects
  # of another NPB would link into this one's programs)
  if [ ! -d "$b" ] || [ "$(cat "$b/.npb_dir" 2>/dev/null)" != "$NPB_DIR" ]; then
    rm -rf "$b"
    cp -R "$NPB_DIR" "$b" || return 1
    rm -rf "$b/bin" && mkdir -p "$b/bin"
    echo "$NPB_DIR" > "$b/.npb_dir"
  fi
  set -- $(tools "$1")
  # gfortran >= 10: NPB's mpif.h calls pass buffers of several types.
  cat > "$b/config/make.def" <<MAKEDEF
# Written by Ferry's bench/nas/run.sh
MPIFC = $1
FLINK = \$(MPIFC)
FMPI_LIB =
FMPI_INC =
FFLAGS = -O3 -fallow-argument-mismatch -fallow-invalid-boz
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

printf '# NPB 3.4 MPI from %s, %s, load average %s\n' "$NPB_DIR" "$(date)" "$(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "${FY_NETNS_HOSTS:-}" ] && printf '# across the test hosts %s\n' "$FY_NETNS_HOSTS"
# Build every benchmark and class once per MPI (ferry:MODE shares ferry's).
runs=
built=
for spec in $mpis; do
  mpi=${spec%%:*}
  set -- $(tools "$mpi")
  if [ $# -eq 0 ] || ! have "$1" || ! have "$2" || ! have "$3"; then
    echo "# $spec: wrappers absent (${1:-?} ${2:-?} ${3:-?}), skipped"
    continue
  fi
  runs="$runs $spec"
  case " $built " in *" $mpi "*) continue ;; esac
  built="$built $mpi"
  prepare "$mpi" || { echo "# $mpi: cannot copy $NPB_DIR" >&2; continue; }
  b=$out/build-$mpi
  if [ $timers = yes ]; then touch "$b/bin/timer.flag"; else rm -f "$b/bin/timer.flag"; fi
  for bm in $benchmarks; do
    for cl in $classes; do
      log=$b/$bm.$cl.build.log
      if ! (cd "$b" && make "$bm" CLASS="$cl") >"$log" 2>&1 || [ ! -x "$b/bin/$bm.$cl.x" ]; then
        echo "# $mpi $bm.$cl: build failed, see $log"
      fi
    done
  done
done

rep=1
while [ $rep -le "$repeat" ]; do
  for bm in $benchmarks; do
    for cl in $classes; do
      for np in $nps; do
        order=$runs
        if [ $rotate = yes ]; then   # shift the list by rep-1 places
          i=1
          while [ $i -lt "$rep" ]; do set -- $order; first=$1; shift; order="$* $first"; i=$((i + 1)); done
        fi
        for spec in $order; do
          mpi=${spec%%:*}
          b=$out/build-$mpi
          exe=$b/bin/$bm.$cl.x
          if [ ! -x "$exe" ]; then
            echo "$spec,$bm,$cl,$np,$rep,build-failed,," >> "$csv"
            continue
          fi
          if ! np_ok "$bm" "$np"; then
            echo "$spec,$bm,$cl,$np,$rep,n/a,," >> "$csv"
            continue
          fi
          set -- $(tools "$mpi")
          launcher=$3
          mode=
          [ "$mpi" = ferry ] && mode=$ferry_progress
          case $spec in *:*) mode=${spec#*:} ;; esac
          env_prog=
          [ "$mpi" = ferry ] && [ -n "$mode" ] && env_prog="FERRY_PROGRESS=$mode"
          [ "$mpi" = mpich ] && [ -n "${FY_NETNS_HOSTS:-}" ] && env_prog="UCX_TLS=tcp,self"
          rlog=$b/$bm.$cl.np$np.$(echo "$spec" | tr : _).r$rep.log
          # shellcheck disable=SC2086
          (cd "$b/bin" && env $env_prog timeout "$timeout_s" "$launcher" $(lopts "$mpi" "$np") -n "$np" "$exe") >"$rlog" 2>&1
          rc=$?
          t=$(sed -n 's/^ *Time in seconds *= *\([0-9.eE+-]*\).*/\1/p' "$rlog" | head -1)
          # LU's timer table: " timer 12( totcomm) :  min  max  average"
          c=$(sed -n 's/^ *timer *[0-9]*( *totcomm) *: *[0-9.]* *[0-9.]* *\([0-9.]*\).*/\1/p' "$rlog" | head -1)
          if grep -q 'Verification *= *SUCCESSFUL' "$rlog"; then
            st=ok
          elif [ $rc = 124 ]; then
            st=timeout t= c=
          else
            st=failed t= c=
          fi
          echo "$spec,$bm,$cl,$np,$rep,$st,$t,$c" >> "$csv"
          [ "$st" = ok ] || echo "# $spec $bm.$cl np=$np rep $rep: $st (exit $rc), see $rlog"
          # verified and timed, but the job did not end well (MPICH 4.0.2 over
          # UCX hangs in MPI_Finalize now and then): the time counts, the exit
          # is reported
          [ "$st" = ok ] && [ $rc != 0 ] &&
            echo "# $spec $bm.$cl np=$np rep $rep: verified, then exit $rc$([ $rc = 124 ] && echo " (still running after ${timeout_s} s: killed)"), see $rlog"
        done
      done
    done
  done
  rep=$((rep + 1))
done

# Tables: one row per benchmark, class and process count, one column per
# MPI: the median over the repetitions (min-max when more than one), then
# the medians as ratios to the first column.
table() {   # csv, column (7: seconds, 8: communication seconds), title
  awk -F, -v mpis="$runs" -v col="$2" -v title="$3" '
    function median(s,   a, n, i, j, t) {
      n = split(s, a, " ")
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
      lo = a[1]; hi = a[n]
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    NR == 1 { next }
    { key = $2 "." $3 " np=" $4; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
      if ($6 == "ok" && $col != "") { vals[key, $1] = vals[key, $1] " " $col; cnt[key, $1]++; rv[key, $1, $5] = $col; if ($5 > maxrep) maxrep = $5; if ($5 > 1) paired = 1 }
      else if ($6 != "ok") bad[key, $1] = $6 }
    END {
      m = split(mpis, c, " "); any = 0
      for (k = 1; k <= n; k++) for (i = 1; i <= m; i++) if (cnt[order[k], c[i]]) any = 1
      if (!any) exit
      print title
      printf "%-16s", "benchmark"; for (i = 1; i <= m; i++) printf " %20s", c[i]; printf "\n"
      for (k = 1; k <= n; k++) {
        printf "%-16s", order[k]
        for (i = 1; i <= m; i++) {
          key = order[k] SUBSEP c[i]
          if (cnt[key]) {
            med[key] = median(vals[key])
            x = cnt[key] > 1 ? sprintf("%.2f (%.2f-%.2f)", med[key], lo, hi) : sprintf("%.2f", med[key])
          } else x = (key in bad) ? bad[key] : "-"
          printf " %20s", x
        }
        printf "\n"
      }
      if (m > 1) {
        printf "%-16s", "ratio to " c[1]; printf "\n"
        for (k = 1; k <= n; k++) {
          printf "%-16s", order[k]
          for (i = 1; i <= m; i++) {
            a = order[k] SUBSEP c[1]; key = order[k] SUBSEP c[i]
            printf " %20s", (cnt[a] && cnt[key] && med[a] > 0) ? sprintf("%.3f", med[key] / med[a]) : "-"
          }
          printf "\n"
        }
        if (paired) {
          printf "%-16s", "paired ratio to " c[1] " (median of per-repetition ratios, min-max)"; printf "\n"
          for (k = 1; k <= n; k++) {
            printf "%-16s", order[k]
            for (i = 1; i <= m; i++) {
              s = ""; np = 0
              for (r = 1; r <= maxrep; r++) {
                a = order[k] SUBSEP c[1] SUBSEP r; key = order[k] SUBSEP c[i] SUBSEP r
                if ((a in rv) && (key in rv) && rv[a] > 0) { s = s " " rv[key] / rv[a]; np++ }
              }
              printf " %20s", np ? sprintf("%.3f (%.2f-%.2f)", median(s), lo, hi) : "-"
            }
            printf "\n"
          }
        }
      }
    }' "$csv"
}
echo
table "$csv" 7 "Time in seconds (NPB's; ok only when Verification = SUCCESSFUL)"
[ $timers = yes ] && { echo; table "$csv" 8 "Communication time in seconds (LU: totcomm, average over ranks)"; }
cp "$csv" "$out/nas-latest.csv"
echo "# CSV: $csv"
