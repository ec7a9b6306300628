/* The MPI collective calls: each builds a schedule (fy_coll_impl.h) and
 * runs it blocking, starts it (I*), or keeps it as a persistent request
 * (*_init). Argument checks beyond the bindings' are done here. */
#include "coll/fy_coll_impl.h"
#include "coll/fy_coll_shm.h"
#include "binding/fy_impl.h"
#include "core/fy_handle.h"
#include "core/fy_check.h"
#include <stdlib.h>

#define T(h) fy_type_get(h)
#define OP(h) fy_op_get(h)

/* The reduction op must exist and be defined for the datatype. */
static int op_ok(MPI_Op op, MPI_Datatype dt) {
  fy_op_t *o = fy_op_get(op);
  if (!o) return fy_err(MPI_ERR_OP, "op = %#x is not a valid operation", (unsigned)op);
  return fy_op_check(o, fy_type_get(dt));
}
/* ... where the data is significant: not for an empty vector, nor at a
 * process of an intercommunicator's root group other than the root. */
static int op_ok_n(MPI_Op op, MPI_Datatype dt, MPI_Count n, MPI_Comm comm, int root) {
  if (n == 0 || (fy_comm_get(comm)->is_inter && root == MPI_PROC_NULL)) {
    if (!fy_op_get(op)) return fy_err(MPI_ERR_OP, "op = %#x is not a valid operation", (unsigned)op);
    return MPI_SUCCESS;
  }
  return op_ok(op, dt);
}

/* Buffers that must differ unless MPI_IN_PLACE is used. */
static int no_alias(const void *sbuf, const void *rbuf, MPI_Count n) {
  if (n > 0 && sbuf == rbuf && sbuf != MPI_IN_PLACE && sbuf != MPI_BOTTOM)
    return fy_err(MPI_ERR_BUFFER, "sendbuf = recvbuf = %p: use MPI_IN_PLACE for an in-place operation", sbuf);
  return MPI_SUCCESS;
}

/* The send count and type the bindings leave to us: ignored with
 * MPI_IN_PLACE (and where the standard says they are insignificant). */
