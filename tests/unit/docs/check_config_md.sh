#!/bin/sh
# usage: check_config_md.sh FERRY_INFO DOCS_CONFIG_MD
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
env -u FERRY_PROGRESS "$1" --markdown > "$tmp" || { echo "ferry-info --markdown failed"; exit 1; }
# the environment must not leak into the defaults column: compare the table
if ! diff -u "$2" "$tmp"; then
  echo "FAIL: docs/config.md is stale; regenerate it with: install/bin/ferry-info --markdown > docs/config.md"
  exit 1
fi
echo "PASS: docs/config.md matches the config table"
