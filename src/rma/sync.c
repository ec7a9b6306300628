/* The synchronization engine: epochs, their FIFO queue per window, grants,
 * recorded operations, and every synchronization call in its nonblocking
 * (MPIX_Win_i*) and blocking (= nonblocking + wait) form. See fy_rma.h and
 * docs/rma.md for the rules this implements.
 *
 * States: an epoch is DEFERRED (queued, not activated), ACTIVE (activated:
 * ids assigned / grants published / lock requested) and, once closed by the
 * application and fully progressed, completed (removed from the queue).
 * Application order is kept by open_seq / close_seq: two epochs that are
 * open at the same time at application level (MPI-3 allows an access and an
 * exposure epoch, or locks on distinct targets) may be active together;
 * an epoch opened after its predecessor was closed waits for that
 * predecessor to complete unless a reorder key allows otherwise. */
#include "rma/fy_rma.h"
#include "core/fy_error.h"
#include "core/fy_group.h"
#include "progress/fy_progress.h"
#include "pt2pt/fy_pt2pt.h"
#include "transport/shm/fy_shm.h"
#include "transport/shm/fy_shm_internal.h" /* doorbell armed counts */
#include "binding/fy_impl.h"
#include "runtime/fy_config.h"
#include "core/fy_init.h"
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#define LOCK_EXCL (1ull << 63)

/* D words only grow: both the origin and (for delegated epochs) the target
 * write them, and with the reorder keys a later epoch may finish first. */
static void done_max(_Atomic uint64_t *d, uint64_t id) {
  uint64_t cur = atomic_load_explicit(d, memory_order_relaxed);
  while (cur < id &&
         !atomic_compare_exchange_weak_explicit(d, &cur, id, memory_order_release, memory_order_relaxed)) {
  }
}

static int hook_added;
void fy_rma_hook_ensure(void) {
  if (!hook_added) {
    fy_plock();
    if (!hook_added && fy_progress_hook_add(fy_rma_progress) == 0) hook_added = 1;
    fy_punlock();
  }
}

/* Wake rank r if it sleeps on its doorbell, after our store of the grant /
 * done / unlock word (the ring fences, then wakes only armed sleepers). */
void fy_rma_wake(fy_win_t *w, int r) {
  if (r == w->rank) return;
  fy_shm_doorbell_ring(w->peer[r].local);
}
static void wake_all(fy_win_t *w) {
  for (int r = 0; r < w->size; r++) fy_rma_wake(w, r);
}

static int is_access(const fy_epoch_t *e) {
  return e->kind == FY_EP_START || e->kind == FY_EP_LOCK || e->kind == FY_EP_LOCK_ALL ||
         (e->kind == FY_EP_FENCE && !e->no_access);
}

static int member_idx(const fy_epoch_t *e, int r) {
  if (e->kind == FY_EP_LOCK_ALL) return r;
  for (int i = 0; i < e->n; i++)
    if (e->ranks[i] == r) return i;
  return -1;
}

static int covers(const fy_epoch_t *e, int t) {
  switch (e->kind) {
    case FY_EP_FENCE: return !e->no_access;
    case FY_EP_LOCK_ALL: return 1;
    case FY_EP_LOCK: return t < 0 || e->target == t;
    case FY_EP_START: return t < 0 || member_idx(e, t) >= 0;
  }
  return 0;
}

/* ---- grants ---- */

static int try_lock(fy_win_t *w, int t, int excl) {
  _Atomic uint64_t *l = &w->blk[t].lock;
  uint64_t v = atomic_load_explicit(l, memory_order_relaxed);
  if (excl) {
    if (v) return 0;
    return atomic_compare_exchange_strong_explicit(l, &v, LOCK_EXCL, memory_order_acquire, memory_order_relaxed);
  }
  while (!(v & LOCK_EXCL))
    if (atomic_compare_exchange_weak_explicit(l, &v, v + 1, memory_order_acquire, memory_order_relaxed)) return 1;
  return 0;
}

/* Take the lock, or register as a waiter (so that the unlocker rings our
 * doorbell) and try once more: waiter store, fence, lock load here against
 * unlock store, fence, waiters load there (one of the two sees the other). */
static int lock_or_wait(fy_win_t *w, int t, int excl, uint8_t *waiting) {
  int got = try_lock(w, t, excl);
  if (!got && !*waiting) {
    atomic_fetch_add_explicit(&w->blk[t].waiters, 1, memory_order_seq_cst);
    *waiting = 1;
    got = try_lock(w, t, excl);
  }
  if (got && *waiting) {
    atomic_fetch_sub_explicit(&w->blk[t].waiters, 1, memory_order_relaxed);
    *waiting = 0;
  }
  return got;
}

static void unlock(fy_win_t *w, int t, int excl) {
  if (excl) atomic_store_explicit(&w->blk[t].lock, 0, memory_order_seq_cst);
  else atomic_fetch_sub_explicit(&w->blk[t].lock, 1, memory_order_seq_cst);
  if (atomic_load_explicit(&w->blk[t].waiters, memory_order_seq_cst)) wake_all(w);
}

static int granted(fy_win_t *w, fy_epoch_t *e, int t) {
  if (e->state != FY_EPS_ACTIVE) return 0;
  if (e->all_granted) return 1;
  if (e->kind == FY_EP_START || e->kind == FY_EP_LOCK_ALL) {
    int i = member_idx(e, t);
    return i >= 0 && e->granted[i];
  }
  return 0;
}

/* Look at the grant words; returns the number of new grants. */
static int update_grants(fy_win_t *w, fy_epoch_t *e) {
  if (e->state != FY_EPS_ACTIVE || e->all_granted) return 0;
  int n = w->size, me = w->rank, ev = 0, all = 1;
  switch (e->kind) {
    case FY_EP_FENCE:
      for (int p = 0; p < n; p++)
        if (atomic_load_explicit(&w->blk[p].fence, memory_order_acquire) < (uint64_t)e->fence_no) return 0;
      e->all_granted = 1;
      ev = 1;
      break;
    case FY_EP_START:
      for (int i = 0; i < e->n; i++) {
        if (!e->granted[i]) {
          int t = e->ranks[i];
          if (atomic_load_explicit(&w->ce[(size_t)t * n + me].v, memory_order_acquire) >= e->ids[i]) {
            e->granted[i] = 1;
            ev++;
          } else {
            all = 0;
          }
        }
      }
      e->all_granted = all;
      break;
    case FY_EP_LOCK:
      if (e->target < 0 || (e->assert_ & MPI_MODE_NOCHECK) ||
          lock_or_wait(w, e->target, e->lock_type == MPI_LOCK_EXCLUSIVE, &e->waiting[0])) {
        if (e->target >= 0 && !(e->assert_ & MPI_MODE_NOCHECK)) e->held[0] = 1;
        e->all_granted = 1;
        ev = 1;
      }
      break;
    case FY_EP_LOCK_ALL:
      for (int t = 0; t < n; t++) {
        if (e->granted[t]) continue;
        if ((e->assert_ & MPI_MODE_NOCHECK) || lock_or_wait(w, t, 0, &e->waiting[t])) {
          if (!(e->assert_ & MPI_MODE_NOCHECK)) e->held[t] = 1;
          e->granted[t] = 1;
          ev++;
        } else {
          all = 0;
        }
      }
      e->all_granted = all;
      break;
    default:
      return 0;
  }
  if (e->all_granted && e->open_req && e->kind != FY_EP_START) {
    fy_req_complete(e->open_req);
    e->open_req = NULL;
  }
  return ev;
}

