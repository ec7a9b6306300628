/* RMA operations: Put, Get, Accumulate, Get_accumulate, Fetch_and_op,
 * Compare_and_swap and their request-based forms. The origin moves the
 * data itself: memcpy into mapped windows, cross-memory attach into
 * Win_create / dynamic windows. Accumulates are atomic per element: every
 * accumulate-family operation toward a target holds the target's
 * accumulate lock (one spinlock word in its rank block, so every origin
 * agrees) while it reads, computes (core/fy_op kernels) and writes. */
#include "rma/fy_rma.h"
#include "core/fy_error.h"
#include "core/fy_op.h"
#include "progress/fy_progress.h"
#include "transport/shm/fy_shm.h"
#include "datatype/fy_copy.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>


/* ---- target addresses ---- */

static MPI_Aint span_of(const fy_datatype_t *t, MPI_Count count) {
  if (count == 0) return 0;
  return (MPI_Aint)(count - 1) * t->extent + t->true_extent;
}

/* Dynamic windows: whether the regions target t attached hold all of
 * [lo, lo+len), one region or adjacent ones (an access may span regions
 * attached back to back, as MPICH's rma/win_dynamic_*_2region tests do);
 * a seqlock read of its table. */
int fy_rma_dyn_lookup(fy_win_t *w, int t, uint64_t lo, uint64_t len) {
  fy_win_rankblk_t *b = &w->blk[t];
  for (;;) {
    uint32_t s0 = atomic_load_explicit(&b->dyn_seq, memory_order_acquire);
    if (s0 & 1) {
      sched_yield();
      continue;
    }
    uint32_t nd = b->ndyn;
    if (nd > FY_RMA_DYN_MAX) nd = FY_RMA_DYN_MAX;
    uint64_t at = lo, end = lo + len;
    for (int moved = 1; at < end && moved;) { /* extend over the region holding `at` */
      moved = 0;
      for (uint32_t i = 0; i < nd; i++)
        if (at >= b->dyn[i].base && at < b->dyn[i].base + b->dyn[i].size) {
          at = b->dyn[i].base + b->dyn[i].size;
          moved = 1;
          break;
        }
    }
    int found = at >= end;
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&b->dyn_seq, memory_order_relaxed) == s0) return found;
  }
}

int fy_rma_target_range(fy_win_t *w, int t, MPI_Aint disp, MPI_Count count, fy_datatype_t *tt,
                        uint64_t *addr_out) {
  fy_win_peer_t *p = &w->peer[t];
  MPI_Aint span = span_of(tt, count);
  if (w->flavor == FY_WIN_DYNAMIC) {
    uint64_t lo = (uint64_t)disp + (uint64_t)tt->true_lb;
    if (count > 0 && !fy_rma_dyn_lookup(w, t, lo, (uint64_t)span))
      return fy_err(MPI_ERR_RMA_RANGE, "target_disp = %#lx (+%ld bytes) is not in a region attached by rank %d",
                    (unsigned long)disp, (long)span, t);
    *addr_out = (uint64_t)disp;
    return MPI_SUCCESS;
  }
  if (disp < 0) return fy_err(MPI_ERR_DISP, "target_disp = %ld is negative", (long)disp);
  MPI_Aint off = disp * p->disp_unit;
  if (count > 0 && (off + tt->true_lb < 0 || (uint64_t)(off + tt->true_lb + span) > p->size))
    return fy_err(MPI_ERR_RMA_RANGE,
                  "target_disp = %ld, %ld bytes: outside rank %d's window of %lu bytes", (long)disp, (long)span, t,
                  (unsigned long)p->size);
  *addr_out = (uint64_t)off;
  return MPI_SUCCESS;
}

/* The target's memory at offset/address a: a local pointer when it is
 * mapped (or my own), NULL when it must be reached by cross-memory attach
 * (then *remote is the address in the target). */
static char *local_ptr(fy_win_t *w, int t, uint64_t a, uint64_t *remote) {
  fy_win_peer_t *p = &w->peer[t];
  if (w->flavor == FY_WIN_DYNAMIC) {
    *remote = a;
    return t == w->rank ? (char *)(uintptr_t)a : NULL;
  }
  *remote = p->raddr + a;
  if (p->addr) return p->addr + a;
  return NULL;
}

