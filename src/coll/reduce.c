/* Reductions as schedules: Reduce (binomial tree; rank order for
 * non-commutative ops), Allreduce (recursive doubling, Rabenseifner, ring,
 * reduce + bcast), Reduce_scatter(_block), Scan and Exscan (recursive
 * doubling). fy_op_apply(in, inout) computes inout = in op inout, so
 * "lower op higher" is apply(lower, higher). */
#include "coll/fy_coll_impl.h"
#include <stdlib.h>

static int pof2_below(int p) {
  int q = 1;
  while (q * 2 <= p) q *= 2;
  return q;
}

static int reduce_binomial(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                           fy_datatype_t *t, fy_op_t *op, int root) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  int commute = op->commute;
  /* Non-commutative: a tree rooted at rank 0 over ranks in order, then a
   * hop to the root; commutative: the tree is rotated to the root. */
  int troot = commute ? root : 0;
  int vr = (me - troot + p) % p;
  const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  if (vr & 1) {
    /* A leaf sends its input as it is: no copy, no temporary. */
    TRY(fy_sched_send(s, in, count, t, (vr - 1 + troot) % p));
    TRY(fy_sched_fence(s));
    if (commute) return MPI_SUCCESS;
    goto tail;
  }
  void *acc, *tmp = fy_sched_tmp(s, count, t);
  if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  /* Commutative: the first child's contribution is received straight into
   * the accumulator (the root's result buffer) and this rank's input is
   * folded into it, so no copy of the input is made; a rank without
   * children forwards its input as it is. Non-commutative: acc starts as a
   * copy of the input (lower ranks first). */
  int have = 0; /* acc holds data */
  if (commute && me == root) {
    acc = rbuf;
    have = sbuf == MPI_IN_PLACE;
  } else if (commute) {
    acc = fy_sched_tmp(s, count, t);
    if (!acc) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  } else {
    acc = fy_sched_tmp(s, count, t);
    if (!acc) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
    TRY(fy_sched_copy(s, in, count, t, acc, count, t));
    TRY(fy_sched_fence(s));
    have = 1;
  }
  for (int mask = 1; mask < p; mask <<= 1) {
    if (vr & mask) {
      TRY(fy_sched_send(s, have ? acc : in, count, t, (vr - mask + troot) % p));
      TRY(fy_sched_fence(s));
      break;
    }
    int src = vr | mask;
    if (src >= p) continue;
    if (!have) {
      TRY(fy_sched_recv(s, acc, count, t, (src + troot) % p));
      TRY(fy_sched_reduce(s, in, acc, count, t, op));
      have = 1;
    } else {
      TRY(fy_sched_recv(s, tmp, count, t, (src + troot) % p));
      if (commute) {
        TRY(fy_sched_reduce(s, tmp, acc, count, t, op));
      } else {
        /* acc holds lower ranks, tmp higher ones: tmp = acc op tmp, swap. */
        TRY(fy_sched_reduce(s, acc, tmp, count, t, op));
        void *x = acc;
        acc = tmp;
        tmp = x;
      }
    }
    TRY(fy_sched_fence(s));
  }
  /* A root without children (p == 1 is handled by the caller). */
  if (commute && me == root && !have) TRY(fy_sched_copy(s, in, count, t, rbuf, count, t));
  if (commute) return MPI_SUCCESS;
  if (root == 0) {
    if (me == 0) TRY(fy_sched_copy(s, acc, count, t, rbuf, count, t));
  } else if (me == 0) {
    TRY(fy_sched_send(s, acc, count, t, root));
  }
tail:
  /* Non-commutative with root != 0: rank 0 holds the result. */
  if (!commute && root != 0 && me == root) {
    TRY(fy_sched_recv(s, rbuf, count, t, 0));
    TRY(fy_sched_fence(s));
  }
  return fy_sched_fence(s);
}