/* ---- recorded operations ---- */

static void op_free(fy_rmaop_t *op) {
  fy_type_release(op->otype);
  fy_type_release(op->rtype);
  fy_type_release(op->ttype);
  free(op);
}

static void flush_done(fy_rmaop_t *op) {
  fy_request_t *r = op->req;
  if (r && --r->count <= 0) fy_req_complete(r);
}

/* Run what can run, in order per target; a flush completes once nothing
 * before it toward its target (or toward any target) is left. */
static int replay(fy_win_t *w, fy_epoch_t *e) {
  if (!e->ops || e->state != FY_EPS_ACTIVE) return 0;
  memset(w->scratch, 0, (size_t)w->size);
  int any_blocked = 0, ev = 0;
  fy_rmaop_t **pp = &e->ops, *prev = NULL;
  while (*pp) {
    fy_rmaop_t *op = *pp;
    int run;
    if (op->kind == FY_OP_FLUSH) {
      run = op->flush_all ? !any_blocked : !w->scratch[op->target];
    } else if (w->scratch[op->target] || !granted(w, e, op->target)) {
      w->scratch[op->target] = 1;
      any_blocked = 1;
      run = 0;
    } else if (op->ds) {
      /* published: claim it, or see whether the target ran it */
      uint32_t st = FY_DS_POSTED;
      if (atomic_compare_exchange_strong_explicit(&op->ds->state, &st, FY_DS_CLAIMED, memory_order_acq_rel,
                                                  memory_order_acquire)) {
        run = 1;
      } else if (st == FY_DS_DONE) {
        run = 2; /* the target copied it */
      } else {
        w->scratch[op->target] = 1; /* the target is copying it */
        any_blocked = 1;
        run = 0;
      }
    } else {
      run = 1;
    }
    if (!run) {
      prev = op;
      pp = &op->next;
      continue;
    }
    if (op->kind == FY_OP_FLUSH) {
      flush_done(op);
    } else if (run == 2) {
      atomic_store_explicit(&op->ds->state, FY_DS_FREE, memory_order_release);
    } else {
      int err = fy_rma_exec(w, op);
      if (op->ds) atomic_store_explicit(&op->ds->state, FY_DS_FREE, memory_order_release);
      if (err && !e->err) e->err = err;
      if (op->req) {
        op->req->status.MPI_ERROR = err;
        fy_req_complete(op->req);
      }
    }
    *pp = op->next;
    if (e->ops_tail == op) e->ops_tail = prev;
    op_free(op);
    ev++;
  }
  return ev;
}

/* ---- delegated puts (see fy_rma_dslot_t) ---- */


static void delegate(fy_win_t *w, fy_epoch_t *e, fy_rmaop_t *c) {
  int t = c->target, me = w->rank, i = member_idx(e, t);
  if (c->kind != FY_OP_PUT || !w->mapped || t == me || i < 0 || c->req || !c->otype->is_contig ||
      !c->ttype->is_contig || !fy_shm_cma_available())
    return;
  fy_rma_dpair_t *p = &w->dp[(size_t)t * w->size + me];
  for (int k = 0; k < FY_RMA_DSLOTS; k++) {
    fy_rma_dslot_t *d = &p->slot[k];
    if (atomic_load_explicit(&d->state, memory_order_acquire) != FY_DS_FREE) continue;
    d->seq = p->next_seq++;
    d->id = e->ids[i];
    d->oaddr = (uint64_t)(uintptr_t)((const char *)c->oaddr + c->otype->true_lb);
    d->len = (uint64_t)(c->tcount * c->ttype->size);
    d->toff = (uint64_t)(c->tdisp * w->peer[t].disp_unit + c->ttype->true_lb);
    atomic_store_explicit(&d->state, FY_DS_POSTED, memory_order_release);
    c->ds = d;
    fy_rma_wake(w, t);
    return;
  }
}

/* Origin, closing an access epoch without waiting (icomplete): publish the
 * recorded puts toward each target, in order, and toward each target all
 * of whose recorded operations are published, let the target count the
 * epoch as done. Only then: before the close the origin is still going to
 * run them itself, and a blocking close waits inside MPI where its memcpy
 * beats the target's cross-memory read (publishing at record time let the
 * target take puts the origin was about to run, at a system call each). */
static void delegate_close(fy_win_t *w, fy_epoch_t *e) {
  if (e->kind != FY_EP_START || e->state != FY_EPS_ACTIVE || !e->ops) return;
  for (int i = 0; i < e->n; i++) {
    int t = e->ranks[i], all = 1;
    if (t == w->rank) continue;
    for (fy_rmaop_t *op = e->ops; op && all; op = op->next)
      if (op->target == t && !op->ds) {
        delegate(w, e, op);
        all = op->ds != NULL; /* in order: stop at the first one not published */
      }
    if (!all) continue;
    atomic_store_explicit(&w->dp[(size_t)t * w->size + w->rank].closed, e->ids[i], memory_order_release);
    fy_rma_wake(w, t);
  }
}

/* Target, exposure e active: run the delegated puts of each origin's
 * matching access epoch in order, and count that epoch done when the origin
 * closed it with everything delegated. */
