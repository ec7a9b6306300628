#!/bin/bash
# Behaviour tests of Ferry's mpiexec. usage: test_launcher.sh MPIEXEC HELPER
# Bounds are generous (every job must end within 20 s); nothing else is timed.
set -u
set -m   # background jobs keep SIGINT (non-interactive shells ignore it otherwise)
MPIEXEC=$1
H=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE FERRY_OUTPUT_PREFIX

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# run NAME EXPECTED_RC mpiexec-args...: output in $T/out, $T/err
run() {
  local name=$1 want=$2; shift 2
  timeout -k 5 20 "$MPIEXEC" "$@" >"$T/out" 2>"$T/err" </dev/null
  rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 -a "$want" != 137 ]; then fail "$name: did not end within 20 s"; return 1; fi
  if [ "$rc" != "$want" ]; then fail "$name: exit code $rc, expected $want"; sed 's/^/  err: /' "$T/err"; return 1; fi
  return 0
}
has() { grep -q -- "$2" "$T/$1" || { fail "$3: no \"$2\" in std$1"; sed 's/^/  /' "$T/$1" | head -20; return 1; }; }
one_message() {
  local n; n=$(grep -c '^mpiexec: ' "$T/err")
  [ "$n" = 1 ] || { fail "$1: $n mpiexec messages, expected one"; cat "$T/err"; return 1; }
}

# --- options, exit codes ---------------------------------------------------
run version 0 --version && has out "Ferry" version && ok version
run help 0 --help && has out "Usage" help && ok help
run badopt 2 --no-such-option x && has err "unknown option" badopt && ok "unknown option"
run noprog 2 -n 2 && ok "no program"
run plain0 0 -n 3 "$H" plain 0 && ok "all ranks exit 0"
run nonmpi 0 -np 2 true && ok "program without PMI"
run plain5 5 -n 3 "$H" plain 5 && ok "exit code propagated"
run exec127 127 -n 2 /nonexistent/program && has err "cannot execute" exec && ok "missing program"
run pmiok 0 -n 4 "$H" ok && ok "PMI init/barrier/finalize"

# --- failures: one message naming the rank, the job ends --------------------
if run exit7 7 -n 3 "$H" exit 1 7; then
  has err "rank 1 (pid [0-9]*) exited with code 7; terminating the job" exit7 && one_message exit7 && ok "rank exits 7"
fi
if run kill 137 -n 3 "$H" kill 2; then
  has err "rank 2 (pid [0-9]*) killed by signal 9 (Killed); terminating the job" kill && one_message kill && ok "rank killed by SIGKILL"
fi
if run abort 42 -n 4 "$H" abort 1 42; then
  has err "rank 1 (pid [0-9]*) called abort with exit code 42" abort && one_message abort && ok "rank calls PMI abort"
fi
if run nofin 1 -n 3 "$H" nofinalize 0; then
  has err "rank 0 (pid [0-9]*) exited without calling finalize" nofin && one_message nofin && ok "exit without finalize"
fi
FERRY_KILL_TIMEOUT=1 run killtimeout 7 -n 2 sh -c 'trap "" TERM; [ "$PMI_RANK" = 1 ] && exit 7; sleep 100' \
  && ok "SIGKILL after FERRY_KILL_TIMEOUT for a rank ignoring SIGTERM"

# --- output ------------------------------------------------------------------
if run echo 0 -n 2 "$H" echo; then
  has out "^out 1 line 2$" echo && has out "tail 0" echo && has err "^err 1$" echo && ok "stdout/stderr forwarded"
fi
if run prefix 0 -prefix -n 2 "$H" echo; then
  if grep -v '^\[[01]\] ' "$T/out" | grep -q .; then fail "prefix: unprefixed line"; cat "$T/out"; fi
  has out "^\[1\] out 1 line 2$" prefix && has out "^\[0\] tail 0$" prefix && has err "^\[1\] err 1$" prefix && ok "-prefix"
fi
FERRY_OUTPUT_PREFIX=1 run prefixenv 0 -n 2 "$H" echo && has out "^\[1\] tail 1$" prefixenv && ok FERRY_OUTPUT_PREFIX
run prefixlong 0 --prefix-output -n 2 "$H" echo && has out "^\[0\] out 0 line 0$" prefixlong && ok "--prefix-output"
if run volume 0 -n 4 sh -c 'seq 1 20000; seq 1 100 >&2'; then
  [ "$(wc -l <"$T/out")" = 80000 ] && [ "$(wc -l <"$T/err")" = 400 ] && ok "no output lost" || fail "volume: $(wc -l <"$T/out") lines"
fi
if run volumeprefix 0 -prefix -n 4 sh -c 'seq 1 20000'; then
  [ "$(grep -c '^\[3\] ' "$T/out")" = 20000 ] && ok "no output lost with -prefix" || fail "volumeprefix"
fi

# --- stdin, environment ---------------------------------------------------------
printf 'hello rank zero' | timeout 20 "$MPIEXEC" -n 3 "$H" stdin >"$T/out" 2>"$T/err"
if [ $? = 0 ] && grep -q "^rank 0 stdin: hello rank zero$" "$T/out" && grep -q "^rank 1 stdin: $" "$T/out"; then
  ok "stdin reaches rank 0 only"
