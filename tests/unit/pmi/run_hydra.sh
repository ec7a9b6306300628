#!/bin/sh
# Run the PMI test client under MPICH's Hydra; 77 (skip) when it is absent.
# usage: run_hydra.sh CLIENT NP CLIENT_ARG [hydra options...]
client=$1; np=$2; arg=$3; shift 3
hydra=$(command -v mpiexec.hydra) || { echo "mpiexec.hydra not found: skipped"; exit 77; }
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE
exec timeout 60 "$hydra" "$@" -n "$np" "$client" "$arg"