static int reduce_linear(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                         fy_datatype_t *t, fy_op_t *op, int root) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  if (me != root) {
    TRY(fy_sched_send(s, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, t, root));
    return fy_sched_fence(s);
  }
  /* Receive everything, then fold in rank order from the highest down:
   * acc = x_i op acc keeps the order for non-commutative ops. */
  char **parts = calloc((size_t)p, sizeof *parts);
  if (!parts) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  int err = MPI_SUCCESS;
  for (int i = 0; i < p && !err; i++) {
    if (i == me) continue;
    parts[i] = fy_sched_tmp(s, count, t);
    if (!parts[i]) err = fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
    else err = fy_sched_recv(s, parts[i], count, t, i);
  }
  const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  void *acc = NULL;
  if (!err) acc = fy_sched_tmp(s, count, t);
  if (!err && !acc) err = fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  if (!err) err = fy_sched_copy(s, p - 1 == me ? mine : parts[p - 1], count, t, acc, count, t);
  for (int i = p - 2; i >= 0 && !err; i--)
    err = fy_sched_reduce(s, i == me ? mine : parts[i], acc, count, t, op);
  if (!err) err = fy_sched_copy(s, acc, count, t, rbuf, count, t);
  free(parts);
  if (err) return err;
  return fy_sched_fence(s);
}

int fy_build_reduce(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                    fy_datatype_t *t, fy_op_t *op, int root) {
  fy_comm_t *c = fy_sched_comm(s);
  TRY(fy_sched_fence(s));
  if (count == 0) return MPI_SUCCESS;
  if (c->size == 1) {
    if (sbuf != MPI_IN_PLACE) TRY(fy_sched_copy(s, sbuf, count, t, rbuf, count, t));
    return MPI_SUCCESS;
  }
  static const char *const names[] = {"auto", "binomial", "linear", NULL};
  int a = FY_COLL_PICK(fy_config.coll_reduce, names);
  if (a == 2) return reduce_linear(s, sbuf, rbuf, count, t, op, root);
  return reduce_binomial(s, sbuf, rbuf, count, t, op, root);
}

/* ---- allreduce ---- */

/* Ranks beyond the largest power of two below p fold into a partner first
 * (even rank 2i sends to 2i+1) and get the result back at the end. Returns
 * the rank among the power of two, or -1 for a rank that sat out. */
static int fold_in(fy_sched_t *s, void *acc, void *tmp, MPI_Count count, fy_datatype_t *t,
                   fy_op_t *op, int rem, int *err) {
  fy_comm_t *c = fy_sched_comm(s);
  int me = c->rank;
  *err = MPI_SUCCESS;
  if (me >= 2 * rem) return me - rem;
  if (me % 2 == 0) {
    if ((*err = fy_sched_send(s, acc, count, t, me + 1))) return -1;
    *err = fy_sched_fence(s);
    return -1;
  }
  if ((*err = fy_sched_recv(s, tmp, count, t, me - 1))) return -1;
  if ((*err = fy_sched_reduce(s, tmp, acc, count, t, op))) return -1; /* lower op mine */
  *err = fy_sched_fence(s);
  return me / 2;
}

static int fold_out(fy_sched_t *s, void *acc, MPI_Count count, fy_datatype_t *t, int rem) {
  fy_comm_t *c = fy_sched_comm(s);
  int me = c->rank;
  if (me >= 2 * rem) return MPI_SUCCESS;
  if (me % 2) TRY(fy_sched_send(s, acc, count, t, me - 1));
  else TRY(fy_sched_recv(s, acc, count, t, me + 1));
  return fy_sched_fence(s);
}

static int real_rank(int newrank, int rem) { return newrank < rem ? newrank * 2 + 1 : newrank + rem; }

/* src: the input when it is not yet in acc (commutative op, p a power of
 * two): the first round sends it as it is and receives the partner's part
 * straight into acc, then folds the input in, so the input is never
 * copied; otherwise NULL. */
