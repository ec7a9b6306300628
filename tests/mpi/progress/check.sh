#!/bin/sh
# Run an MPI job and judge its output, including FERRY_STATS=1 lines.
#   check.sh [--timeout S] [--ranks N] [--match-err ERE]... [--stat EXPR]...
#            -- command args...
# The job must exit 0 and print a "PASS " line (fytest.h).
# --match-err  extended regex that must occur in the job's stderr
# --ranks      exactly N "ferry-stats ... async:" lines must be printed
# --stat       a check on the async counters, EXPR is SCOPE:KEY OP VALUE with
#              SCOPE all (every rank), sum (over ranks) or rankN, OP one of
#              == != > >= <; e.g. all:pef_inside==0, sum:hits>0, rank0:capped>0.
#              KEY is a counter of the progress, async, pt2pt or ofi line
#              of the rank (a key on two lines: the later one's, so
#              wakeups is the async line's).
#              KEY may be mode (compared as a string with == or !=).
timeout_s=60; ranks=""; matches=""; stats=""
while [ $# -gt 0 ]; do
  case "$1" in
    --timeout) timeout_s=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --match-err) matches="$matches
$2"; shift 2 ;;
    --stat) stats="$stats $2"; shift 2 ;;
    --) shift; break ;;
    *) echo "check.sh: bad option $1" >&2; exit 2 ;;
  esac
done
out=$(mktemp "${TMPDIR:-/tmp}/fyprog.XXXXXX")
err="$out.err"
timeout -k 5 "$timeout_s" "$@" >"$out" 2>"$err"
rc=$?
fail=0
echo "---- stdout (exit $rc): $*"; cat "$out"
echo "---- stderr"; cat "$err"; echo "----"
[ $rc -eq 124 ] && { echo "FAIL: job did not end within ${timeout_s}s"; fail=1; }
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; fail=1; }
grep -q '^PASS ' "$out" || { echo "FAIL: no PASS line"; fail=1; }
printf '%s\n' "$matches" | while IFS= read -r re; do
  [ -z "$re" ] && continue
  grep -Eq -- "$re" "$err" || { echo "FAIL: stderr does not match /$re/"; echo x >>"$out.miss"; }
done
[ -e "$out.miss" ] && { fail=1; rm -f "$out.miss"; }
# One line per rank: its progress counters followed by its async, pt2pt and
# ofi counters.
awk '/^ferry-stats rank=[0-9]* pt2pt:/ { split($2, kv, "="); p[kv[2]] = $0 }
     /^ferry-stats rank=[0-9]* progress:/ { split($2, kv, "="); g[kv[2]] = $0 }
     /^ferry-stats rank=[0-9]* ofi:/ { split($2, kv, "="); o[kv[2]] = $0 }
     /^ferry-stats rank=[0-9]* async:/ { split($2, kv, "="); a[kv[2]] = $0; order[++n] = kv[2] }
     END { for (i = 1; i <= n; i++) print g[order[i]] " " a[order[i]] " " p[order[i]] " " o[order[i]] }' "$err" >"$out.st"
n=$(wc -l <"$out.st")
if [ -n "$ranks" ] && [ "$n" -ne "$ranks" ]; then
  echo "FAIL: $n ferry-stats async lines, expected $ranks"; fail=1
fi
for e in $stats; do
  scope=${e%%:*}; rest=${e#*:}
  if ! awk -v scope="$scope" -v expr="$rest" '
    function cmp(a, op, b) {
      if (op == "==") return a == b; if (op == "!=") return a != b
      if (op == ">") return a > b;   if (op == ">=") return a >= b
      if (op == "<") return a < b;   return 0 }
    BEGIN { if (!match(expr, /(==|!=|>=|>|<)/)) { print "FAIL: bad --stat " expr; exit 1 }
            key = substr(expr, 1, RSTART - 1); op = substr(expr, RSTART, RLENGTH)
            want = substr(expr, RSTART + RLENGTH); isnum = (key != "mode")
            if (isnum) want += 0; ok = 1; sum = 0; seen = 0 }
    { r = -1; v = ""
      for (i = 1; i <= NF; i++) { split($i, kv, "=")
        if (kv[1] == "rank") r = kv[2]; if (kv[1] == key) v = kv[2] }
      if (v == "") { print "FAIL: no " key " in: " $0; ok = 0; next }
      if (isnum) v += 0
      if (scope == "all" && !cmp(v, op, want)) { print "FAIL: rank " r " " key "=" v ", want " op want; ok = 0 }
      if (scope == "rank" r) { seen = 1; if (!cmp(v, op, want)) { print "FAIL: rank " r " " key "=" v ", want " op want; ok = 0 } }
      sum += v; seen_any = 1 }
    END { if (!seen_any) { print "FAIL: no ferry-stats lines"; exit 1 }
          if (scope == "sum" && !cmp(sum, op, want)) { print "FAIL: sum of " key " = " sum ", want " op want; ok = 0 }
          if (scope ~ /^rank/ && !seen) { print "FAIL: no stats line for " scope; ok = 0 }
          exit ok ? 0 : 1 }' "$out.st"; then
    fail=1
  else
    echo "ok: $e"
  fi
done
rm -f "$out" "$err" "$out.st"
[ $fail -eq 0 ] && echo "check.sh: PASS" || echo "check.sh: FAIL"
exit $fail
