#!/bin/sh
# Multi-host launch tests: hosts.sh CASE MPIEXEC HELLO ABORT PMI_HOSTS APPNUM
# Cases named net_* run inside fy_netns.sh (test hosts as network
# namespaces, FY_NETNS_* set); fork_* need nothing (-launcher fork starts
# the "remote" ranks as local processes through the same proxy, which
# relays their PMI). Each case judges the job with ../basic/job.sh (exit status, output,
# time limit, no /dev/shm/fy-* left). Exit 0 pass, 1 fail, 77 skip.
set -u
case=$1 mpiexec=$2 hello=$3 abort=$4 pmi_hosts=$5 appnum=$6
sendrecv=$(dirname "$hello")/../../mpi/pt2pt/pt2pt_sendrecv
here=$(cd "$(dirname "$0")" && pwd)
job="sh $here/../basic/job.sh"
. "$here/signal_job.sh"
fail=0
run() { $job "$@" || fail=1; }

case $case in
net_*)
  [ -n "${FY_NETNS_HOSTS:-}" ] || { echo "hosts.sh: $case needs fy_netns.sh"; exit 2; }
  . "$here/../netns/fy_netns_vars.sh"
  M="$mpiexec -launcher-exec $FY_NETNS_EXEC -pmi-host $FY_NETNS_GW"
  ;;
esac
# A program that says where it runs.
where='echo "at $(hostname) local ${MPI_LOCALRANKID}/${MPI_LOCALNRANKS}"'

no_leftovers() {
  # Nothing of the job may still run on a test host (a few seconds allowed
  # for the ends of a torn-down job to be reaped).
  for h in $H1 $H2 ${H3:-}; do
    try=0
    while p=$(ip netns pids "$h") && [ -n "$p" ] && [ $try -lt 25 ]; do sleep 0.2; try=$((try + 1)); done
    [ -z "$p" ] || { echo "FAIL: processes left on $h: $(ps -o pid,args -p $(echo $p | tr ' ' ,) 2>&1)"; fail=1; }
  done
}