static int allreduce_recdbl(fy_sched_t *s, const void *src, void *acc, MPI_Count count,
                            fy_datatype_t *t, fy_op_t *op) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank, pof2 = pof2_below(p), rem = p - pof2, err;
  void *tmp = fy_sched_tmp(s, count, t);
  if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  int nr = fold_in(s, acc, tmp, count, t, op, rem, &err);
  if (err) return err;
  if (nr >= 0) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      int dst = real_rank(nr ^ mask, rem);
      if (src) {
        TRY(fy_sched_send(s, src, count, t, dst));
        TRY(fy_sched_recv(s, acc, count, t, dst));
        TRY(fy_sched_reduce(s, src, acc, count, t, op));
        TRY(fy_sched_fence(s));
        src = NULL;
        continue;
      }
      TRY(fy_sched_send(s, acc, count, t, dst));
      TRY(fy_sched_recv(s, tmp, count, t, dst));
      if (dst < me || op->commute) {
        TRY(fy_sched_reduce(s, tmp, acc, count, t, op));
      } else {
        TRY(fy_sched_reduce(s, acc, tmp, count, t, op));
        TRY(fy_sched_copy(s, tmp, count, t, acc, count, t));
      }
      TRY(fy_sched_fence(s));
    }
  }
  return fold_out(s, acc, count, t, rem);
}

/* Rabenseifner: reduce-scatter by recursive halving, allgather by
 * recursive doubling, over pof2 pieces of the vector (commutative op,
 * contiguous type, count >= pof2). */
/* src: as for allreduce_recdbl (the first halving round reads it). */
static int allreduce_rabenseifner(fy_sched_t *s, const void *src, void *acc, MPI_Count count,
                                  fy_datatype_t *t, fy_op_t *op) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, pof2 = pof2_below(p), rem = p - pof2, err;
  void *tmp = fy_sched_tmp(s, count, t);
  MPI_Count *cnt = malloc((size_t)pof2 * 2 * sizeof *cnt);
  if (!tmp || !cnt) {
    free(cnt);
    return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  }
  MPI_Count *dsp = cnt + pof2;
  for (int i = 0; i < pof2; i++) {
    cnt[i] = count / pof2 + (i < count % pof2 ? 1 : 0);
    dsp[i] = i ? dsp[i - 1] + cnt[i - 1] : 0;
  }
  int nr = fold_in(s, acc, tmp, count, t, op, rem, &err);
  if (err) goto out;
  if (nr >= 0) {
    int send_idx = 0, recv_idx = 0, last_idx = pof2, mask;
    /* Halving: each round keeps half of the current range, reduced. */
    for (mask = 1; mask < pof2; mask <<= 1) {
      int nd = nr ^ mask, dst = real_rank(nd, rem);
      MPI_Count sc = 0, rc = 0;
      int half = pof2 / (mask * 2);
      if (nr < nd) {
        send_idx = recv_idx + half;
        for (int i = send_idx; i < last_idx; i++) sc += cnt[i];
        for (int i = recv_idx; i < send_idx; i++) rc += cnt[i];
      } else {
        recv_idx = send_idx + half;
        for (int i = send_idx; i < recv_idx; i++) sc += cnt[i];
        for (int i = recv_idx; i < last_idx; i++) rc += cnt[i];
      }
      if (src) {
        /* first round: the input as it is, the partner's half into acc */
        if ((err = fy_sched_send(s, fy_at(src, dsp[send_idx], t), sc, t, dst))) goto out;
        if ((err = fy_sched_recv(s, fy_at(acc, dsp[recv_idx], t), rc, t, dst))) goto out;
        if ((err = fy_sched_reduce(s, fy_at(src, dsp[recv_idx], t), fy_at(acc, dsp[recv_idx], t), rc, t, op))) goto out;
        src = NULL;
      } else {
        if ((err = fy_sched_send(s, fy_at(acc, dsp[send_idx], t), sc, t, dst))) goto out;
        if ((err = fy_sched_recv(s, fy_at(tmp, dsp[recv_idx], t), rc, t, dst))) goto out;
        if ((err = fy_sched_reduce(s, fy_at(tmp, dsp[recv_idx], t), fy_at(acc, dsp[recv_idx], t), rc, t, op))) goto out;
      }
      if ((err = fy_sched_fence(s))) goto out;
      send_idx = recv_idx;
      if (mask * 2 < pof2) last_idx = recv_idx + half;
    }
    /* Doubling: the pieces travel back up. */
    for (mask = pof2 / 2; mask > 0; mask >>= 1) {
      int nd = nr ^ mask, dst = real_rank(nd, rem);
      MPI_Count sc = 0, rc = 0;
      int half = pof2 / (mask * 2);
      if (nr < nd) {
        if (mask != pof2 / 2) last_idx += half;
        recv_idx = send_idx + half;
        for (int i = send_idx; i < recv_idx; i++) sc += cnt[i];
        for (int i = recv_idx; i < last_idx; i++) rc += cnt[i];
      } else {
        recv_idx = send_idx - half;
        for (int i = send_idx; i < last_idx; i++) sc += cnt[i];
        for (int i = recv_idx; i < send_idx; i++) rc += cnt[i];
      }
      if ((err = fy_sched_send(s, fy_at(acc, dsp[send_idx], t), sc, t, dst))) goto out;
      if ((err = fy_sched_recv(s, fy_at(acc, dsp[recv_idx], t), rc, t, dst))) goto out;
      if ((err = fy_sched_fence(s))) goto out;
      if (nr > nd) send_idx = recv_idx;
    }
  }
  err = fold_out(s, acc, count, t, rem);