static int run_delegated(fy_win_t *w, fy_epoch_t *e) {
  int n = w->size, me = w->rank, ev = 0;
  for (int i = 0; i < e->n; i++) {
    int o = e->ranks[i];
    uint64_t id = e->ids[i];
    if (o == me || atomic_load_explicit(&w->dn[(size_t)me * n + o].v, memory_order_acquire) >= id) continue;
    fy_rma_dpair_t *p = &w->dp[(size_t)me * n + o];
    /* read `closed` first: every slot of a closed epoch was posted before it */
    uint64_t closed = atomic_load_explicit(&p->closed, memory_order_acquire);
    int left = closed >= id;
    for (int k = 0; k < FY_RMA_DSLOTS && !left; k++) {
      uint32_t st = atomic_load_explicit(&p->slot[k].state, memory_order_acquire);
      left = (st == FY_DS_POSTED || st == FY_DS_CLAIMED) && p->slot[k].id == id;
    }
    if (!left) continue; /* nothing delegated (these lines stay in our cache) */
    /* an origin waiting inside MPI copies faster itself (memcpy, no system
     * call): take its puts only while it is away (its word changes at every
     * wait: read it last) */
    if (atomic_load_explicit(fy_shm_in_mpi_word(w->peer[o].local), memory_order_acquire)) continue;
    for (;;) {
      fy_rma_dslot_t *first = NULL;
      left = 0;
      for (int k = 0; k < FY_RMA_DSLOTS; k++) {
        fy_rma_dslot_t *d = &p->slot[k];
        uint32_t st = atomic_load_explicit(&d->state, memory_order_acquire);
        if ((st == FY_DS_POSTED || st == FY_DS_CLAIMED) && d->id == id) {
          left = 1;
          if (!first || (int32_t)(d->seq - first->seq) < 0) first = d;
        }
      }
      if (!first) break;
      uint32_t expect = FY_DS_POSTED;
      if (!atomic_compare_exchange_strong_explicit(&first->state, &expect, FY_DS_CLAIMED, memory_order_acq_rel,
                                                   memory_order_acquire))
        break; /* the origin runs it (and the ones after it) itself */
      int rc = fy_shm_cma_read(w->peer[o].local, w->peer[me].addr + first->toff,
                               (const void *)(uintptr_t)first->oaddr, (size_t)first->len);
      atomic_store_explicit(&first->state, rc == 0 ? FY_DS_DONE : FY_DS_POSTED, memory_order_release);
      if (rc) break;
      ev++;
    }
    if (!left && closed >= id) {
      done_max(&w->dn[(size_t)me * n + o].v, id);
      ev++;
    }
  }
  return ev;
}

fy_epoch_t *fy_rma_ready(fy_win_t *w, int t) {
  fy_epoch_t *e = w->q;
  if (!e || e->next || e->closed || e->ops || e->state != FY_EPS_ACTIVE || (unsigned)t >= (unsigned)w->size)
    return NULL;
  switch (e->kind) {
    case FY_EP_FENCE: return e->all_granted && !e->no_access ? e : NULL;
    case FY_EP_LOCK: return e->all_granted && e->target == t ? e : NULL;
    case FY_EP_LOCK_ALL: return e->granted[t] ? e : NULL;
    case FY_EP_START: {
      int i = member_idx(e, t);
      return i >= 0 && (e->all_granted || e->granted[i]) ? e : NULL;
    }
  }
  return NULL;
}

int fy_rma_issue(fy_win_t *w, fy_epoch_t *e, fy_rmaop_t *op) {
  /* a grant that arrived since the last progress pass: look once more
   * before recording (a start just after the target's post) */
  if (!e->ops && e->state == FY_EPS_ACTIVE && !e->all_granted && e->kind == FY_EP_START) update_grants(w, e);
  if (!e->ops && granted(w, e, op->target)) {
    int err = fy_rma_exec(w, op);
    if (op->req) {
      if (err) return err; /* the caller releases the request */
      fy_req_complete(op->req);
    }
    return err;
  }
  if (op->kind != FY_OP_FLUSH && w->flavor != FY_WIN_DYNAMIC) { /* dynamic: checked when it runs */
    uint64_t a;
    int err = fy_rma_target_range(w, op->target, op->tdisp, op->tcount, op->ttype, &a);
    if (err) return err;
  }
  fy_rmaop_t *c = malloc(sizeof *c);
  if (!c) return fy_err(MPI_ERR_NO_MEM, "out of memory recording an RMA operation");
  *c = *op;
  c->next = NULL;
  c->ds = NULL;
  if (c->otype) fy_type_retain(c->otype);
  if (c->rtype) fy_type_retain(c->rtype);
  if (c->ttype) fy_type_retain(c->ttype);
  if (e->ops_tail) e->ops_tail->next = c;
  else e->ops = c;
  e->ops_tail = c;
  return MPI_SUCCESS;
}

/* ---- activation (rules 8, 12-19) ---- */

static int window_locked(fy_win_t *w) {
  return atomic_load_explicit(&w->blk[w->rank].lock, memory_order_acquire) != 0;
}

static int rank_is_target(fy_win_t *w, int r) {
  for (fy_epoch_t *x = w->q; x; x = x->next)
    if (x->state == FY_EPS_ACTIVE && x->kind != FY_EP_POST && x->kind != FY_EP_FENCE && covers(x, r)) return 1;
  return 0;
}

/* May e activate while x (closed before e was opened) is still active? */
static int reorder_ok(fy_win_t *w, fy_epoch_t *x, fy_epoch_t *e) {
  if (x->kind == FY_EP_FENCE || e->kind == FY_EP_FENCE) return 0;       /* rule 18 */
  if (x->kind == FY_EP_LOCK_ALL || e->kind == FY_EP_LOCK_ALL) return 0; /* rule 19 */
  int xa = x->kind == FY_EP_START || x->kind == FY_EP_LOCK, xe = x->kind == FY_EP_POST;
  unsigned ro = w->reorder;
  switch (e->kind) {
    case FY_EP_START: return (xa && (ro & FY_RO_AAA)) || (xe && (ro & FY_RO_AAE));   /* rules 12, 14 */
    case FY_EP_LOCK:                                                                  /* rules 13, 15 */
      return ((xa && (ro & FY_RO_AAA)) || (xe && (ro & FY_RO_AAE))) && !rank_is_target(w, e->target);
    case FY_EP_POST:                                                                  /* rules 16, 17 */
      return ((xe && (ro & FY_RO_EAE)) || (xa && (ro & FY_RO_EAA))) && !window_locked(w);
  }
  return 0;
}

static int can_activate(fy_win_t *w, fy_epoch_t *e) {
  for (fy_epoch_t *x = w->q; x && x != e; x = x->next) {
    if (x->state == FY_EPS_DEFERRED) return 0;                            /* rule 8 */
    int concurrent = !x->closed || x->close_seq > e->open_seq;
    if (concurrent) {
      /* open together at application level (MPI-3): but a fence epoch
       * and lock_all never overlap anything (rules 18, 19) */
      if (x->kind == FY_EP_FENCE || e->kind == FY_EP_FENCE) return 0;
      continue;
    }
    if (!reorder_ok(w, x, e)) return 0;
  }
  return 1;
}

