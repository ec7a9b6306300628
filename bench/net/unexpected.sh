#!/usr/bin/env bash
# What a libfabric provider does with a tagged message that no posted
# receive matches (bench/net/fipp.c -U): for each size S the client sends
# S bytes tagged A and 8 bytes tagged B before the server posts anything;
# the server then posts a receive for B alone. A provider that keeps
# unexpected tagged messages for later delivers B; one that stops reading
# the connection at A delivers nothing until A's receive is posted, and
# holds back every later message of that peer meanwhile. Matching in the
# provider (MPI receives posted to libfabric as tagged receives) needs the
# first kind at every size an eager message may have.
#
#   bench/net/unexpected.sh [-s SIZES] [CONFIG...]
#
# CONFIG is fi[+VAR=val...] as in ab.sh: FI_PROVIDER=... chooses the
# provider (default net), LD_LIBRARY_PATH=... another libfabric, e.g.
#   fi+FI_PROVIDER=tcp\;ofi_rxm
#   fi+LD_LIBRARY_PATH=.peers/mpich-ofi/lib/mpich+FI_PROVIDER=tcp
# (default: fi). One host, loopback, ranks on cores 0 and 1. Prints per
# config and size whether B passed while A was unmatched, and how long
# each took once its receive was posted (ms; -1: not within 5 s).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/net_lib.sh" # fipp_exe, fipp_places, fipp_cmd, fipp_prov, spec_of
sizes=0,64,128,129,256,1K,16K,64K,1M
usage() { sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2; }
while getopts "s:" o; do
  case $o in s) sizes=$OPTARG ;; *) usage ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fipp=$(fipp_exe) || { echo "unexpected.sh: cannot build fipp (libfabric-dev?)" >&2; exit 1; }
fipp_places 0
status=0
for cfg in "$@"; do
  [[ $cfg == fi || $cfg == fi+* ]] || { echo "unexpected.sh: $cfg: only fi[+VAR=val] configs" >&2; exit 2; }
  spec_of "$cfg" ""
  dir=$out/names && rm -rf "$dir" && mkdir -p "$dir"
  echo "== $cfg (provider $(fipp_prov "${envs[@]}"))"
  fipp_cmd server "$dir" "$fipp" "${envs[@]}"
  "${fipp_run[@]}" -U -s "$sizes" >"$out/server.out" 2>&1 &
  srv=$!
  fipp_cmd client "$dir" "$fipp" "${envs[@]}"
  if ! timeout 120 "${fipp_run[@]}" -U -s "$sizes" >"$out/client.out" 2>&1; then
    echo "client failed:" && cat "$out/client.out"
    status=1
  fi
  wait "$srv" || status=1
  cat "$out/server.out"
done
exit $status
