#!/bin/sh
# Slurm launches Ferry (srun's pmi2 plugin, which also speaks the PMI-1 wire
# protocol Ferry's client uses). Run inside fy_netns.sh 2:
#   slurm.sh HELLO
# sets up a throwaway Slurm cluster of the two test hosts: a munged of its
# own (own key and socket), slurmctld on this machine, one slurmd per test
# host; all of it in a temporary directory, stopped and removed at the end
# (the test hosts' processes end with their namespaces). Then, judged by
# ../basic/job.sh:
#   - srun --mpi=pmi2 -N 2 -n 4: a job spanning both hosts (the ring of
#     HELLO goes through the fabric between them), every rank on the host
#     Slurm placed it on;
#   - srun --mpi=pmi2 -N 1 -n 2: one host (shared memory);
#   - srun --mpi=none -n 2: no PMI Ferry speaks; Ferry refuses (MPI_Init
#     names srun --mpi=pmi2) instead of starting 2 singletons;
#   - srun --mpi=pmix -N 2 -n 4 (Ferry built with libpmix's headers);
#   - salloc -N 2 -n 4 MPIEXEC -n 4 (slurm.sh HELLO MPIEXEC): Ferry's
#     mpiexec in a Slurm job takes its nodes, 2 tasks each, and starts
#     the ranks there by one srun step for both nodes; a rank's exit
#     code, stdin to a remote rank 0, SIGUSR1 and SIGTERM through it.
# Exit 0 pass, 1 fail, 77 skip (Slurm or munge not installed).
set -u
hello=$1 mpiexec=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
job="sh $here/../basic/job.sh"
[ -n "${FY_NETNS_HOSTS:-}" ] || { echo "slurm.sh: needs fy_netns.sh"; exit 2; }
for c in slurmctld slurmd srun sinfo munged; do
  command -v $c >/dev/null 2>&1 || { echo "SKIP: $c not installed (Debian: slurmctld slurmd slurm-client munge)"; exit 77; }
done
found=0
for f in /usr/lib/*/slurm-wlm/mpi_pmi2.so /usr/lib*/slurm*/mpi_pmi2.so; do [ -e "$f" ] && found=1; done
[ $found = 1 ] || { echo "SKIP: Slurm's mpi_pmi2 plugin not found"; exit 77; }
. "$here/../netns/fy_netns_vars.sh"