/* ---- cross-memory block walks for non-contiguous target types ---- */
typedef struct {
  int local, write;
  uint64_t rbase;
  char *buf;          /* packed stream */
  size_t pos;
  uint64_t run_off;   /* pending block being merged */
  size_t run_len;
  int err;
} cwalk_t;

static void cw_flush(cwalk_t *c) {
  if (!c->run_len || c->err) {
    c->run_len = 0;
    return;
  }
  int rc = c->write ? fy_shm_cma_write(c->local, (void *)(uintptr_t)(c->rbase + c->run_off), c->buf + c->pos, c->run_len)
                    : fy_shm_cma_read(c->local, c->buf + c->pos, (const void *)(uintptr_t)(c->rbase + c->run_off),
                                      c->run_len);
  if (rc) c->err = 1;
  c->pos += c->run_len;
  c->run_len = 0;
}

static void cw_block(cwalk_t *c, uint64_t off, size_t len) {
  if (c->run_len && c->run_off + c->run_len == off) {
    c->run_len += len;
    return;
  }
  cw_flush(c);
  c->run_off = off;
  c->run_len = len;
}

/* Every block of one item of t at off, in stream order (the byte layout). */
static void cw_item(cwalk_t *c, const fy_datatype_t *t, uint64_t off) {
  const fy_flat_t *f = &t->pk;
  for (MPI_Count r = 0; r < f->rep; r++)
    for (MPI_Count i = 0; i < f->nsegs; i++) {
      const fy_seg_t *g = &f->segs[i];
      for (MPI_Count k = 0; k < g->n; k++)
        cw_block(c, off + (uint64_t)(r * f->rep_stride + g->disp + k * g->stride), (size_t)g->len);
    }
}

/* Move count items of type tt at remote address ra of target t to/from the
 * packed stream buf. */
static int remote_io(fy_win_t *w, int t, uint64_t ra, fy_datatype_t *tt, MPI_Count count, char *buf, int write) {
  int local = w->peer[t].local;
  int rc = 0;
  if (tt->is_contig) {
    size_t n = (size_t)(count * tt->size);
    if (!n) return MPI_SUCCESS;
    void *r = (void *)(uintptr_t)(ra + (uint64_t)tt->true_lb);
    rc = write ? fy_shm_cma_write(local, r, buf, n) : fy_shm_cma_read(local, buf, r, n);
  } else {
    cwalk_t c = {.local = local, .write = write, .rbase = ra, .buf = buf};
    for (MPI_Count i = 0; i < count; i++) cw_item(&c, tt, (uint64_t)(i * tt->extent));
    cw_flush(&c);
    rc = c.err ? -1 : 0;
  }
  if (rc) return fy_err(MPI_ERR_OTHER, "cross-memory access to rank %d's window failed", t);
  return MPI_SUCCESS;
}

/* Gather (read) or scatter (write) the target data as a packed stream. */
static int target_io(fy_win_t *w, int t, uint64_t a, fy_datatype_t *tt, MPI_Count count, char *buf, int write) {
  uint64_t ra;
  char *lp = local_ptr(w, t, a, &ra);
  if (lp) {
    if (write) fy_type_unpack(tt, count, buf, (size_t)(count * tt->size), lp);
    else fy_type_pack(tt, count, lp, buf);
    return MPI_SUCCESS;
  }
  return remote_io(w, t, ra, tt, count, buf, write);
}

/* ---- the accumulate lock ---- */
static void acc_lock(fy_win_t *w, int t) {
  _Atomic uint32_t *l = &w->blk[t].acc;
  int spins = 0;
  for (;;) {
    uint32_t z = 0;
    if (atomic_compare_exchange_weak_explicit(l, &z, 1, memory_order_acquire, memory_order_relaxed)) return;
    /* wait for it to look free before the next attempt (no line ping-pong) */
    while (atomic_load_explicit(l, memory_order_relaxed)) {
      if (++spins > 64) {
        sched_yield();
        spins = 0;
      } else {
        __builtin_ia32_pause();
      }
    }
  }
}
static void acc_unlock(fy_win_t *w, int t) { atomic_store_explicit(&w->blk[t].acc, 0, memory_order_release); }

