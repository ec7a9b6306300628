#!/usr/bin/env bash
# Install what the build needs and is missing, on Debian 12.
#   scripts/deps.sh            system packages for building and testing
#   scripts/deps.sh --python   also the project-local venv with pympistandard
#   scripts/deps.sh --mpich    also MPICH (the ABI and Hydra launch tests)
#   scripts/deps.sh --peers    also MPICH and Open MPI, the benchmark peers
#   scripts/deps.sh --mpich-ofi also MPICH with its ch4:ofi device over
#                              libfabric's tcp provider (PyPI's mpich wheel,
#                              which bundles libfabric 2.5; Debian's MPICH
#                              has only ch4:ucx) in .peers/mpich-ofi, a peer
#                              for the fabric benchmarks (compare_net.sh, ab.sh)
#   scripts/deps.sh --slurm    also Slurm and munge (the srun launch test sets
#                              up a cluster of its own; no daemon is started)
#   scripts/deps.sh --pkg=NAME also the Debian package NAME (repeatable; the
#                              client scripts' own packages: scalapack, netpipe)
set -euo pipefail
cd "$(dirname "$0")/.."
want=(cmake gcc g++ gfortran make pkg-config python3 python3-venv libhwloc-dev iproute2 libfabric-dev libfabric-bin libpmix-dev)
for a in "$@"; do
  case "$a" in
    --mpich) want+=(mpich libmpich-dev) ;;
    --peers) want+=(mpich libmpich-dev openmpi-bin libopenmpi-dev) ;;
    --mpich-ofi) want+=(python3-venv) ;;
    --slurm) want+=(slurmctld slurmd slurm-client munge) ;;
    --pkg=*) want+=("${a#--pkg=}") ;;
  esac
done
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
for a in "$@"; do
  if [ "$a" = --python ]; then
    if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import pympistandard' 2>/dev/null; then
      python3 -m venv .venv
      .venv/bin/pip install -q -r scripts/requirements.txt
    fi
  fi
  if [ "$a" = --mpich-ofi ] && [ ! -x .peers/mpich-ofi/bin/mpiexec.hydra ]; then
    # pinned: the figures in docs/transport-ofi.md name this version
    python3 -m venv .peers/mpich-ofi
    .peers/mpich-ofi/bin/pip install -q mpich==5.0.2
  fi
done
