#!/bin/sh
# ferry-info runs and lists every FERRY_ variable of the config table.
# usage: ferry_info.sh PREFIX fy_config_table.def
. "$(dirname "$0")/lib.sh"
prefix=$1 def=$2
need_install "$prefix"
info=$prefix/bin/ferry-info
[ -x "$info" ] || fail "$info not installed"
scratch

names=$(grep -o '^FY_CFG([^,]*, *"[A-Z][A-Z0-9_]*"' "$def" | grep -o '"[A-Z][A-Z0-9_]*"' | tr -d '"')
[ -n "$names" ] || fail "no FERRY_ names parsed from $def"

"$info" > "$tmp/all" || fail "ferry-info exited $?"
"$info" --config > "$tmp/config" || fail "ferry-info --config exited $?"
"$info" --markdown > "$tmp/md" || fail "ferry-info --markdown exited $?"
for n in $names; do
  grep -q "$n " "$tmp/all" || fail "ferry-info does not list $n"
  grep -q "$n " "$tmp/config" || fail "ferry-info --config does not list $n"
  grep -q "^| \`$n\` |" "$tmp/md" || fail "ferry-info --markdown has no row for $n"
done
# Markdown: header, separator, one row per variable, nothing else.
rows=$(grep -c "^| \`[A-Z]" "$tmp/md")
[ "$rows" -eq "$(echo "$names" | wc -l)" ] || fail "markdown has $rows rows"
[ "$(wc -l < "$tmp/md")" -eq $((rows + 2)) ] || fail "markdown has extra lines"

grep -q '^Ferry [0-9]' "$tmp/all" || fail "no version line"
grep -q 'shm' "$tmp/all" || fail "no shm transport line"
grep -Eq 'cma.*(available|unavailable)' "$tmp/all" || fail "no cross-memory attach line"
"$info" --version | grep -q '^Ferry [0-9]' || fail "--version"
"$info" -h | grep -q -- '--markdown' || fail "-h"
"$info" --no-such-option 2>/dev/null && fail "unknown option accepted"

# The current value of a variable set in the environment is shown.
first=$(echo "$names" | head -n 1)
env "$first=7" "$info" --config | grep "$first " | grep -q 7 || fail "set value of $first not shown"
echo "ferry-info lists $(echo "$names" | wc -l) variables"
