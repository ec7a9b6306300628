/* Intercommunicator collectives (MPI 4.1 6.2.2) as schedules: steps on the
 * intercommunicator itself (ranks name the remote group) combined with
 * intracommunicator algorithms on its local_comm. Rooted operations: the
 * root passes MPI_ROOT, the rest of its group MPI_PROC_NULL, the other
 * group the root's rank. Reductions deliver group A's result to group B
 * and vice versa. */
#include "coll/fy_coll_impl.h"
#include <stdlib.h>

#define LOCAL(s, c, body)                         \
  do {                                            \
    fy_sched_use_comm(s, (c)->local_comm);        \
    int e_ = (body);                              \
    fy_sched_use_comm(s, c);                      \
    if (e_) return e_;                            \
    TRY(fy_sched_fence(s));                       \
  } while (0)

/* The group whose leader has the lower world rank goes first where the
 * two directions must be ordered. */
static int low_group(fy_comm_t *c) {
  return fy_comm_world_rank(c->local_comm, 0) < fy_comm_world_rank(c, 0);
}

int fy_build_inter_barrier(fy_sched_t *s) {
  fy_comm_t *c = fy_sched_comm(s);
  fy_datatype_t *byte = fy_type_get(MPI_BYTE);
  LOCAL(s, c, fy_build_barrier(s));
  if (c->rank == 0) {
    TRY(fy_sched_send(s, NULL, 0, byte, 0));
    TRY(fy_sched_recv(s, NULL, 0, byte, 0));
    TRY(fy_sched_fence(s));
  }
  LOCAL(s, c, fy_build_barrier(s));
  return MPI_SUCCESS;
}

int fy_build_inter_bcast(fy_sched_t *s, void *buf, MPI_Count count, fy_datatype_t *t, int root) {
  fy_comm_t *c = fy_sched_comm(s);
  TRY(fy_sched_fence(s));
  if (root == MPI_PROC_NULL || count == 0) return MPI_SUCCESS;
  if (root == MPI_ROOT) {
    TRY(fy_sched_send(s, buf, count, t, 0));
    return fy_sched_fence(s);
  }
  if (c->rank == 0) {
    TRY(fy_sched_recv(s, buf, count, t, root));
    TRY(fy_sched_fence(s));
  }
  LOCAL(s, c, fy_build_bcast(s, buf, count, t, 0));
  return MPI_SUCCESS;
}

/* Group B's data reduced into `into` at the root (group A). */
int fy_build_inter_reduce(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                          fy_datatype_t *t, fy_op_t *op, int root) {
  fy_comm_t *c = fy_sched_comm(s);
  TRY(fy_sched_fence(s));
  if (root == MPI_PROC_NULL || count == 0) return MPI_SUCCESS;
  if (root == MPI_ROOT) {
    TRY(fy_sched_recv(s, rbuf, count, t, 0));
    return fy_sched_fence(s);
  }
  void *tmp = fy_sched_tmp(s, count, t);
  if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  LOCAL(s, c, fy_build_reduce(s, sbuf, tmp, count, t, op, 0));
  if (c->rank == 0) {
    TRY(fy_sched_send(s, tmp, count, t, root));
    TRY(fy_sched_fence(s));
  }
  return MPI_SUCCESS;
}

int fy_build_inter_allreduce(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                             fy_datatype_t *t, fy_op_t *op) {
  fy_comm_t *c = fy_sched_comm(s);
  TRY(fy_sched_fence(s));
  if (count == 0) return MPI_SUCCESS;
  void *tmp = fy_sched_tmp(s, count, t);
  if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  LOCAL(s, c, fy_build_reduce(s, sbuf, tmp, count, t, op, 0));
  if (c->rank == 0) {
    TRY(fy_sched_send(s, tmp, count, t, 0));
    TRY(fy_sched_recv(s, rbuf, count, t, 0));
    TRY(fy_sched_fence(s));
  }
  LOCAL(s, c, fy_build_bcast(s, rbuf, count, t, 0));
  return MPI_SUCCESS;
}

int fy_build_inter_gatherv(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                           void *rbuf, const void *rcounts, const void *displs, int w,
                           fy_datatype_t *rt, int root, int uniform, MPI_Count rcount) {
  fy_comm_t *c = fy_sched_comm(s);
  TRY(fy_sched_fence(s));
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root != MPI_ROOT) {
    if (fy_has_data(scount, st)) TRY(fy_sched_send(s, sbuf, scount, st, root));
    return fy_sched_fence(s);
  }
  for (int i = 0; i < c->remote_size; i++) {
    MPI_Count n = uniform ? rcount : fy_cnt_at(rcounts, w, i);
    MPI_Aint d = uniform ? (MPI_Aint)(i * rcount) : fy_dsp_at(displs, w, i);
    if (fy_has_data(n, rt)) TRY(fy_sched_recv(s, fy_at(rbuf, d, rt), n, rt, i));
  }
  return fy_sched_fence(s);
}

int fy_build_inter_scatterv(fy_sched_t *s, const void *sbuf, const void *scounts, const void *displs,
                            int w, fy_datatype_t *st, void *rbuf, MPI_Count rcount,
                            fy_datatype_t *rt, int root, int uniform, MPI_Count scount) {
  fy_comm_t *c = fy_sched_comm(s);
  TRY(fy_sched_fence(s));
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root != MPI_ROOT) {
    if (fy_has_data(rcount, rt)) TRY(fy_sched_recv(s, rbuf, rcount, rt, root));
    return fy_sched_fence(s);
  }
  for (int i = 0; i < c->remote_size; i++) {
    MPI_Count n = uniform ? scount : fy_cnt_at(scounts, w, i);
    MPI_Aint d = uniform ? (MPI_Aint)(i * scount) : fy_dsp_at(displs, w, i);
    if (fy_has_data(n, st)) TRY(fy_sched_send(s, fy_at(sbuf, d, st), n, st, i));
  }
  return fy_sched_fence(s);
}

