#!/bin/sh
# fy_netns.sh cleans up after a run that was killed outright: a first run
# whose script is SIGKILLed (as a test driver's timeout does) leaves its
# test hosts behind; the next run removes them, and says so.
#   reap.sh   (root; exit 77 where fy_netns.sh cannot make test hosts)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The command's parent is the fy_netns.sh that runs it.
sh "$here/fy_netns.sh" 2 -- sh -c 'echo "$FY_NETNS_HOSTS" >"$1"; kill -9 $PPID' sh "$tmp/hosts" >"$tmp/out1" 2>&1
rc=$?
[ $rc -eq 77 ] && { cat "$tmp/out1"; exit 77; }
hosts=$(tr ',' ' ' <"$tmp/hosts" 2>/dev/null)
[ -n "$hosts" ] || { echo "FAIL: the first run did not start its command (exit $rc)"; cat "$tmp/out1"; exit 1; }
sleep 0.5 # its process gone for good (no zombie left)
left=0
for h in $hosts; do ip netns list | grep -q "^$h\b" && left=$((left + 1)); done
[ $left -gt 0 ] || { echo "FAIL: a SIGKILLed run left nothing behind: the test cannot tell"; exit 1; }

sh "$here/fy_netns.sh" 2 -- true >"$tmp/out2" 2>&1 || { echo "FAIL: second run failed"; cat "$tmp/out2"; exit 1; }
fail=0
for h in $hosts; do
  ip netns list | grep -q "^$h\b" && { echo "FAIL: test host $h of the killed run is still there"; fail=1; }
done
grep -q "removing the test hosts of an earlier run" "$tmp/out2" || { echo "FAIL: no message about the removal"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: the hosts of a SIGKILLed run ($hosts) were removed by the next run"
exit $fail
