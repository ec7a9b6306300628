#!/usr/bin/env bash
# Pin one MPI rank to core (rank mod cores), then exec the program. For
# launchers without a binding option (Ferry's mpiexec for now): the rank comes
# from the PMI-1 environment (PMI_RANK) or the usual launcher variables.
r=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-${FERRY_RANK:-0}}}
exec taskset -c $((r % $(nproc))) "$@"
