/* Topology constructors (MPI 4.1 ch. 8): a new communicator over the old
 * one's first processes (no reordering: Ferry's processes share one node,
 * so the identity mapping is as good as any) carrying the topology. */
#include "comm/fy_cx.h"
#include "comm/fy_commc.h"
#include "core/fy_error.h"
#include "core/fy_topo.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>

int fy_commc_split_intra(fy_comm_t *c, int color, int key, fy_comm_t **out);

/* The first n ranks of c (intra), in order; NULL for the others. */
static int subset(fy_comm_t *c, int n, fy_comm_t **out) {
  fy_cx_t d = fy_cx_of(c);
  uint32_t ctx;
  *out = NULL;
  int err = fy_cx_agree_ctx(&d, NULL, 0, &ctx);
  if (err) return err;
  int *w = NULL;
  if (c->rank < n) {
    if (!(w = malloc((size_t)n * sizeof *w))) {
      fy_ctx_release(ctx);
      return fy_err(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    }
    for (int i = 0; i < n; i++) w[i] = fy_comm_world_rank(c, i);
  }
  return fy_commc_finish(c, w, n, c->rank < n ? c->rank : -1, ctx, out);
}

static int attach(fy_comm_t *n, fy_topo_t *t, MPI_Comm *out) {
  if (!t) {
    fy_commc_release(n);
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating a topology");
  }
  n->topo = t;
  *out = n->handle;
  return MPI_SUCCESS;
}

int fy_mpi_cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                       MPI_Comm *comm_cart) {
  fy_comm_t *c = fy_comm_get(comm_old), *n;
  if (c->is_inter) return fy_err(MPI_ERR_COMM, "comm_old = %s is an intercommunicator", c->name);
  if (ndims < 0) return fy_err(MPI_ERR_DIMS, "ndims = %d is negative", ndims);
  if (ndims > 0 && (!dims || !periods)) return fy_err(MPI_ERR_ARG, "dims or periods = NULL");
  long long size = 1;
  for (int i = 0; i < ndims; i++) {
    if (dims[i] <= 0) return fy_err(MPI_ERR_DIMS, "dims[%d] = %d is not positive", i, dims[i]);
    size *= dims[i];
    if (size > c->size)
      return fy_err(MPI_ERR_DIMS, "the grid needs more processes than %s has (%d)", c->name, c->size);
  }
  int err = subset(c, (int)size, &n);
  if (err) return err;
  if (!n) {
    *comm_cart = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  return attach(n, fy_topo_new_cart(ndims, dims, periods, n->rank), comm_cart);
}

int fy_mpi_cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
  fy_comm_t *c = fy_comm_get(comm), *n;
  fy_topo_t *t = c->topo;
  if (!t || t->kind != MPI_CART)
    return fy_err(MPI_ERR_TOPOLOGY, "communicator %s has no Cartesian topology", c->name);
  if (t->ndims > 0 && !remain_dims) return fy_err(MPI_ERR_ARG, "remain_dims = NULL");
  int nd = t->ndims, co[nd > 0 ? nd : 1], kd[nd > 0 ? nd : 1], kp[nd > 0 ? nd : 1], k = 0;
  fy_topo_cart_coords(t, c->rank, co);
  /* colour: the coordinates dropped; key: the rank (keeps row-major order) */
  int color = 0;
  for (int i = 0; i < nd; i++) {
    if (remain_dims[i]) {
      kd[k] = t->dims[i];
      kp[k++] = t->periods[i];
    } else {
      color = color * t->dims[i] + co[i];
    }
  }
  int err = fy_commc_split_intra(c, color, c->rank, &n);
  if (err) return err;
  return attach(n, fy_topo_new_cart(k, kd, kp, n->rank), newcomm);
}

