/* Internal interface of the collectives layer: the schedule builders, one
 * per collective and algorithm family, shared by the blocking,
 * nonblocking and persistent entry points (api.c).
 *
 * Contract
 * - A builder appends the steps of one collective to schedule s (it may
 *   be preceded or followed by other builders: each starts with a fence).
 * - Count and displacement arrays come as `const void *` with a width
 *   flag: W_CNT set means MPI_Count counts (else int), W_DSP set means
 *   MPI_Aint displacements (else int); builders read them while building
 *   only, so the caller's arrays need not outlive the call.
 * - Arguments are checked by the entry points before a builder runs. */
#ifndef FY_COLL_IMPL_H
#define FY_COLL_IMPL_H
#include "coll/sched/fy_sched.h"
#include "coll/fy_coll.h"
#include "core/fy_error.h"
#include "runtime/fy_config.h"

#define W_CNT 1
#define W_DSP 2

static inline MPI_Count fy_cnt_at(const void *a, int w, int i) {
  return (w & W_CNT) ? ((const MPI_Count *)a)[i] : (MPI_Count)((const int *)a)[i];
}
static inline MPI_Aint fy_dsp_at(const void *a, int w, int i) {
  return (w & W_DSP) ? ((const MPI_Aint *)a)[i] : (MPI_Aint)((const int *)a)[i];
}
/* Address of item i of a buffer of type t. */
static inline char *fy_at(const void *buf, MPI_Aint i, const fy_datatype_t *t) {
  return (char *)buf + i * t->extent;
}

/* The root's blocks of a Gather or Scatter: n items each at i*n, or (v
 * forms) counts and displacements from the caller's arrays, which only
 * the root may pass (width w as above). */
typedef struct {
  int v;
  const void *cnts, *dsps;
  int w;
  MPI_Count n;
} fy_blocks_t;
static inline MPI_Count fy_blk_n(const fy_blocks_t *b, int i) { return b->v ? fy_cnt_at(b->cnts, b->w, i) : b->n; }
static inline MPI_Aint fy_blk_at(const fy_blocks_t *b, int i) {
  return b->v ? fy_dsp_at(b->dsps, b->w, i) : (MPI_Aint)(i * b->n);
}

/* Whether a block carries data, for the algorithms that skip empty ones.
 * Type signatures match in bytes, not in counts (1 of a zero-size type
 * meets 0 MPI_INT), so both sides must skip by size or neither sends. */
static inline int fy_has_data(MPI_Count n, const fy_datatype_t *t) {
  return n != 0 && t->size != 0;
}

#define TRY(x) do { int e_ = (x); if (e_) return e_; } while (0)

/* Algorithm chosen by a FERRY_COLL_* setting: the index in names (NULL
 * terminated) or 0 for "auto" and unknown values. */
int fy_coll_pick(const char *setting, const char *const *names);
/* The same, read once per call site (settings are fixed after MPI_Init). */
#define FY_COLL_PICK(setting, names)                      \
  ({                                                      \
    static int pick_ = -1;                                \
    if (pick_ < 0) pick_ = fy_coll_pick(setting, names);  \
    pick_;                                                \
  })

int fy_build_barrier(fy_sched_t *s);
int fy_build_bcast(fy_sched_t *s, void *buf, MPI_Count count, fy_datatype_t *t, int root);
int fy_build_reduce(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                    fy_datatype_t *t, fy_op_t *op, int root);
int fy_build_allreduce(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                       fy_datatype_t *t, fy_op_t *op);
int fy_build_gather(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                    void *rbuf, MPI_Count rcount, fy_datatype_t *rt, int root);
int fy_build_gatherv(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                     void *rbuf, const void *rcounts, const void *displs, int w,
                     fy_datatype_t *rt, int root);
/* Whether Gather and Scatter of blocks of `bytes` bytes (every rank finds
 * the same) take the binomial tree on c (FERRY_COLL_GATHER). */
int fy_coll_rooted_binomial(fy_comm_t *c, MPI_Count bytes);
/* Blocking Gather and Scatter without a schedule (rooted.c): the linear
 * schedules' messages; FY_COLL_SHM_DECLINED on an intercommunicator,
 * above 64 processes or when the tree is chosen (every rank declines
 * alike). */
int fy_coll_gather_now(fy_comm_t *c, const void *sbuf, MPI_Count sn, fy_datatype_t *st, void *rbuf,
                       MPI_Count rn, fy_datatype_t *rt, int root);
int fy_coll_scatter_now(fy_comm_t *c, const void *sbuf, MPI_Count sn, fy_datatype_t *st, void *rbuf,
                        MPI_Count rn, fy_datatype_t *rt, int root);