out:
  free(cnt);
  return err;
}

/* Ring: reduce-scatter around the ring, then allgather around it
 * (commutative op, contiguous type, count >= p). */
static int allreduce_ring(fy_sched_t *s, void *acc, MPI_Count count, fy_datatype_t *t,
                          fy_op_t *op) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  MPI_Count base = count / p, extra = count % p;
#define CNT(i) (base + ((i) < extra ? 1 : 0))
#define DSP(i) ((MPI_Count)(i) * base + ((i) < extra ? (i) : extra))
  void *tmp = fy_sched_tmp(s, CNT(0), t);
  if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  int right = (me + 1) % p, left = (me - 1 + p) % p;
  for (int k = 0; k < p - 1; k++) {
    int sb = (me - k + p) % p, rb = (me - k - 1 + 2 * p) % p;
    TRY(fy_sched_send(s, fy_at(acc, DSP(sb), t), CNT(sb), t, right));
    TRY(fy_sched_recv(s, tmp, CNT(rb), t, left));
    TRY(fy_sched_reduce(s, tmp, fy_at(acc, DSP(rb), t), CNT(rb), t, op));
    TRY(fy_sched_fence(s));
  }
  for (int k = 0; k < p - 1; k++) {
    int sb = (me + 1 - k + p) % p, rb = (me - k + p) % p;
    TRY(fy_sched_send(s, fy_at(acc, DSP(sb), t), CNT(sb), t, right));
    TRY(fy_sched_recv(s, fy_at(acc, DSP(rb), t), CNT(rb), t, left));
    TRY(fy_sched_fence(s));
  }
#undef CNT
#undef DSP
  return MPI_SUCCESS;
}

int fy_build_allreduce(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                       fy_datatype_t *t, fy_op_t *op) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size;
  TRY(fy_sched_fence(s));
  if (count == 0) return MPI_SUCCESS;
  if (p == 1) {
    if (sbuf != MPI_IN_PLACE) TRY(fy_sched_copy(s, sbuf, count, t, rbuf, count, t));
    return MPI_SUCCESS;
  }
  static const char *const names[] = {"auto", "recursive_doubling", "rabenseifner", "ring",
                                      "reduce_bcast", NULL};
  int a = FY_COLL_PICK(fy_config.coll_allreduce, names);
  int big_ok = op->commute && t->is_contig && count >= p;
  if (a == 0) a = big_ok && count * t->size >= fy_config.coll_large ? 2 : 1;
  if (a == 2 && !(big_ok && count >= pof2_below(p))) a = 1;
  if (a == 3 && !big_ok) a = 1;
  /* Recursive doubling and Rabenseifner read the input in their first
   * exchange when there is no rank to fold in (p a power of two) and the
   * op commutes; the others start from a copy in rbuf. */
  const void *src = NULL;
  if (sbuf != MPI_IN_PLACE) {
    if ((a == 1 || a == 2) && op->commute && (p & (p - 1)) == 0) {
      src = sbuf;
    } else {
      TRY(fy_sched_copy(s, sbuf, count, t, rbuf, count, t));
      TRY(fy_sched_fence(s));
    }
  }
  if (a == 2) return allreduce_rabenseifner(s, src, rbuf, count, t, op);
  if (a == 3) return allreduce_ring(s, rbuf, count, t, op);
  if (a == 4) {
    TRY(fy_build_reduce(s, MPI_IN_PLACE, rbuf, count, t, op, 0));
    return fy_build_bcast(s, rbuf, count, t, 0);
  }
  return allreduce_recdbl(s, src, rbuf, count, t, op);
}