/* Accumulate / get-accumulate / fetch-and-op core: origin stream `in` (n
 * basic elements, NULL for NO_OP), result stream `res` (or NULL); the two
 * do not overlap. Every accumulate-family operation toward a target runs
 * under that target's accumulate lock, so element atomicity holds between
 * any two of them whatever their sizes; contiguous mapped target data is
 * updated in place by the reduction kernel (per-element compare-and-swap
 * cost ~25 ns an element: 64 KiB of doubles took 280 us instead of 2). */
static int acc_core(fy_win_t *w, int t, uint64_t a, fy_datatype_t *tt, MPI_Count tcount, MPI_Op op,
                    const char *in, char *res) {
  fy_datatype_t *b;
  MPI_Count per;
  if (tcount == 0 || tt->size == 0) return MPI_SUCCESS; /* no bytes: no basic type to find */
  if (!fy_type_reduce_basic(tt, &b, &per) || !b) return fy_err(MPI_ERR_TYPE, "accumulate: mixed basic types");
  MPI_Count n = tcount * per;
  if (!n) return MPI_SUCCESS;
  fy_op_kernel_t k;
  int err = fy_rma_kernel(op, b, &k);
  if (err) return err;
  size_t bytes = (size_t)n * (size_t)b->size;
  uint64_t ra;
  char *lp = local_ptr(w, t, a, &ra);
  if (lp && tt->is_contig) {
    char *p = lp + tt->true_lb;
    acc_lock(w, t);
    if (res) memcpy(res, p, bytes);
    if (op != MPI_NO_OP) fy_op_kernel_run(&k, in, p, n);
    acc_unlock(w, t);
    return MPI_SUCCESS;
  }
  /* packed read-modify-write of the target data */
  char small[256], *tmp = bytes <= sizeof small ? small : malloc(bytes);
  if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory in an accumulate");
  acc_lock(w, t);
  err = target_io(w, t, a, tt, tcount, tmp, 0);
  if (!err) {
    if (res) memcpy(res, tmp, bytes);
    if (op != MPI_NO_OP) {
      fy_op_kernel_run(&k, in, tmp, n);
      err = target_io(w, t, a, tt, tcount, tmp, 1);
    }
  }
  acc_unlock(w, t);
  if (tmp != small) free(tmp);
  return err;
}

/* ---- run one operation ---- */
int fy_rma_exec(fy_win_t *w, fy_rmaop_t *op) {
  int t = op->target, err = MPI_SUCCESS;
  uint64_t a;
  err = fy_rma_target_range(w, t, op->tdisp, op->tcount, op->ttype, &a);
  if (err) return err;
  size_t bytes = (size_t)(op->tcount * op->ttype->size);
  switch (op->kind) {
    case FY_OP_PUT: {
      uint64_t ra;
      char *lp = local_ptr(w, t, a, &ra);
      if (op->otype->is_contig && op->ttype->is_contig) {
        const char *src = (const char *)op->oaddr + op->otype->true_lb;
        if (lp) fy_copy(lp + op->ttype->true_lb, src, bytes);
        else err = remote_io(w, t, ra, op->ttype, op->tcount, (char *)src, 1);
        break;
      }
      char *tmp = malloc(bytes ? bytes : 1);
      if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory in MPI_Put");
      fy_type_pack(op->otype, op->ocount, op->oaddr, tmp);
      err = target_io(w, t, a, op->ttype, op->tcount, tmp, 1);
      free(tmp);
      break;
    }
    case FY_OP_GET: {
      uint64_t ra;
      char *lp = local_ptr(w, t, a, &ra);
      if (op->otype->is_contig && op->ttype->is_contig) {
        char *dst = (char *)op->raddr + op->otype->true_lb;
        if (lp) fy_copy(dst, lp + op->ttype->true_lb, bytes);
        else err = remote_io(w, t, ra, op->ttype, op->tcount, dst, 0);
        break;
      }
      char *tmp = malloc(bytes ? bytes : 1);
      if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory in MPI_Get");
      err = target_io(w, t, a, op->ttype, op->tcount, tmp, 0);
      if (!err) fy_type_unpack(op->otype, op->ocount, tmp, bytes, op->raddr);
      free(tmp);
      break;
    }
    case FY_OP_ACC:
    case FY_OP_GACC:
    case FY_OP_FOP: {
      /* contiguous origin and result data are used in place */
      const char *in = NULL;
      char *res = NULL, *inbuf = NULL, *resbuf = NULL;
      if (op->op != MPI_NO_OP) {
        if (op->otype->is_contig) {
          in = (const char *)op->oaddr + op->otype->true_lb;
        } else {
          in = inbuf = malloc(bytes ? bytes : 1);
          if (!inbuf) return fy_err(MPI_ERR_NO_MEM, "out of memory in an accumulate");
          fy_type_pack(op->otype, op->ocount, op->oaddr, inbuf);
        }
      }
      if (op->kind != FY_OP_ACC) {
        res = (char *)op->raddr + op->rtype->true_lb;
        if (!op->rtype->is_contig || (in && res < in + bytes && in < res + bytes)) {
          res = resbuf = malloc(bytes ? bytes : 1);
          if (!resbuf) {
            free(inbuf);
            return fy_err(MPI_ERR_NO_MEM, "out of memory in an accumulate");
          }
        }
      }
      err = acc_core(w, t, a, op->ttype, op->tcount, op->op, in, res);
      if (!err && resbuf) fy_type_unpack(op->rtype, op->rcount, resbuf, bytes, op->raddr);
      free(inbuf);
      free(resbuf);
      break;
    }
    case FY_OP_CAS: {
      /* under the accumulate lock too: atomic with every accumulate */
      size_t sz = (size_t)op->ttype->size;
      char cur[64];
      acc_lock(w, t);
      err = target_io(w, t, a, op->ttype, 1, cur, 0);
      if (!err && memcmp(cur, op->caddr, sz) == 0) err = target_io(w, t, a, op->ttype, 1, (char *)op->oaddr, 1);
      acc_unlock(w, t);
      if (!err) memcpy(op->raddr, cur, sz);
      break;
    }
  }
  return err;
}