else fail "stdin"; cat "$T/out" "$T/err"; fi
FERRY_TEST_VAR=forwarded run env 0 -n 2 "$H" env FERRY_TEST_VAR && has out "rank 1 FERRY_TEST_VAR=forwarded" env && ok "environment forwarded"
run genv 0 -genv FY_A "a value" -n 2 "$H" env FY_A && has out "rank 1 FY_A=a value" genv && ok -genv
run xopt 0 -x FY_B=b -n 2 "$H" env FY_B && has out "rank 0 FY_B=b" xopt && ok -x
run spawned 0 -n 2 "$H" env PMI_SPAWNED && has out "rank 1 PMI_SPAWNED=0" spawned && ok PMI_SPAWNED
run args 0 -n 1 sh -c 'echo "$#:$1:$2"' sh -n "two words" && has out "^2:-n:two words$" args && ok "program arguments untouched"
# --- output files -----------------------------------------------------------
run ofile 0 -outfile-pattern "$T/out.%r" -errfile-pattern "$T/err.%g%%" -n 2 sh -c 'echo o $PMI_RANK; echo e $PMI_RANK >&2' &&
  grep -qx "o 1" "$T/out.1" && grep -qx "o 0" "$T/out.0" && [ "$(sort "$T/err.0%" | tr '\n' ' ')" = "e 0 e 1 " ] &&
  ok "-outfile-pattern, -errfile-pattern (ranks of one name share the file)" || fail "ofile: $(ls "$T")"
run ofbad 2 -outfile-pattern 'x%q' -n 1 true && has err "not %q" ofbad && ok "-outfile-pattern: unknown %"
run ofdir 2 -errfile-pattern /nonexistent/dir/e.%r -n 1 true && has err "cannot open /nonexistent/dir/e.0" ofdir &&
  ok "-errfile-pattern: a file that cannot be opened"

# --- binding (the CPUs each rank may use, counted by nproc) ------------------
ncpu=$(nproc)
run bindnone 0 -bind-to none -n 1 nproc && has out "^$ncpu$" bindnone && ok "-bind-to none"
run bindall 0 -bind-to "hwthread:$ncpu" -n 1 nproc && has out "^$ncpu$" bindall && ok "-bind-to hwthread:N"
run bindbad 2 -bind-to core:0 -n 1 true && has err "needs none, auto" bindbad && ok "-bind-to refused"
if [ "$ncpu" -ge 2 ]; then
  # auto: a core each (one CPU, or its hardware threads), while they fit ...
  run bindauto 0 -n 2 nproc && ! grep -qx "$ncpu" "$T/out" && ok "auto: a core per rank" ||
    fail "bindauto: a rank may use all $ncpu CPUs: $(tr '\n' ' ' <"$T/out")"
  # ... and none when OMP_NUM_THREADS cores per rank do not fit
  run bindomp 0 -genv OMP_NUM_THREADS "$ncpu" -n 2 nproc && [ "$(grep -cx "$ncpu" "$T/out")" = 2 ] &&
    ok "auto: OMP_NUM_THREADS cores per rank, none when they do not fit" ||
    fail "bindomp: $(tr '\n' ' ' <"$T/out")"
fi

# --- shared-memory cleanup --------------------------------------------------------
for mode in shm shmfail; do
  want=0; [ $mode = shmfail ] && want=3
  if run $mode $want -n 2 "$H" $mode; then
    files=$(sed -n 's/^shm //p' "$T/out")
    [ -n "$files" ] || fail "$mode: no shm file reported"
    left=0; for f in $files; do [ -e "$f" ] && left=1; done
    [ $left = 0 ] && ok "/dev/shm/fy-<kvsname>-* removed ($mode)" || fail "$mode: $files left behind"
    rm -f $files
  fi
done

# --- signals to mpiexec end every rank -----------------------------------------------
for sig in TERM INT; do
  "$MPIEXEC" -n 3 "$H" wait >"$T/out" 2>"$T/err" </dev/null &
  mp=$!
  for _ in $(seq 200); do grep -q ready "$T/out" && break; sleep 0.1; done
  pids=$(sed -n 's/^pid //p' "$T/out")
  kill -$sig $mp
  ended=0
  for _ in $(seq 200); do kill -0 $mp 2>/dev/null || { ended=1; break; }; sleep 0.1; done
  wait $mp; rc=$?
  alive=0; for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
  want=$((128 + $(kill -l $sig)))
  if [ $ended = 1 ] && [ $alive = 0 ] && [ "$(echo $pids | wc -w)" = 3 ] && [ $rc = $want ]; then
    ok "SIG$sig to mpiexec ends all ranks (exit $rc)"
  else
    fail "SIG$sig: ended=$ended ranks alive=$alive pids='$pids' rc=$rc"; cat "$T/err"
    kill -9 $pids $mp 2>/dev/null
  fi
done

# mpiexec killed outright: its ranks die with it, and so do the processes
# they started (its guardian kills their group)
"$MPIEXEC" -n 2 sh -c 'sleep 300 & echo "child $!"; wait' >"$T/out" 2>"$T/err" </dev/null &
mp=$!
for _ in $(seq 200); do [ "$(grep -c '^child ' "$T/out")" = 2 ] && break; sleep 0.1; done
kids=$(sed -n 's/^child //p' "$T/out")
kill -9 $mp
wait $mp 2>/dev/null
alive=1
for _ in $(seq 100); do
  alive=0; for p in $kids; do kill -0 "$p" 2>/dev/null && alive=1; done
  [ $alive = 0 ] && break; sleep 0.1
done
if [ "$(echo $kids | wc -w)" = 2 ] && [ $alive = 0 ]; then
  ok "SIGKILL of mpiexec: no process of the ranks left"
else
  fail "SIGKILL of mpiexec: children '$kids' of the ranks still alive=$alive"; kill -9 $kids 2>/dev/null
fi

echo "$fails failure(s)"
[ $fails = 0 ]