static void activate(fy_win_t *w, fy_epoch_t *e) {
  int n = w->size, me = w->rank;
  e->state = FY_EPS_ACTIVE;
  switch (e->kind) {
    case FY_EP_FENCE:
      atomic_store_explicit(&w->blk[me].fence, (uint64_t)e->fence_no, memory_order_release);
      wake_all(w);
      break;
    case FY_EP_START:
      for (int i = 0; i < e->n; i++) {
        e->ids[i] = ++w->acc_issued[e->ranks[i]];
        if (e->assert_ & MPI_MODE_NOCHECK) e->granted[i] = 1;
      }
      if (e->open_req) {
        fy_req_complete(e->open_req);
        e->open_req = NULL;
      }
      break;
    case FY_EP_POST:
      for (int i = 0; i < e->n; i++) {
        int o = e->ranks[i];
        e->ids[i] = ++w->exp_issued[o];
        atomic_store_explicit(&w->ce[(size_t)me * n + o].v, e->ids[i], memory_order_release);
        fy_rma_wake(w, o);
      }
      if (e->open_req) {
        fy_req_complete(e->open_req);
        e->open_req = NULL;
      }
      break;
    default:
      break;
  }
}

/* ---- completion ---- */

static int can_complete(fy_win_t *w, fy_epoch_t *e) {
  if (!e->closed || e->ops || e->state != FY_EPS_ACTIVE) return 0;
  int n = w->size, me = w->rank;
  switch (e->kind) {
    case FY_EP_FENCE:
    case FY_EP_LOCK:
    case FY_EP_LOCK_ALL:
      return e->all_granted;
    case FY_EP_START:
      return 1;
    case FY_EP_POST:
      for (int i = 0; i < e->n; i++)
        if (atomic_load_explicit(&w->dn[(size_t)me * n + e->ranks[i]].v, memory_order_acquire) < e->ids[i]) return 0;
      return 1;
  }
  return 0;
}

/* One spare epoch, so that a lock/unlock pair does not go to malloc. */
static fy_epoch_t *spare_epoch;

static void ep_free(fy_epoch_t *e) {
  while (e->ops) {
    fy_rmaop_t *op = e->ops;
    e->ops = op->next;
    op_free(op);
  }
  if (e->ranks != e->ranks_in) free(e->ranks);
  if (e->ids != e->ids_in) free(e->ids);
  if (e->kind != FY_EP_LOCK) {
    if (e->granted != e->granted_in) free(e->granted);
    free(e->held);
    free(e->waiting);
  }
  if (!spare_epoch) spare_epoch = e;
  else free(e);
}

static void complete(fy_win_t *w, fy_epoch_t *e) {
  int n = w->size, me = w->rank;
  switch (e->kind) {
    case FY_EP_START:
      for (int i = 0; i < e->n; i++) {
        done_max(&w->dn[(size_t)e->ranks[i] * n + me].v, e->ids[i]);
        fy_rma_wake(w, e->ranks[i]);
      }
      break;
    case FY_EP_LOCK:
      if (e->held[0]) unlock(w, e->target, e->lock_type == MPI_LOCK_EXCLUSIVE);
      break;
    case FY_EP_LOCK_ALL:
      for (int t = 0; t < n; t++)
        if (e->held[t]) unlock(w, t, 0);
      break;
    default:
      break;
  }
  if (e->open_req) { /* e.g. an ifence whose epoch completed at once */
    fy_req_complete(e->open_req);
    e->open_req = NULL;
  }
  if (e->close_req) {
    e->close_req->status.MPI_ERROR = e->err;
    fy_req_complete(e->close_req);
  }
  /* unlink */
  fy_epoch_t **pp = &w->q, *prev = NULL;
  while (*pp != e) {
    prev = *pp;
    pp = &(*pp)->next;
  }
  *pp = e->next;
  if (w->q_tail == e) w->q_tail = prev;
  ep_free(e);
}

/* Epochs still pending: let the interrupt agent run the engine when a
 * peer rings (a grant, a done, an unlock), packet or not. */
static void bg_update(fy_win_t *w) {
  /* an open epoch that holds its grants and has nothing recorded needs
   * nobody: its operations run inside the calls */
  int want = 0;
  for (fy_epoch_t *e = w->q; e && !want; e = e->next)
    want = e->state != FY_EPS_ACTIVE || !e->all_granted || e->ops || e->closed;
  if (want != w->bg) {
    w->bg = want;
    fy_progress_background_add(want ? 1 : -1);
  }
}

static int advance(fy_win_t *w) {
  int ev = 0, changed;
  do {
    changed = 0;
    for (fy_epoch_t *e = w->q; e; e = e->next) {
      if (e->state != FY_EPS_DEFERRED) continue;
      if (!can_activate(w, e)) break;
      activate(w, e);
      changed = 1;
    }
    fy_epoch_t *next;
    for (fy_epoch_t *e = w->q; e; e = next) {
      next = e->next;
      if (e->state != FY_EPS_ACTIVE) continue;
      if (update_grants(w, e)) changed = 1;
      if (replay(w, e)) changed = 1;
      if (e->kind == FY_EP_POST && w->mapped && run_delegated(w, e)) changed = 1;
      if (can_complete(w, e)) {
        complete(w, e);
        changed = 1;
      }
    }
    ev += changed;
  } while (changed);
  bg_update(w);
  return ev;
}

int fy_rma_progress(void) {
  int ev = 0;
  for (fy_win_t *w = fy_win_list; w; w = w->next)
    if (w->am) ev += fy_rma_am_poll(w);
    else if (w->q) ev += advance(w);
  return ev;
}

/* Windows over several nodes (am.c) have their own synchronization, the
 * MPIX_Win_i* forms included (user: their request). */
#define AM_SYNC(w, user, fname, ...)                                 \
  do {                                                                \
    if ((w)->am) return fy_rma_am_sync((w), __VA_ARGS__, user, fname); \
  } while (0)

/* ---- opening and closing ---- */

/* Zeroed by copying this: a fixed-size memset of an epoch compiles to
 * `rep stos`, whose start-up costs more than the whole lock/unlock path. */
static const fy_epoch_t ep_zero;

static fy_epoch_t *ep_new(fy_win_t *w, int kind, int assert_) {
  fy_epoch_t *e = spare_epoch;
  if (e) {
    spare_epoch = NULL;
    *e = ep_zero;
  } else {
    e = calloc(1, sizeof *e);
    if (!e) return NULL;
  }
  e->kind = kind;
  e->assert_ = assert_;
  e->target = -1;
  e->open_seq = ++w->seq;
  return e;
}

static void ep_append(fy_win_t *w, fy_epoch_t *e) {
  if (w->q_tail) w->q_tail->next = e;
  else w->q = e;
  w->q_tail = e;
}

static void ep_close(fy_win_t *w, fy_epoch_t *e) {
  e->closed = 1;
  e->close_seq = ++w->seq;
}

/* The open epoch of one of the given kinds (the latest), or NULL. */
static fy_epoch_t *open_of(fy_win_t *w, int kind, int target) {
  fy_epoch_t *found = NULL;
  for (fy_epoch_t *e = w->q; e; e = e->next)
    if (!e->closed && e->kind == kind && (target < -1 || e->target == target)) found = e;
  return found;
}

/* A fence epoch left open by the last fence ends when another kind of
 * epoch opens (or at Win_free). */