/* ---- entry points ---- */

static int check_target(fy_win_t *w, int t) {
  if (t == MPI_PROC_NULL) return MPI_SUCCESS;
  if (t < 0 || t >= w->size)
    return fy_err(MPI_ERR_RANK, "target_rank = %d is not a rank of the window (size %d)", t, w->size);
  return MPI_SUCCESS;
}

/* Operations are built by copying this (an initializer of the whole struct
 * compiles to `rep stos`, slower than the rest of a small accumulate). */
static const fy_rmaop_t rmaop_zero;

static void rmaop_init(fy_rmaop_t *o, int kind, int t, MPI_Count oc, fy_datatype_t *ot, MPI_Aint disp,
                       MPI_Count tc, fy_datatype_t *tt) {
  *o = rmaop_zero;
  o->kind = kind;
  o->target = t;
  o->ocount = oc;
  o->otype = ot;
  o->tdisp = disp;
  o->tcount = tc;
  o->ttype = tt;
}

/* Common path: bind, validate, issue (or complete at once for PROC_NULL). */
static int start_op(fy_win_t *w, fy_rmaop_t *op, int passive_only, MPI_Request *request) {
  if (w->am) return fy_rma_am_op(w, op, passive_only, request);
  if (!request) {
    /* the window's only epoch holds the grant: run it now (fy_rma_issue's
     * immediate case, without the binding search) */
    fy_plock();
    if (fy_rma_ready(w, op->target)) {
      int err = fy_rma_exec(w, op);
      fy_punlock();
      return err;
    }
    fy_punlock();
  }
  int err = check_target(w, op->target);
  if (err) return err;
  fy_request_t *r = NULL;
  if (request) {
    r = fy_req_alloc(FY_REQ_RMA, 1);
    if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests");
    fy_status_empty(&r->status);
    op->req = r;
  }
  fy_plock();
  fy_epoch_t *e = fy_rma_bind(w, op->target == MPI_PROC_NULL ? -1 : op->target, passive_only, &err);
  if (!e) goto fail;
  if (op->target == MPI_PROC_NULL) {
    if (r) fy_req_complete(r);
    fy_punlock();
    if (request) *request = r->handle;
    return MPI_SUCCESS;
  }
  err = fy_rma_issue(w, e, op); /* checks the target range */
  if (err) goto fail;
  fy_punlock();
  if (request) *request = r->handle;
  return MPI_SUCCESS;
fail:
  fy_punlock();
  if (r) fy_req_release(r);
  return err;
}

static int same_size(fy_datatype_t *ot, MPI_Count oc, fy_datatype_t *tt, MPI_Count tc) {
  if (ot->size * oc != tt->size * tc)
    return fy_err(MPI_ERR_TYPE, "origin (%lld bytes) and target (%lld bytes) data differ in size",
                  (long long)(ot->size * oc), (long long)(tt->size * tc));
  return MPI_SUCCESS;
}

