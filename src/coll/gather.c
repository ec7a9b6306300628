/* Gather(v), Scatter(v), Allgather(v) as schedules. Gathers and scatters
 * are linear (the root posts every transfer at once: on one node the
 * copies are the cost, and they proceed in parallel at the peers) or, for
 * Gather and Scatter, a binomial tree (the root exchanges ceil(log2 p)
 * messages instead of p-1: for small blocks on many processes across
 * nodes, where the root's link is the bottleneck); allgather is a ring
 * (large), recursive doubling (power-of-two sizes) or linear (small). */
#include "coll/fy_coll_impl.h"
#include <stdlib.h>

int fy_coll_rooted_binomial(fy_comm_t *c, MPI_Count bytes) {
  static const char *const names[] = {"auto", "linear", "binomial", NULL};
  int a = FY_COLL_PICK(fy_config.coll_gather, names);
  if (c->is_inter || c->size < 3 || bytes == 0) return 0;
  if (a) return a == 2;
  /* auto: the tree for small blocks above 8 processes when some of them
   * are on another node (on one node the blocking calls' shared segment
   * and the linear schedules' parallel copies are cheaper). */
  return c->size > 8 && bytes < (MPI_Count)fy_config.coll_large && fy_comm_remote_rank(c) >= 0;
}

/* Binomial trees over ranks relative to the root (vr = rank - root mod
 * p): vr's children are vr + m for every power of two m below vr's lowest
 * set bit (the root: below p), each heading the vr + m .. vr + 2m - 1
 * subtree (cut at p). Interior processes hold their subtree's blocks
 * packed, in vr order, in a temporary; the root's blocks for ranks
 * root.. p-1 and 0 .. root-1 are consecutive items of its buffer, so every
 * subtree but the one that wraps past rank p-1 moves straight between the
 * root's buffer and the wire. */
static int sub_size(int vr, int p) {
  int m = vr ? (vr & -vr) : p;
  return m < p - vr ? m : p - vr;
}

/* The root's side of a subtree vr0 .. vr0+n-1: a receive (gather) or send
 * (scatter) of its n blocks of cnt items of t at buf, or through the
 * packed temporary when the range wraps past rank p-1 (then two copies
 * after the transfers or before them). */
static int root_part(fy_sched_t *s, int gather, void *buf, MPI_Count cnt, fy_datatype_t *t,
                     int vr0, int n, int root, int child, char *tmp, MPI_Count blk) {
  int p = fy_sched_comm(s)->size, r0 = (vr0 + root) % p;
  fy_datatype_t *byte = fy_type_get(MPI_BYTE);
  if (r0 + n <= p) {
    char *at = fy_at(buf, (MPI_Aint)(r0 * cnt), t);
    return gather ? fy_sched_recv(s, at, cnt * n, t, child) : fy_sched_send(s, at, cnt * n, t, child);
  }
  int n1 = p - r0; /* ranks r0 .. p-1, then 0 .. n-n1-1 */
  if (gather) {
    TRY(fy_sched_recv(s, tmp, blk * n, byte, child));
    TRY(fy_sched_copy(s, tmp, blk * n1, byte, fy_at(buf, (MPI_Aint)(r0 * cnt), t), cnt * n1, t));
    return fy_sched_copy(s, tmp + blk * n1, blk * (n - n1), byte, buf, cnt * (n - n1), t);
  }
  return fy_sched_send(s, tmp, blk * n, byte, child);
}