/* Allgather(v): every process sends its block to every remote process. */
int fy_build_inter_allgatherv(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                              void *rbuf, const void *rcounts, const void *displs, int w,
                              fy_datatype_t *rt, int uniform, MPI_Count rcount) {
  fy_comm_t *c = fy_sched_comm(s);
  TRY(fy_sched_fence(s));
  for (int k = 0; k < c->remote_size; k++) {
    MPI_Count n = uniform ? rcount : fy_cnt_at(rcounts, w, k);
    MPI_Aint d = uniform ? (MPI_Aint)(k * rcount) : fy_dsp_at(displs, w, k);
    if (fy_has_data(n, rt)) TRY(fy_sched_recv(s, fy_at(rbuf, d, rt), n, rt, k));
  }
  for (int k = 0; k < c->remote_size; k++)
    if (fy_has_data(scount, st)) TRY(fy_sched_send(s, sbuf, scount, st, k));
  return fy_sched_fence(s);
}

/* Alltoall(v,w): block k goes to remote rank k. Types may be per peer
 * (stypes/rtypes non-NULL, displacements then in bytes). */
int fy_build_inter_alltoallw(fy_sched_t *s, const void *sbuf, const void *scounts,
                             const void *sdispls, fy_datatype_t *st, const MPI_Datatype *stypes,
                             void *rbuf, const void *rcounts, const void *rdispls,
                             fy_datatype_t *rt, const MPI_Datatype *rtypes, int w,
                             int uniform, MPI_Count scount, MPI_Count rcount) {
  fy_comm_t *c = fy_sched_comm(s);
  TRY(fy_sched_fence(s));
  for (int k = 0; k < c->remote_size; k++) {
    fy_datatype_t *t = rtypes ? fy_type_get(rtypes[k]) : rt;
    if (!t) return fy_err(MPI_ERR_TYPE, "recvtypes[%d] is not a datatype", k);
    MPI_Count n = uniform ? rcount : fy_cnt_at(rcounts, w, k);
    char *p = uniform ? fy_at(rbuf, (MPI_Aint)(k * rcount), t)
                      : rtypes ? (char *)rbuf + fy_dsp_at(rdispls, w, k) : fy_at(rbuf, fy_dsp_at(rdispls, w, k), t);
    if (fy_has_data(n, t)) TRY(fy_sched_recv(s, p, n, t, k));
  }
  for (int k = 0; k < c->remote_size; k++) {
    fy_datatype_t *t = stypes ? fy_type_get(stypes[k]) : st;
    if (!t) return fy_err(MPI_ERR_TYPE, "sendtypes[%d] is not a datatype", k);
    MPI_Count n = uniform ? scount : fy_cnt_at(scounts, w, k);
    const char *p = uniform ? fy_at(sbuf, (MPI_Aint)(k * scount), t)
                            : stypes ? (const char *)sbuf + fy_dsp_at(sdispls, w, k) : fy_at(sbuf, fy_dsp_at(sdispls, w, k), t);
    if (fy_has_data(n, t)) TRY(fy_sched_send(s, p, n, t, k));
  }
  return fy_sched_fence(s);
}

/* Reduce_scatter: group B's vectors reduced at A's leader (and the other
 * way, low group first), then scattered within each group. */
int fy_build_inter_reduce_scatter(fy_sched_t *s, const void *sbuf, void *rbuf, const void *rcounts,
                                  int w, fy_datatype_t *t, fy_op_t *op) {
  fy_comm_t *c = fy_sched_comm(s);
  int n = c->size;
  MPI_Count total = 0;
  MPI_Count *dsp = malloc((size_t)n * sizeof *dsp);
  if (!dsp) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  for (int i = 0; i < n; i++) {
    dsp[i] = total;
    total += fy_cnt_at(rcounts, w, i);
  }
  int err = MPI_SUCCESS;
  void *tmp = total ? fy_sched_tmp(s, total, t) : NULL;
  if (total && !tmp) err = fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  int me_root = c->rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
  if (!err && low_group(c)) {
    err = fy_build_inter_reduce(s, sbuf, tmp, total, t, op, me_root);
    if (!err) err = fy_build_inter_reduce(s, sbuf, NULL, total, t, op, 0);
  } else if (!err) {
    err = fy_build_inter_reduce(s, sbuf, NULL, total, t, op, 0);
    if (!err) err = fy_build_inter_reduce(s, sbuf, tmp, total, t, op, me_root);
  }
  if (!err) err = fy_sched_fence(s);
  if (!err && total) {
    /* scatter within the group from its leader */
    fy_sched_use_comm(s, c->local_comm);
    MPI_Aint *d2 = malloc((size_t)n * sizeof *d2);
    if (!d2) err = fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
    for (int i = 0; !err && i < n; i++) d2[i] = (MPI_Aint)dsp[i];
    if (!err) err = fy_build_scatterv(s, tmp, rcounts, d2, (w & W_CNT) | W_DSP, t, rbuf,
                                      fy_cnt_at(rcounts, w, c->rank), t, 0);
    free(d2);
    fy_sched_use_comm(s, c);
    if (!err) err = fy_sched_fence(s);
  }
  free(dsp);
  return err;
}