case $case in
net_place)
  # Round robin by slots (1 each), as Hydra: a b c a b c.
  run --timeout 60 --count '^\[[0-9]\] at ' 6 \
      --match "^\[0\] at $H1 local 0/2$" --match "^\[1\] at $H2 local 0/2$" \
      --match "^\[2\] at $H3 local 0/2$" --match "^\[3\] at $H1 local 1/2$" \
      --match "^\[4\] at $H2 local 1/2$" --match "^\[5\] at $H3 local 1/2$" \
      -- $M -prefix -hosts "$H1,$H2,$H3" -n 6 sh -c "$where"
  # -ppn: blocks of 2 per host and round.
  run --timeout 60 --match "^\[0\] at $H1 local 0/2$" --match "^\[1\] at $H1 local 1/2$" \
      --match "^\[2\] at $H2 local 0/1$" \
      -- $M -prefix -hosts "$H1,$H2" -ppn 2 -n 3 sh -c "$where"
  # Host file with slots and comments; 5 ranks: a, b b b, a.
  hf=$(mktemp); printf '# test hosts\n%s:1\n\n%s:3   # three\n' "$H1" "$H2" >"$hf"
  run --timeout 60 --match "^\[0\] at $H1 local 0/2$" --match "^\[1\] at $H2 local 0/3$" \
      --match "^\[3\] at $H2 local 2/3$" --match "^\[4\] at $H1 local 1/2$" \
      -- $M -prefix -f "$hf" -n 5 sh -c "$where"
  rm -f "$hf"
  # This machine by name runs locally (no launcher), next to a test host.
  me=$(hostname)
  run --timeout 60 --match "^\[0\] at $me local 0/2$" --match "^\[1\] at $H1 local 0/2$" \
      --match "^\[2\] at $H1 local 1/2$" --match "^\[3\] at $me local 1/2$" \
      -- $M -prefix -hosts "localhost,$H1:2,$me" -n 4 sh -c "$where"
  # The default launcher is ssh: here an "ssh" that is the wrapper (it
  # skips ssh's options), so the ssh command line is exercised too.
  bin=$(mktemp -d); ln -s "$FY_NETNS_EXEC" "$bin/ssh"
  run --timeout 60 --match "^\[0\] at $H1 local 0/1$" --match "^\[1\] at $H3 local 0/1$" \
      -- env PATH="$bin:$PATH" $mpiexec -pmi-host $FY_NETNS_GW -prefix -hosts "$H1,$H3" -n 2 sh -c "$where"
  rm -rf "$bin"
  # One launcher per host, however many ranks it runs (sshd refuses
  # connections beyond its MaxStartups), also for a host named twice.
  lg=$(mktemp); lw=$(mktemp)
  printf '#!/bin/sh\necho "$1" >>%s\nexec %s "$@"\n' "$lg" "$FY_NETNS_EXEC" >"$lw"; chmod +x "$lw"
  run --timeout 60 --count '^\[[0-9]\] at ' 8 --match "^\[3\] at $H1 local 3/4$" --match "^\[7\] at $H2 local 3/4$" \
      -- $mpiexec -launcher-exec "$lw" -pmi-host $FY_NETNS_GW -prefix -hosts "$H1:4,$H2:4" -n 8 sh -c "$where"
  run --timeout 60 --match "^\[0\] at $H1 local 0/3$" --match "^\[2\] at $H2 local 0/1$" \
      --match "^\[3\] at $H1 local 2/3$" \
      -- $mpiexec -launcher-exec "$lw" -pmi-host $FY_NETNS_GW -prefix -hosts "$H1:2,$H2,$H1" -n 4 sh -c "$where"
  [ "$(sort "$lg" | tr '\n' ' ')" = "$(printf '%s\n' $H1 $H1 $H2 $H2 | sort | tr '\n' ' ')" ] ||
    { echo "FAIL: launcher runs per host: $(tr '\n' ' ' <"$lg"), expected $H1 and $H2 once per job"; fail=1; }
  rm -f "$lg" "$lw"
  # -launcher-exec with words: plain "ip netns exec" (namespace = host name;
  # no host name of its own, so the namespace is asked).
  run --timeout 60 --match "^\[0\] ns $H2$" --match "^\[1\] ns $H3$" \
      -- $mpiexec -launcher-exec "ip netns exec" -pmi-host $FY_NETNS_GW -prefix -hosts "$H2,$H3" -n 2 \
         sh -c 'echo "ns $(ip netns identify)"'
  # The default address choice, through FERRY_PMI_HOST here (the test hosts'
  # names do not resolve on this machine).
  run --timeout 60 --count "^pmi_hosts rank [0-9] of 2 on $H2: 2 local ok$" 2 \
      -- env FERRY_PMI_HOST=$FY_NETNS_GW $mpiexec -launcher-exec "$FY_NETNS_EXEC" -hosts "$H2:2" -n 2 "$pmi_hosts"
  ;;
net_pmi)
  # PMI across hosts: put/get/barrier, local ranks from the mapping agree
  # with the host names.
  run --timeout 60 --count '^pmi_hosts rank [0-9] of 5 on .*: [12] local ok$' 5 \
      --match "rank 0 of 5 on $H1: 2 local ok" --match "rank 4 of 5 on $H3: 1 local ok" \
      -- $M -hosts "$H1:2,$H2:2,$H3" -n 5 "$pmi_hosts"
  run --timeout 60 --count '^pmi_hosts rank [0-9] of 4 on .*: 2 local ok$' 4 \
      -- $M -hosts "$H1,$H2" -n 4 "$pmi_hosts"
  # A remote rank's PMI is a socket to its host's proxy (PMI_FD), which
  # relays it: no PMI_PORT, no connection to mpiexec. MPIEXEC_PORT_RANGE
  # (Hydra's, for firewalls) gives the ranks' fabric their range; a
  # malformed one is refused
  run --timeout 60 --count '^pmi fd=set port=none 41000-41009$' 2 \
      -- env MPIEXEC_PORT_RANGE=41000:41009 $M -hosts "$H1,$H2" -n 2 \
         sh -c 'echo pmi fd=${PMI_FD:+set} port=${PMI_PORT:-none} $FI_NET_PORT_LOW_RANGE-$FI_NET_PORT_HIGH_RANGE'
  run --rc 1 --timeout 30 --match 'MPIEXEC_PORT_RANGE=41000 is not LOW:HIGH' \
      -- env MPIEXEC_PORT_RANGE=41000 $M -hosts "$H1,$H2" -n 2 true
  ;;