static int tree(fy_sched_t *s, int gather, const void *sbuf, MPI_Count sn, fy_datatype_t *st,
                void *rbuf, MPI_Count rn, fy_datatype_t *rt, int root) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank, vr = (me - root + p) % p;
  int top = vr ? (vr & -vr) : 1;
  if (!vr)
    while (top < p) top <<= 1;
  fy_datatype_t *byte = fy_type_get(MPI_BYTE);
  /* Bytes per block: the root's own type (its peers' signatures match). */
  MPI_Count blk = vr ? (gather ? sn * st->size : rn * rt->size) : (gather ? rn * rt->size : sn * st->size);
  int n = sub_size(vr, p), parent = vr ? (vr - (vr & -vr) + root) % p : -1;
  TRY(fy_sched_fence(s));
  if (vr == 0) {
    /* The wrapping subtree (at most one) goes through a temporary. */
    char *tmp = NULL;
    for (int m = 1; m < p; m <<= 1) {
      int k = sub_size(m, p), r0 = (m + root) % p;
      if (r0 + k > p) {
        if (!(tmp = fy_sched_tmp_bytes(s, (size_t)(blk * k))))
          return fy_err(MPI_ERR_NO_MEM, "out of memory in a gather or scatter");
        if (!gather) {
          int n1 = p - r0;
          TRY(fy_sched_copy(s, fy_at(sbuf, (MPI_Aint)(r0 * sn), st), sn * n1, st, tmp, blk * n1, byte));
          TRY(fy_sched_copy(s, sbuf, sn * (k - n1), st, tmp + blk * n1, blk * (k - n1), byte));
          TRY(fy_sched_fence(s));
        }
      }
    }
    for (int m = top >> 1; m > 0; m >>= 1) /* largest subtree first */
      if (m < p)
        TRY(root_part(s, gather, gather ? rbuf : (void *)sbuf, gather ? rn : sn, gather ? rt : st, m,
                      sub_size(m, p), root, (m + root) % p, tmp, blk));
    if (gather && sbuf != MPI_IN_PLACE)
      TRY(fy_sched_copy(s, sbuf, sn, st, fy_at(rbuf, (MPI_Aint)(me * rn), rt), rn, rt));
    if (!gather && rbuf != MPI_IN_PLACE)
      TRY(fy_sched_copy(s, fy_at(sbuf, (MPI_Aint)(me * sn), st), sn, st, rbuf, rn, rt));
    return fy_sched_fence(s);
  }
  if (n == 1) { /* a leaf: its own block, straight */
    TRY(gather ? fy_sched_send(s, sbuf, sn, st, parent) : fy_sched_recv(s, rbuf, rn, rt, parent));
    return fy_sched_fence(s);
  }
  char *tmp = fy_sched_tmp_bytes(s, (size_t)(blk * n));
  if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory in a gather or scatter");
  if (gather) {
    for (int m = top >> 1; m > 0; m >>= 1)
      if (vr + m < p) TRY(fy_sched_recv(s, tmp + blk * m, blk * sub_size(vr + m, p), byte, (vr + m + root) % p));
    TRY(fy_sched_copy(s, sbuf, sn, st, tmp, blk, byte));
    TRY(fy_sched_fence(s));
    TRY(fy_sched_send(s, tmp, blk * n, byte, parent));
    return fy_sched_fence(s);
  }
  TRY(fy_sched_recv(s, tmp, blk * n, byte, parent));
  TRY(fy_sched_fence(s));
  for (int m = top >> 1; m > 0; m >>= 1)
    if (vr + m < p) TRY(fy_sched_send(s, tmp + blk * m, blk * sub_size(vr + m, p), byte, (vr + m + root) % p));
  TRY(fy_sched_copy(s, tmp, blk, byte, rbuf, rn, rt));
  return fy_sched_fence(s);
}

/* Linear: the root posts every transfer at once and copies its own block
 * as they start (an early copy: its sends then ask their receivers to copy
 * alone); the others make the one matching transfer. */
static int linear(fy_sched_t *s, int gather, const void *sbuf, MPI_Count sn, fy_datatype_t *st, void *rbuf,
                  MPI_Count rn, fy_datatype_t *rt, int root, const fy_blocks_t *b) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  TRY(fy_sched_fence(s));
  if (me != root) {
    if (gather && fy_has_data(sn, st)) TRY(fy_sched_send(s, sbuf, sn, st, root));
    if (!gather && fy_has_data(rn, rt)) TRY(fy_sched_recv(s, rbuf, rn, rt, root));
    return fy_sched_fence(s);
  }
  fy_datatype_t *t = gather ? rt : st;
  for (int i = 0; i < p; i++) {
    MPI_Count ci = fy_blk_n(b, i);
    if (i == me || !fy_has_data(ci, t)) continue;
    if (gather) TRY(fy_sched_recv(s, fy_at(rbuf, fy_blk_at(b, i), rt), ci, rt, i));
    else TRY(fy_sched_send(s, fy_at(sbuf, fy_blk_at(b, i), st), ci, st, i));
  }
  if (gather && sbuf != MPI_IN_PLACE)
    TRY(fy_sched_copy_early(s, sbuf, sn, st, fy_at(rbuf, fy_blk_at(b, me), rt), fy_blk_n(b, me), rt));
  if (!gather && rbuf != MPI_IN_PLACE)
    TRY(fy_sched_copy_early(s, fy_at(sbuf, fy_blk_at(b, me), st), fy_blk_n(b, me), st, rbuf, rn, rt));
  return fy_sched_fence(s);
}

int fy_build_gatherv(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                     void *rbuf, const void *rcounts, const void *displs, int w,
                     fy_datatype_t *rt, int root) {
  fy_blocks_t b = {1, rcounts, displs, w, 0};
  return linear(s, 1, sbuf, scount, st, rbuf, 0, rt, root, &b);
}