static int close_fence_epoch(fy_win_t *w, const char *fname) {
  fy_epoch_t *f = open_of(w, FY_EP_FENCE, -2);
  if (!f) return MPI_SUCCESS;
  if (f->ops && !f->no_access)
    return fy_err(MPI_ERR_RMA_SYNC, "%s: RMA operations of a fence epoch are still pending; end it with MPI_Win_fence", fname);
  ep_close(w, f);
  return MPI_SUCCESS;
}

fy_epoch_t *fy_rma_bind(fy_win_t *w, int t, int passive_only, int *err) {
  fy_epoch_t *found = NULL;
  for (fy_epoch_t *e = w->q; e; e = e->next)
    if (!e->closed && is_access(e) && covers(e, t)) found = e;
  if (!found) {
    if (t >= 0)
      *err = fy_err(MPI_ERR_RMA_SYNC, "no access epoch toward rank %d is open on this window", t);
    else
      *err = fy_err(MPI_ERR_RMA_SYNC, "no access epoch is open on this window");
    return NULL;
  }
  if (passive_only && found->kind != FY_EP_LOCK && found->kind != FY_EP_LOCK_ALL) {
    *err = fy_err(MPI_ERR_RMA_SYNC, "request-based RMA operations need a passive-target (lock) epoch");
    return NULL;
  }
  return found;
}

/* The request of a call: a user request for an i-call, else the caller's
 * stack request (a blocking call waits for it before returning, and the
 * engine forgets a request once it completes it). */
static fy_request_t *new_req(MPI_Request *user, fy_request_t *local) {
  fy_request_t *r;
  if (user) {
    r = fy_req_alloc(FY_REQ_RMA, 1);
    if (!r) return NULL;
    fy_status_empty(&r->status);
    return r;
  }
  /* only what completion and a wait read (the request is large) */
  r = local;
  r->kind = FY_REQ_RMA;
  r->handle = MPI_REQUEST_NULL;
  r->persistent = r->active = 0;
  atomic_store_explicit(&r->done, 0, memory_order_relaxed);
  r->user_freed = 0;
  r->tmp = NULL;
  r->tmp_owned = 0;
  r->type = NULL;
  r->watch_idx = 0;
  r->waited = 0;
  r->on_complete = NULL;
  r->status.MPI_ERROR = MPI_SUCCESS;
  return r;
}

static void drop_req(fy_request_t *r, MPI_Request *user) {
  if (user) fy_req_release(r);
}

/* Finish an i-call: hand out the request (user) or wait for it (blocking). */
static int finish_req(fy_win_t *w, fy_request_t *r, MPI_Request *user) {
  if (user) {
    *user = r->handle;
    return MPI_SUCCESS;
  }
  /* First passes of this window's engine alone, as many as the general
   * wait spins (none when this machine's ranks outnumber its CPUs): the
   * words it waits for (grants, fence words, done counters, locks) are in
   * the window segment, and a full progress pass per look at them
   * (point-to-point rings and every hook) made back-to-back epochs about
   * twice as slow. */
  for (long k = fy_progress_spin_polls(); k > 0 && !fy_req_done(r); k--) {
    if (!fy_ptrylock()) break;
    int ev = advance(w);
    fy_punlock();
    if (!ev) __builtin_ia32_pause();
  }
  if (!fy_req_done(r)) fy_req_wait_done(r);
  return r->status.MPI_ERROR;
}

static int group_ranks(fy_win_t *w, MPI_Group group, fy_epoch_t *e) {
  fy_group_t *g = fy_group_get(group);
  if (!g) return fy_err(MPI_ERR_GROUP, "group = %#x is not a valid group", (unsigned)group);
  e->n = g->size;
  if (g->size <= FY_EP_INLINE) { /* zeroed by ep_new */
    e->ranks = e->ranks_in;
    e->ids = e->ids_in;
    e->granted = e->granted_in;
  } else {
    e->ranks = malloc(sizeof(int) * (size_t)(g->size + 1));
    e->ids = calloc((size_t)g->size + 1, sizeof(uint64_t));
    e->granted = calloc((size_t)g->size + 1, 1);
    if (!e->ranks || !e->ids || !e->granted) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  }
  for (int i = 0; i < g->size; i++) {
    int r = -1;
    for (int k = 0; k < w->size; k++)
      if (w->world_of[k] == g->world_of[i]) r = k;
    if (r < 0) return fy_err(MPI_ERR_RANK, "group member %d is not a process of the window", i);
    e->ranks[i] = r;
  }
  return MPI_SUCCESS;
}

/* A blocking opening call (fast path) whose epoch does not hold its grant
 * yet: wait for it on a stack request. Called with the progress lock held;
 * releases it. */
static int wait_granted(fy_win_t *w, fy_epoch_t *e) {
  fy_request_t local, *r = new_req(NULL, &local);
  e->open_req = r;
  bg_update(w);
  fy_punlock();
  return finish_req(w, r, NULL);
}

static int check_assert(int a, int allowed) {
  if (a & ~allowed) return fy_err(MPI_ERR_ASSERT, "assert = %#x has bits this call does not take", (unsigned)a);
  return MPI_SUCCESS;
}

/* Every call below: progress lock held around the engine, then the wait
 * (if blocking) outside it. */

static int do_fence(int assert_, MPI_Win win, MPI_Request *user) {
  fy_win_t *w = fy_win_get(win);
  int err = check_assert(assert_, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED);
  if (err) return err;
  AM_SYNC(w, user, user ? "MPIX_Win_ifence" : "MPI_Win_fence", FY_AMS_FENCE, -1, assert_, MPI_GROUP_NULL, NULL);
  if (!user && !(assert_ & MPI_MODE_NOSUCCEED)) {
    /* Blocking fence when the queue holds at most the fence epoch before,
     * complete with nothing recorded: end it and publish this fence call
     * at once (the peers wait for exactly this store), then wait. */
    fy_plock();
    fy_epoch_t *f = w->q;
    if (!f || (!f->next && f->kind == FY_EP_FENCE && f->state == FY_EPS_ACTIVE && f->all_granted && !f->ops)) {
      if (f) {
        ep_close(w, f);
        complete(w, f);
      }
      fy_epoch_t *e = ep_new(w, FY_EP_FENCE, assert_);
      if (e) {
        e->fence_no = ++w->fence_calls;
        ep_append(w, e);
        activate(w, e);
        update_grants(w, e);
        if (e->all_granted) {
          if (w->bg) bg_update(w);
          fy_punlock();
          return MPI_SUCCESS;
        }
        return wait_granted(w, e);
      }
    }
    fy_punlock();
  }
  fy_request_t local, *r = new_req(user, &local);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests");
  fy_plock();
  for (fy_epoch_t *e = w->q; e; e = e->next)
    if (!e->closed && e->kind != FY_EP_FENCE) {
      fy_punlock();
      drop_req(r, user);
      return fy_err(MPI_ERR_RMA_SYNC, "MPI_Win_fence: a %s epoch is open on this window",
                    e->kind == FY_EP_POST ? "post" : e->kind == FY_EP_START ? "start" : "lock");
    }
  fy_epoch_t *f = open_of(w, FY_EP_FENCE, -2);
  if (f) ep_close(w, f);
  fy_epoch_t *e = ep_new(w, FY_EP_FENCE, assert_);
  if (!e) {
    fy_punlock();
    drop_req(r, user);
    return fy_err(MPI_ERR_NO_MEM, "out of memory");
  }
  e->fence_no = ++w->fence_calls;
  e->no_access = (assert_ & MPI_MODE_NOSUCCEED) != 0;
  e->open_req = r;
  ep_append(w, e);
  if (e->no_access) ep_close(w, e);
  advance(w);
  fy_punlock();
  return finish_req(w, r, user);
}

