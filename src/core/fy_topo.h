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

/* The topology a communicator carries (fy_comm_t.topo). Cartesian: ndims,
 * dims, periods. Graph: nnodes, index, edges (as MPI_Graph_create takes
 * them). Dist graph: this process's in/out edges and weights (NULL weights:
 * unweighted). The neighbour arrays of fy_topo_neighbors() are built once. */
typedef struct fy_topo {
  int kind;              /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
  int ndims, *dims, *periods;
  int nnodes, nedges, *index, *edges;
  int indeg, outdeg, *in, *out, *inw, *outw, weighted;
  int nsrc, ndst, *src, *dst;   /* neighbour lists (fy_topo_neighbors) */
} fy_topo_t;

fy_topo_t *fy_topo_new_cart(int ndims, const int *dims, const int *periods, int rank);
fy_topo_t *fy_topo_new_graph(int nnodes, const int *index, const int *edges, int rank);
fy_topo_t *fy_topo_new_dist(int indeg, const int *in, const int *inw, int outdeg, const int *out,
                            const int *outw, int weighted);
fy_topo_t *fy_topo_dup(const fy_topo_t *t);
void fy_topo_free(fy_topo_t *t);
/* Cartesian helpers for construction (src/comm). */
void fy_topo_cart_coords(const fy_topo_t *t, int rank, int *coords);

int fy_topo_neighbors(fy_comm_t *c, int *indegree, const int **sources,
                      int *outdegree, const int **destinations);
#endif