int fy_build_gather(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                    void *rbuf, MPI_Count rcount, fy_datatype_t *rt, int root) {
  fy_comm_t *c = fy_sched_comm(s);
  if (fy_coll_rooted_binomial(c, c->rank == root ? rcount * rt->size : scount * st->size))
    return tree(s, 1, sbuf, scount, st, rbuf, rcount, rt, root);
  fy_blocks_t b = {0, NULL, NULL, 0, rcount};
  return linear(s, 1, sbuf, scount, st, rbuf, rcount, rt, root, &b);
}

int fy_build_scatterv(fy_sched_t *s, const void *sbuf, const void *scounts, const void *displs,
                      int w, fy_datatype_t *st, void *rbuf, MPI_Count rcount,
                      fy_datatype_t *rt, int root) {
  fy_blocks_t b = {1, scounts, displs, w, 0};
  return linear(s, 0, sbuf, 0, st, rbuf, rcount, rt, root, &b);
}

int fy_build_scatter(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                     void *rbuf, MPI_Count rcount, fy_datatype_t *rt, int root) {
  fy_comm_t *c = fy_sched_comm(s);
  if (fy_coll_rooted_binomial(c, c->rank == root ? scount * st->size : rcount * rt->size))
    return tree(s, 0, sbuf, scount, st, rbuf, rcount, rt, root);
  fy_blocks_t b = {0, NULL, NULL, 0, scount};
  return linear(s, 0, sbuf, scount, st, rbuf, rcount, rt, root, &b);
}

/* Allgatherv over a ring: in step k a rank passes on the block it got in
 * step k-1 (its own first). Blocks are (pointer, count) pairs. */
/* The own block: where it is (the input, or rbuf when in place) and the
 * copy into rbuf that the first exchange's stage makes after its transfers
 * (so the input leaves without waiting for that copy). */
typedef struct {
  const void *buf;
  MPI_Count n;
  fy_datatype_t *t;
} own_t;

/* Sent when the receivers expect it: when this rank's count in the
 * (agreed) receive counts is nonzero, or always (recursive doubling). */
static int own_send(fy_sched_t *s, const own_t *o, int peer, int expected) {
  return expected ? fy_sched_send(s, o->buf, o->n, o->t, peer) : MPI_SUCCESS;
}

static int own_copy(fy_sched_t *s, const own_t *o, void *rbuf, const MPI_Count *cnt,
                    const MPI_Aint *dsp, fy_datatype_t *rt, int me) {
  if (o->buf == fy_at(rbuf, dsp[me], rt)) return MPI_SUCCESS;
  return fy_sched_copy(s, o->buf, o->n, o->t, fy_at(rbuf, dsp[me], rt), cnt[me], rt);
}

static int allgather_ring(fy_sched_t *s, const own_t *o, void *rbuf, const MPI_Count *cnt,
                          const MPI_Aint *dsp, fy_datatype_t *rt) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank, right = (me + 1) % p, left = (me - 1 + p) % p;
  for (int k = 0; k < p - 1; k++) {
    int sb = (me - k + p) % p, rb = (me - k - 1 + 2 * p) % p;
    /* The receive first. With the send first, about 8 % of the sends of
     * a 1 MiB Iallgather at -n 2 wrote alone into the peer's published
     * receive while the peer was between its start and its wait; with the
     * receive first none did (FERRY_STATS: each side reads its own
     * incoming block): 256 KiB and 1 MiB 0.91x paired, 1.03-1.05x the
     * best peer instead of 1.16-1.17x. */
    if (cnt[rb]) TRY(fy_sched_recv(s, fy_at(rbuf, dsp[rb], rt), cnt[rb], rt, left));
    if (k == 0) TRY(own_send(s, o, right, cnt[me] != 0));
    else if (cnt[sb]) TRY(fy_sched_send(s, fy_at(rbuf, dsp[sb], rt), cnt[sb], rt, right));
    if (k == 0) TRY(own_copy(s, o, rbuf, cnt, dsp, rt, me));
    TRY(fy_sched_fence(s));
  }
  return MPI_SUCCESS;
}

static int allgather_linear(fy_sched_t *s, const own_t *o, void *rbuf, const MPI_Count *cnt,
                            const MPI_Aint *dsp, fy_datatype_t *rt) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  for (int k = 1; k < p; k++) {
    int to = (me + k) % p, from = (me - k + p) % p;
    if (cnt[from]) TRY(fy_sched_recv(s, fy_at(rbuf, dsp[from], rt), cnt[from], rt, from));
    TRY(own_send(s, o, to, cnt[me] != 0));
  }
  TRY(own_copy(s, o, rbuf, cnt, dsp, rt, me));
  return fy_sched_fence(s);
}