int fy_mpi_graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                        MPI_Comm *comm_graph) {
  fy_comm_t *c = fy_comm_get(comm_old), *n;
  if (c->is_inter) return fy_err(MPI_ERR_COMM, "comm_old = %s is an intercommunicator", c->name);
  if (nnodes < 0 || nnodes > c->size)
    return fy_err(MPI_ERR_ARG, "nnodes = %d is not in [0, %d] (the size of %s)", nnodes, c->size, c->name);
  if (nnodes > 0 && !index) return fy_err(MPI_ERR_ARG, "index = NULL");
  for (int i = 0; i < nnodes; i++)
    if (index[i] < (i ? index[i - 1] : 0))
      return fy_err(MPI_ERR_ARG, "index[%d] = %d is less than the entry before it", i, index[i]);
  int ne = nnodes ? index[nnodes - 1] : 0;
  if (ne > 0 && !edges) return fy_err(MPI_ERR_ARG, "edges = NULL");
  for (int i = 0; i < ne; i++)
    if (edges[i] < 0 || edges[i] >= nnodes)
      return fy_err(MPI_ERR_ARG, "edges[%d] = %d is not a node of the graph (%d nodes)", i, edges[i], nnodes);
  int err = subset(c, nnodes, &n);
  if (err) return err;
  if (!n) {
    *comm_graph = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  return attach(n, fy_topo_new_graph(nnodes, index, edges, n->rank), comm_graph);
}

static int check_ranks(fy_comm_t *c, const int *r, int n, const char *arg) {
  for (int i = 0; i < n; i++)
    if (r[i] < 0 || r[i] >= c->size)
      return fy_err(MPI_ERR_RANK, "%s[%d] = %d is not a rank of %s (size %d)", arg, i, r[i], c->name, c->size);
  return MPI_SUCCESS;
}

static int check_weights(const int *w, int n, const char *arg) {
  if (w == MPI_UNWEIGHTED || n == 0) return MPI_SUCCESS;
  if (!w || w == MPI_WEIGHTS_EMPTY) return fy_err(MPI_ERR_ARG, "%s is missing for %d edges", arg, n);
  for (int i = 0; i < n; i++)
    if (w[i] < 0) return fy_err(MPI_ERR_ARG, "%s[%d] = %d is negative", arg, i, w[i]);
  return MPI_SUCCESS;
}

int fy_mpi_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                      const int sourceweights[], int outdegree, const int destinations[],
                                      const int destweights[], MPI_Info info, int reorder,
                                      MPI_Comm *comm_dist_graph) {
  fy_comm_t *c = fy_comm_get(comm_old), *n;
  int err;
  if (c->is_inter) return fy_err(MPI_ERR_COMM, "comm_old = %s is an intercommunicator", c->name);
  if (indegree < 0 || outdegree < 0)
    return fy_err(MPI_ERR_ARG, "indegree = %d or outdegree = %d is negative", indegree, outdegree);
  if ((indegree && !sources) || (outdegree && !destinations))
    return fy_err(MPI_ERR_ARG, "sources or destinations = NULL");
  if ((err = check_ranks(c, sources, indegree, "sources")) ||
      (err = check_ranks(c, destinations, outdegree, "destinations")) ||
      (err = check_weights(sourceweights, indegree, "sourceweights")) ||
      (err = check_weights(destweights, outdegree, "destweights")))
    return err;
  if ((err = subset(c, c->size, &n))) return err;
  int weighted = sourceweights != MPI_UNWEIGHTED || destweights != MPI_UNWEIGHTED;
  return attach(n, fy_topo_new_dist(indegree, sources, sourceweights, outdegree, destinations, destweights,
                                    weighted), comm_dist_graph);
}

