/* Alltoall(v,w) as schedules: linear (everything posted at once), pairwise
 * exchange (p-1 rounds, one partner each), Bruck (ceil(log2 p) rounds of
 * packed blocks, for small blocks). MPI_IN_PLACE: the send data is first
 * copied out of the receive buffer. */
#include "coll/fy_coll_impl.h"
#include <stdlib.h>
#include <string.h>

/* Blocks as (pointer, count, type) per peer. */
typedef struct { const char *p; MPI_Count n; fy_datatype_t *t; } blk_t;

static int post_linear(fy_sched_t *s, const blk_t *sb, const blk_t *rb) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  for (int k = 1; k < p; k++) {
    int from = (me - k + p) % p;
    if (fy_has_data(rb[from].n, rb[from].t)) TRY(fy_sched_recv(s, (void *)rb[from].p, rb[from].n, rb[from].t, from));
  }
  for (int k = 1; k < p; k++) {
    int to = (me + k) % p;
    if (fy_has_data(sb[to].n, sb[to].t)) TRY(fy_sched_send(s, sb[to].p, sb[to].n, sb[to].t, to));
  }
  /* the own block while the others copy theirs */
  TRY(fy_sched_copy_early(s, sb[me].p, sb[me].n, sb[me].t, (void *)rb[me].p, rb[me].n, rb[me].t));
  return fy_sched_fence(s);
}

static int post_pairwise(fy_sched_t *s, const blk_t *sb, const blk_t *rb) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  /* The own block is copied in the first exchange's stage while its
   * transfers move (an early copy: the partner reads its block alone).
   * A stage of its own ran in the starting call and held the first
   * exchange back; copied at the end of the first stage, it waited for
   * the transfers: paired against that, Ialltoall 64 KiB -n 2 0.60x,
   * 256 KiB-1 MiB 0.95-1.00x (-n 4 0.81-0.97x). */
  for (int k = 1; k < p; k++) {
    int to = (me + k) % p, from = (me - k + p) % p;
    if (fy_has_data(rb[from].n, rb[from].t)) TRY(fy_sched_recv(s, (void *)rb[from].p, rb[from].n, rb[from].t, from));
    if (fy_has_data(sb[to].n, sb[to].t)) TRY(fy_sched_send(s, sb[to].p, sb[to].n, sb[to].t, to));
    if (k == 1) TRY(fy_sched_copy_early(s, sb[me].p, sb[me].n, sb[me].t, (void *)rb[me].p, rb[me].n, rb[me].t));
    TRY(fy_sched_fence(s));
  }
  if (p == 1) TRY(fy_sched_copy(s, sb[me].p, sb[me].n, sb[me].t, (void *)rb[me].p, rb[me].n, rb[me].t));
  return MPI_SUCCESS;
}

/* Bruck: rotate so block i is for rank me+i, then in round k send every
 * block whose index has bit k to rank me+2^k (packed together), and
 * finally un-rotate into the receive buffer. */
static int post_bruck(fy_sched_t *s, const blk_t *sb, const blk_t *rb, size_t B) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  fy_datatype_t *byte = fy_type_get(MPI_BYTE);
  char *A = fy_sched_tmp_bytes(s, B * (size_t)p);
  char *sendt = fy_sched_tmp_bytes(s, B * (size_t)(p / 2 + 1));
  char *recvt = fy_sched_tmp_bytes(s, B * (size_t)(p / 2 + 1));
  if (!A || !sendt || !recvt) return fy_err(MPI_ERR_NO_MEM, "out of memory in an alltoall");
  for (int i = 0; i < p; i++) {
    int j = (me + i) % p;
    TRY(fy_sched_copy(s, sb[j].p, sb[j].n, sb[j].t, A + (size_t)i * B, (MPI_Count)B, byte));
  }
  for (int k = 1; k < p; k <<= 1) {
    int n = 0;
    for (int i = 0; i < p; i++)
      if (i & k) TRY(fy_sched_copy(s, A + (size_t)i * B, (MPI_Count)B, byte, sendt + (size_t)(n++) * B, (MPI_Count)B, byte));
    TRY(fy_sched_fence(s));
    TRY(fy_sched_send(s, sendt, (MPI_Count)B * n, byte, (me + k) % p));
    TRY(fy_sched_recv(s, recvt, (MPI_Count)B * n, byte, (me - k + p) % p));
    n = 0;
    for (int i = 0; i < p; i++)
      if (i & k) TRY(fy_sched_copy(s, recvt + (size_t)(n++) * B, (MPI_Count)B, byte, A + (size_t)i * B, (MPI_Count)B, byte));
  }
  /* Block i now came from rank me-i. */
  for (int i = 0; i < p; i++) {
    int j = (me - i + p) % p;
    TRY(fy_sched_copy(s, A + (size_t)i * B, (MPI_Count)B, byte, (void *)rb[j].p, rb[j].n, rb[j].t));
  }
  return fy_sched_fence(s);
}

/* In place: copy each receive block out to a temporary, send from there. */
static int copy_out(fy_sched_t *s, blk_t *sb, const blk_t *rb) {
  fy_comm_t *c = fy_sched_comm(s);
  for (int i = 0; i < c->size; i++) {
    sb[i] = rb[i];
    if (!rb[i].n) continue;
    void *tmp = fy_sched_tmp(s, rb[i].n, rb[i].t);
    if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory in an alltoall");
    TRY(fy_sched_copy(s, rb[i].p, rb[i].n, rb[i].t, tmp, rb[i].n, rb[i].t));
    sb[i].p = tmp;
  }
  return fy_sched_fence(s);
}