/* Recursive doubling (p a power of two, equal blocks at consecutive
 * places): in round k partners swap the 2^k blocks each has. */
static int allgather_recdbl(fy_sched_t *s, const own_t *o, void *rbuf, const MPI_Count *cnt,
                            const MPI_Aint *dsp, fy_datatype_t *rt) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  MPI_Count rcount = cnt[0];
  for (int mask = 1; mask < p; mask <<= 1) {
    int dst = me ^ mask;
    int mine = me & ~(mask - 1), theirs = dst & ~(mask - 1);
    if (mask == 1) TRY(own_send(s, o, dst, 1));
    else TRY(fy_sched_send(s, fy_at(rbuf, (MPI_Aint)(mine * rcount), rt), rcount * mask, rt, dst));
    TRY(fy_sched_recv(s, fy_at(rbuf, (MPI_Aint)(theirs * rcount), rt), rcount * mask, rt, dst));
    if (mask == 1) TRY(own_copy(s, o, rbuf, cnt, dsp, rt, me));
    TRY(fy_sched_fence(s));
  }
  return MPI_SUCCESS;
}

static int allgather_common(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                            void *rbuf, const MPI_Count *cnt, const MPI_Aint *dsp,
                            fy_datatype_t *rt, int uniform) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  TRY(fy_sched_fence(s));
  own_t o = {fy_at(rbuf, dsp[me], rt), cnt[me], rt};
  if (sbuf != MPI_IN_PLACE) o = (own_t){sbuf, scount, st};
  if (p == 1) return own_copy(s, &o, rbuf, cnt, dsp, rt, me);
  static const char *const names[] = {"auto", "ring", "recursive_doubling", "linear", NULL};
  int a = FY_COLL_PICK(fy_config.coll_allgather, names);
  int pow2 = (p & (p - 1)) == 0;
  if (a == 0) {
    /* Every process must choose the same algorithm: by the largest block
     * (the counts are the same everywhere), not by its own, which differs
     * in an Allgatherv (counts 64 KiB, 64 KiB, 0, 0 put two processes in a
     * ring and two in the linear exchange, and hung: MPICH's allgatherv4). */
    MPI_Count big = 0;
    for (int i = 0; i < p; i++)
      if (cnt[i] > big) big = cnt[i];
    MPI_Count bytes = big * rt->size;
    /* Small and medium blocks on few processes: everything posted at once
     * (at -n 4, 0.58-0.75x recursive doubling's time from 64 B to 32 KiB
     * in paired runs); recursive doubling's log2(p) rounds for more. */
    a = bytes >= fy_config.coll_large ? 1 : (uniform && pow2 && p > 8 ? 2 : 3);
  }
  if (a == 2 && uniform && pow2) return allgather_recdbl(s, &o, rbuf, cnt, dsp, rt);
  if (a == 3) return allgather_linear(s, &o, rbuf, cnt, dsp, rt);
  return allgather_ring(s, &o, rbuf, cnt, dsp, rt);
}

int fy_build_allgatherv(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                        void *rbuf, const void *rcounts, const void *displs, int w,
                        fy_datatype_t *rt) {
  int p = fy_sched_comm(s)->size;
  MPI_Count *cnt = malloc((size_t)p * (sizeof *cnt + sizeof(MPI_Aint)));
  if (!cnt) return fy_err(MPI_ERR_NO_MEM, "out of memory in an allgather");
  MPI_Aint *dsp = (MPI_Aint *)(cnt + p);
  for (int i = 0; i < p; i++) {
    cnt[i] = fy_cnt_at(rcounts, w, i);
    dsp[i] = fy_dsp_at(displs, w, i);
  }
  int err = allgather_common(s, sbuf, scount, st, rbuf, cnt, dsp, rt, 0);
  free(cnt);
  return err;
}

int fy_build_allgather(fy_sched_t *s, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                       void *rbuf, MPI_Count rcount, fy_datatype_t *rt) {
  int p = fy_sched_comm(s)->size;
  MPI_Count *cnt = malloc((size_t)p * (sizeof *cnt + sizeof(MPI_Aint)));
  if (!cnt) return fy_err(MPI_ERR_NO_MEM, "out of memory in an allgather");
  MPI_Aint *dsp = (MPI_Aint *)(cnt + p);
  for (int i = 0; i < p; i++) {
    cnt[i] = rcount;
    dsp[i] = (MPI_Aint)(i * rcount);
  }
  int err = allgather_common(s, sbuf, scount, st, rbuf, cnt, dsp, rt, 1);
  free(cnt);
  return err;
}