/* ---- reduce-scatter: around a ring (commutative ops), or reduce to
 * rank 0 and scatter the pieces ---- */

/* Ring: in step k a process passes on its partial sum of block
 * me-k-1 (its own input of it at first) and folds its input into the
 * partial of block me-k-2 it receives; after p-1 steps it holds block me,
 * reduced over every process. Each process sends and receives total -
 * count[i] items once, in p-1 rounds of one block (reduce and scatter
 * moves the whole vector log2(p) times through the tree, then again).
 * Partials alternate between two temporaries of the largest block, and
 * the last one lands in rbuf. */
static int reduce_scatter_ring(fy_sched_t *s, const void *in, void *rbuf, const MPI_Count *cnt,
                               const MPI_Count *dsp, fy_datatype_t *t, fy_op_t *op) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank, right = (me + 1) % p, left = (me - 1 + p) % p;
  MPI_Count big = 0;
  for (int i = 0; i < p; i++)
    if (cnt[i] > big) big = cnt[i];
  void *buf[2] = {fy_sched_tmp(s, big, t), fy_sched_tmp(s, big, t)};
  if (!buf[0] || !buf[1]) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  const void *out = NULL; /* the partial this step sends (NULL: the input's block) */
  for (int k = 0; k < p - 1; k++) {
    int sb = (me - k - 1 + 2 * p) % p, rb = (me - k - 2 + 2 * p) % p;
    void *into = k == p - 2 ? rbuf : buf[k & 1];
    if (cnt[sb]) TRY(fy_sched_send(s, out ? out : fy_at(in, dsp[sb], t), cnt[sb], t, right));
    if (cnt[rb]) {
      TRY(fy_sched_recv(s, into, cnt[rb], t, left));
      TRY(fy_sched_reduce(s, fy_at(in, dsp[rb], t), into, cnt[rb], t, op));
    }
    TRY(fy_sched_fence(s));
    out = into;
  }
  return MPI_SUCCESS;
}

