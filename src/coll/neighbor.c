/* Neighbourhood collectives (MPI 4.1 ch. 8.6) as schedules over the
 * neighbour lists of the communicator's topology (fy_topo_neighbors):
 * every transfer posted at once. On a Cartesian topology the -1 and +1
 * neighbours of a periodic dimension of size 1 or 2 are the same process,
 * so each direction gets its own tag offset: a block sent to destination k
 * travels with offset k and is received from source j with offset j^1
 * (what the neighbour sent in the opposite direction). */
#include "coll/fy_coll_impl.h"
#include "core/fy_topo.h"
#include "binding/fy_impl.h"

/* Until the topology layer is linked in, every communicator lacks one. */
__attribute__((weak)) int fy_topo_neighbors(fy_comm_t *c, int *indegree, const int **sources,
                                            int *outdegree, const int **destinations) {
  (void)indegree; (void)sources; (void)outdegree; (void)destinations;
  return fy_err(MPI_ERR_TOPOLOGY, "comm = %s has no process topology", c->name);
}

typedef struct { int ni, no, cart; const int *src, *dst; } nbrs_t;

static int neighbours(fy_sched_t *s, nbrs_t *n) {
  fy_comm_t *c = fy_sched_comm(s);
  if (c->is_inter)
    return fy_err(MPI_ERR_COMM, "comm = %s is an intercommunicator (no topology)", c->name);
  TRY(fy_topo_neighbors(c, &n->ni, &n->src, &n->no, &n->dst));
  int st = MPI_UNDEFINED;
  if (fy_mpi_topo_test(c->handle, &st) != MPI_SUCCESS) st = MPI_UNDEFINED;
  n->cart = st == MPI_CART;
  return fy_sched_fence(s);
}

static int stag(const nbrs_t *n, int k) { return n->cart ? k & 15 : 0; }
static int rtag(const nbrs_t *n, int j) { return n->cart ? (j ^ 1) & 15 : 0; }

int fy_build_neighbor_allgatherv(fy_sched_t *s, const void *sbuf, MPI_Count scount,
                                 fy_datatype_t *st, void *rbuf, const void *rcounts,
                                 const void *displs, int w, fy_datatype_t *rt, int uniform,
                                 MPI_Count rcount) {
  nbrs_t n;
  TRY(neighbours(s, &n));
  for (int j = 0; j < n.ni; j++) {
    MPI_Count cnt = uniform ? rcount : fy_cnt_at(rcounts, w, j);
    MPI_Aint d = uniform ? (MPI_Aint)(j * rcount) : fy_dsp_at(displs, w, j);
    TRY(fy_sched_recv_tag(s, fy_at(rbuf, d, rt), cnt, rt, n.src[j], rtag(&n, j)));
  }
  for (int k = 0; k < n.no; k++) TRY(fy_sched_send_tag(s, sbuf, scount, st, n.dst[k], stag(&n, k)));
  return fy_sched_fence(s);
}

/* Alltoall(v,w): block k to destination k, block j from source j; with
 * per-neighbour types (w) displacements are in bytes. */
int fy_build_neighbor_alltoallw(fy_sched_t *s, const void *sbuf, const void *scounts,
                                const void *sdispls, fy_datatype_t *st,
                                const MPI_Datatype *stypes, void *rbuf, const void *rcounts,
                                const void *rdispls, fy_datatype_t *rt,
                                const MPI_Datatype *rtypes, int w, int uniform, MPI_Count scount,
                                MPI_Count rcount) {
  nbrs_t n;
  TRY(neighbours(s, &n));
  for (int j = 0; j < n.ni; j++) {
    fy_datatype_t *t = rtypes ? fy_type_get(rtypes[j]) : rt;
    if (!t) return fy_err(MPI_ERR_TYPE, "recvtypes[%d] is not a datatype", j);
    MPI_Count cnt = uniform ? rcount : fy_cnt_at(rcounts, w, j);
    char *p = uniform ? fy_at(rbuf, (MPI_Aint)(j * rcount), t)
              : rtypes ? (char *)rbuf + fy_dsp_at(rdispls, w, j) : fy_at(rbuf, fy_dsp_at(rdispls, w, j), t);
    TRY(fy_sched_recv_tag(s, p, cnt, t, n.src[j], rtag(&n, j)));
  }
  for (int k = 0; k < n.no; k++) {
    fy_datatype_t *t = stypes ? fy_type_get(stypes[k]) : st;
    if (!t) return fy_err(MPI_ERR_TYPE, "sendtypes[%d] is not a datatype", k);
    MPI_Count cnt = uniform ? scount : fy_cnt_at(scounts, w, k);
    const char *p = uniform ? fy_at(sbuf, (MPI_Aint)(k * scount), t)
                    : stypes ? (const char *)sbuf + fy_dsp_at(sdispls, w, k) : fy_at(sbuf, fy_dsp_at(sdispls, w, k), t);
    TRY(fy_sched_send_tag(s, p, cnt, t, n.dst[k], stag(&n, k)));
  }
  return fy_sched_fence(s);
}
