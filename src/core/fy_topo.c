/* Process topologies: the data a communicator carries and the queries
 * that need no communication (see fy_topo.h); the constructors are in
 * src/comm/topo.c. */
#include "core/fy_topo.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>

static int *copy_ints(const int *a, int n) {
  int *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
  if (r && n > 0 && a) memcpy(r, a, (size_t)n * sizeof *r);
  else if (r && n > 0) memset(r, 0, (size_t)n * sizeof *r);
  return r;
}

void fy_topo_free(fy_topo_t *t) {
  if (!t) return;
  free(t->dims); free(t->periods); free(t->index); free(t->edges);
  free(t->in); free(t->out); free(t->inw); free(t->outw);
  free(t->src); free(t->dst);
  free(t);
}

void fy_topo_cart_coords(const fy_topo_t *t, int rank, int *coords) {
  /* row-major: the last dimension varies fastest */
  for (int i = t->ndims - 1; i >= 0; i--) {
    coords[i] = rank % t->dims[i];
    rank /= t->dims[i];
  }
}

static int cart_rank_of(const fy_topo_t *t, const int *coords, int *rank) {
  int r = 0;
  for (int i = 0; i < t->ndims; i++) {
    int c = coords[i], d = t->dims[i];
    if (t->periods[i]) c = ((c % d) + d) % d;
    else if (c < 0 || c >= d) return -1;
    r = r * d + c;
  }
  *rank = r;
  return 0;
}

static int cart_shift(const fy_topo_t *t, int rank, int dir, int disp, int *src, int *dst) {
  int co[t->ndims > 0 ? t->ndims : 1];
  fy_topo_cart_coords(t, rank, co);
  int me = co[dir];
  co[dir] = me + disp;
  if (cart_rank_of(t, co, dst)) *dst = MPI_PROC_NULL;
  co[dir] = me - disp;
  if (cart_rank_of(t, co, src)) *src = MPI_PROC_NULL;
  return 0;
}

fy_topo_t *fy_topo_new_cart(int ndims, const int *dims, const int *periods, int rank) {
  fy_topo_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->kind = MPI_CART;
  t->ndims = ndims;
  t->dims = copy_ints(dims, ndims);
  t->periods = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
  t->nsrc = t->ndst = 2 * ndims;
  t->src = copy_ints(NULL, 2 * ndims);
  t->dst = copy_ints(NULL, 2 * ndims);
  if (!t->dims || !t->periods || !t->src || !t->dst) {
    fy_topo_free(t);
    return NULL;
  }
  for (int i = 0; i < ndims; i++) t->periods[i] = periods[i] != 0;
  /* neighbourhood order: per dimension, the -1 then the +1 neighbour */
  for (int i = 0; i < ndims && rank >= 0; i++) {
    int s, d;
    cart_shift(t, rank, i, 1, &s, &d);
    t->src[2 * i] = s;
    t->src[2 * i + 1] = d;
    t->dst[2 * i] = s;
    t->dst[2 * i + 1] = d;
  }
  return t;
}

fy_topo_t *fy_topo_new_graph(int nnodes, const int *index, const int *edges, int rank) {
  fy_topo_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->kind = MPI_GRAPH;
  t->nnodes = nnodes;
  t->nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  t->index = copy_ints(index, nnodes);
  t->edges = copy_ints(edges, t->nedges);
  int lo = rank > 0 ? index[rank - 1] : 0, hi = rank >= 0 && rank < nnodes ? index[rank] : 0;
  if (rank < 0 || rank >= nnodes) lo = hi = 0;
  t->nsrc = t->ndst = hi - lo;
  t->src = copy_ints(edges + lo, hi - lo);
  t->dst = copy_ints(edges + lo, hi - lo);
  if (!t->index || !t->edges || !t->src || !t->dst) {
    fy_topo_free(t);
    return NULL;
  }
  return t;
}