static int same_basic(fy_datatype_t *ot, fy_datatype_t *tt) {
  fy_datatype_t *b1 = NULL, *b2 = NULL;
  MPI_Count p1, p2;
  /* no single basic type (mixed, or an empty type): b is NULL */
  if (!fy_type_reduce_basic(ot, &b1, &p1)) b1 = NULL;
  if (!fy_type_reduce_basic(tt, &b2, &p2)) b2 = NULL;
  if (b1 != b2 || !b1)
    return fy_err(MPI_ERR_TYPE, "accumulate: origin (%s) and target (%s) basic types differ",
                  b1 ? b1->name : "no single basic type", b2 ? b2->name : "no single basic type");
  return MPI_SUCCESS;
}

static int put_get(int kind, const void *oaddr, MPI_Count oc, MPI_Datatype otype, int t, MPI_Aint disp,
                   MPI_Count tc, MPI_Datatype ttype, MPI_Win win, MPI_Request *req) {
  fy_win_t *w = fy_win_get(win);
  fy_datatype_t *ot = fy_type_get(otype), *tt = fy_type_get(ttype);
  if (!tt || !tt->committed) return fy_err(MPI_ERR_TYPE, "target_datatype = %#x is not a committed datatype", (unsigned)ttype);
  if (tc < 0) return fy_err(MPI_ERR_COUNT, "target_count = %lld is negative", (long long)tc);
  int err = same_size(ot, oc, tt, tc);
  if (err) return err;
  if (!req && ot->is_contig && tt->is_contig && w->flavor != FY_WIN_DYNAMIC && disp >= 0) {
    /* fast path: the epoch holds the grant, the target memory is mapped */
    fy_plock();
    fy_win_peer_t *p = &w->peer[(unsigned)t < (unsigned)w->size ? t : 0];
    MPI_Aint off = disp * p->disp_unit + tt->true_lb;
    size_t bytes = (size_t)(tc * tt->size);
    if (fy_rma_ready(w, t) && p->addr && off >= 0 && (uint64_t)off + bytes <= p->size) {
      if (kind == FY_OP_PUT) fy_copy(p->addr + off, (const char *)oaddr + ot->true_lb, bytes);
      else fy_copy((char *)oaddr + ot->true_lb, p->addr + off, bytes);
      fy_punlock();
      return MPI_SUCCESS;
    }
    fy_punlock();
  }
  fy_rmaop_t op;
  rmaop_init(&op, kind, t, oc, ot, disp, tc, tt);
  if (kind == FY_OP_PUT) op.oaddr = oaddr;
  else op.raddr = (void *)oaddr;
  return start_op(w, &op, req != NULL, req);
}

int fy_mpi_put_c(const void *oa, MPI_Count oc, MPI_Datatype ot, int t, MPI_Aint d, MPI_Count tc, MPI_Datatype tt,
                 MPI_Win win) {
  return put_get(FY_OP_PUT, oa, oc, ot, t, d, tc, tt, win, NULL);
}
int fy_mpi_put(const void *oa, int oc, MPI_Datatype ot, int t, MPI_Aint d, int tc, MPI_Datatype tt, MPI_Win win) {
  return put_get(FY_OP_PUT, oa, oc, ot, t, d, tc, tt, win, NULL);
}
int fy_mpi_get_c(void *oa, MPI_Count oc, MPI_Datatype ot, int t, MPI_Aint d, MPI_Count tc, MPI_Datatype tt,
                 MPI_Win win) {
  return put_get(FY_OP_GET, oa, oc, ot, t, d, tc, tt, win, NULL);
}
int fy_mpi_get(void *oa, int oc, MPI_Datatype ot, int t, MPI_Aint d, int tc, MPI_Datatype tt, MPI_Win win) {
  return put_get(FY_OP_GET, oa, oc, ot, t, d, tc, tt, win, NULL);
}
int fy_mpi_rput_c(const void *oa, MPI_Count oc, MPI_Datatype ot, int t, MPI_Aint d, MPI_Count tc,
                  MPI_Datatype tt, MPI_Win win, MPI_Request *r) {
  return put_get(FY_OP_PUT, oa, oc, ot, t, d, tc, tt, win, r);
}
int fy_mpi_rput(const void *oa, int oc, MPI_Datatype ot, int t, MPI_Aint d, int tc, MPI_Datatype tt, MPI_Win win,
                MPI_Request *r) {
  return put_get(FY_OP_PUT, oa, oc, ot, t, d, tc, tt, win, r);
}
int fy_mpi_rget_c(void *oa, MPI_Count oc, MPI_Datatype ot, int t, MPI_Aint d, MPI_Count tc, MPI_Datatype tt,
                  MPI_Win win, MPI_Request *r) {
  return put_get(FY_OP_GET, oa, oc, ot, t, d, tc, tt, win, r);
}
int fy_mpi_rget(void *oa, int oc, MPI_Datatype ot, int t, MPI_Aint d, int tc, MPI_Datatype tt, MPI_Win win,
                MPI_Request *r) {
  return put_get(FY_OP_GET, oa, oc, ot, t, d, tc, tt, win, r);
}