static int do_start_post(int kind, MPI_Group group, int assert_, MPI_Win win, MPI_Request *user) {
  fy_win_t *w = fy_win_get(win);
  const char *fname = kind == FY_EP_START ? "MPI_Win_start" : "MPI_Win_post";
  int err = check_assert(assert_, kind == FY_EP_START ? MPI_MODE_NOCHECK
                                                      : MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT);
  if (err) return err;
  AM_SYNC(w, user, fname, kind == FY_EP_START ? FY_AMS_START : FY_AMS_POST, -1, assert_, group, NULL);
  fy_request_t local, *r = new_req(user, &local);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests");
  fy_plock();
  fy_epoch_t *e = NULL;
  if (open_of(w, kind, -2)) {
    err = fy_err(MPI_ERR_RMA_SYNC, "%s: a %s epoch is already open on this window", fname,
                 kind == FY_EP_START ? "start" : "post");
    goto fail;
  }
  if (kind == FY_EP_START && (open_of(w, FY_EP_LOCK_ALL, -2) || open_of(w, FY_EP_LOCK, -2))) {
    err = fy_err(MPI_ERR_RMA_SYNC, "%s: a lock epoch is open on this window", fname);
    goto fail;
  }
  if ((err = close_fence_epoch(w, fname))) goto fail;
  e = ep_new(w, kind, assert_);
  if (!e) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory");
    goto fail;
  }
  if ((err = group_ranks(w, group, e))) goto fail;
  e->open_req = r;
  ep_append(w, e);
  advance(w);
  fy_punlock();
  if (!user) { /* blocking start/post: return once activated */
    fy_req_wait_done(r);
    drop_req(r, user);
    return MPI_SUCCESS;
  }
  *user = r->handle;
  return MPI_SUCCESS;
fail:
  if (e) ep_free(e);
  fy_punlock();
  drop_req(r, user);
  return err;
}

static int do_close_inner(int kind, MPI_Win win, MPI_Request *user, const char *fname);

/* A blocking complete says "waiting in MPI" from the start, so that a
 * target leaves this origin's delegated puts to it (memcpy beats the
 * target's cross-memory read when the origin is here anyway). */
static int do_close(int kind, MPI_Win win, MPI_Request *user, const char *fname) {
  int mark = !user && kind == FY_EP_START;
  if (mark) fy_shm_set_in_mpi(1);
  int err = do_close_inner(kind, win, user, fname);
  if (mark) fy_shm_set_in_mpi(0);
  return err;
}

/* e is still queued (advance() may have completed and freed it). */
static int is_live(fy_win_t *w, fy_epoch_t *e) {
  for (fy_epoch_t *x = w->q; x; x = x->next)
    if (x == e) return 1;
  return 0;
}

static int do_close_inner(int kind, MPI_Win win, MPI_Request *user, const char *fname) {
  fy_win_t *w = fy_win_get(win);
  AM_SYNC(w, user, fname, kind == FY_EP_START ? FY_AMS_COMPLETE : FY_AMS_WAIT, -1, 0, MPI_GROUP_NULL, NULL);
  fy_request_t local, *r = new_req(user, &local);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests");
  fy_plock();
  fy_epoch_t *e = open_of(w, kind, -2);
  if (!e) {
    fy_punlock();
    drop_req(r, user);
    return fy_err(MPI_ERR_RMA_SYNC, "%s: no %s epoch is open on this window", fname,
                  kind == FY_EP_START ? "access (start)" : kind == FY_EP_POST ? "exposure (post)" : "lock_all");
  }
  e->close_req = r;
  ep_close(w, e);
  advance(w); /* operations the origin can run now need no delegation */
  if (user && is_live(w, e)) delegate_close(w, e);
  fy_punlock();
  return finish_req(w, r, user);
}