fy_topo_t *fy_topo_new_dist(int indeg, const int *in, const int *inw, int outdeg, const int *out,
                            const int *outw, int weighted) {
  /* the sentinels are not arrays */
  if (inw == MPI_UNWEIGHTED || inw == MPI_WEIGHTS_EMPTY) inw = NULL;
  if (outw == MPI_UNWEIGHTED || outw == MPI_WEIGHTS_EMPTY) outw = NULL;
  fy_topo_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->kind = MPI_DIST_GRAPH;
  t->indeg = indeg;
  t->outdeg = outdeg;
  t->weighted = weighted;
  t->in = copy_ints(in, indeg);
  t->out = copy_ints(out, outdeg);
  t->inw = copy_ints(weighted ? inw : NULL, indeg);
  t->outw = copy_ints(weighted ? outw : NULL, outdeg);
  t->nsrc = indeg;
  t->ndst = outdeg;
  t->src = copy_ints(in, indeg);
  t->dst = copy_ints(out, outdeg);
  if (!t->in || !t->out || !t->inw || !t->outw || !t->src || !t->dst) {
    fy_topo_free(t);
    return NULL;
  }
  return t;
}

fy_topo_t *fy_topo_dup(const fy_topo_t *s) {
  fy_topo_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  *t = *s;
  t->dims = copy_ints(s->dims, s->ndims);
  t->periods = copy_ints(s->periods, s->ndims);
  t->index = copy_ints(s->index, s->nnodes);
  t->edges = copy_ints(s->edges, s->nedges);
  t->in = copy_ints(s->in, s->indeg);
  t->out = copy_ints(s->out, s->outdeg);
  t->inw = copy_ints(s->inw, s->indeg);
  t->outw = copy_ints(s->outw, s->outdeg);
  t->src = copy_ints(s->src, s->nsrc);
  t->dst = copy_ints(s->dst, s->ndst);
  if (!t->dims || !t->periods || !t->index || !t->edges || !t->in || !t->out || !t->inw || !t->outw ||
      !t->src || !t->dst) {
    fy_topo_free(t);
    return NULL;
  }
  return t;
}

int fy_topo_neighbors(fy_comm_t *c, int *indegree, const int **sources, int *outdegree,
                      const int **destinations) {
  fy_topo_t *t = c->topo;
  if (!t) return fy_err(MPI_ERR_TOPOLOGY, "communicator %s has no topology", c->name);
  *indegree = t->nsrc;
  *sources = t->src;
  *outdegree = t->ndst;
  *destinations = t->dst;
  return MPI_SUCCESS;
}

/* ---- queries ---- */

static int want(fy_comm_t *c, int kind, fy_topo_t **out) {
  fy_topo_t *t = c->topo;
  static const char *const nm[] = {"", "a graph", "a Cartesian", "a distributed graph"};
  if (!t || t->kind != kind)
    return fy_err(MPI_ERR_TOPOLOGY, "communicator %s has no %s topology", c->name, nm[kind]);
  *out = t;
  return MPI_SUCCESS;
}

int fy_mpi_topo_test(MPI_Comm comm, int *status) {
  fy_comm_t *c = fy_comm_get(comm);
  if (!status) return fy_err(MPI_ERR_ARG, "status = NULL");
  *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int fy_mpi_cartdim_get(MPI_Comm comm, int *ndims) {
  fy_topo_t *t = NULL;
  int err = want(fy_comm_get(comm), MPI_CART, &t);
  if (err) return err;
  if (!ndims) return fy_err(MPI_ERR_ARG, "ndims = NULL");
  *ndims = t->ndims;
  return MPI_SUCCESS;
}

int fy_mpi_cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  fy_comm_t *c = fy_comm_get(comm);
  fy_topo_t *t = NULL;
  int err = want(c, MPI_CART, &t);
  if (err) return err;
  if (maxdims < 0) return fy_err(MPI_ERR_ARG, "maxdims = %d is negative", maxdims);
  int n = maxdims < t->ndims ? maxdims : t->ndims;
  if (n > 0 && (!dims || !periods || !coords)) return fy_err(MPI_ERR_ARG, "dims, periods or coords = NULL");
  int co[t->ndims > 0 ? t->ndims : 1];
  fy_topo_cart_coords(t, c->rank, co);
  for (int i = 0; i < n; i++) {
    dims[i] = t->dims[i];
    periods[i] = t->periods[i];
    coords[i] = co[i];
  }
  return MPI_SUCCESS;
}