net_io)
  # stdout and stderr of remote ranks, prefixed; all output arrives.
  run --timeout 60 --count '^\[[0-5]\] out [0-5]$' 6 --count '^\[[0-5]\] err [0-5]$' 6 \
      -- $M -prefix -hosts "$H1,$H2,$H3" -n 6 sh -c 'echo out $PMI_RANK; echo err $PMI_RANK >&2'
  run --timeout 60 --match '^\[2\] err 2$' \
      -- $M -prefix -hosts "$H1,$H2,$H3" -n 3 sh -c 'echo err $PMI_RANK >&2'
  # Without -prefix, the bytes as they come; arguments with spaces survive.
  run --timeout 60 --count '^a b  c\$HOME$' 2 \
      -- $M -hosts "$H1,$H2" -n 2 printf '%s\n' 'a b  c$HOME'
  # A remote rank 0 reads mpiexec's stdin through its proxy (all of it,
  # more than the window of bytes in flight); the other ranks /dev/null.
  sum=$(seq 1 200000 | md5sum)
  rd='if [ $PMI_RANK = 0 ]; then md5sum; else echo "r$PMI_RANK got $(wc -c)"; fi'
  run --timeout 60 --match "^${sum%% *}  -$" --match "^r1 got 0$" \
      -- sh -c "seq 1 200000 | $M -hosts $H1,$H2 -n 2 sh -c '$rd'"
  # ... and the job goes on when rank 0 takes only part of it
  run --timeout 60 --match '^1$' --count '^[0-9]+$' 3 \
      -- sh -c "seq 1 200000 | $M -hosts $H2 -n 1 head -n 3"
  # Remote ranks' output into files on this machine, by pattern.
  od=$(mktemp -d)
  run --timeout 60 -- $M -outfile-pattern "$od/o.%r.%h" -hosts "$H1,$H2" -n 2 sh -c 'echo from $PMI_RANK'
  grep -qx "from 1" "$od/o.1.$H2" && grep -qx "from 0" "$od/o.0.$H1" ||
    { echo "FAIL: -outfile-pattern across hosts: $(ls "$od")"; fail=1; }
  rm -rf "$od"
  # -genv reaches remote ranks.
  run --timeout 60 --count '^v=x y$' 2 \
      -- $M -genv FY_TEST_V "x y" -hosts "$H1,$H2" -n 2 sh -c 'echo "v=$FY_TEST_V"'
  # MPMD: each program its ranks, its -env over -genv, its -wdir (relative
  # to mpiexec's directory), on remote hosts too.
  run --timeout 60 --count '^a [01] x /tmp$' 2 --count "^b 2 g $(cd .. && pwd)$" 1 \
      -- $M -genv FY_TEST_V g -hosts "$H1,$H2,$H3" -n 2 -env FY_TEST_V x -wdir /tmp \
         sh -c 'echo a $PMI_RANK $FY_TEST_V $(pwd)' : -wdir .. sh -c 'echo b $PMI_RANK $FY_TEST_V $(pwd)'
  # MPMD, a program on hosts of its own (-hosts after ':'): the first
  # program takes the job's hosts, the second its own, from their first
  run --timeout 60 --count "^a [01] $H1$" 2 --count "^b [23] $H3$" 2 --count "^b 4 $H2$" 1 \
      -- $M -hosts "$H1:2" -n 2 sh -c 'echo a $PMI_RANK $(hostname)' : -hosts "$H3:2,$H2" -n 3 \
         sh -c 'echo b $PMI_RANK $(hostname)'
  ;;
