#!/bin/sh
# Run a job and judge how it ends.
#   job.sh [--rc N|nonzero|zero] [--match ERE]... [--count ERE N] [--timeout S]
#          [--no-launcher] -- command args...
# --rc       expected exit status (default zero)
# --match    extended regex that must occur in the job's stdout+stderr
# --count    regex that must match exactly N output lines (may be repeated)
# --timeout  the job must end within S seconds (default 60)
# --no-launcher  clear PMI_* variables first (singleton run)
# Also: no /dev/shm/fy-* file created during the run may remain afterwards.
# Exit 0 = pass, 1 = fail, 77 = skip (command not found).
rc_want=zero; timeout_s=60; matches=""; counts=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rc) rc_want=$2; shift 2 ;;
    --match) matches="$matches
$2"; shift 2 ;;
    --count) counts="$counts
$3 $2"; shift 3 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --no-launcher) for v in $(env | sed -n 's/^\(PMI_[A-Za-z_]*\)=.*/\1/p; s/^\(HYDRA_[A-Za-z_]*\)=.*/\1/p'); do unset "$v"; done; shift ;;
    --) shift; break ;;
    *) echo "job.sh: bad option $1" >&2; exit 2 ;;
  esac
done
command -v "$1" >/dev/null 2>&1 || [ -x "$1" ] || { echo "SKIP: $1 not found"; exit 77; }

out=$(mktemp "${TMPDIR:-/tmp}/fyjob.XXXXXX")
shm_before=$(ls -1 /dev/shm 2>/dev/null | grep '^fy-' | sort)
t_start=$(date +%s)
timeout -k 5 "$timeout_s" "$@" >"$out" 2>&1
rc=$?
t_end=$(date +%s)
fail=0
echo "---- job output (exit $rc): $*"; cat "$out"; echo "----"
# Judge by the clock: 124 is also mpiexec's own time-limit status, and 137
# a job whose rank died of SIGKILL (128+9).
if [ $((t_end - t_start)) -ge "$timeout_s" ]; then
  echo "FAIL: job did not end within ${timeout_s}s"; fail=1
fi
case "$rc_want" in
  zero) [ $rc -eq 0 ] || { echo "FAIL: exit status $rc, expected 0"; fail=1; } ;;
  nonzero) [ $rc -ne 0 ] || { echo "FAIL: exit status 0, expected non-zero"; fail=1; } ;;
  *) [ $rc -eq "$rc_want" ] || { echo "FAIL: exit status $rc, expected $rc_want"; fail=1; } ;;
esac
printf '%s\n' "$matches" | while IFS= read -r re; do
  [ -z "$re" ] && continue
  grep -Eiq -- "$re" "$out" || { echo "FAIL: output does not match /$re/"; echo x >>"$out.miss"; }
done
[ -e "$out.miss" ] && { fail=1; rm -f "$out.miss"; }
# (each line of counts: N, a blank, the regex)
printf '%s\n' "$counts" | while IFS= read -r line; do
  [ -z "$line" ] && continue
  want=${line%% *} re=${line#* }
  n=$(grep -Ec -- "$re" "$out")
  [ "$n" -eq "$want" ] || { echo "FAIL: /$re/ matched $n lines, expected $want"; echo x >>"$out.miss"; }
done
[ -e "$out.miss" ] && { fail=1; rm -f "$out.miss"; }
# Segments of this job: new since the start. Concurrent jobs' segments live
# only until their ranks attach, so give stragglers a moment before judging,
# and a segment some live process still maps belongs to a job still
# starting (ours have all exited), however slowly a loaded machine does it.
mapped() { grep -qsF "/dev/shm/$1" /proc/[0-9]*/maps; }
left=""
for try in 1 2 3; do
  shm_after=$(ls -1 /dev/shm 2>/dev/null | grep '^fy-' | sort)
  left=""
  for f in $(printf '%s\n' "$shm_after" | grep -vxF -- "$shm_before"); do
    mapped "$f" || left="$left $f"
  done
  [ -z "$left" ] && break
  sleep 1
done
[ -z "$left" ] || { echo "FAIL: shared-memory files left behind: $left"; fail=1; }
rm -f "$out"
[ $fail -eq 0 ] && echo "PASS" || echo "FAIL"
exit $fail