static int do_lock(int kind, int lock_type, int rank, int assert_, MPI_Win win, MPI_Request *user) {
  fy_win_t *w = fy_win_get(win);
  int err = check_assert(assert_, MPI_MODE_NOCHECK);
  if (err) return err;
  if (kind == FY_EP_LOCK) {
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
      return fy_err(MPI_ERR_LOCKTYPE, "lock_type = %d is neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED", lock_type);
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
      return fy_err(MPI_ERR_RANK, "rank = %d is not a rank of the window (size %d)", rank, w->size);
  }
  AM_SYNC(w, user, kind == FY_EP_LOCK ? "MPI_Win_lock" : "MPI_Win_lock_all",
          kind == FY_EP_LOCK ? FY_AMS_LOCK : FY_AMS_LOCK_ALL, rank, lock_type, MPI_GROUP_NULL, NULL);
  if (w->no_locks) return fy_err(MPI_ERR_RMA_SYNC, "the window was created with no_locks = true");
  if (!user && kind == FY_EP_LOCK && rank != MPI_PROC_NULL) {
    /* Blocking lock on a window with nothing queued (no epoch to check
     * against or to wait for): open, activate and take the lock here; a
     * request only if the lock is busy. */
    fy_plock();
    fy_epoch_t *e = w->q ? NULL : ep_new(w, kind, assert_);
    if (e) {
      e->lock_type = lock_type;
      e->target = rank;
      e->n = 1;
      e->granted = &e->one[0];
      e->held = &e->one[1];
      e->waiting = &e->one[2];
      w->q = w->q_tail = e;
      e->state = FY_EPS_ACTIVE; /* activate() of a lock epoch */
      /* a busy lock is usually held for a short epoch: try it a few times
       * before registering as a waiter (which makes the holder's unlock
       * ring) and waiting in the engine */
      int excl = lock_type == MPI_LOCK_EXCLUSIVE, got = (assert_ & MPI_MODE_NOCHECK) != 0;
      for (long k = fy_progress_spin_polls() / 8; !got && !(got = try_lock(w, rank, excl)) && k > 0; k--) __builtin_ia32_pause();
      if (got || lock_or_wait(w, rank, excl, &e->waiting[0])) {
        e->held[0] = !(assert_ & MPI_MODE_NOCHECK);
        e->all_granted = 1;
        fy_punlock();
        return MPI_SUCCESS;
      }
      return wait_granted(w, e);
    }
    fy_punlock();
  }
  fy_request_t local, *r = new_req(user, &local);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests");
  fy_plock();
  fy_epoch_t *e = NULL;
  if (open_of(w, FY_EP_LOCK_ALL, -2) || open_of(w, FY_EP_START, -2) ||
      (kind == FY_EP_LOCK && rank != MPI_PROC_NULL && open_of(w, FY_EP_LOCK, rank)) ||
      (kind == FY_EP_LOCK_ALL && open_of(w, FY_EP_LOCK, -2))) {
    err = fy_err(MPI_ERR_RMA_SYNC, "%s: the window is already locked%s", kind == FY_EP_LOCK ? "MPI_Win_lock" : "MPI_Win_lock_all",
                 kind == FY_EP_LOCK ? " toward that rank (or by lock_all / start)" : "");
    goto fail;
  }
  if ((err = close_fence_epoch(w, "MPI_Win_lock"))) goto fail;
  e = ep_new(w, kind, assert_);
  if (!e) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory");
    goto fail;
  }
  e->lock_type = kind == FY_EP_LOCK ? lock_type : MPI_LOCK_SHARED;
  e->target = kind == FY_EP_LOCK && rank != MPI_PROC_NULL ? rank : -1;
  e->n = kind == FY_EP_LOCK_ALL ? w->size : 1;
  if (kind == FY_EP_LOCK) {
    e->granted = &e->one[0];
    e->held = &e->one[1];
    e->waiting = &e->one[2];
  } else {
    e->held = calloc((size_t)w->size, 1);
    e->granted = calloc((size_t)w->size, 1);
    e->waiting = calloc((size_t)w->size, 1);
    if (!e->held || !e->granted || !e->waiting) {
      err = fy_err(MPI_ERR_NO_MEM, "out of memory");
      goto fail;
    }
  }
  e->open_req = r;
  ep_append(w, e);
  if (w->q == e) { /* alone: activate and try the lock(s) at once */
    activate(w, e);
    update_grants(w, e);
    bg_update(w);
  } else {
    advance(w);
  }
  fy_punlock();
  return finish_req(w, r, user);
fail:
  if (e) ep_free(e);
  fy_punlock();
  drop_req(r, user);
  return err;
}