int fy_mpi_dist_graph_create(MPI_Comm comm_old, int nsrc, const int sources[], const int degrees[],
                             const int destinations[], const int weights[], MPI_Info info, int reorder,
                             MPI_Comm *comm_dist_graph) {
  fy_comm_t *c = fy_comm_get(comm_old), *n = NULL;
  int err, ne = 0;
  if (c->is_inter) return fy_err(MPI_ERR_COMM, "comm_old = %s is an intercommunicator", c->name);
  if (nsrc < 0) return fy_err(MPI_ERR_ARG, "n = %d is negative", nsrc);
  if (nsrc && (!sources || !degrees)) return fy_err(MPI_ERR_ARG, "sources or degrees = NULL");
  if ((err = check_ranks(c, sources, nsrc, "sources"))) return err;
  for (int i = 0; i < nsrc; i++) {
    if (degrees[i] < 0) return fy_err(MPI_ERR_ARG, "degrees[%d] = %d is negative", i, degrees[i]);
    ne += degrees[i];
  }
  if (ne && !destinations) return fy_err(MPI_ERR_ARG, "destinations = NULL");
  if ((err = check_ranks(c, destinations, ne, "destinations")) || (err = check_weights(weights, ne, "weights")))
    return err;
  /* Every process learns every edge (counts, then the edges padded to the
   * largest count), and keeps those that start or end at itself, ordered
   * by the rank that gave them and their place in its lists. */
  fy_cx_t d = fy_cx_of(c);
  int p = c->size, *counts = malloc((size_t)p * 2 * sizeof(int)), mine[2] = {ne, weights != MPI_UNWEIGHTED};
  int *edges = NULL, *all = NULL, *in = NULL, *out = NULL, *inw = NULL, *outw = NULL;
  if (!counts) return fy_err(MPI_ERR_NO_MEM, "out of memory creating a graph");
  if ((err = fy_cx_allgather(&d, mine, sizeof mine, counts))) goto done;
  int m = 0, weighted = 0;
  for (int i = 0; i < p; i++) {
    if (counts[2 * i] > m) m = counts[2 * i];
    weighted |= counts[2 * i + 1];
  }
  size_t per = (size_t)(m > 0 ? m : 1) * 3;
  edges = calloc(per, sizeof(int));
  all = malloc(per * (size_t)p * sizeof(int));
  if (!edges || !all) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory creating a graph");
    goto done;
  }
  for (int i = 0, k = 0; i < nsrc; i++)
    for (int j = 0; j < degrees[i]; j++, k++) {
      edges[3 * k] = sources[i];
      edges[3 * k + 1] = destinations[k];
      edges[3 * k + 2] = weights != MPI_UNWEIGHTED ? weights[k] : 1;
    }
  if ((err = fy_cx_allgather(&d, edges, per * sizeof(int), all))) goto done;
  int nin = 0, nout = 0;
  for (int r = 0; r < p; r++)
    for (int k = 0; k < counts[2 * r]; k++) {
      const int *e = all + (size_t)r * per + 3 * (size_t)k;
      nin += e[1] == c->rank;
      nout += e[0] == c->rank;
    }
  in = malloc((size_t)(nin + 1) * sizeof *in);
  inw = malloc((size_t)(nin + 1) * sizeof *inw);
  out = malloc((size_t)(nout + 1) * sizeof *out);
  outw = malloc((size_t)(nout + 1) * sizeof *outw);
  if (!in || !inw || !out || !outw) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory creating a graph");
    goto done;
  }
  nin = nout = 0;
  for (int r = 0; r < p; r++)
    for (int k = 0; k < counts[2 * r]; k++) {
      const int *e = all + (size_t)r * per + 3 * (size_t)k;
      if (e[1] == c->rank) {
        in[nin] = e[0];
        inw[nin++] = e[2];
      }
      if (e[0] == c->rank) {
        out[nout] = e[1];
        outw[nout++] = e[2];
      }
    }
  if ((err = subset(c, c->size, &n))) goto done;
  err = attach(n, fy_topo_new_dist(nin, in, inw, nout, out, outw, weighted), comm_dist_graph);
done:
  free(counts);
  free(edges);
  free(all);
  free(in);
  free(out);
  free(inw);
  free(outw);
  return err;
}
