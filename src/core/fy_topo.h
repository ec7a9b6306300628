/* Process topologies attached to communicators (MPI 4.1 ch. 8): Cartesian,
 * graph and distributed graph.
 *
 * Contract
 * - fy_topo_neighbors() gives, for the calling process on communicator c,
 *   the ranks it receives from (sources, in the order neighbourhood
 *   collectives use for receive buffers) and sends to (destinations, in the
 *   order used for send buffers), as the standard defines per topology kind
 *   (Cartesian: for each dimension, the -1 then the +1 neighbour, MPI_PROC_NULL
 *   at a non-periodic border; graph: the adjacency list for both; dist graph:
 *   the in- and out-edges).
 * - The arrays stay owned by the communicator (valid until it is freed).
 * - Returns MPI_SUCCESS, or MPI_ERR_TOPOLOGY when c has no topology. */
#ifndef FY_TOPO_H
#define FY_TOPO_H
#include "core/fy_comm.h"

int fy_topo_neighbors(fy_comm_t *c, int *indegree, const int **sources,
                      int *outdegree, const int **destinations);
#endif
