#!/bin/sh
# mpiexec's default launcher against real sshd. Run inside fy_netns.sh 2:
#   ssh.sh MPIEXEC HELLO
# starts an sshd of its own on each test host (its own host key and
# authorized key in a temporary directory, sshd's defaults otherwise: so
# MaxStartups 10:30:100, what clusters run), then, judged by
# ../basic/job.sh:
#   - 32 ranks on 2 hosts through ssh: all start, on their hosts (with a
#     connection per rank, sshd refused most beyond its MaxStartups);
#   - a rank killed by SIGKILL reads as such through ssh (ssh itself
#     would report 255);
#   - SIGUSR1 to mpiexec reaches the remote ranks (ssh dies of it);
#   - a Ferry job spanning the hosts over the fabric.
# Exit 0 pass, 1 fail, 77 skip (no sshd: Debian's openssh-server).
set -u
mpiexec=$1 hello=$2
here=$(cd "$(dirname "$0")" && pwd)
job="sh $here/../basic/job.sh"
. "$here/signal_job.sh"
fail=0
run() { $job "$@" || fail=1; }
[ -n "${FY_NETNS_HOSTS:-}" ] || { echo "ssh.sh: needs fy_netns.sh"; exit 2; }
[ -x /usr/sbin/sshd ] && command -v ssh >/dev/null 2>&1 ||
  { echo "SKIP: sshd or ssh not installed (Debian: openssh-server)"; exit 77; }
. "$here/../netns/fy_netns_vars.sh"
D=$(mktemp -d /tmp/fyssh.XXXXXX) || exit 1
stop() {
  for h in $H1 $H2; do [ -f "$D/pid.$h" ] && kill "$(cat "$D/pid.$h")" 2>/dev/null; done
  rm -rf "$D"
}
trap stop EXIT
trap 'exit 1' INT TERM
ssh-keygen -q -t ed25519 -N '' -f "$D/key" && ssh-keygen -q -t ed25519 -N '' -f "$D/hostkey" || exit 1
cp "$D/key.pub" "$D/authorized_keys"
mkdir -p /run/sshd # (its privilege separation directory)
for h in $H1 $H2; do
  cat >"$D/sshd_config.$h" <<CONF
Port 22
HostKey $D/hostkey
AuthorizedKeysFile $D/authorized_keys
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PidFile $D/pid.$h
CONF
  # (through the wrapper: the host's own host name, as its ranks must see)
  "$FY_NETNS_EXEC" "$h" /usr/sbin/sshd -f "$D/sshd_config.$h" -E "$D/sshd.$h.log" || { echo "FAIL: sshd on $h"; exit 1; }
done
S="ssh -F /dev/null -x -o BatchMode=yes -i $D/key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
try=0
until $S "$A1" true 2>/dev/null && $S "$A2" true 2>/dev/null; do
  try=$((try + 1))
  [ $try -lt 50 ] || { echo "FAIL: sshd does not answer"; cat "$D"/sshd.*.log; exit 1; }
  sleep 0.1
done

run --timeout 60 --count "^at $H1 " 16 --count "^at $H2 " 16 --match "^at $H2 15/16$" \
    -- "$mpiexec" -launcher-exec "$S" -pmi-host "$FY_NETNS_GW" -hosts "$A1:16,$A2:16" -n 32 \
       sh -c 'echo at $(hostname) $MPI_LOCALRANKID/$MPI_LOCALNRANKS'
run --rc 137 --timeout 30 --match "rank 1 \(pid [0-9]+\) on host $A2 killed by signal 9" \
    -- "$mpiexec" -launcher-exec "$S" -pmi-host "$FY_NETNS_GW" -hosts "$A1,$A2" -n 2 \
       sh -c '[ $PMI_RANK = 1 ] && kill -9 $$; sleep 30'
signal_job USR1 0 "$H1 $H2" "$mpiexec" -launcher-exec "$S" -pmi-host "$FY_NETNS_GW" -hosts "$A1,$A2" -n 2
# mpiexec's environment reaches the remote ranks, unless -genvnone (then
# their login environment and -genv alone), or -envnone for one program
run --timeout 60 --count '^v=x b=y$' 1 --count '^v=unset b=y$' 2 \
    -- env FY_T_VAR=x "$mpiexec" -launcher-exec "$S" -pmi-host "$FY_NETNS_GW" -hosts "$A1,$A2" -genv FY_B y \
       -n 1 sh -c 'echo "v=${FY_T_VAR:-unset} b=$FY_B"' : -envnone -n 2 sh -c 'echo "v=${FY_T_VAR:-unset} b=$FY_B"'
run --timeout 60 --count '^v=unset b=y$' 2 \
    -- env FY_T_VAR=x "$mpiexec" -launcher-exec "$S" -pmi-host "$FY_NETNS_GW" -hosts "$A1,$A2" -genvnone -genv FY_B y \
       -n 2 sh -c 'echo "v=${FY_T_VAR:-unset} b=$FY_B"'
# stdin through ssh and the proxy to a remote rank 0
sum=$(seq 1 100000 | md5sum)
run --timeout 60 --match "^${sum%% *}  -$" \
    -- sh -c "seq 1 100000 | $mpiexec -launcher-exec '$S' -pmi-host $FY_NETNS_GW -hosts $A1 -n 1 md5sum"
if [ "${FY_HAVE_OFI:-1}" = 1 ]; then
  run --timeout 60 --count '^hello [0-9]+ of 4$' 4 \
      -- "$mpiexec" -launcher-exec "$S" -pmi-host "$FY_NETNS_GW" -hosts "$A1:2,$A2:2" -n 4 "$hello" 4
fi
[ $fail -eq 0 ] && echo "ssh.sh: PASS" || echo "ssh.sh: FAIL"
exit $fail