static int send_ok(const void *sbuf, MPI_Count n, MPI_Datatype t, int significant) {
  if (!significant || sbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  int e = fy_check_datatype(t, "sendtype");
  return e ? e : fy_check_count(n, "sendcount");
}
/* Scatter(v): the receive side, ignored with MPI_IN_PLACE at the root. */
static int recv_ok(const void *rbuf, MPI_Count n, MPI_Datatype t) {
  if (rbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  int e = fy_check_datatype(t, "recvtype");
  return e ? e : fy_check_count(n, "recvcount");
}
static int send_type_ok(const void *sbuf, MPI_Datatype t, int significant) {
  if (!significant || sbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  return fy_check_datatype(t, "sendtype");
}
static int is_root(MPI_Comm comm, int root) {
  fy_comm_t *c = fy_comm_get(comm);
  return c->is_inter ? root == MPI_ROOT : c->rank == root;
}
/* Gather: on an intercommunicator only the other group sends. */
static int gather_sends(MPI_Comm comm, int root) {
  return !fy_comm_get(comm)->is_inter || (root != MPI_ROOT && root != MPI_PROC_NULL);
}

static int intra_only(fy_comm_t *c, const char *what) {
  if (c->is_inter)
    return fy_err(MPI_ERR_COMM, "comm = %s is an intercommunicator: %s is defined on intracommunicators only",
                  c->name, what);
  return MPI_SUCCESS;
}
#define INTER(s) (fy_sched_comm(s)->is_inter)

static int build_bcast(fy_sched_t *s, void *a_);
static int build_reduce(fy_sched_t *s, void *a_);
static int build_allreduce(fy_sched_t *s, void *a_);
static int build_allgather(fy_sched_t *s, void *a_);
static int build_alltoall(fy_sched_t *s, void *a_);
static int shm_path(fy_comm_t *c, int (*build)(fy_sched_t *, void *), void *arg);
static int shm_allgather(fy_comm_t *c, void *arg, int alltoall);
static int build_gather(fy_sched_t *s, void *a_);
static int build_scatter(fy_sched_t *s, void *a_);
static int rooted_now(fy_comm_t *c, void *arg, int gather);
static int build_gatherv(fy_sched_t *s, void *a_);
static int build_scatterv(fy_sched_t *s, void *a_);
static int rooted_v_now(fy_comm_t *c, void *arg, int gather);

static int run(MPI_Comm comm, int check, int how, MPI_Request *req,
               int (*build)(fy_sched_t *, void *), void *arg) {
  if (check) return check;
  fy_comm_t *c = fy_comm_get(comm);
  if (how == FY_SCHED_BLOCKING) {
    int e = shm_path(c, build, arg);
    if (e != FY_COLL_SHM_DECLINED) return e;
  }
  fy_sched_t *s;
  int e = fy_sched_create(c, &s);
  if (e) return e;
  return fy_sched_finish(s, build(s, arg), how, req);
}

/* Each family: an argument struct, a builder adapter, and the six entry
 * points (blocking, _c, I, I_c, _init, _init_c). W is the width of the
 * count/displacement arrays of that variant. */
#define REQ_ARGS(...) (__VA_ARGS__, MPI_Request *request)
#define INIT_ARGS(...) (__VA_ARGS__, MPI_Info info, MPI_Request *request)

#define FAMILY(name, PI, PC, WI, WC, CHECK, FILL)                                        \
  static int build_##name(fy_sched_t *s, void *a_);                                       \
  int fy_mpi_##name PI {                                                                  \
    const int W = WI; (void)W; args_##name a; FILL;                                       \
    return run(comm, CHECK, FY_SCHED_BLOCKING, NULL, build_##name, &a);                   \
  }                                                                                       \
  int fy_mpi_##name##_c PC {                                                              \
    const int W = WC; (void)W; args_##name a; FILL;                                       \
    return run(comm, CHECK, FY_SCHED_BLOCKING, NULL, build_##name, &a);                   \
  }                                                                                       \
  int fy_mpi_i##name REQ_ARGS PI {                                                        \
    const int W = WI; (void)W; args_##name a; FILL;                                       \
    return run(comm, CHECK, FY_SCHED_NONBLOCKING, request, build_##name, &a);             \
  }                                                                                       \
  int fy_mpi_i##name##_c REQ_ARGS PC {                                                    \
    const int W = WC; (void)W; args_##name a; FILL;                                       \
    return run(comm, CHECK, FY_SCHED_NONBLOCKING, request, build_##name, &a);             \
  }                                                                                       \
  int fy_mpi_##name##_init INIT_ARGS PI {                                                 \
    const int W = WI; (void)W; (void)info; args_##name a; FILL;                           \
    return run(comm, CHECK, FY_SCHED_PERSISTENT, request, build_##name, &a);              \
  }                                                                                       \
  int fy_mpi_##name##_init_c INIT_ARGS PC {                                               \
    const int W = WC; (void)W; (void)info; args_##name a; FILL;                           \
    return run(comm, CHECK, FY_SCHED_PERSISTENT, request, build_##name, &a);              \
  }

#define ALL_W (W_CNT | W_DSP)

/* ---- bcast ---- */
typedef struct { void *buf; MPI_Count n; MPI_Datatype t; int root; } args_bcast;
FAMILY(bcast,
       (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),
       (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm), 0, ALL_W,
       MPI_SUCCESS, (a = (args_bcast){buffer, count, datatype, root}))
static int build_bcast(fy_sched_t *s, void *a_) {
  args_bcast *a = a_;
  if (INTER(s)) return fy_build_inter_bcast(s, a->buf, a->n, T(a->t), a->root);
  return fy_build_bcast(s, a->buf, a->n, T(a->t), a->root);
}

/* ---- reduce, allreduce, scan, exscan ---- */
typedef struct { const void *sb; void *rb; MPI_Count n; MPI_Datatype t; MPI_Op op; int root; } args_red;
typedef args_red args_reduce, args_allreduce, args_scan, args_exscan;

FAMILY(reduce,
       (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm),
       (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm),
       0, ALL_W,
       op_ok_n(op, datatype, count, comm, root) ? op_ok_n(op, datatype, count, comm, root)
           : (is_root(comm, root) ? no_alias(sendbuf, recvbuf, count) : MPI_SUCCESS),
       (a = (args_red){sendbuf, recvbuf, count, datatype, op, root}))
static int build_reduce(fy_sched_t *s, void *a_) {
  args_red *a = a_;
  if (INTER(s)) return fy_build_inter_reduce(s, a->sb, a->rb, a->n, T(a->t), OP(a->op), a->root);
  return fy_build_reduce(s, a->sb, a->rb, a->n, T(a->t), OP(a->op), a->root);
}

FAMILY(allreduce,
       (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
       (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
       0, ALL_W, op_ok_n(op, datatype, count, comm, 0) ? op_ok_n(op, datatype, count, comm, 0) : no_alias(sendbuf, recvbuf, count),
       (a = (args_red){sendbuf, recvbuf, count, datatype, op, 0}))
static int build_allreduce(fy_sched_t *s, void *a_) {
  args_red *a = a_;
  if (INTER(s)) return fy_build_inter_allreduce(s, a->sb, a->rb, a->n, T(a->t), OP(a->op));
  return fy_build_allreduce(s, a->sb, a->rb, a->n, T(a->t), OP(a->op));
}

/* Blocking Bcast/Reduce/Allreduce of small messages on one node. */
static int shm_path(fy_comm_t *c, int (*build)(fy_sched_t *, void *), void *arg) {
  if (build == build_bcast) {
    args_bcast *a = arg;
    return fy_coll_shm_bcast(c, a->buf, a->n, T(a->t), a->root);
  }
  if (build == build_reduce) {
    args_red *a = arg;
    return fy_coll_shm_reduce(c, a->sb, a->rb, a->n, T(a->t), OP(a->op), a->root);
  }
  if (build == build_allreduce) {
    args_red *a = arg;
    return fy_coll_shm_allreduce(c, a->sb, a->rb, a->n, T(a->t), OP(a->op));
  }
  if (build == build_gather) return rooted_now(c, arg, 1);
  if (build == build_scatter) return rooted_now(c, arg, 0);
  if (build == build_gatherv || build == build_scatterv) return rooted_v_now(c, arg, build == build_gatherv);
  if (build == build_allgather) return shm_allgather(c, arg, 0);
  if (build == build_alltoall) return shm_allgather(c, arg, 1);
  return FY_COLL_SHM_DECLINED;
}

FAMILY(scan,
       (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
       (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
       0, ALL_W, op_ok_n(op, datatype, count, comm, 0) ? op_ok_n(op, datatype, count, comm, 0) : no_alias(sendbuf, recvbuf, count),
       (a = (args_red){sendbuf, recvbuf, count, datatype, op, 0}))
static int build_scan(fy_sched_t *s, void *a_) {
  args_red *a = a_;
  TRY(intra_only(fy_sched_comm(s), "MPI_Scan"));
  return fy_build_scan(s, a->sb, a->rb, a->n, T(a->t), OP(a->op), 0);
}

FAMILY(exscan,
       (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
       (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
       0, ALL_W, op_ok_n(op, datatype, count, comm, 0) ? op_ok_n(op, datatype, count, comm, 0) : no_alias(sendbuf, recvbuf, count),
       (a = (args_red){sendbuf, recvbuf, count, datatype, op, 0}))
static int build_exscan(fy_sched_t *s, void *a_) {
  args_red *a = a_;
  TRY(intra_only(fy_sched_comm(s), "MPI_Exscan"));
  return fy_build_scan(s, a->sb, a->rb, a->n, T(a->t), OP(a->op), 1);
}

/* ---- reduce_scatter(_block) ---- */
typedef struct { const void *sb; void *rb; const void *cnts; MPI_Count n; MPI_Datatype t; MPI_Op op; int w; } args_rs;
typedef args_rs args_reduce_scatter, args_reduce_scatter_block;
FAMILY(reduce_scatter,
       (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
       (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
       0, ALL_W, op_ok(op, datatype) ? op_ok(op, datatype) : no_alias(sendbuf, recvbuf, 1),
       (a = (args_rs){sendbuf, recvbuf, recvcounts, 0, datatype, op, W}))
static int build_reduce_scatter(fy_sched_t *s, void *a_) {
  args_rs *a = a_;
  if (INTER(s)) return fy_build_inter_reduce_scatter(s, a->sb, a->rb, a->cnts, a->w, T(a->t), OP(a->op));
  return fy_build_reduce_scatter(s, a->sb, a->rb, a->cnts, a->w, T(a->t), OP(a->op));
}
FAMILY(reduce_scatter_block,
       (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
       (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
       0, ALL_W, op_ok_n(op, datatype, recvcount, comm, 0) ? op_ok_n(op, datatype, recvcount, comm, 0) : no_alias(sendbuf, recvbuf, recvcount),
       (a = (args_rs){sendbuf, recvbuf, NULL, recvcount, datatype, op, W}))
static int build_reduce_scatter_block(fy_sched_t *s, void *a_) {
  args_rs *a = a_;
  if (INTER(s)) {
    int n = fy_sched_comm(s)->size;
    MPI_Count *c = malloc((size_t)n * sizeof *c);
    if (!c) return fy_err(MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n; i++) c[i] = a->n;
    int e = fy_build_inter_reduce_scatter(s, a->sb, a->rb, c, W_CNT, T(a->t), OP(a->op));
    free(c);
    return e;
  }
  return fy_build_reduce_scatter_block(s, a->sb, a->rb, a->n, T(a->t), OP(a->op));
}

/* ---- gather / scatter / allgather / alltoall (fixed counts) ---- */
typedef struct {
  const void *sb; MPI_Count sn; MPI_Datatype st;
  void *rb; MPI_Count rn; MPI_Datatype rt;
  const void *scnts, *sdsp, *rcnts, *rdsp;
  const MPI_Datatype *sts, *rts;
  int root, w;
} args_x;
typedef args_x args_gather, args_scatter, args_allgather, args_alltoall, args_gatherv,
    args_scatterv, args_allgatherv, args_alltoallv, args_alltoallw, args_neighbor_allgather,
    args_neighbor_allgatherv, args_neighbor_alltoall, args_neighbor_alltoallv, args_neighbor_alltoallw;

/* The data a process sends and the block of the receive buffer meant for
 * itself must not overlap (MPI_IN_PLACE is the standard's way to do that):
 * a rooted call would otherwise wait at the root for messages the other
 * processes, told of the error, never send. Checked where an overlap is
 * certain, as MPICH does: both start at the same byte. Blocks that only
 * interleave, and empty ones, are left alone. Offsets are in bytes. */
static int same_start(const void *sb, MPI_Aint soff, MPI_Count sn, MPI_Datatype sh,
                      const void *rb, MPI_Aint roff, MPI_Count rn, MPI_Datatype rh) {
  if (sb == MPI_IN_PLACE || rb == MPI_IN_PLACE) return MPI_SUCCESS;
  fy_datatype_t *st = T(sh), *rt = T(rh);
  if (!st || !rt || !fy_has_data(sn, st) || !fy_has_data(rn, rt)) return MPI_SUCCESS;
  const char *s0 = (const char *)sb + soff + st->true_lb, *r0 = (const char *)rb + roff + rt->true_lb;
  if (s0 != r0) return MPI_SUCCESS;
  return fy_err(MPI_ERR_BUFFER, "the data sent and this process's own block of the receive buffer both start "
                "at %p: use MPI_IN_PLACE for an in-place operation", (const void *)s0);
}
static MPI_Aint ext(MPI_Datatype h) {
  fy_datatype_t *t = T(h);
  return t ? t->extent : 0;
}
/* (the rooted calls first: own_block tells them by kind <= OWN_SCATTERV) */
enum { OWN_GATHER, OWN_GATHERV, OWN_SCATTER, OWN_SCATTERV, OWN_ALLGATHER, OWN_ALLGATHERV, OWN_ALLTOALLV,
       OWN_ALLTOALLW };
/* The count, displacement and (tn: named) type arrays a process reads: a
 * NULL one crashed the schedule builder. */
static int arrays_ok(const void *cnts, const char *cn, const void *dsps, const char *dn, const void *types,
                     const char *tn) {
  int e = fy_check_ptr(cnts, cn);
  if (!e) e = fy_check_ptr(dsps, dn);
  if (!e && tn) e = fy_check_ptr(types, tn);
  return e;
}
/* The own-block check of each call (and its arrays), after its other
 * argument checks (e). Gather(v) and Scatter(v) check at the root only;
 * intercommunicators have no own block but for Alltoallv/w. */
static int own_block(int e, MPI_Comm comm, const args_x *a, int kind) {
  if (e) return e;
  fy_comm_t *c = fy_comm_get(comm);
  int me = c->rank, w = a->w;
  if (kind <= OWN_SCATTERV && !is_root(comm, a->root)) return MPI_SUCCESS;
  switch (kind) {
  case OWN_GATHER: case OWN_ALLGATHER:
    if (c->is_inter) return MPI_SUCCESS;
    return same_start(a->sb, 0, a->sn, a->st, a->rb, me * a->rn * ext(a->rt), a->rn, a->rt);
  case OWN_GATHERV: case OWN_ALLGATHERV:
    if ((e = arrays_ok(a->rcnts, "recvcounts", a->rdsp, "displs", NULL, NULL)) || c->is_inter) return e;
    return same_start(a->sb, 0, a->sn, a->st, a->rb, fy_dsp_at(a->rdsp, w, me) * ext(a->rt),
                      fy_cnt_at(a->rcnts, w, me), a->rt);
  case OWN_SCATTER:
    if (c->is_inter) return MPI_SUCCESS;
    return same_start(a->sb, me * a->sn * ext(a->st), a->sn, a->st, a->rb, 0, a->rn, a->rt);
  case OWN_SCATTERV:
    if ((e = arrays_ok(a->scnts, "sendcounts", a->sdsp, "displs", NULL, NULL)) || c->is_inter) return e;
    return same_start(a->sb, fy_dsp_at(a->sdsp, w, me) * ext(a->st), fy_cnt_at(a->scnts, w, me), a->st,
                      a->rb, 0, a->rn, a->rt);
  default: { /* alltoallv, alltoallw: block i sent and block i received */
    int ww = kind == OWN_ALLTOALLW;
    if ((e = arrays_ok(a->rcnts, "recvcounts", a->rdsp, "rdispls", a->rts, ww ? "recvtypes" : NULL))) return e;
    if (a->sb == MPI_IN_PLACE) return MPI_SUCCESS; /* (the send arrays are not read) */
    if ((e = arrays_ok(a->scnts, "sendcounts", a->sdsp, "sdispls", a->sts, ww ? "sendtypes" : NULL))) return e;
    for (int i = 0; i < (c->is_inter ? c->remote_size : c->size); i++) {
      MPI_Datatype st = ww ? a->sts[i] : a->st, rt = ww ? a->rts[i] : a->rt;
      MPI_Aint so = fy_dsp_at(a->sdsp, w, i) * (ww ? 1 : ext(st)), ro = fy_dsp_at(a->rdsp, w, i) * (ww ? 1 : ext(rt));
      if ((e = same_start(a->sb, so, fy_cnt_at(a->scnts, w, i), st, a->rb, ro, fy_cnt_at(a->rcnts, w, i), rt)))
        return e;
    }
    return MPI_SUCCESS;
  }
  }
}

#define XFIX(root_) (a = (args_x){.sb = sendbuf, .sn = sendcount, .st = sendtype, .rb = recvbuf, \
                                  .rn = recvcount, .rt = recvtype, .root = (root_), .w = W})

FAMILY(gather,
       (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
       (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
       0, ALL_W, own_block(send_ok(sendbuf, sendcount, sendtype, gather_sends(comm, root)), comm, &a, OWN_GATHER), XFIX(root))
static int build_gather(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  if (INTER(s)) return fy_build_inter_gatherv(s, a->sb, a->sn, T(a->st), a->rb, NULL, NULL, 0, T(a->rt), a->root, 1, a->rn);
  return fy_build_gather(s, a->sb, a->sn, T(a->st), a->rb, a->rn, T(a->rt), a->root);
}

FAMILY(scatter,
       (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
       (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
       0, ALL_W,
       own_block(send_ok(sendbuf, sendcount, sendtype, is_root(comm, root)) ? send_ok(sendbuf, sendcount, sendtype, is_root(comm, root)) : recv_ok(recvbuf, recvcount, recvtype), comm, &a, OWN_SCATTER),
       XFIX(root))
/* Blocking Gather and Scatter: without a schedule (rooted.c). */
static int rooted_now(fy_comm_t *c, void *arg, int gather) {
  args_x *a = arg;
  return (gather ? fy_coll_gather_now : fy_coll_scatter_now)(c, a->sb, a->sn, T(a->st), a->rb, a->rn,
                                                           T(a->rt), a->root);
}
static int build_scatter(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  if (INTER(s)) return fy_build_inter_scatterv(s, a->sb, NULL, NULL, 0, T(a->st), a->rb, a->rn, T(a->rt), a->root, 1, a->sn);
  return fy_build_scatter(s, a->sb, a->sn, T(a->st), a->rb, a->rn, T(a->rt), a->root);
}

FAMILY(allgather,
       (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
       (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),
       0, ALL_W, own_block(send_ok(sendbuf, sendcount, sendtype, 1), comm, &a, OWN_ALLGATHER), XFIX(0))
static int build_allgather(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  if (INTER(s)) return fy_build_inter_allgatherv(s, a->sb, a->sn, T(a->st), a->rb, NULL, NULL, 0, T(a->rt), 1, a->rn);
  return fy_build_allgather(s, a->sb, a->sn, T(a->st), a->rb, a->rn, T(a->rt));
}
static int shm_allgather(fy_comm_t *c, void *arg, int alltoall) {
  args_x *a = arg;
  fy_datatype_t *st = a->sb == MPI_IN_PLACE ? NULL : T(a->st);
  if (alltoall) return fy_coll_shm_alltoall(c, a->sb, a->sn, st, a->rb, a->rn, T(a->rt));
  return fy_coll_shm_allgather(c, a->sb, a->sn, st, a->rb, a->rn, T(a->rt));
}

FAMILY(alltoall,
       (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
       (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),
       0, ALL_W, send_ok(sendbuf, sendcount, sendtype, 1) ? send_ok(sendbuf, sendcount, sendtype, 1) : no_alias(sendbuf, recvbuf, sendcount && recvcount), XFIX(0))
static int build_alltoall(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  if (INTER(s)) return fy_build_inter_alltoallw(s, a->sb, NULL, NULL, T(a->st), NULL, a->rb, NULL, NULL, T(a->rt), NULL, 0, 1, a->sn, a->rn);
  return fy_build_alltoall(s, a->sb, a->sn, T(a->st), a->rb, a->rn, T(a->rt));
}

/* ---- vector variants ---- */
FAMILY(gatherv,
       (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm),
       (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm),
       0, ALL_W, own_block(send_ok(sendbuf, sendcount, sendtype, gather_sends(comm, root)), comm, &a, OWN_GATHERV),
       (a = (args_x){.sb = sendbuf, .sn = sendcount, .st = sendtype, .rb = recvbuf, .rcnts = recvcounts,
                     .rdsp = displs, .rt = recvtype, .root = root, .w = W}))
static int build_gatherv(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  if (INTER(s)) return fy_build_inter_gatherv(s, a->sb, a->sn, T(a->st), a->rb, a->rcnts, a->rdsp, a->w, T(a->rt), a->root, 0, 0);
  return fy_build_gatherv(s, a->sb, a->sn, T(a->st), a->rb, a->rcnts, a->rdsp, a->w, T(a->rt), a->root);
}

/* Blocking Gatherv and Scatterv: without a schedule (rooted.c). */
static int rooted_v_now(fy_comm_t *c, void *arg, int gather) {
  args_x *a = arg;
  if (gather) return fy_coll_gatherv_now(c, a->sb, a->sn, T(a->st), a->rb, a->rcnts, a->rdsp, a->w, T(a->rt), a->root);
  return fy_coll_scatterv_now(c, a->sb, a->scnts, a->sdsp, a->w, T(a->st), a->rb, a->rn, T(a->rt), a->root);
}

FAMILY(scatterv,
       (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
       (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
       0, ALL_W,
       own_block(send_type_ok(sendbuf, sendtype, is_root(comm, root)) ? send_type_ok(sendbuf, sendtype, is_root(comm, root)) : recv_ok(recvbuf, recvcount, recvtype), comm, &a, OWN_SCATTERV),
       (a = (args_x){.sb = sendbuf, .scnts = sendcounts, .sdsp = displs, .st = sendtype, .rb = recvbuf,
                     .rn = recvcount, .rt = recvtype, .root = root, .w = W}))
static int build_scatterv(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  if (INTER(s)) return fy_build_inter_scatterv(s, a->sb, a->scnts, a->sdsp, a->w, T(a->st), a->rb, a->rn, T(a->rt), a->root, 0, 0);
  return fy_build_scatterv(s, a->sb, a->scnts, a->sdsp, a->w, T(a->st), a->rb, a->rn, T(a->rt), a->root);
}

FAMILY(allgatherv,
       (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
       (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm),
       0, ALL_W, own_block(send_ok(sendbuf, sendcount, sendtype, 1), comm, &a, OWN_ALLGATHERV),
       (a = (args_x){.sb = sendbuf, .sn = sendcount, .st = sendtype, .rb = recvbuf, .rcnts = recvcounts,
                     .rdsp = displs, .rt = recvtype, .w = W}))
static int build_allgatherv(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  if (INTER(s)) return fy_build_inter_allgatherv(s, a->sb, a->sn, T(a->st), a->rb, a->rcnts, a->rdsp, a->w, T(a->rt), 0, 0);
  return fy_build_allgatherv(s, a->sb, a->sn, T(a->st), a->rb, a->rcnts, a->rdsp, a->w, T(a->rt));
}

FAMILY(alltoallv,
       (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
       (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
       0, ALL_W, own_block(send_type_ok(sendbuf, sendtype, 1), comm, &a, OWN_ALLTOALLV),
       (a = (args_x){.sb = sendbuf, .scnts = sendcounts, .sdsp = sdispls, .st = sendtype, .rb = recvbuf,
                     .rcnts = recvcounts, .rdsp = rdispls, .rt = recvtype, .w = W}))
static int build_alltoallv(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  if (INTER(s)) return fy_build_inter_alltoallw(s, a->sb, a->scnts, a->sdsp, T(a->st), NULL, a->rb, a->rcnts, a->rdsp, T(a->rt), NULL, a->w, 0, 0, 0);
  return fy_build_alltoallv(s, a->sb, a->scnts, a->sdsp, T(a->st), a->rb, a->rcnts, a->rdsp, T(a->rt), a->w);
}

FAMILY(alltoallw,
       (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),
       (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),
       0, ALL_W, own_block(MPI_SUCCESS, comm, &a, OWN_ALLTOALLW),
       (a = (args_x){.sb = sendbuf, .scnts = sendcounts, .sdsp = sdispls, .sts = sendtypes, .rb = recvbuf,
                     .rcnts = recvcounts, .rdsp = rdispls, .rts = recvtypes, .w = W}))
static int build_alltoallw(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  if (INTER(s)) return fy_build_inter_alltoallw(s, a->sb, a->scnts, a->sdsp, NULL, a->sts, a->rb, a->rcnts, a->rdsp, NULL, a->rts, a->w, 0, 0, 0);
  return fy_build_alltoallw(s, a->sb, a->scnts, a->sdsp, a->sts, a->rb, a->rcnts, a->rdsp, a->rts, a->w);
}

/* ---- neighbourhood collectives ---- */
FAMILY(neighbor_allgather,
       (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
       (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),
       0, ALL_W, send_ok(sendbuf, sendcount, sendtype, 1), XFIX(0))
static int build_neighbor_allgather(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  return fy_build_neighbor_allgatherv(s, a->sb, a->sn, T(a->st), a->rb, NULL, NULL, 0, T(a->rt), 1, a->rn);
}
FAMILY(neighbor_allgatherv,
       (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
       (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm),
       0, ALL_W, send_ok(sendbuf, sendcount, sendtype, 1),
       (a = (args_x){.sb = sendbuf, .sn = sendcount, .st = sendtype, .rb = recvbuf, .rcnts = recvcounts,
                     .rdsp = displs, .rt = recvtype, .w = W}))
static int build_neighbor_allgatherv(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  return fy_build_neighbor_allgatherv(s, a->sb, a->sn, T(a->st), a->rb, a->rcnts, a->rdsp, a->w, T(a->rt), 0, 0);
}
FAMILY(neighbor_alltoall,
       (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
       (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),
       0, ALL_W, send_ok(sendbuf, sendcount, sendtype, 1), XFIX(0))
static int build_neighbor_alltoall(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  return fy_build_neighbor_alltoallw(s, a->sb, NULL, NULL, T(a->st), NULL, a->rb, NULL, NULL, T(a->rt), NULL, 0, 1, a->sn, a->rn);
}
FAMILY(neighbor_alltoallv,
       (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
       (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
       0, ALL_W, send_type_ok(sendbuf, sendtype, 1),
       (a = (args_x){.sb = sendbuf, .scnts = sendcounts, .sdsp = sdispls, .st = sendtype, .rb = recvbuf,
                     .rcnts = recvcounts, .rdsp = rdispls, .rt = recvtype, .w = W}))
static int build_neighbor_alltoallv(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  return fy_build_neighbor_alltoallw(s, a->sb, a->scnts, a->sdsp, T(a->st), NULL, a->rb, a->rcnts, a->rdsp, T(a->rt), NULL, a->w, 0, 0, 0);
}
/* neighbor_alltoallw: MPI_Aint displacements in both forms */
FAMILY(neighbor_alltoallw,
       (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),
       (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),
       W_DSP, ALL_W, MPI_SUCCESS,
       (a = (args_x){.sb = sendbuf, .scnts = sendcounts, .sdsp = sdispls, .sts = sendtypes, .rb = recvbuf,
                     .rcnts = recvcounts, .rdsp = rdispls, .rts = recvtypes, .w = W}))
static int build_neighbor_alltoallw(fy_sched_t *s, void *a_) {
  args_x *a = a_;
  return fy_build_neighbor_alltoallw(s, a->sb, a->scnts, a->sdsp, NULL, a->sts, a->rb, a->rcnts, a->rdsp, NULL, a->rts, a->w, 0, 0, 0);
}

/* ---- barrier (the blocking one is barrier.c's direct version) ---- */
static int build_barrier(fy_sched_t *s, void *a_) {
  (void)a_;
  if (INTER(s)) return fy_build_inter_barrier(s);
  return fy_build_barrier(s);
}
int fy_mpi_ibarrier(MPI_Comm comm, MPI_Request *request) {
  return run(comm, MPI_SUCCESS, FY_SCHED_NONBLOCKING, request, build_barrier, NULL);
}
int fy_mpi_barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  (void)info;
  return run(comm, MPI_SUCCESS, FY_SCHED_PERSISTENT, request, build_barrier, NULL);
}