static int gacc(int kind, const void *oa, MPI_Count oc, MPI_Datatype otype, void *ra, MPI_Count rc,
                MPI_Datatype rtype, int t, MPI_Aint d, MPI_Count tc, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                MPI_Request *req) {
  fy_win_t *w = fy_win_get(win);
  fy_datatype_t *tt = fy_type_get(ttype);
  fy_datatype_t *ot = op != MPI_NO_OP ? fy_type_get(otype) : NULL; /* NO_OP ignores the origin */
  fy_datatype_t *rt = kind != FY_OP_ACC ? fy_type_get(rtype) : NULL;
  if (!tt || !tt->committed) return fy_err(MPI_ERR_TYPE, "target_datatype = %#x is not a committed datatype", (unsigned)ttype);
  if (tc < 0) return fy_err(MPI_ERR_COUNT, "target_count = %lld is negative", (long long)tc);
  /* An operation that moves nothing (MPI_PROC_NULL, or no bytes: zero
   * counts or zero-size types, MPICH's rma/badrma) is a no-op: the
   * operation and type matching rules have nothing to apply to, as in
   * MPICH. The types are checked below all the same. */
  int nodata = t == MPI_PROC_NULL ||
               ((tc <= 0 || tt->size == 0) && (oc <= 0 || !ot || ot->size == 0) &&
                (rc <= 0 || !rt || rt->size == 0));
  int err = nodata ? MPI_SUCCESS : fy_rma_op_check(op, tt, kind != FY_OP_ACC);
  if (err) return err;
  if (op != MPI_NO_OP) {
    if (!ot || !ot->committed) return fy_err(MPI_ERR_TYPE, "origin_datatype = %#x is not a committed datatype", (unsigned)otype);
    if (oc < 0) return fy_err(MPI_ERR_COUNT, "origin_count = %lld is negative", (long long)oc);
    if (!nodata && ((ot != tt && (err = same_basic(ot, tt))) || (err = same_size(ot, oc, tt, tc)))) return err;
  }
  if (kind != FY_OP_ACC) {
    if (!rt || !rt->committed) return fy_err(MPI_ERR_TYPE, "result_datatype = %#x is not a committed datatype", (unsigned)rtype);
    if (rc < 0) return fy_err(MPI_ERR_COUNT, "result_count = %lld is negative", (long long)rc);
    if (!nodata && ((rt != tt && (err = same_basic(rt, tt))) || (err = same_size(rt, rc, tt, tc)))) return err;
  }
  fy_rmaop_t o;
  rmaop_init(&o, kind, t, oc, ot, d, tc, tt);
  o.oaddr = oa;
  o.raddr = ra;
  o.rcount = rc;
  o.rtype = rt;
  o.op = op;
  return start_op(w, &o, req != NULL, req);
}

