# Sourced by hosts.sh and ssh.sh: a signal sent to mpiexec reaches the
# ranks on the test hosts.
#   signal_job SIG RC "H1 H2 ..." mpiexec [options]
# runs "mpiexec [options] sh -c ..." in the background with one rank per
# host listed (the options place them), each trapping SIG, saying so and
# exiting 0; once every rank is up, sends SIG to mpiexec, then checks
# mpiexec's exit status (RC) and that every host's rank got the signal.
# Sets fail=1 on a failure.
signal_job() {
  sj_sig=$1 sj_rc=$2 sj_hosts=$3
  shift 3
  sj_n=$(echo $sj_hosts | wc -w)
  sj_out=$(mktemp)
  "$@" sh -c "trap 'echo got $sj_sig on \$(hostname); exit 0' $sj_sig; echo up; sleep 30 & wait" >"$sj_out" 2>&1 &
  sj_p=$!
  sj_try=0
  while [ "$(grep -c '^up$' "$sj_out")" -lt "$sj_n" ] && [ $sj_try -lt 100 ]; do
    sleep 0.1
    sj_try=$((sj_try + 1))
  done
  kill -"$sj_sig" $sj_p
  wait $sj_p
  sj_got=$?
  cat "$sj_out"
  [ $sj_got -eq "$sj_rc" ] || { echo "FAIL: SIG$sj_sig: exit status $sj_got, expected $sj_rc"; fail=1; }
  for sj_h in $sj_hosts; do
    grep -q "^got $sj_sig on $sj_h$" "$sj_out" || { echo "FAIL: SIG$sj_sig did not reach the rank on $sj_h"; fail=1; }
  done
  rm -f "$sj_out"
}