D=$(mktemp -d /tmp/fyslurm.XXXXXX) || exit 1
chmod 700 "$D"
cleanup() {
  for p in "$D"/ctld.pid "$D"/munged.pid; do [ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null; done
  sleep 0.5
  rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# munge: a key of our own and a socket in $D (nothing of the system's used)
dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$D/munge.key"
munged --force --key-file="$D/munge.key" --socket="$D/munge.sock" --pid-file="$D/munged.pid" \
  --log-file="$D/munged.log" --seed-file="$D/munged.seed" || { echo "FAIL: munged did not start"; exit 1; }

# two ports nobody listens on (the kernel picks them)
set -- $(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("", 0))
print(*[x.getsockname()[1] for x in s])' 2>/dev/null) 
ctld_port=${1:-$((20000 + $$ % 20000))} d_port=${2:-$((20001 + $$ % 20000))}
cat >"$D/slurm.conf" <<EOC
ClusterName=ferrytest
SlurmctldHost=$(hostname)($FY_NETNS_GW)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge.sock
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
StateSaveLocation=$D/ctld
SlurmdSpoolDir=$D/d-%n
SlurmctldPidFile=$D/ctld.pid
SlurmdPidFile=$D/d-%n.pid
SlurmctldLogFile=$D/ctld.log
SlurmdLogFile=$D/d-%n.log
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
MpiDefault=none
TmpFS=$D/pmix
SwitchType=switch/none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$H1 NodeAddr=$A1 CPUs=2 State=UNKNOWN
NodeName=$H2 NodeAddr=$A2 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOC
mkdir -p "$D/ctld" "$D/d-$H1" "$D/d-$H2" "$D/pmix"
export SLURM_CONF="$D/slurm.conf"
slurmctld || { echo "FAIL: slurmctld did not start"; cat "$D/ctld.log"; exit 1; }
for h in $H1 $H2; do
  "$FY_NETNS_EXEC" "$h" sh "$here/slurmd_host.sh" "$SLURM_CONF" "$h" ||
    { echo "FAIL: slurmd on $h did not start"; cat "$D/d-$h.log"; exit 1; }
done
try=0
until [ "$(sinfo -h -o %t | sort -u)" = idle ]; do
  try=$((try + 1))
  [ $try -ge 100 ] && { echo "FAIL: the test hosts never became idle Slurm nodes:"; sinfo; tail -n 5 "$D"/*.log; exit 1; }
  sleep 0.2
done
echo "slurm.sh: Slurm $(srun --version | cut -d' ' -f2) on $H1 and $H2"

fail=0
FY_HELLO_HOST=1 $job --timeout 90 --count '^hello [0-9] of 4$' 4 --match "^host [0-9] $H1\$" --match "^host [0-9] $H2\$" \
  -- srun --mpi=pmi2 -N 2 -n 4 "$hello" 4 || fail=1
FY_HELLO_HOST=1 $job --timeout 90 --count '^hello [0-9] of 2$' 2 --count "^host [0-9] $H1\$" 2 \
  -- srun --mpi=pmi2 -w "$H1" -N 1 -n 2 "$hello" 2 || fail=1
$job --timeout 90 --rc nonzero --match 'srun --mpi=pmi2' -- srun --mpi=none -N 1 -n 2 "$hello" 2 || fail=1
# PMIx (Slurm's pmix plugin), where Ferry was built with libpmix's headers
if [ "${FY_HAVE_PMIX:-0}" = 1 ]; then
  FY_HELLO_HOST=1 $job --timeout 90 --count '^hello [0-9] of 4$' 4 --match "^host [0-9] $H1\$" --match "^host [0-9] $H2\$" \
    -- srun --mpi=pmix -N 2 -n 4 "$hello" 4 || fail=1
fi
# Ferry's mpiexec in a Slurm job (salloc, as in a batch script) with no
# host named: the job's nodes, each its tasks, ranks started by one srun
# step for both nodes (counted by an srun first in PATH that logs its
# calls), their proxies connecting back
if [ -n "$mpiexec" ]; then
  mkdir "$D/bin"
  real_srun=$(command -v srun)
  printf '#!/bin/sh\necho "$*" >>"%s"\nexec "%s" "$@"\n' "$D/srun.log" "$real_srun" >"$D/bin/srun"
  chmod +x "$D/bin/srun"
  PATH="$D/bin:$PATH" FY_HELLO_HOST=1 $job --timeout 90 --count '^hello [0-9] of 4$' 4 --count "^host [01] $H1\$" 2 \
    --count "^host [23] $H2\$" 2 -- salloc -N 2 -n 4 "$mpiexec" -pmi-host "$FY_NETNS_GW" -n 4 "$hello" 4 || fail=1
  steps=$(grep -c -- '--fy-proxy-connect' "$D/srun.log")
  grep -q -- "--nodes=2 --ntasks=2 --nodelist=$H1,$H2 " "$D/srun.log" && [ "$steps" = 1 ] ||
    { echo "FAIL: expected one srun step for both nodes, got:"; cat "$D/srun.log"; fail=1; }
  # ... and with hosts named, srun as the launcher by Hydra's name for it
  FY_HELLO_HOST=1 $job --timeout 90 --count '^hello [0-9] of 2$' 2 --count "^host [01] $H2\$" 2 \
    -- salloc -N 2 -n 4 "$mpiexec" -bootstrap slurm -hosts "$H2:2" -pmi-host "$FY_NETNS_GW" -n 2 "$hello" 2 || fail=1
  # through the step: a rank's exit code, and stdin to a remote rank 0
  $job --timeout 90 --rc 3 --match "rank 3 \\(pid [0-9]+\\) on host $H2 exited with code 3" \
    -- salloc -N 2 -n 4 "$mpiexec" -pmi-host "$FY_NETNS_GW" -n 4 sh -c '[ "$PMI_RANK" = 3 ] && exit 3; sleep 1' || fail=1
  echo through-the-step | $job --timeout 90 --count '^through-the-step$' 1 \
    -- salloc -N 2 -n 4 "$mpiexec" -pmi-host "$FY_NETNS_GW" -n 2 sh -c '[ "$PMI_RANK" = 0 ] && cat; true' || fail=1
  # proxies that cannot reach mpiexec (their own loopback): the job ends
  # with their message, not waiting for ranks that never start. The step's
  # first task to end is rank 0's, with the proxy's 127, unless H2's proxy
  # failed first: then srun's --kill-on-bad-exit ended H1's (143)
  $job --timeout 60 --rc nonzero --match "proxy on host ($H1|$H2) cannot connect to mpiexec at 127.0.0.1:" \
    --match "rank 0 on host $H1 exited with code (127|143)" \
    -- salloc -N 2 -n 4 "$mpiexec" -pmi-host 127.0.0.1 -n 4 "$hello" 4 || fail=1
  # signals to mpiexec reach the ranks over the proxies' connections (an
  # allocation held apart, so that the signal goes to mpiexec itself)
  jid=$(salloc -N 2 -n 4 --no-shell 2>&1 | sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
  if [ -n "$jid" ]; then
    . "$here/signal_job.sh"
    export SLURM_JOB_ID=$jid
    signal_job USR1 0 "$H1 $H2" "$mpiexec" -launcher slurm -hosts "$H1,$H2" -pmi-host "$FY_NETNS_GW" -n 2
    signal_job TERM 143 "$H1 $H2" "$mpiexec" -launcher slurm -hosts "$H1,$H2" -pmi-host "$FY_NETNS_GW" -n 2
    unset SLURM_JOB_ID
    scancel "$jid"
  else
    echo "FAIL: salloc --no-shell granted no allocation"; fail=1
  fi
fi
[ $fail = 0 ] || tail -n 20 "$D"/*.log
exit $fail