int fy_mpi_accumulate_c(const void *oa, MPI_Count oc, MPI_Datatype ot, int t, MPI_Aint d, MPI_Count tc,
                        MPI_Datatype tt, MPI_Op op, MPI_Win win) {
  return gacc(FY_OP_ACC, oa, oc, ot, NULL, 0, MPI_DATATYPE_NULL, t, d, tc, tt, op, win, NULL);
}
int fy_mpi_accumulate(const void *oa, int oc, MPI_Datatype ot, int t, MPI_Aint d, int tc, MPI_Datatype tt,
                      MPI_Op op, MPI_Win win) {
  return gacc(FY_OP_ACC, oa, oc, ot, NULL, 0, MPI_DATATYPE_NULL, t, d, tc, tt, op, win, NULL);
}
int fy_mpi_raccumulate_c(const void *oa, MPI_Count oc, MPI_Datatype ot, int t, MPI_Aint d, MPI_Count tc,
                         MPI_Datatype tt, MPI_Op op, MPI_Win win, MPI_Request *r) {
  return gacc(FY_OP_ACC, oa, oc, ot, NULL, 0, MPI_DATATYPE_NULL, t, d, tc, tt, op, win, r);
}
int fy_mpi_raccumulate(const void *oa, int oc, MPI_Datatype ot, int t, MPI_Aint d, int tc, MPI_Datatype tt,
                       MPI_Op op, MPI_Win win, MPI_Request *r) {
  return gacc(FY_OP_ACC, oa, oc, ot, NULL, 0, MPI_DATATYPE_NULL, t, d, tc, tt, op, win, r);
}
int fy_mpi_get_accumulate_c(const void *oa, MPI_Count oc, MPI_Datatype ot, void *ra, MPI_Count rc,
                            MPI_Datatype rt, int t, MPI_Aint d, MPI_Count tc, MPI_Datatype tt, MPI_Op op,
                            MPI_Win win) {
  return gacc(FY_OP_GACC, oa, oc, ot, ra, rc, rt, t, d, tc, tt, op, win, NULL);
}
int fy_mpi_get_accumulate(const void *oa, int oc, MPI_Datatype ot, void *ra, int rc, MPI_Datatype rt, int t,
                          MPI_Aint d, int tc, MPI_Datatype tt, MPI_Op op, MPI_Win win) {
  return gacc(FY_OP_GACC, oa, oc, ot, ra, rc, rt, t, d, tc, tt, op, win, NULL);
}
int fy_mpi_rget_accumulate_c(const void *oa, MPI_Count oc, MPI_Datatype ot, void *ra, MPI_Count rc,
                             MPI_Datatype rt, int t, MPI_Aint d, MPI_Count tc, MPI_Datatype tt, MPI_Op op,
                             MPI_Win win, MPI_Request *r) {
  return gacc(FY_OP_GACC, oa, oc, ot, ra, rc, rt, t, d, tc, tt, op, win, r);
}
int fy_mpi_rget_accumulate(const void *oa, int oc, MPI_Datatype ot, void *ra, int rc, MPI_Datatype rt, int t,
                           MPI_Aint d, int tc, MPI_Datatype tt, MPI_Op op, MPI_Win win, MPI_Request *r) {
  return gacc(FY_OP_GACC, oa, oc, ot, ra, rc, rt, t, d, tc, tt, op, win, r);
}
int fy_mpi_fetch_and_op(const void *oa, void *ra, MPI_Datatype dt, int t, MPI_Aint d, MPI_Op op, MPI_Win win) {
  fy_datatype_t *b = fy_type_get(dt);
  if (!b || !b->builtin)
    return fy_err(MPI_ERR_TYPE, "datatype = %#x: MPI_Fetch_and_op takes a predefined datatype", (unsigned)dt);
  return gacc(FY_OP_FOP, oa, 1, dt, ra, 1, dt, t, d, 1, dt, op, win, NULL);
}
int fy_mpi_compare_and_swap(const void *oa, const void *ca, void *ra, MPI_Datatype dt, int t, MPI_Aint d,
                            MPI_Win win) {
  fy_win_t *w = fy_win_get(win);
  fy_datatype_t *b = fy_type_get(dt);
  if (!fy_op_cas_type(b))
    return fy_err(MPI_ERR_TYPE, "datatype = %s: MPI_Compare_and_swap takes a predefined integer, logical or "
                  "byte type", b ? b->name : "(invalid)");
  if (!oa || !ca || !ra) return fy_err(MPI_ERR_ARG, "MPI_Compare_and_swap: NULL buffer");
  fy_rmaop_t o = {.kind = FY_OP_CAS, .target = t, .oaddr = oa, .ocount = 1, .otype = b, .caddr = ca, .raddr = ra,
                  .rcount = 1, .rtype = b, .tdisp = d, .tcount = 1, .ttype = b};
  return start_op(w, &o, 0, NULL);
}