int fy_mpi_cart_rank(MPI_Comm comm, const int coords[], int *rank) {
  fy_topo_t *t = NULL;
  int err = want(fy_comm_get(comm), MPI_CART, &t);
  if (err) return err;
  if (!rank || (t->ndims > 0 && !coords)) return fy_err(MPI_ERR_ARG, "coords or rank = NULL");
  for (int i = 0; i < t->ndims; i++)
    if (!t->periods[i] && (coords[i] < 0 || coords[i] >= t->dims[i]))
      return fy_err(MPI_ERR_ARG, "coords[%d] = %d is outside the non-periodic dimension of size %d", i,
                    coords[i], t->dims[i]);
  cart_rank_of(t, coords, rank);
  return MPI_SUCCESS;
}

int fy_mpi_cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  fy_comm_t *c = fy_comm_get(comm);
  fy_topo_t *t = NULL;
  int err = want(c, MPI_CART, &t);
  if (err) return err;
  if (rank < 0 || rank >= c->size)
    return fy_err(MPI_ERR_RANK, "rank = %d is not a rank of %s (size %d)", rank, c->name, c->size);
  if (maxdims < t->ndims)
    return fy_err(MPI_ERR_ARG, "maxdims = %d is less than the %d dimensions", maxdims, t->ndims);
  if (t->ndims > 0 && !coords) return fy_err(MPI_ERR_ARG, "coords = NULL");
  fy_topo_cart_coords(t, rank, coords);
  return MPI_SUCCESS;
}

int fy_mpi_cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest) {
  fy_comm_t *c = fy_comm_get(comm);
  fy_topo_t *t = NULL;
  int err = want(c, MPI_CART, &t);
  if (err) return err;
  if (direction < 0 || direction >= t->ndims)
    return fy_err(MPI_ERR_ARG, "direction = %d is not in [0, %d)", direction, t->ndims);
  if (!rank_source || !rank_dest) return fy_err(MPI_ERR_ARG, "rank_source or rank_dest = NULL");
  return cart_shift(t, c->rank, direction, disp, rank_source, rank_dest);
}

int fy_mpi_graphdims_get(MPI_Comm comm, int *nnodes, int *nedges) {
  fy_topo_t *t = NULL;
  int err = want(fy_comm_get(comm), MPI_GRAPH, &t);
  if (err) return err;
  if (!nnodes || !nedges) return fy_err(MPI_ERR_ARG, "nnodes or nedges = NULL");
  *nnodes = t->nnodes;
  *nedges = t->nedges;
  return MPI_SUCCESS;
}

int fy_mpi_graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  fy_topo_t *t = NULL;
  int err = want(fy_comm_get(comm), MPI_GRAPH, &t);
  if (err) return err;
  if (maxindex < 0 || maxedges < 0) return fy_err(MPI_ERR_ARG, "maxindex or maxedges is negative");
  for (int i = 0; i < t->nnodes && i < maxindex; i++) index[i] = t->index[i];
  for (int i = 0; i < t->nedges && i < maxedges; i++) edges[i] = t->edges[i];
  return MPI_SUCCESS;
}

static int graph_range(fy_comm_t *c, fy_topo_t *t, int rank, int *lo, int *hi) {
  if (rank < 0 || rank >= t->nnodes)
    return fy_err(MPI_ERR_RANK, "rank = %d is not a node of the graph of %s (%d nodes)", rank, c->name,
                  t->nnodes);
  *lo = rank ? t->index[rank - 1] : 0;
  *hi = t->index[rank];
  return MPI_SUCCESS;
}

int fy_mpi_graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors) {
  fy_comm_t *c = fy_comm_get(comm);
  fy_topo_t *t = NULL;
  int lo, hi, err = want(c, MPI_GRAPH, &t);
  if (err || (err = graph_range(c, t, rank, &lo, &hi))) return err;
  if (!nneighbors) return fy_err(MPI_ERR_ARG, "nneighbors = NULL");
  *nneighbors = hi - lo;
  return MPI_SUCCESS;
}

int fy_mpi_graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  fy_comm_t *c = fy_comm_get(comm);
  fy_topo_t *t = NULL;
  int lo, hi, err = want(c, MPI_GRAPH, &t);
  if (err || (err = graph_range(c, t, rank, &lo, &hi))) return err;
  if (maxneighbors < 0) return fy_err(MPI_ERR_ARG, "maxneighbors = %d is negative", maxneighbors);
  for (int i = lo; i < hi && i - lo < maxneighbors; i++) neighbors[i - lo] = t->edges[i];
  return MPI_SUCCESS;
}