net_exit)
  run --rc 3 --timeout 20 --match "rank 2 \(pid [0-9]+\) on host $H3 exited with code 3" \
      -- $M -hosts "$H1,$H2,$H3" -n 3 sh -c '[ $PMI_RANK = 2 ] && exit 3; sleep 30'
  no_leftovers
  # A program missing on the remote host.
  run --rc 127 --timeout 20 --match "rank [01] on host ($H1|$H2): cannot execute \"/no/such/prog\"" \
      -- $M -hosts "$H1,$H2" -n 2 /no/such/prog
  ;;
net_death)
  run --rc 137 --timeout 20 --match "rank 1 \(pid [0-9]+\) on host $H2 killed by signal 9" \
      -- $M -hosts "$H1,$H2,$H3" -n 3 sh -c '[ $PMI_RANK = 1 ] && kill -9 $$; sleep 30'
  no_leftovers
  # SIGTERM to mpiexec reaches every remote rank; mpiexec ends with 143.
  signal_job TERM 143 "$H1 $H2 $H3" $M -hosts "$H1,$H2,$H3" -n 3
  no_leftovers
  # SIGUSR1 reaches the remote ranks through their proxy, which goes on,
  # also when the launcher is a process that SIGUSR1 would kill (as ssh).
  lw=$(mktemp)
  printf '#!/bin/sh\n%s "$@"\n' "$FY_NETNS_EXEC" >"$lw"; chmod +x "$lw"
  signal_job USR1 0 "$H1 $H2" $mpiexec -launcher-exec "$lw" -pmi-host $FY_NETNS_GW -hosts "$H1,$H2" -n 2
  rm -f "$lw"
  no_leftovers
  # A host's proxy killed outright: its rank dies with it, and so does what
  # the rank started (the proxy's guardian kills the rank's group); the
  # job fails.
  out=$(mktemp)
  $M -hosts "$H1,$H2" -n 2 sh -c 'sleep 300 & echo "rank $PMI_RANK $$"; wait' >"$out" 2>&1 &
  mp=$!
  try=0
  while [ "$(grep -c '^rank ' "$out")" -lt 2 ] && [ $try -lt 100 ]; do sleep 0.1; try=$((try + 1)); done
  px=$(ps -o ppid= -p "$(sed -n 's/^rank 1 //p' "$out")" | tr -d ' ')
  [ -n "$px" ] && kill -9 "$px"
  wait $mp
  rc=$?
  cat "$out"
  [ -n "$px" ] && [ $rc -ne 0 ] || { echo "FAIL: killed proxy (pid '$px'): mpiexec exited $rc"; fail=1; }
  rm -f "$out"
  no_leftovers
  ;;
net_timeout)
  run --rc 124 --timeout 20 --match "time limit of 2 s" \
      -- $M -timeout 2 -hosts "$H1,$H2,$H3" -n 3 sleep 30
  no_leftovers
  run --rc 124 --timeout 20 --match "time limit of 2 s" \
      -- env MPIEXEC_TIMEOUT=2 $M -hosts "$H1,$H2" -n 2 sleep 30
  no_leftovers
  ;;