static int do_unlock(int kind, int rank, MPI_Win win, MPI_Request *user) {
  fy_win_t *w = fy_win_get(win);
  if (kind == FY_EP_LOCK && rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
    return fy_err(MPI_ERR_RANK, "rank = %d is not a rank of the window (size %d)", rank, w->size);
  AM_SYNC(w, user, kind == FY_EP_LOCK ? "MPI_Win_unlock" : "MPI_Win_unlock_all",
          kind == FY_EP_LOCK ? FY_AMS_UNLOCK : FY_AMS_UNLOCK_ALL, rank, 0, MPI_GROUP_NULL, NULL);
  if (!user && kind == FY_EP_LOCK) {
    /* Blocking unlock of the window's only epoch, with nothing recorded:
     * complete it here, no request. */
    fy_plock();
    fy_epoch_t *e = w->q;
    if (e && !e->next && e->kind == FY_EP_LOCK && !e->closed && e->target == (rank == MPI_PROC_NULL ? -1 : rank) &&
        e->state == FY_EPS_ACTIVE && e->all_granted && !e->ops) {
      /* complete() of a lock epoch with no requests and nothing recorded */
      int err = e->err;
      ++w->seq;
      if (e->held[0]) unlock(w, e->target, e->lock_type == MPI_LOCK_EXCLUSIVE);
      w->q = w->q_tail = NULL;
      if (!spare_epoch) spare_epoch = e;
      else free(e);
      if (w->bg) bg_update(w);
      fy_punlock();
      return err;
    }
    fy_punlock();
  }
  fy_request_t local, *r = new_req(user, &local);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests");
  fy_plock();
  fy_epoch_t *e = kind == FY_EP_LOCK ? open_of(w, FY_EP_LOCK, rank == MPI_PROC_NULL ? -1 : rank)
                                     : open_of(w, FY_EP_LOCK_ALL, -2);
  if (!e) {
    fy_punlock();
    drop_req(r, user);
    if (kind == FY_EP_LOCK)
      return fy_err(MPI_ERR_RMA_SYNC, "MPI_Win_unlock: rank %d is not locked by this process", rank);
    return fy_err(MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all: no lock_all epoch is open");
  }
  e->close_req = r;
  ep_close(w, e);
  if (w->q == e && !e->next && can_complete(w, e)) { /* alone and done: complete it now */
    complete(w, e);
    bg_update(w);
  } else {
    advance(w);
  }
  fy_punlock();
  return finish_req(w, r, user);
}

/* Flush: completes once every operation issued before it toward rank (all
 * ranks when rank < 0) has run. */
static int do_flush(int rank, MPI_Win win, MPI_Request *user, const char *fname, int local_only) {
  fy_win_t *w = fy_win_get(win);
  if (rank >= w->size || (rank < 0 && rank != -1))
    return fy_err(MPI_ERR_RANK, "rank = %d is not a rank of the window (size %d)", rank, w->size);
  AM_SYNC(w, user, fname, local_only ? FY_AMS_FLUSH_LOCAL : FY_AMS_FLUSH, rank, 0, MPI_GROUP_NULL, NULL);
  fy_request_t local, *r = new_req(user, &local);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests");
  fy_plock();
  int found = 0, err = MPI_SUCCESS;
  r->count = 1; /* held until every epoch is looked at */
  for (fy_epoch_t *e = w->q; e; e = e->next) {
    if (e->closed || (e->kind != FY_EP_LOCK && e->kind != FY_EP_LOCK_ALL)) continue;
    if (rank >= 0 && !covers(e, rank)) continue;
    found = 1;
    int pending = 0;
    for (fy_rmaop_t *op = e->ops; op; op = op->next)
      if (op->kind != FY_OP_FLUSH && (rank < 0 || op->target == rank)) pending = 1;
    if (!pending) continue;
    fy_rmaop_t op = {.kind = FY_OP_FLUSH, .target = rank < 0 ? 0 : rank, .flush_all = rank < 0, .req = r};
    r->count++;
    if ((err = fy_rma_issue(w, e, &op))) r->count--;
  }
  if (!found) {
    fy_punlock();
    drop_req(r, user);
    if (rank >= 0) return fy_err(MPI_ERR_RMA_SYNC, "%s: rank %d is not locked by this process", fname, rank);
    return fy_err(MPI_ERR_RMA_SYNC, "%s: no passive-target epoch is open", fname);
  }
  if (--r->count == 0) fy_req_complete(r);
  advance(w);
  fy_punlock();
  if (err) {
    if (!fy_req_done(r)) fy_req_wait_done(r);
    drop_req(r, user);
    return err;
  }
  return finish_req(w, r, user);
}

static int queue_empty(void *arg) { return ((fy_win_t *)arg)->q == NULL; }

int fy_rma_win_quiesce(fy_win_t *w, const char *fname) {
  fy_plock();
  for (fy_epoch_t *e = w->q; e; e = e->next)
    if (!e->closed && e->kind != FY_EP_FENCE) {
      fy_punlock();
      return fy_err(MPI_ERR_RMA_SYNC, "%s: an epoch is still open on the window", fname);
    }
  int err = close_fence_epoch(w, fname);
  if (!err) advance(w);
  fy_punlock();
  return err;
}

int fy_rma_win_quiet(fy_win_t *w) { return queue_empty(w); }

/* ---- MPI and MPIX entry points ---- */

int fy_mpi_win_fence(int a, MPI_Win win) { return do_fence(a, win, NULL); }
int fy_mpix_win_ifence(int a, MPI_Win win, MPI_Request *r) { return do_fence(a, win, r); }
int fy_mpi_win_start(MPI_Group g, int a, MPI_Win win) { return do_start_post(FY_EP_START, g, a, win, NULL); }
int fy_mpix_win_istart(MPI_Group g, int a, MPI_Win win, MPI_Request *r) { return do_start_post(FY_EP_START, g, a, win, r); }
int fy_mpi_win_post(MPI_Group g, int a, MPI_Win win) { return do_start_post(FY_EP_POST, g, a, win, NULL); }
int fy_mpix_win_ipost(MPI_Group g, int a, MPI_Win win, MPI_Request *r) { return do_start_post(FY_EP_POST, g, a, win, r); }
int fy_mpi_win_complete(MPI_Win win) { return do_close(FY_EP_START, win, NULL, "MPI_Win_complete"); }
int fy_mpix_win_icomplete(MPI_Win win, MPI_Request *r) { return do_close(FY_EP_START, win, r, "MPIX_Win_icomplete"); }
int fy_mpi_win_wait(MPI_Win win) { return do_close(FY_EP_POST, win, NULL, "MPI_Win_wait"); }
int fy_mpix_win_iwait(MPI_Win win, MPI_Request *r) { return do_close(FY_EP_POST, win, r, "MPIX_Win_iwait"); }
int fy_mpi_win_lock(int t, int rank, int a, MPI_Win win) { return do_lock(FY_EP_LOCK, t, rank, a, win, NULL); }
int fy_mpix_win_ilock(int t, int rank, int a, MPI_Win win, MPI_Request *r) { return do_lock(FY_EP_LOCK, t, rank, a, win, r); }
int fy_mpi_win_lock_all(int a, MPI_Win win) { return do_lock(FY_EP_LOCK_ALL, 0, 0, a, win, NULL); }
int fy_mpix_win_ilock_all(int a, MPI_Win win, MPI_Request *r) { return do_lock(FY_EP_LOCK_ALL, 0, 0, a, win, r); }
int fy_mpi_win_unlock(int rank, MPI_Win win) { return do_unlock(FY_EP_LOCK, rank, win, NULL); }
int fy_mpix_win_iunlock(int rank, MPI_Win win, MPI_Request *r) { return do_unlock(FY_EP_LOCK, rank, win, r); }
int fy_mpi_win_unlock_all(MPI_Win win) { return do_unlock(FY_EP_LOCK_ALL, 0, win, NULL); }
int fy_mpix_win_iunlock_all(MPI_Win win, MPI_Request *r) { return do_unlock(FY_EP_LOCK_ALL, 0, win, r); }
static int rank_arg(int rank) { return rank < 0 ? -1000 : rank; }
#define PROC_NULL_OK(rank, r)                   \
  do {                                          \
    if ((rank) == MPI_PROC_NULL) {              \
      if (r) *(MPI_Request *)(r) = MPI_REQUEST_NULL; \
      return MPI_SUCCESS;                       \
    }                                           \
  } while (0)
int fy_mpi_win_flush(int rank, MPI_Win win) { PROC_NULL_OK(rank, (MPI_Request *)NULL); return do_flush(rank_arg(rank), win, NULL, "MPI_Win_flush", 0); }
int fy_mpix_win_iflush(int rank, MPI_Win win, MPI_Request *r) { PROC_NULL_OK(rank, r); return do_flush(rank_arg(rank), win, r, "MPIX_Win_iflush", 0); }
int fy_mpi_win_flush_local(int rank, MPI_Win win) { PROC_NULL_OK(rank, (MPI_Request *)NULL); return do_flush(rank_arg(rank), win, NULL, "MPI_Win_flush_local", 1); }
int fy_mpix_win_iflush_local(int rank, MPI_Win win, MPI_Request *r) { PROC_NULL_OK(rank, r); return do_flush(rank_arg(rank), win, r, "MPIX_Win_iflush_local", 1); }
int fy_mpi_win_flush_all(MPI_Win win) { return do_flush(-1, win, NULL, "MPI_Win_flush_all", 0); }
int fy_mpix_win_iflush_all(MPI_Win win, MPI_Request *r) { return do_flush(-1, win, r, "MPIX_Win_iflush_all", 0); }
int fy_mpi_win_flush_local_all(MPI_Win win) { return do_flush(-1, win, NULL, "MPI_Win_flush_local_all", 1); }
int fy_mpix_win_iflush_local_all(MPI_Win win, MPI_Request *r) { return do_flush(-1, win, r, "MPIX_Win_iflush_local_all", 1); }

int fy_mpi_win_test(MPI_Win win, int *flag) {
  fy_win_t *w = fy_win_get(win);
  if (!flag) return fy_err(MPI_ERR_ARG, "flag = NULL");
  if (w->am) return fy_rma_am_sync(w, FY_AMS_TEST, -1, 0, MPI_GROUP_NULL, flag, NULL, "MPI_Win_test");
  fy_progress_poll();
  fy_plock();
  fy_epoch_t *e = open_of(w, FY_EP_POST, -2);
  if (!e) {
    fy_punlock();
    return fy_err(MPI_ERR_RMA_SYNC, "MPI_Win_test: no exposure (post) epoch is open on this window");
  }
  e->closed = 1; /* tentatively, to ask whether it could complete now */
  *flag = can_complete(w, e);
  e->closed = 0;
  if (*flag) {
    ep_close(w, e);
    advance(w);
  }
  fy_punlock();
  return MPI_SUCCESS;
}

int fy_mpi_win_sync(MPI_Win win) {
  (void)win;
  atomic_thread_fence(memory_order_seq_cst);
  return MPI_SUCCESS;
}