int fy_mpi_dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted) {
  fy_topo_t *t = NULL;
  int err = want(fy_comm_get(comm), MPI_DIST_GRAPH, &t);
  if (err) return err;
  if (!indegree || !outdegree || !weighted) return fy_err(MPI_ERR_ARG, "indegree, outdegree or weighted = NULL");
  *indegree = t->indeg;
  *outdegree = t->outdeg;
  *weighted = t->weighted;
  return MPI_SUCCESS;
}

int fy_mpi_dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                                int maxoutdegree, int destinations[], int destweights[]) {
  fy_topo_t *t = NULL;
  int err = want(fy_comm_get(comm), MPI_DIST_GRAPH, &t);
  if (err) return err;
  if (maxindegree < 0 || maxoutdegree < 0) return fy_err(MPI_ERR_ARG, "maxindegree or maxoutdegree is negative");
  for (int i = 0; i < t->indeg && i < maxindegree; i++) {
    sources[i] = t->in[i];
    if (t->weighted && sourceweights && sourceweights != MPI_UNWEIGHTED) sourceweights[i] = t->inw[i];
  }
  for (int i = 0; i < t->outdeg && i < maxoutdegree; i++) {
    destinations[i] = t->out[i];
    if (t->weighted && destweights && destweights != MPI_UNWEIGHTED) destweights[i] = t->outw[i];
  }
  return MPI_SUCCESS;
}

/* ---- mapping (no reordering: the identity is always a valid mapping) ---- */