net_mpi)
  # A Ferry MPI job placed entirely on one test host works.
  run --timeout 60 --count '^hello [0-9]+ of 3$' 3 -- $M -hosts "$H2:3" -n 3 "$hello" 3
  # MPI_Abort on a remote rank: its code, a message naming rank and host.
  run --rc 7 --timeout 30 --match "rank 2 \(pid [0-9]+\) on host $H2 called abort with exit code 7" \
      -- $M -hosts "$H2" -n 3 "$abort" 2 7
  no_leftovers
  # Spanning hosts: the ranks talk over the fabric (ofi transport), also
  # between this machine and a test host, and with two ranks on a host.
  if [ "${FY_HAVE_OFI:-1}" = 1 ]; then
    run --timeout 60 --count '^hello [0-9]+ of 2$' 2 -- $M -hosts "$H1,$H2" -n 2 "$hello" 2
    run --timeout 60 --count '^hello [0-9]+ of 3$' 3 -- $M -hosts "localhost,$H3" -n 3 "$hello" 3
    run --timeout 60 --count '^hello [0-9]+ of 5$' 5 -- $M -hosts "$H1:2,$H2:2,$H3" -n 5 "$hello" 5
    # ... with the fabric's ports in MPIEXEC_PORT_RANGE too (two ranks of a
    # host could bind the same port before either listened: the second's
    # fi_enable failed with EADDRINUSE, once in CI; it now takes another)
    run --timeout 60 --count '^hello [0-9]+ of 4$' 4 \
        -- env MPIEXEC_PORT_RANGE=41000:41019 $M -hosts "$H1:2,$H2:2" -n 4 "$hello" 4
    # ... and a range with fewer ports than a host has ranks: a message that says so
    run --rc 15 --timeout 60 --match 'every port of FI_NET_/FI_TCP_PORT_LOW_RANGE.*MPIEXEC_PORT_RANGE.* taken' \
        -- env MPIEXEC_PORT_RANGE=41100:41101 $M -hosts "$H1:3,$H2" -n 4 "$hello" 4
    # MPMD across hosts: one world, MPI_APPNUM from the PMI server
    run --timeout 60 --count '^app [01] of 3: appnum 0 arg a ' 2 --count '^app 2 of 3: appnum 1 arg b ' 1 \
        -- $M -hosts "$H1,$H2" -n 2 "$appnum" a : "$appnum" b
    # Hydra's -iface: the PMI address is that interface's here (eth0: the
    # hosts reach it through their default route to this machine), and
    # the fabric takes the interface of that name on the hosts
    run --timeout 60 --count '^hello [0-9]+ of 2$' 2 --count 'ofi: provider=[^ ]* domain=eth0 ' 2 \
        -- $mpiexec -launcher-exec $FY_NETNS_EXEC -iface eth0 -genv FERRY_STATS 1 -hosts "$H1,$H2" -n 2 "$hello" 2
    # ... and with a program on hosts of its own: 2 ranks on $H1, then 2 on
    # $H2 and 1 on $H1 again, which must count as the same node as the
    # first two (the mapping lists every run of ranks on a node)
    run --timeout 60 --count '^app [01] of 5: appnum 0 arg a ' 2 --count '^app [234] of 5: appnum 1 arg b ' 3 \
        -- $M -hosts "$H1:2" -n 2 "$appnum" a : -hosts "$H2:2,$H1" -n 3 "$appnum" b
    run --timeout 60 --count '^PASS' 1 -- $M -hosts "$H1:2" -n 2 "$sendrecv" : \
        -hosts "$H2:2,$H1" -n 3 "$sendrecv"
  else # built without libfabric: a clear refusal, no hang
    run --rc nonzero --timeout 30 --match "need the ofi transport" -- $M -hosts "$H1,$H2" -n 2 "$hello" 2
  fi
  no_leftovers
  ;;
net_hydra)
  command -v mpiexec.hydra >/dev/null 2>&1 || { echo "SKIP: mpiexec.hydra not installed"; exit 77; }
  Y="mpiexec.hydra -launcher-exec $FY_NETNS_EXEC -iface $FY_NETNS_BRIDGE"
  run --timeout 60 --count "^at $H1 local" 1 --count "^at $H2 local" 1 --count "^at $H3 local" 1 \
      -- $Y -hosts "$H1,$H2,$H3" -n 3 sh -c "$where"
  run --timeout 60 --count '^pmi_hosts rank [0-9] of 4 on .*: 2 local ok$' 4 \
      -- $Y -hosts "$H1:2,$H3:2" -n 4 "$pmi_hosts"
  run --timeout 60 --count '^hello [0-9]+ of 3$' 3 -- $Y -hosts "$H3" -n 3 "$hello" 3
  # Spanning hosts: over the fabric. (Without libfabric it fails; Hydra
  # tears the job down at the first abort and may drop the ranks' last
  # stderr, so no message check then.)
  if [ "${FY_HAVE_OFI:-1}" = 1 ]; then
    run --timeout 60 --count '^hello [0-9]+ of 4$' 4 -- $Y -hosts "$H1:2,$H2:2" -n 4 "$hello" 4
  else
    run --rc nonzero --timeout 30 -- $Y -hosts "$H1,$H2" -n 2 "$hello" 2
  fi
  ;;