/* The same for Gatherv and Scatterv (as messages only). */
int fy_coll_gatherv_now(fy_comm_t *c, const void *sbuf, MPI_Count sn, fy_datatype_t *st, void *rbuf,
                        const void *rcnts, const void *displs, int w, fy_datatype_t *rt, int root);
int fy_coll_scatterv_now(fy_comm_t *c, const void *sbuf, const void *scnts, const void *displs, int w,
                         fy_datatype_t *st, void *rbuf, MPI_Count rn, fy_datatype_t *rt, int root);
int fy_build_scatter(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                     void *rbuf, MPI_Count rcount, fy_datatype_t *rt, int root);
int fy_build_scatterv(fy_sched_t *s, const void *sbuf, const void *scounts, const void *displs,
                      int w, fy_datatype_t *st, void *rbuf, MPI_Count rcount,
                      fy_datatype_t *rt, int root);
int fy_build_allgather(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                       void *rbuf, MPI_Count rcount, fy_datatype_t *rt);
int fy_build_allgatherv(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                        void *rbuf, const void *rcounts, const void *displs, int w,
                        fy_datatype_t *rt);
int fy_build_alltoall(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                      void *rbuf, MPI_Count rcount, fy_datatype_t *rt);
int fy_build_alltoallv(fy_sched_t *s, const void *sbuf, const void *scounts, const void *sdispls,
                       fy_datatype_t *st, void *rbuf, const void *rcounts, const void *rdispls,
                       fy_datatype_t *rt, int w);
/* Alltoallw: displacements in bytes, one type per peer. */
int fy_build_alltoallw(fy_sched_t *s, const void *sbuf, const void *scounts, const void *sdispls,
                       const MPI_Datatype *stypes, void *rbuf, const void *rcounts,
                       const void *rdispls, const MPI_Datatype *rtypes, int w);
int fy_build_reduce_scatter(fy_sched_t *s, const void *sbuf, void *rbuf, const void *rcounts,
                            int w, fy_datatype_t *t, fy_op_t *op);
int fy_build_reduce_scatter_block(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count rcount,
                                  fy_datatype_t *t, fy_op_t *op);
int fy_build_scan(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                  fy_datatype_t *t, fy_op_t *op, int exclusive);

/* Intercommunicators (inter.c): uniform = fixed counts (rcount/scount)
 * instead of arrays. */
int fy_build_inter_barrier(fy_sched_t *s);
int fy_build_inter_bcast(fy_sched_t *s, void *buf, MPI_Count count, fy_datatype_t *t, int root);
int fy_build_inter_reduce(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                          fy_datatype_t *t, fy_op_t *op, int root);
int fy_build_inter_allreduce(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                             fy_datatype_t *t, fy_op_t *op);
int fy_build_inter_gatherv(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                           void *rbuf, const void *rcounts, const void *displs, int w,
                           fy_datatype_t *rt, int root, int uniform, MPI_Count rcount);
int fy_build_inter_scatterv(fy_sched_t *s, const void *sbuf, const void *scounts, const void *displs,
                            int w, fy_datatype_t *st, void *rbuf, MPI_Count rcount,
                            fy_datatype_t *rt, int root, int uniform, MPI_Count scount);
int fy_build_inter_allgatherv(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                              void *rbuf, const void *rcounts, const void *displs, int w,
                              fy_datatype_t *rt, int uniform, MPI_Count rcount);
int fy_build_inter_alltoallw(fy_sched_t *s, const void *sbuf, const void *scounts,
                             const void *sdispls, fy_datatype_t *st, const MPI_Datatype *stypes,
                             void *rbuf, const void *rcounts, const void *rdispls,
                             fy_datatype_t *rt, const MPI_Datatype *rtypes, int w,
                             int uniform, MPI_Count scount, MPI_Count rcount);
int fy_build_inter_reduce_scatter(fy_sched_t *s, const void *sbuf, void *rbuf, const void *rcounts,
                                  int w, fy_datatype_t *t, fy_op_t *op);

/* Neighbourhood collectives (neighbor.c). */
int fy_build_neighbor_allgatherv(fy_sched_t *s, const void *sbuf, MPI_Count scount,
                                 fy_datatype_t *st, void *rbuf, const void *rcounts,
                                 const void *displs, int w, fy_datatype_t *rt, int uniform,
                                 MPI_Count rcount);
int fy_build_neighbor_alltoallw(fy_sched_t *s, const void *sbuf, const void *scounts,
                                const void *sdispls, fy_datatype_t *st,
                                const MPI_Datatype *stypes, void *rbuf, const void *rcounts,
                                const void *rdispls, fy_datatype_t *rt,
                                const MPI_Datatype *rtypes, int w, int uniform, MPI_Count scount,
                                MPI_Count rcount);
#endif