int fy_mpi_cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank) {
  fy_comm_t *c = fy_comm_get(comm);
  if (ndims < 0) return fy_err(MPI_ERR_DIMS, "ndims = %d is negative", ndims);
  if (!newrank) return fy_err(MPI_ERR_ARG, "newrank = NULL");
  long long n = 1;
  for (int i = 0; i < ndims; i++) {
    if (dims[i] <= 0) return fy_err(MPI_ERR_DIMS, "dims[%d] = %d is not positive", i, dims[i]);
    n *= dims[i];
    if (n > c->size)
      return fy_err(MPI_ERR_DIMS, "the grid has more points than %s has processes (%d)", c->name, c->size);
  }
  *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int fy_mpi_graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank) {
  fy_comm_t *c = fy_comm_get(comm);
  if (nnodes < 1 || nnodes > c->size)
    return fy_err(MPI_ERR_ARG, "nnodes = %d is not in [1, %d]", nnodes, c->size);
  if (!newrank) return fy_err(MPI_ERR_ARG, "newrank = NULL");
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

/* ---- MPI_Dims_create: factor nnodes into the free dimensions "as close
 * to each other as possible". As MPICH does, that is: the smallest
 * difference between the largest and the smallest factor, and among equal
 * differences the largest smallest factor, then the largest second
 * smallest, and so on (which MPICH's topo/dims5 table, 75 395 cases,
 * checks). A greedy split is not enough: 72 in 2d is 9 x 8, not 12 x 6.
 * The search tries non-increasing factor lists, the largest factor from
 * the k-th root up, and stops where no list can be better. */
typedef struct {
  int k, bal, found;
  const int *div; /* the divisors of n, ascending */
  int ndiv;
  int *cur, *best;
} dims_search_t;

/* Whether d^e >= n, without overflow. */
static int pow_ge(long long d, int e, long long n) {
  long long p = 1;
  for (int i = 0; i < e; i++) {
    p *= d;
    if (p >= n) return 1;
  }
  return p >= n;
}

static void dims_offer(dims_search_t *s) {
  int bal = s->cur[0] - s->cur[s->k - 1];
  int better = !s->found || bal < s->bal;
  if (!better && bal == s->bal)
    for (int i = s->k - 1; i >= 0; i--)
      if (s->cur[i] != s->best[i]) {
        better = s->cur[i] > s->best[i];
        break;
      }
  if (better) {
    s->found = 1;
    s->bal = bal;
    memcpy(s->best, s->cur, (size_t)s->k * sizeof *s->cur);
  }
}

/* Factors pos..k-1 of rem, each at most maxd, non-increasing. */
static void dims_rec(dims_search_t *s, int pos, int rem, int maxd) {
  if (pos == s->k - 1) {
    if (rem <= maxd) {
      s->cur[pos] = rem;
      dims_offer(s);
    }
    return;
  }
  for (int i = s->ndiv - 1; i >= 0; i--) {
    int d = s->div[i];
    if (d > maxd || d > rem || rem % d) continue;
    if (!pow_ge(d, s->k - pos, rem)) break;                 /* the rest cannot fit under d */
    if (s->found && s->cur[0] - d > s->bal) break;          /* the smallest is at most d */
    s->cur[pos] = d;
    dims_rec(s, pos + 1, rem / d, d);
  }
}

static int dims_balanced(int n, int k, int *out) {
  if (k == 1) {
    out[0] = n;
    return MPI_SUCCESS;
  }
  /* the divisors ascending: those up to the square root in order, then
   * their cofactors in reverse */
  int cap = 64, nd = 0, err = MPI_SUCCESS;
  int *div = malloc((size_t)cap * sizeof *div), *cur = malloc(2 * (size_t)k * sizeof *cur);
  if (!div || !cur) goto nomem;
  for (long long d = 1; d * d <= n; d++) {
    if (n % d) continue;
    if (2 * (nd + 1) > cap) { /* room for the cofactors too */
      int *nw = realloc(div, (size_t)(cap *= 2) * sizeof *div);
      if (!nw) goto nomem;
      div = nw;
    }
    div[nd++] = (int)d;
  }
  for (int i = nd - 1; i >= 0; i--) /* nd grows: i starts below the cofactors */
    if ((long long)div[i] * div[i] != n) div[nd++] = n / div[i];
  dims_search_t s = {.k = k, .div = div, .ndiv = nd, .cur = cur, .best = cur + k};
  /* the largest factor: from the k-th root up, while it can still beat the
   * best difference (the smallest factor is at most lo, the root's floor) */
  int lo = 1;
  while (!pow_ge(lo + 1, k, (long long)n + 1)) lo++;
  for (int i = 0; i < nd; i++) {
    int d0 = div[i];
    if (!pow_ge(d0, k, n)) continue;
    if (s.found && d0 - lo > s.bal) break;
    s.cur[0] = d0;
    dims_rec(&s, 1, n / d0, d0);
  }
  memcpy(out, s.best, (size_t)k * sizeof *out);
done:
  free(div);
  free(cur);
  return err;
nomem:
  err = fy_err(MPI_ERR_NO_MEM, "out of memory in MPI_Dims_create");
  goto done;
}

int fy_mpi_dims_create(int nnodes, int ndims, int dims[]) {
  if (nnodes < 0) return fy_err(MPI_ERR_ARG, "nnodes = %d is negative", nnodes);
  if (ndims < 0) return fy_err(MPI_ERR_DIMS, "ndims = %d is negative", ndims);
  if (ndims > 0 && !dims) return fy_err(MPI_ERR_ARG, "dims = NULL");
  long long fixed = 1;
  int nfree = 0;
  for (int i = 0; i < ndims; i++) {
    if (dims[i] < 0) return fy_err(MPI_ERR_DIMS, "dims[%d] = %d is negative", i, dims[i]);
    if (dims[i] == 0) nfree++;
    else fixed *= dims[i];
  }
  if (ndims == 0) {
    if (nnodes != 1) return fy_err(MPI_ERR_DIMS, "ndims = 0 needs nnodes = 1, not %d", nnodes);
    return MPI_SUCCESS;
  }
  if (nnodes == 0) { /* only the empty grid: every free dimension 0? MPICH leaves them 0 */
    return MPI_SUCCESS;
  }
  if (fixed == 0 || nnodes % fixed)
    return fy_err(MPI_ERR_DIMS, "nnodes = %d is not a multiple of the product %lld of the given dims",
                  nnodes, fixed);
  int rest = (int)(nnodes / fixed);
  if (nfree == 0) {
    if (rest != 1)
      return fy_err(MPI_ERR_DIMS, "the given dims multiply to %lld, not nnodes = %d", fixed, nnodes);
    return MPI_SUCCESS;
  }
  int f[nfree];
  int err = dims_balanced(rest, nfree, f);
  if (err) return err;
  for (int i = 0, k = 0; i < ndims; i++)
    if (dims[i] == 0) dims[i] = f[k++];
  return MPI_SUCCESS;
}