fork_mpi)
  # "Remote" ranks as local processes: the proxy and PMI over TCP.
  F="$mpiexec -launcher fork -pmi-host 127.0.0.1"
  run --timeout 60 --count '^hello [0-9]+ of 3$' 3 -- $F -hosts fyfake-host -n 3 "$hello" 3
  run --timeout 60 --count '^pmi_hosts rank [0-9] of 3 on .*: 3 local ok$' 3 \
      -- $F -hosts fyfake-host:3 -n 3 "$pmi_hosts"
  run --rc 5 --timeout 30 --match "rank 1 \(pid [0-9]+\) on host fyfake-host called abort with exit code 5" \
      -- $F -hosts fyfake-host -n 3 "$abort" 1 5
  # Two host names: PMI says two nodes; the ranks talk over the fabric
  # (a segment per node, though both share this /dev/shm). On loopback:
  # libfabric lists a concurrent namespace test's bridge first, and that
  # bridge may go away while this job runs.
  if [ "${FY_HAVE_OFI:-1}" = 1 ]; then
    run --timeout 60 --count '^hello [0-9]+ of 3$' 3 -- $F -genv FI_NET_IFACE lo -genv FI_TCP_IFACE lo \
        -hosts localhost,fyfake-host:2 -n 3 "$hello" 3
  else
    run --rc nonzero --timeout 30 --match "need the ofi transport" -- $F -hosts localhost,fyfake-host -n 2 "$hello" 2
  fi
  run --rc 137 --timeout 20 --match "rank 1 \(pid [0-9]+\) on host fyfake-b killed by signal 9" \
      -- $F -hosts fyfake-a,fyfake-b -n 2 sh -c '[ $PMI_RANK = 1 ] && kill -9 $$; sleep 30'
  run --rc 124 --timeout 20 --match "time limit of 2 s" -- $F -timeout 2 -hosts fyfake-a -n 2 sleep 30
  ;;
fork_opts)
  run --rc 2 --timeout 10 --match 'not host\[:slots\]' -- $mpiexec -hosts 'a:0' -n 1 true
  run --rc 2 --timeout 10 --match 'cannot open host file' -- $mpiexec -f /no/such/file -n 1 true
  run --rc 2 --timeout 10 --match '-ppn needs -hosts' -- $mpiexec -ppn 2 -n 1 true
  run --rc 1 --timeout 30 --match 'exited with code 1' -- $mpiexec -launcher-exec false -hosts fyfake -n 1 true
  # The listener of an srun step (one srun for all nodes; here an srun
  # that, instead of starting the proxies, connects to the address it was
  # given) takes only the step's proxies: a PMI client is refused, and so
  # is a proxy with a cookie not the job's, told why; mpiexec says so.
  fake=$(mktemp -d)
  cat >"$fake/srun" <<'EOS'
#!/bin/bash
while [ $# -gt 0 ] && [ "$1" != --fy-proxy-connect ]; do shift; done
a=$2
exec 3<>"/dev/tcp/${a%:*}/${a##*:}"; echo "cmd=initack pmiid=0" >&3; read -r l <&3; exec 3<&-
exec 3<>"/dev/tcp/${a%:*}/${a##*:}"; echo "cmd=fy-proxy cookie=0 node=fyn" >&3; read -r l <&3; echo "srun: $l"
EOS
  chmod +x "$fake/srun"
  run --rc 1 --timeout 30 --match '^srun: cmd=fy-proxy-refused reason=not a proxy of this job \(wrong cookie\)$' \
      --match "refused a connection: not a proxy's hello" \
      --match "refused a proxy's connection from node fyn: not a proxy of this job" \
      -- env PATH="$fake:$PATH" $mpiexec -launcher slurm -pmi-host 127.0.0.1 -hosts fyfake -n 1 true
  rm -rf "$fake"
  ;;
*) echo "hosts.sh: unknown case $case"; exit 2 ;;
esac
[ $fail -eq 0 ] && echo "CASE $case: PASS" || echo "CASE $case: FAIL"
exit $fail