/* Fewest processes for which auto picks Bruck for small blocks. */
#define BRUCK_MIN_P 8

static int run(fy_sched_t *s, blk_t *sb, const blk_t *rb, int in_place, int uniform) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  TRY(fy_sched_fence(s));
  if (in_place) TRY(copy_out(s, sb, rb));
  static const char *const names[] = {"auto", "bruck", "pairwise", "linear", NULL};
  int a = FY_COLL_PICK(fy_config.coll_alltoall, names);
  size_t B = (size_t)(rb[me].n * rb[me].t->size);
  int bruck_ok = uniform && p > 1;
  if (a == 0) {
    /* Bruck's log2(p) rounds beat p-1 messages posted at once only for
     * many processes: at -n 4 linear took 0.55-0.83x Bruck's time for 8 B
     * to 512 B blocks (paired runs, docs/collectives.md). */
    if (bruck_ok && B <= (size_t)fy_config.coll_small && p >= BRUCK_MIN_P) a = 1;
    else a = B >= (size_t)fy_config.coll_large ? 2 : 3;
  }
  if (a == 1 && bruck_ok) return post_bruck(s, sb, rb, B);
  if (a == 2) return post_pairwise(s, sb, rb);
  return post_linear(s, sb, rb);
}

static int blocks(int p, blk_t **sb, blk_t **rb) {
  *sb = malloc(2 * (size_t)p * sizeof **sb);
  if (!*sb) return fy_err(MPI_ERR_NO_MEM, "out of memory in an alltoall");
  *rb = *sb + p;
  return MPI_SUCCESS;
}

int fy_build_alltoall(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                      void *rbuf, MPI_Count rcount, fy_datatype_t *rt) {
  int p = fy_sched_comm(s)->size;
  blk_t *sb = NULL, *rb = NULL;
  TRY(blocks(p, &sb, &rb));
  for (int i = 0; i < p; i++) {
    rb[i] = (blk_t){fy_at(rbuf, (MPI_Aint)(i * rcount), rt), rcount, rt};
    if (sbuf != MPI_IN_PLACE) sb[i] = (blk_t){fy_at(sbuf, (MPI_Aint)(i * scount), st), scount, st};
  }
  /* Bruck moves bytes: both sides must describe the same byte count. */
  int uniform = sbuf == MPI_IN_PLACE || scount * st->size == rcount * rt->size;
  int err = run(s, sb, rb, sbuf == MPI_IN_PLACE, uniform);
  free(sb);
  return err;
}

int fy_build_alltoallv(fy_sched_t *s, const void *sbuf, const void *scounts, const void *sdispls,
                       fy_datatype_t *st, void *rbuf, const void *rcounts, const void *rdispls,
                       fy_datatype_t *rt, int w) {
  int p = fy_sched_comm(s)->size;
  blk_t *sb = NULL, *rb = NULL;
  TRY(blocks(p, &sb, &rb));
  for (int i = 0; i < p; i++) {
    rb[i] = (blk_t){fy_at(rbuf, fy_dsp_at(rdispls, w, i), rt), fy_cnt_at(rcounts, w, i), rt};
    if (sbuf != MPI_IN_PLACE)
      sb[i] = (blk_t){fy_at(sbuf, fy_dsp_at(sdispls, w, i), st), fy_cnt_at(scounts, w, i), st};
  }
  int err = run(s, sb, rb, sbuf == MPI_IN_PLACE, 0);
  free(sb);
  return err;
}

int fy_build_alltoallw(fy_sched_t *s, const void *sbuf, const void *scounts, const void *sdispls,
                       const MPI_Datatype *stypes, void *rbuf, const void *rcounts,
                       const void *rdispls, const MPI_Datatype *rtypes, int w) {
  int p = fy_sched_comm(s)->size;
  blk_t *sb = NULL, *rb = NULL;
  TRY(blocks(p, &sb, &rb));
  int err = MPI_SUCCESS;
  for (int i = 0; i < p; i++) {
    fy_datatype_t *rt = fy_type_get(rtypes[i]);
    if (!rt) {
      err = fy_err(MPI_ERR_TYPE, "recvtypes[%d] = %#x is not a datatype", i, (unsigned)rtypes[i]);
      break;
    }
    rb[i] = (blk_t){(char *)rbuf + fy_dsp_at(rdispls, w, i), fy_cnt_at(rcounts, w, i), rt};
    if (sbuf == MPI_IN_PLACE) continue;
    fy_datatype_t *st = fy_type_get(stypes[i]);
    if (!st) {
      err = fy_err(MPI_ERR_TYPE, "sendtypes[%d] = %#x is not a datatype", i, (unsigned)stypes[i]);
      break;
    }
    sb[i] = (blk_t){(const char *)sbuf + fy_dsp_at(sdispls, w, i), fy_cnt_at(scounts, w, i), st};
  }
  if (!err) err = run(s, sb, rb, sbuf == MPI_IN_PLACE, 0);
  free(sb);
  return err;
}