int fy_build_reduce_scatter(fy_sched_t *s, const void *sbuf, void *rbuf, const void *rcounts,
                            int w, fy_datatype_t *t, fy_op_t *op) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  MPI_Count total = 0;
  MPI_Count *dsp = malloc((size_t)p * 2 * sizeof *dsp);
  if (!dsp) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  MPI_Count *cnt = dsp + p;
  for (int i = 0; i < p; i++) {
    dsp[i] = total;
    cnt[i] = fy_cnt_at(rcounts, w, i);
    total += cnt[i];
  }
  int err = fy_sched_fence(s);
  const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  static const char *const names[] = {"auto", "ring", "reduce_then_scatter", NULL};
  int a = FY_COLL_PICK(fy_config.coll_reduce_scatter, names);
  /* auto, by the bytes per process on average (every process finds the
   * same: the counts are the same everywhere). Paired runs against the
   * reduce and scatter (bench/scripts/ab_coll.sh --ops reduce_scatter,
   * 8 B-1 MiB): -n 2 0.26-0.80x at every size; -n 3 1.02-1.08x to 64 B,
   * 0.67-0.84x from 512 B; -n 4 1.03-1.17x to 32 KiB, 0.68-0.80x from
   * 256 KiB. So: always on two processes, from 512 B on three, from
   * FERRY_COLL_LARGE beyond (more rounds than the tree's). */
  if (a == 0) {
    MPI_Count avg = total * t->size / p;
    a = p == 2 || avg >= (MPI_Count)fy_config.coll_large || (p == 3 && avg >= 512) ? 1 : 2;
  }
  if (!err && a == 1 && op->commute && p > 1 && total) {
    if (sbuf == MPI_IN_PLACE) {
      /* the input is rbuf, which the last step overwrites: from a copy */
      void *copy = fy_sched_tmp(s, total, t);
      if (!copy) err = fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
      if (!err) err = fy_sched_copy(s, rbuf, total, t, copy, total, t);
      if (!err) err = fy_sched_fence(s);
      in = copy;
    }
    if (!err) err = reduce_scatter_ring(s, in, rbuf, cnt, dsp, t, op);
    free(dsp);
    return err;
  }
  void *all = NULL;
  if (!err && total) {
    all = fy_sched_tmp(s, total, t);
    if (!all) err = fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  }
  if (!err && total) err = fy_build_reduce(s, in, all, total, t, op, 0);
  if (!err && total) {
    /* Scatter: rank 0 sends each piece; its own is a copy. */
    err = fy_sched_fence(s);
    MPI_Count mine = fy_cnt_at(rcounts, w, me);
    if (me == 0) {
      for (int i = 1; i < p && !err; i++) {
        MPI_Count ci = fy_cnt_at(rcounts, w, i);
        if (ci) err = fy_sched_send(s, fy_at(all, dsp[i], t), ci, t, i);
      }
      if (!err) err = fy_sched_copy(s, all, mine, t, rbuf, mine, t);
    } else if (mine) {
      err = fy_sched_recv(s, rbuf, mine, t, 0);
    }
    if (!err) err = fy_sched_fence(s);
  }
  free(dsp);
  return err;
}

int fy_build_reduce_scatter_block(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count rcount,
                                  fy_datatype_t *t, fy_op_t *op) {
  fy_comm_t *c = fy_sched_comm(s);
  MPI_Count *cnts = malloc((size_t)c->size * sizeof *cnts);
  if (!cnts) return fy_err(MPI_ERR_NO_MEM, "out of memory in a reduction");
  for (int i = 0; i < c->size; i++) cnts[i] = rcount;
  int err = fy_build_reduce_scatter(s, sbuf, rbuf, cnts, W_CNT, t, op);
  free(cnts);
  return err;
}

/* ---- scan / exscan: recursive doubling over a partial result ---- */

int fy_build_scan(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                  fy_datatype_t *t, fy_op_t *op, int exclusive) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  TRY(fy_sched_fence(s));
  if (count == 0) return MPI_SUCCESS;
  const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  void *partial = fy_sched_tmp(s, count, t), *tmp = fy_sched_tmp(s, count, t);
  if (!partial || !tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory in a scan");
  /* partial: the reduction of the ranks of my current hypercube; rbuf: of
   * the ranks below me (exclusive) or up to me (inclusive). */
  TRY(fy_sched_copy(s, in, count, t, partial, count, t));
  if (!exclusive && sbuf != MPI_IN_PLACE) TRY(fy_sched_copy(s, sbuf, count, t, rbuf, count, t));
  TRY(fy_sched_fence(s));
  int have = !exclusive; /* rbuf holds a value */
  for (int mask = 1; mask < p; mask <<= 1) {
    int dst = me ^ mask;
    if (dst >= p) continue;
    TRY(fy_sched_send(s, partial, count, t, dst));
    TRY(fy_sched_recv(s, tmp, count, t, dst));
    if (me > dst) {
      /* tmp comes from lower ranks: it goes first. */
      if (have) TRY(fy_sched_reduce(s, tmp, rbuf, count, t, op));
      else TRY(fy_sched_copy(s, tmp, count, t, rbuf, count, t));
      have = 1;
      TRY(fy_sched_reduce(s, tmp, partial, count, t, op));
    } else if (op->commute) {
      TRY(fy_sched_reduce(s, tmp, partial, count, t, op));
    } else {
      TRY(fy_sched_reduce(s, partial, tmp, count, t, op));
      TRY(fy_sched_copy(s, tmp, count, t, partial, count, t));
    }
    TRY(fy_sched_fence(s));
  }
  return MPI_SUCCESS;
}
