/* One-sided communication for windows whose group spans nodes.
 *
 * The node-local engine (sync.c, ops.c) works on a segment that every
 * process of the window maps; processes on different nodes cannot. A window
 * with a rank on another node (every window of more than one process under
 * FERRY_NOLOCAL=1) takes this path instead: each operation travels as a
 * message to its target, which applies it to its own memory, and
 * synchronization is messages too. See fy_rma.h (fy_rma_am_*) and
 * docs/rma.md.
 *
 * - Messages go over a private communicator of the window (its
 *   point-to-point context): AM_TAG from origin to target, AM_REPLY back.
 *   MPI ordering keeps each pair's messages in order and the target handles
 *   one message at a time, so an origin's operations apply in the order it
 *   issued them (accumulate_ordering rar,raw,war,waw) and the reply to a
 *   flush or unlock means that everything before it was applied.
 * - A request: am_hdr_t, then npieces (offset, length) pairs that lay out
 *   the target datatype from hdr.addr, then the origin's packed data.
 *   Replies carry the data read (Get, Get_accumulate, Fetch_and_op,
 *   Compare_and_swap) straight into the origin's buffer and datatype, or an
 *   int32 error class (lock grant, flush, unlock).
 * - The target handles its messages in the progress hook (fy_rma_progress),
 *   from the application thread or an agent thread, never in a signal
 *   handler: it allocates. While the window exists the agents wake for
 *   every message that arrives (fy_progress_listen), so a target that
 *   computes outside MPI still serves; with FERRY_RMA_AM_AGENT=0, or no
 *   agent (mode none), it does at its next MPI call (weak progress).
 * - Accumulates are atomic per element because the target applies every
 *   operation on its window itself, one at a time, its own too (an origin
 *   sends to itself like to any rank).
 * - Errors the target finds (a range outside an attached region of a
 *   dynamic window) are kept per origin and returned by that origin's next
 *   flush, unlock or fence.
 * - Synchronization: fence = flush every target this process touched, then
 *   a barrier; lock = a request the target grants (shared/exclusive, FIFO);
 *   unlock and flush = a request the target answers after everything
 *   before it; PSCW = post and complete messages counted per peer. The
 *   MPIX_Win_i* calls hold what an epoch issues before its grant, post or
 *   fence in a queue per target, behind a gate (see "nonblocking
 *   synchronization" below). */
#include "rma/fy_rma.h"
#include "core/fy_error.h"
#include "core/fy_comm.h"
#include "core/fy_op.h"
#include "comm/fy_commc.h"
#include "progress/fy_progress.h"
#include "runtime/fy_config.h"
#include "pt2pt/fy_pt2pt.h"
#include "binding/fy_impl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AM_TAG 20
#define AM_REPLY 21
#define AM_IOV 64 /* pieces computed per fy_flat_iov call */
#define AM_BASE ((uintptr_t)1 << 46) /* fy_flat_iov base: offsets may be negative */

enum { AM_PUT = 1, AM_GET, AM_ACC, AM_GACC, AM_CAS, AM_LOCK, AM_UNLOCK, AM_FLUSH, AM_POST, AM_COMPLETE };

typedef struct am_hdr {
  int32_t kind, arg;          /* arg: lock type (LOCK), op (ACC, GACC) */
  int32_t basic;              /* ACC/GACC/CAS: the basic type's handle */
  int32_t pad;
  int64_t addr;               /* byte offset in the window (absolute address: dynamic) */
  uint64_t npieces, nbytes;   /* then the pieces, then nbytes of data */
} am_hdr_t;

typedef struct am_pend am_pend_t;
struct am_pend {              /* a send in flight, or an origin's reply receive */
  fy_request_t *r;
  void *buf;                  /* freed when r completes */
  size_t len;                 /* sends: buf's bytes, counted in fy_rma_am_t.held */
  int target;                 /* reply receives: the target */
  fy_request_t *user;         /* Rget/Rget_accumulate: completed with r */
  uint64_t seq;               /* reply receives: the operation's number (fy_rma_am_t.opseq) */
  am_pend_t *next;
};

typedef struct am_waiter { int src, type; struct am_waiter *next; } am_waiter_t;

/* A nonblocking synchronization call (MPIX_Win_i*, or a blocking one made
 * while such calls are pending) until it completes; see am_sync_step. */
typedef struct am_sync am_sync_t;
typedef struct { fy_request_t *r; int32_t ans; } am_ctl_t;
struct am_sync {
  int call;                   /* FY_AMS_* */
  const char *fname;          /* the call's name, for messages */
  fy_request_t *user;         /* completed with the first error */
  int err;
  int left;                   /* gates (LOCK: grants, START: posts) or messages (COMPLETE) still ahead */
  am_ctl_t *c;                /* per target: the answer of its control message (r NULL: none) */
  int lo, hi;                 /* the targets [lo, hi) c may name (one for a call toward one rank) */
  int *ranks, nranks;         /* WAIT: the exposure group (owned) */
  int phase;                  /* FENCE: 0 flushing, 1 in the barrier (then done) */
  int assert_;
  uint64_t seq;               /* the operations issued before it: opseq below this */
  MPI_Request bar;            /* FENCE: the barrier */
  int refs;                   /* queue items that point here */
  int done;
  am_sync_t *next;
};

/* What an origin holds back toward one target, in order: messages that
 * must not reach it yet, and the gates they wait behind. */
enum { Q_MSG = 1, Q_GRANT, Q_POST, Q_FENCE, Q_RMA, Q_WRITES };
typedef struct am_item {
  int kind;
  void *buf;                  /* Q_MSG: the message (owned) */
  size_t len;
  fy_request_t *r;            /* Q_GRANT: the lock answer's receive; Q_RMA: its request */
  void *lbuf;                 /* Q_RMA: the origin's buffer (len bytes), the target's address and key */
  uint64_t raddr, key;
  int write;
  am_sync_t *s;               /* the synchronization it counts for (Q_MSG: may be NULL) */
  struct am_item *next;
} am_item_t;

struct fy_rma_am {
  fy_comm_t *comm;            /* private communicator over the window's group */
  MPI_Comm comm_h;
  /* origin side */
  uint8_t *touched;           /* per target: requests sent since its last flush */
  uint8_t *locked;            /* per target: 0, or 1 + lock type held */
  int lock_all, fence_open;
  int fence_ops;              /* operations issued in the open fence epoch */
  int *access, naccess;       /* Win_start's group (window ranks), naccess < 0: none */
  int *expo, nexpo;           /* Win_post's group, nexpo < 0: none */
  uint64_t *posts_seen, *posts_used;       /* per target: its Win_post toward me */
  uint64_t *completes_seen, *completes_used; /* per origin: its Win_complete toward me */
  am_pend_t *sends, *recvs;
  size_t held;                /* bytes of the sends in a->sends (FERRY_RMA_AM_INFLIGHT bounds them) */
  uint64_t opseq;             /* operations issued so far */
  am_item_t **qh, **qt;       /* per target: held messages and gates (am_out, am_drain) */
  int *qlist, nqueued;        /* the targets whose queue is not empty (qpos: each one's place) */
  int *qpos;
  am_sync_t *syncs, *syncs_tail; /* nonblocking synchronizations not complete, in call order */
  am_sync_t *fence_gate;      /* an ifence not complete: what is issued after it waits for it */
  uint64_t fence_id, *fgated; /* ifences so far; per target: the last one it was gated on */
  /* native RMA (FERRY_RMA_NATIVE): contiguous puts and gets toward a
   * target reached through the fabric are fabric writes and reads */
  uint8_t *native;            /* per target: its window is registered and it is a fabric peer */
  uint64_t *nraddr, *nkey;    /* per target: its window's address and key for the fabric */
  int *nworld;                /* per target: its world rank */
  int *wout;                  /* per target: writes issued, not complete (a sync message waits for them) */
  void *mr;                   /* my window's registration */
  /* target side */
  int excl, shared;           /* lock holders: exclusive rank or -1, shared count */
  am_waiter_t *wq, *wq_tail;  /* lock requests not granted yet, in arrival order */
  int *err_of;                /* per origin: first error class found since it last asked */
  int listening;              /* counted in fy_progress_listen (FERRY_RMA_AM_AGENT) */
  fy_request_t *in;           /* the message being received, or NULL */
  char *in_buf;
  int in_src;
};

static int in_poll; /* fy_rma_am_poll is not reentered (its sends poll) */
static int am_sync_step(fy_win_t *w);

static fy_datatype_t *byte_type(void) { return fy_type_get(MPI_BYTE); }

/* A new entry at the head of list (NULL: out of memory). */
static am_pend_t *am_pend_new(am_pend_t **list, fy_request_t *r, void *buf, int target, fy_request_t *user) {
  am_pend_t *p = malloc(sizeof *p);
  if (!p) return NULL;
  *p = (am_pend_t){.r = r, .buf = buf, .target = target, .user = user, .next = *list};
  *list = p;
  return p;
}

/* Take p out of list again (its request never started) and free it. */
static void am_pend_drop(am_pend_t **list, am_pend_t *p) {
  for (am_pend_t **pp = list; *pp; pp = &(*pp)->next)
    if (*pp == p) {
      *pp = p->next;
      break;
    }
  free(p);
}

/* Release what completed (a send's bytes leave *held); the number left
 * toward target (< 0: any). Entries are newest first; a quick pass
 * (quick = 1, the progress hook) stops after 16 entries still in flight,
 * so that an epoch of many operations does not cost every poll a walk of
 * all of them. */
static int am_reap(am_pend_t **list, size_t *held, int target, int quick) {
  int left = 0;
  for (am_pend_t **pp = list; *pp && !(quick && left >= 16);) {
    am_pend_t *p = *pp;
    if (fy_req_done(p->r)) {
      if (p->user) fy_req_complete(p->user);
      fy_req_release(p->r);
      free(p->buf);
      *held -= p->len;
      *pp = p->next;
      free(p);
      continue;
    }
    if (target < 0 || p->target == target) left++;
    pp = &p->next;
  }
  return left;
}

/* Send len bytes of buf (owned from now on, freed when sent) to dest.
 * Everything that can fail is done before the send starts: a message that
 * left must be known, or its reply would meet the next receive. */
static int am_send(fy_rma_am_t *a, int dest, int tag, void *buf, size_t len) {
  fy_request_t *r = fy_req_alloc(FY_REQ_SEND, 0);
  am_pend_t *p = r ? am_pend_new(&a->sends, r, buf, dest, NULL) : NULL;
  if (!p) {
    if (r) fy_req_release(r);
    free(buf);
    return fy_err(MPI_ERR_NO_MEM, "out of memory in a one-sided operation");
  }
  fy_req_setup(r, FY_REQ_SEND, FY_MODE_STD, buf, (MPI_Count)len, byte_type(), dest, tag, a->comm, 0);
  p->len = len;
  a->held += len;
  int err = fy_send_start(r);
  if (err) {
    a->held -= len;
    am_pend_drop(&a->sends, p);
    fy_req_release(r);
    free(buf);
  }
  return err;
}

/* ---- what an origin holds back (nonblocking synchronization) ----
 *
 * MPIX_Win_ilock, istart and ifence return before the epoch may reach its
 * targets: the lock is not granted, the target has not posted, or has not
 * entered the fence yet. Operations issued meanwhile are built at once
 * (their data packed, their replies' receives posted) but wait in a queue
 * per target, behind a gate: the grant's answer, a post from the target,
 * the fence's barrier. Whatever the origin sends that target later queues
 * behind them, so the target sees every origin's requests in the order
 * issued, and replies meet their receives in the order posted. Exposure
 * messages (post) never queue: they belong to no access epoch of mine. */

static am_item_t *am_push(fy_rma_am_t *a, int t, int kind) {
  am_item_t *it = calloc(1, sizeof *it);
  if (!it) return NULL;
  it->kind = kind;
  if (a->qt[t]) a->qt[t]->next = it;
  else {
    a->qh[t] = it;
    a->qpos[t] = a->nqueued;
    a->qlist[a->nqueued++] = t;
  }
  a->qt[t] = it;
  return it;
}

static void am_sync_ref(am_item_t *it, am_sync_t *s) {
  it->s = s;
  if (s) s->refs++;
}

/* What is issued toward t after a pending ifence waits for it: its gate,
 * once per ifence and target. */
static int am_fence_gate(fy_rma_am_t *a, int t) {
  am_sync_t *f = a->fence_gate;
  if (!f || a->fgated[t] == a->fence_id) return MPI_SUCCESS;
  am_item_t *g = am_push(a, t, Q_FENCE);
  if (!g) return fy_err(MPI_ERR_NO_MEM, "out of memory in a one-sided operation");
  am_sync_ref(g, f);
  a->fgated[t] = a->fence_id;
  return MPI_SUCCESS;
}

/* A request toward t (owned from now on): sent now, or queued behind what
 * t's queue holds (and behind a pending ifence). s, if any, counts it
 * (left) once it leaves. */
static int am_out(fy_rma_am_t *a, int t, void *buf, size_t len, am_sync_t *s) {
  int err = am_fence_gate(a, t);
  if (err) {
    free(buf);
    return err;
  }
  if (!a->qh[t]) {
    err = am_send(a, t, AM_TAG, buf, len);
    if (!err && s) s->left--;
    return err;
  }
  am_item_t *it = am_push(a, t, Q_MSG);
  if (!it) {
    free(buf);
    return fy_err(MPI_ERR_NO_MEM, "out of memory in a one-sided operation");
  }
  it->buf = buf;
  it->len = len;
  am_sync_ref(it, s);
  return MPI_SUCCESS;
}

/* ---- native RMA: a fabric write or read into the target's registered
 * window, which the target's CPU does not handle. It completes r (in
 * a->recvs, so local completion and Rput/Rget count it); a write also
 * counts in wout[t] until done, and a message that ends an epoch or
 * flushes toward t (am_writes_gate) leaves only after, when it finds the
 * data in place; at once where the provider orders sends after writes
 * (fy_net_writes_ordered). */

/* A write no longer counts toward t; a block of a strided target layout
 * (r->parent) counts down its operation, which completes with the last. */
static void am_native_done(fy_request_t *r) {
  fy_rma_am_t *a = r->cb_arg;
  if (r->tag) a->wout[r->peer]--;
  fy_request_t *p = r->parent;
  if (!p) return;
  if (r->status.MPI_ERROR && !p->status.MPI_ERROR) p->status.MPI_ERROR = r->status.MPI_ERROR;
  if (atomic_fetch_sub(&p->nchild, 1) == 1) fy_req_complete(p);
}

static void am_rma_issue(fy_rma_am_t *a, int t, int write, void *lbuf, size_t len, uint64_t raddr, uint64_t key,
                         fy_request_t *r) {
  if (write || r->parent) {
    r->peer = t;
    r->tag = write;
    r->cb_arg = a;
    r->on_complete = am_native_done;
    if (write) a->wout[t]++;
  }
  if (fy_net_rma(write, a->nworld[t], lbuf, len, raddr, key, r)) { /* (out of memory: it fails, counted done) */
    r->status.MPI_ERROR = MPI_ERR_NO_MEM;
    fy_req_complete(r);
  }
}

/* A get into a non-contiguous origin buffer read a packed copy (tmp):
 * unpacked before its request counts as done. */
static void am_get_unpack(fy_request_t *r) {
  if (r->status.MPI_ERROR == MPI_SUCCESS)
    fy_type_unpack(r->type, r->count, r->tmp, (size_t)r->count * r->type->size, r->rbuf);
}

/* The RMA now, or queued behind t's gates (as am_out does for messages). */
static int am_rma_out(fy_rma_am_t *a, int t, int write, void *lbuf, size_t len, uint64_t raddr, uint64_t key,
                      fy_request_t *r) {
  int err = am_fence_gate(a, t);
  if (err) return err;
  if (!a->qh[t]) {
    am_rma_issue(a, t, write, lbuf, len, raddr, key, r);
    return MPI_SUCCESS;
  }
  am_item_t *it = am_push(a, t, Q_RMA);
  if (!it) return fy_err(MPI_ERR_NO_MEM, "out of memory in a one-sided operation");
  *it = (am_item_t){.kind = Q_RMA, .lbuf = lbuf, .len = len, .raddr = raddr, .key = key, .write = write, .r = r,
                    .next = NULL};
  return MPI_SUCCESS;
}

/* Before a message that flushes or ends an epoch toward t: a gate that
 * opens once the writes issued toward t before it are complete. */
static int am_writes_gate(fy_rma_am_t *a, int t) {
  if (!a->native || !a->native[t] || (!a->qh[t] && (!a->wout[t] || fy_net_writes_ordered()))) return MPI_SUCCESS;
  return am_push(a, t, Q_WRITES) ? MPI_SUCCESS : fy_err(MPI_ERR_NO_MEM, "out of memory in a one-sided operation");
}

/* Send what t's queue holds up to its first closed gate. */
static void am_drain(fy_rma_am_t *a, int t) {
  am_item_t *it;
  while ((it = a->qh[t])) {
    switch (it->kind) {
      case Q_MSG: {
        void *buf = it->buf;
        it->buf = NULL;
        if (am_send(a, t, AM_TAG, buf, it->len)) { /* (out of memory: its answer never comes) */
          if (it->s && !it->s->err) it->s->err = MPI_ERR_NO_MEM;
        }
        if (it->s) it->s->left--;
        break;
      }
      case Q_GRANT:
        if (!fy_req_done(it->r)) return;
        it->s->left--;
        break;
      case Q_POST:
        if (a->posts_seen[t] <= a->posts_used[t]) return;
        a->posts_used[t]++;
        it->s->left--;
        break;
      case Q_FENCE:
        if (!it->s->done) return;
        break;
      case Q_RMA:
        am_rma_issue(a, t, it->write, it->lbuf, it->len, it->raddr, it->key, it->r);
        break;
      case Q_WRITES:
        if (a->wout[t] && !fy_net_writes_ordered()) return;
        break;
    }
    a->qh[t] = it->next;
    if (!a->qh[t]) { /* (out of the list: the last one takes its place) */
      a->qt[t] = NULL;
      int last = a->qlist[--a->nqueued];
      a->qlist[a->qpos[t]] = last;
      a->qpos[last] = a->qpos[t];
    }
    if (it->s) it->s->refs--;
    free(it);
  }
}

/* Post the receive of a reply from t into count items of dt at buf. */
static int am_post_reply(fy_rma_am_t *a, int t, void *buf, MPI_Count count, fy_datatype_t *dt, fy_request_t **out) {
  fy_request_t *r = fy_req_alloc(FY_REQ_RECV, 0);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests");
  fy_req_setup(r, FY_REQ_RECV, FY_MODE_STD, buf, count, dt, t, AM_REPLY, a->comm, 0);
  int err = fy_recv_start(r);
  if (err) {
    fy_req_release(r);
    return err;
  }
  *out = r;
  return MPI_SUCCESS;
}

/* Withdraw a reply receive whose request could not be sent, so that no
 * wait counts on it (as comm/cx.c does). */
static void am_unpost(fy_request_t *r) {
  if (fy_recv_cancel(r) == 0) fy_req_wait_done(r);
  fy_req_release(r);
}

static void *am_msg(int kind, int arg, size_t npieces, size_t nbytes, size_t *len) {
  *len = sizeof(am_hdr_t) + npieces * 2 * sizeof(int64_t) + nbytes;
  am_hdr_t *h = malloc(*len); /* (only the header needs zeroing: the rest is written) */
  if (!h) return NULL;
  memset(h, 0, sizeof *h);
  h->kind = kind;
  h->arg = arg;
  h->npieces = npieces;
  h->nbytes = nbytes;
  return h;
}

/* A control message (lock, unlock, flush) to t and its int32 answer,
 * posted with its receive; s waits for it (a lock's grant is also a gate
 * that later requests toward t wait behind). */
static int am_ctl_start(fy_rma_am_t *a, int t, int kind, int arg, am_ctl_t *c, am_sync_t *s) {
  size_t len;
  void *m = am_msg(kind, arg, 0, 0, &len);
  if (!m) return fy_err(MPI_ERR_NO_MEM, "out of memory in a one-sided synchronization");
  c->ans = 0;
  int err = kind == AM_LOCK ? MPI_SUCCESS : am_writes_gate(a, t);
  if (!err) err = am_post_reply(a, t, &c->ans, 1, fy_type_get(MPI_INT32_T), &c->r);
  if (err) {
    c->r = NULL;
    free(m);
    return err;
  }
  if (!(err = am_out(a, t, m, len, NULL)) && kind == AM_LOCK) {
    am_item_t *g = am_push(a, t, Q_GRANT);
    if (!g) return fy_err(MPI_ERR_NO_MEM, "out of memory in a one-sided synchronization");
    g->r = c->r;
    am_sync_ref(g, s);
    s->left++;
  }
  if (err) {
    am_unpost(c->r);
    c->r = NULL;
  }
  return err;
}

static int am_ctl_finish(am_ctl_t *c, int t, const char *fname) {
  fy_req_wait_done(c->r);
  fy_req_release(c->r);
  if (c->ans == MPI_ERR_RMA_RANGE)
    return fy_err(c->ans, "%s: an earlier operation toward rank %d reached outside every region the target "
                  "attached", fname, t);
  if (c->ans)
    return fy_err(c->ans, "%s: an earlier operation toward rank %d failed at the target (error class %d)",
                  fname, t, (int)c->ans);
  return MPI_SUCCESS;
}

/* ---- the target side ---- */

/* [off, off+len) of my window (addr is an absolute address for a dynamic
 * window); NULL when outside it. */
static char *am_target_ptr(fy_win_t *w, int64_t addr, int64_t off, int64_t len) {
  if (len < 0) return NULL;
  if (w->flavor == FY_WIN_DYNAMIC) {
    uint64_t lo = (uint64_t)(addr + off);
    return len == 0 || fy_rma_dyn_lookup(w, w->rank, lo, (uint64_t)len) ? (char *)(uintptr_t)lo : NULL;
  }
  int64_t o = addr + off;
  if (o < 0 || o + len > (int64_t)w->bytes) return len == 0 ? (char *)w->base : NULL;
  return (char *)w->base + o;
}

/* Gather (write = 0) or scatter (1) the pieces of a request with buf. */
static int am_pieces(fy_win_t *w, const am_hdr_t *h, char *buf, int write) {
  const int64_t *pc = (const int64_t *)(h + 1);
  size_t pos = 0;
  for (uint64_t i = 0; i < h->npieces; i++) {
    char *p = am_target_ptr(w, h->addr, pc[2 * i], pc[2 * i + 1]);
    if (!p) return MPI_ERR_RMA_RANGE;
    if (write) memcpy(p, buf + pos, (size_t)pc[2 * i + 1]);
    else memcpy(buf + pos, p, (size_t)pc[2 * i + 1]);
    pos += (size_t)pc[2 * i + 1];
  }
  return MPI_SUCCESS;
}

/* inout op= data over the pieces, in place when each piece holds whole
 * elements (one pass over the window; a 1 MiB accumulate took three:
 * gather, operate, scatter), else through a gathered copy. */
static int am_reduce(fy_win_t *w, const am_hdr_t *h, const char *data, size_t span, const fy_op_kernel_t *k,
                     size_t esize) {
  const int64_t *pc = (const int64_t *)(h + 1);
  int whole = 1;
  for (uint64_t i = 0; i < h->npieces && whole; i++) whole = (size_t)pc[2 * i + 1] % esize == 0;
  if (whole) {
    size_t pos = 0;
    for (uint64_t i = 0; i < h->npieces; i++) {
      char *p = am_target_ptr(w, h->addr, pc[2 * i], pc[2 * i + 1]);
      if (!p) return MPI_ERR_RMA_RANGE;
      fy_op_kernel_run(k, data + pos, p, (MPI_Count)((size_t)pc[2 * i + 1] / esize));
      pos += (size_t)pc[2 * i + 1];
    }
    return MPI_SUCCESS;
  }
  char *cur = malloc(span);
  if (!cur) return MPI_ERR_NO_MEM;
  int err = am_pieces(w, h, cur, 0);
  if (!err) {
    fy_op_kernel_run(k, data, cur, (MPI_Count)(span / esize));
    err = am_pieces(w, h, cur, 1);
  }
  free(cur);
  return err;
}

static size_t am_span(const am_hdr_t *h) {
  const int64_t *pc = (const int64_t *)(h + 1);
  size_t n = 0;
  for (uint64_t i = 0; i < h->npieces; i++) n += (size_t)pc[2 * i + 1];
  return n;
}

static int am_answer(fy_rma_am_t *a, int src, int32_t v) {
  int32_t *m = malloc(sizeof *m);
  if (!m) return MPI_ERR_NO_MEM;
  *m = v;
  return am_send(a, src, AM_REPLY, m, sizeof *m);
}

static int am_grantable(fy_rma_am_t *a, int type) {
  return a->excl < 0 && (type == MPI_LOCK_SHARED || a->shared == 0);
}

static void am_grant_waiters(fy_rma_am_t *a) {
  while (a->wq && am_grantable(a, a->wq->type)) {
    am_waiter_t *q = a->wq;
    a->wq = q->next;
    if (!a->wq) a->wq_tail = NULL;
    if (q->type == MPI_LOCK_SHARED) a->shared++;
    else a->excl = q->src;
    am_answer(a, q->src, 0);
    free(q);
  }
}

/* Apply one request from src (the progress lock is held). */
static void am_handle(fy_win_t *w, int src, am_hdr_t *h) {
  fy_rma_am_t *a = w->am;
  int err = MPI_SUCCESS;
  char *data = (char *)(h + 1) + h->npieces * 2 * sizeof(int64_t);
  size_t span = am_span(h);
  switch (h->kind) {
    case AM_PUT: err = am_pieces(w, h, data, 1); break;
    case AM_GET: {
      char *out = malloc(span ? span : 1);
      if (!out) {
        err = MPI_ERR_NO_MEM;
        am_send(a, src, AM_REPLY, NULL, 0); /* (the origin waits for an answer) */
        break;
      }
      err = am_pieces(w, h, out, 0);
      am_send(a, src, AM_REPLY, out, err ? 0 : span); /* the origin waits for an answer either way */
      break;
    }
    case AM_ACC:
    case AM_GACC:
    case AM_CAS: {
      fy_datatype_t *b = fy_type_get(h->basic);
      char *res = NULL; /* the values before the operation (GACC, CAS) */
      if (!b || (h->kind != AM_ACC && !(res = malloc(span ? span : 1)))) {
        err = MPI_ERR_NO_MEM;
        if (h->kind != AM_ACC) am_send(a, src, AM_REPLY, NULL, 0);
        break;
      }
      if (res) err = am_pieces(w, h, res, 0);
      if (!err && h->kind == AM_CAS) {
        /* data: the origin value, then the compare value */
        if (memcmp(res, data + span, span) == 0) err = am_pieces(w, h, data, 1);
      } else if (!err && span && h->arg != (int32_t)MPI_NO_OP) { /* (nothing moved: no op to check) */
        fy_op_kernel_t k;
        if (fy_rma_kernel(h->arg, b, &k) == MPI_SUCCESS) err = am_reduce(w, h, data, span, &k, (size_t)b->size);
        else err = MPI_ERR_OP;
      }
      if (h->kind != AM_ACC) am_send(a, src, AM_REPLY, res, res && !err ? span : 0);
      break;
    }
    case AM_LOCK:
      if (!a->wq && am_grantable(a, h->arg)) {
        if (h->arg == MPI_LOCK_SHARED) a->shared++;
        else a->excl = src;
        am_answer(a, src, 0);
      } else {
        am_waiter_t *q = malloc(sizeof *q);
        if (q) {
          *q = (am_waiter_t){.src = src, .type = h->arg};
          if (a->wq_tail) a->wq_tail->next = q;
          else a->wq = q;
          a->wq_tail = q;
        } else {
          am_answer(a, src, MPI_ERR_NO_MEM);
        }
      }
      return;
    case AM_UNLOCK:
      if (a->excl == src) a->excl = -1;
      else if (a->shared > 0) a->shared--;
      am_answer(a, src, a->err_of[src]);
      a->err_of[src] = 0;
      am_grant_waiters(a);
      return;
    case AM_FLUSH:
      am_answer(a, src, a->err_of[src]);
      a->err_of[src] = 0;
      return;
    case AM_POST: a->posts_seen[src]++; return;
    case AM_COMPLETE: a->completes_seen[src]++; return;
  }
  if (err && !a->err_of[src]) a->err_of[src] = err;
}

int fy_rma_am_poll(fy_win_t *w) {
  fy_rma_am_t *a = w->am;
  if (in_poll || fy_pt2pt_in_signal) return 0;
  in_poll = 1;
  int ev = 0;
  am_reap(&a->sends, &a->held, -1, 1);
  am_reap(&a->recvs, &a->held, -1, 1);
  ev += am_sync_step(w);
  for (;;) {
    if (!a->in) {
      MPI_Status st;
      const void *data;
      size_t len;
      void *e;
      int k = fy_probe_take_eager(a->comm, MPI_ANY_SOURCE, AM_TAG, &st, &e, &data, &len);
      if (!k) break;
      if (k == 1) { /* (applied from where it arrived: no receive, no copy) */
        am_hdr_t small = {0};
        if (len < sizeof small) memcpy(&small, data, len);
        am_handle(w, st.MPI_SOURCE, len < sizeof small ? &small : (am_hdr_t *)data);
        fy_probe_release(e);
        ev++;
        continue;
      }
      len = (size_t)fy_status_get_count(&st);
      char *buf = malloc(len < sizeof(am_hdr_t) ? sizeof(am_hdr_t) : len);
      fy_request_t *r = buf ? fy_req_alloc(FY_REQ_RECV, 0) : NULL, *msg = NULL;
      if (r) msg = fy_probe_take(a->comm, MPI_ANY_SOURCE, AM_TAG, &st);
      if (!msg) { /* (out of memory: the message stays queued for a later pass) */
        if (r) fy_req_release(r);
        free(buf);
        break;
      }
      fy_msg_recv_start(msg, buf, (MPI_Count)len, byte_type(), r);
      fy_req_release(msg);
      a->in = r;
      a->in_buf = buf;
      a->in_src = st.MPI_SOURCE;
    }
    if (!fy_req_done(a->in)) break; /* a large one still arriving */
    fy_req_release(a->in);
    a->in = NULL;
    am_handle(w, a->in_src, (am_hdr_t *)a->in_buf);
    free(a->in_buf);
    a->in_buf = NULL;
    ev++;
  }
  if (ev) ev += am_sync_step(w); /* (posts, completes and answers that came) */
  in_poll = 0;
  return ev;
}

/* ---- window creation and free ---- */

int fy_rma_am_setup(fy_win_t *w, fy_comm_t *c, MPI_Aint size, void *user_base) {
  int n = c->size, err;
  fy_rma_am_t *a = calloc(1, sizeof *a);
  if (!a) return fy_err(MPI_ERR_NO_MEM, "out of memory creating a window");
  w->am = a;
  a->excl = -1;
  a->naccess = a->nexpo = -1;
  a->touched = calloc((size_t)n, 1);
  a->locked = calloc((size_t)n, 1);
  a->posts_seen = calloc((size_t)n, sizeof(uint64_t));
  a->posts_used = calloc((size_t)n, sizeof(uint64_t));
  a->completes_seen = calloc((size_t)n, sizeof(uint64_t));
  a->completes_used = calloc((size_t)n, sizeof(uint64_t));
  a->err_of = calloc((size_t)n, sizeof(int));
  a->qh = calloc((size_t)n, sizeof *a->qh);
  a->qt = calloc((size_t)n, sizeof *a->qt);
  a->qlist = calloc((size_t)n, sizeof *a->qlist);
  a->qpos = calloc((size_t)n, sizeof *a->qpos);
  a->fgated = calloc((size_t)n, sizeof *a->fgated);
  w->blk = calloc((size_t)n, sizeof *w->blk); /* only mine is used: the dynamic regions */
  if (!a->touched || !a->locked || !a->posts_seen || !a->posts_used || !a->completes_seen ||
      !a->completes_used || !a->err_of || !a->qh || !a->qt || !a->qlist ||
      !a->qpos || !a->fgated || !w->blk)
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating a window");
  if (w->flavor == FY_WIN_ALLOCATE && size > 0) {
    if (posix_memalign(&w->base, 64, (size_t)size)) return fy_err(MPI_ERR_NO_MEM, "out of memory: a window of %ld bytes", (long)size);
    memset(w->base, 0, (size_t)size);
    w->own_base = 1;
  } else {
    w->base = w->flavor == FY_WIN_ALLOCATE ? NULL : user_base;
  }
  w->bytes = size;
  if ((err = fy_commc_local(c, &a->comm))) {
    a->comm = NULL;
    return err;
  }
  if ((err = fy_comm_publish(a->comm))) return err;
  snprintf(a->comm->name, sizeof a->comm->name, "%s", "MPI RMA window communicator");
  a->comm_h = a->comm->handle;
  /* every rank's size and displacement unit, for the origins' range checks */
  /* (and, for native RMA, where its window is registered: address, key, 1) */
  uint64_t raddr = 0, key = 0;
  if (fy_config.rma_native && w->flavor != FY_WIN_DYNAMIC && size > 0)
    a->mr = fy_net_mr_reg(w->base, (size_t)size, &raddr, &key);
  int64_t mine[5] = {(int64_t)size, (int64_t)w->disp_unit, (int64_t)raddr, (int64_t)key, a->mr != NULL};
  int64_t *all = malloc(sizeof(int64_t) * 5 * (size_t)n);
  a->native = calloc((size_t)n, 1);
  a->nraddr = calloc((size_t)n, sizeof *a->nraddr);
  a->nkey = calloc((size_t)n, sizeof *a->nkey);
  a->nworld = calloc((size_t)n, sizeof *a->nworld);
  a->wout = calloc((size_t)n, sizeof *a->wout);
  if (!all || !a->native || !a->nraddr || !a->nkey || !a->nworld || !a->wout) {
    free(all);
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating a window");
  }
  err = fy_mpi_allgather(mine, 5, MPI_INT64_T, all, 5, MPI_INT64_T, a->comm_h);
  for (int r = 0; !err && r < n; r++) {
    int64_t *x = all + 5 * r;
    w->peer[r].size = (uint64_t)x[0];
    w->peer[r].disp_unit = (MPI_Aint)x[1];
    w->peer[r].local = -1;
    a->nworld[r] = fy_net_rma_world(a->comm, r);
    a->native[r] = x[4] && a->nworld[r] >= 0 && r != w->rank;
    a->nraddr[r] = (uint64_t)x[2];
    a->nkey[r] = (uint64_t)x[3];
  }
  free(all);
  if (err) return err;
  w->peer[w->rank].addr = w->base;
  /* Operations arrive whatever this process does: the agents take them in
   * (progress.h), or a computing target would answer only at its next
   * MPI call. */
  if (fy_config.rma_am_agent) {
    a->listening = 1;
    fy_progress_listen_add(1);
  }
  return 0;
}

void fy_rma_am_destroy(fy_win_t *w) {
  fy_rma_am_t *a = w->am;
  if (!a) return;
  if (a->listening) fy_progress_listen_add(-1);
  for (am_pend_t *p = a->sends, *nx; p; p = nx) {
    nx = p->next;
    fy_req_release(p->r);
    free(p->buf);
    free(p);
  }
  for (am_waiter_t *q = a->wq, *nx; q; q = nx) {
    nx = q->next;
    free(q);
  }
  for (int t = 0; a->qh && t < w->size; t++)
    for (am_item_t *it = a->qh[t], *nx; it; it = nx) {
      nx = it->next;
      free(it->buf);
      free(it);
    }
  for (am_sync_t *s = a->syncs, *nx; s; s = nx) {
    nx = s->next;
    free(s->c);
    free(s->ranks);
    free(s);
  }
  free(a->qh);
  free(a->qt);
  free(a->qlist);
  free(a->qpos);
  free(a->fgated);
  fy_net_mr_dereg(a->mr);
  free(a->native);
  free(a->nraddr);
  free(a->nkey);
  free(a->nworld);
  free(a->wout);
  if (a->comm) fy_commc_release(a->comm);
  free(a->in_buf);
  free(a->touched);
  free(a->locked);
  free(a->access);
  free(a->expo);
  free(a->posts_seen);
  free(a->posts_used);
  free(a->completes_seen);
  free(a->completes_used);
  free(a->err_of);
  free(a);
  w->am = NULL;
  free(w->blk);
  w->blk = NULL;
  if (w->own_base) free(w->base);
}

static int sends_done(void *arg) {
  fy_rma_am_t *a = arg;
  fy_plock();
  int left = am_reap(&a->sends, &a->held, -1, 0) + am_reap(&a->recvs, &a->held, -1, 0);
  fy_punlock();
  return left == 0;
}

static int syncs_idle(void *arg);
static int am_sync_run(fy_win_t *w, int call, int rank, int arg, int *r, int k, MPI_Request *req, const char *fname);

int fy_rma_am_free_ready(void *win) { return syncs_idle(((fy_win_t *)win)->am); }

int fy_rma_am_free_check(fy_win_t *w, int *ready, const char *fname) {
  fy_rma_am_t *a = w->am;
  /* the nonblocking calls' epochs end first */
  if (!(*ready = syncs_idle(a))) return MPI_SUCCESS;
  if (a->lock_all || a->naccess >= 0 || a->nexpo >= 0)
    return fy_err(MPI_ERR_RMA_SYNC, "%s: an epoch is still open on the window", fname);
  for (int r = 0; r < w->size; r++)
    if (a->locked[r]) return fy_err(MPI_ERR_RMA_SYNC, "%s: rank %d is still locked", fname, r);
  return MPI_SUCCESS;
}

/* An internal request this file started (a barrier, a flush): 1 once it
 * is done (or there is none), released and *h MPI_REQUEST_NULL, its error
 * kept in *err unless one is there already. */
static int inner_done(MPI_Request *h, int *err) {
  fy_request_t *r = *h == MPI_REQUEST_NULL ? NULL : fy_req_get(*h);
  if (r && !fy_req_done(r)) return 0;
  if (r) {
    if (!*err) *err = r->status.MPI_ERROR;
    fy_req_release(r);
  }
  *h = MPI_REQUEST_NULL;
  return 1;
}

int fy_rma_am_free_step(fy_win_t *w, fy_rma_free_t *f) {
  fy_rma_am_t *a = w->am;
  int err;
  switch (f->phase) {
  case 0: /* a fence epoch left open ends here; then nobody sends to me any more */
    f->inner = MPI_REQUEST_NULL;
    if ((err = am_sync_run(w, FY_AMS_FLUSH, -1, 0, NULL, 0, &f->inner, f->fname)) && !f->err) f->err = err;
    f->phase = 1;
    /* fall through */
  case 1:
    if (!inner_done(&f->inner, &f->err)) return 0;
    if ((err = fy_mpi_ibarrier(a->comm_h, &f->inner)) && !f->err) f->err = err;
    f->phase = 2;
    /* fall through */
  case 2:
    if (!inner_done(&f->inner, &f->err)) return 0;
    f->phase = 3;
    /* fall through */
  default:
    return sends_done(a);
  }
}

/* ---- the origin side: operations ---- */

static int covers(fy_rma_am_t *a, int t, int passive_only) {
  if (a->lock_all || a->locked[t]) return 1;
  if (passive_only) return 0;
  if (a->fence_open) return 1;
  for (int i = 0; i < a->naccess; i++)
    if (a->access[i] == t) return 1;
  return 0;
}

/* The pieces of count items of type tt, as (offset, length) pairs: in
 * inl (2 words) for a contiguous type, else in an allocated array. */
static int am_layout(fy_datatype_t *tt, MPI_Count count, int64_t *inl, int64_t **out, size_t *np) {
  size_t cap = 0, n = 0, total = (size_t)(count * tt->size), off = 0;
  int64_t *pc = NULL;
  *out = NULL;
  *np = 0;
  if (!total) return MPI_SUCCESS;
  if (tt->is_contig) {
    pc = inl;
    pc[0] = (int64_t)tt->true_lb;
    pc[1] = (int64_t)total;
    *out = pc;
    *np = 1;
    return MPI_SUCCESS;
  }
  struct iovec iov[AM_IOV];
  while (off < total) {
    size_t got = 0;
    int k = fy_flat_iov(&tt->pk, count, AM_BASE, off, iov, AM_IOV, total - off, &got);
    if (k <= 0 || !got) break;
    if (n + (size_t)k > cap) {
      cap = (n + (size_t)k) * 2;
      int64_t *x = realloc(pc, cap * 2 * sizeof *pc);
      if (!x) {
        free(pc);
        return MPI_ERR_NO_MEM;
      }
      pc = x;
    }
    for (int i = 0; i < k; i++) {
      pc[2 * n] = (int64_t)((uintptr_t)iov[i].iov_base - AM_BASE);
      pc[2 * n + 1] = (int64_t)iov[i].iov_len;
      n++;
    }
    off += got;
  }
  *out = pc;
  *np = n;
  return MPI_SUCCESS;
}

/* A put or get toward a fabric peer as fabric writes or reads into its
 * registered window: one per block of the target layout pc (np blocks),
 * of the origin buffer or of a packed copy of it, which the operation's
 * request owns (a get unpacks it as the request completes, holding a
 * reference on the origin datatype, which the user may free at once).
 * With several blocks each is a request of its own (r->parent), the
 * operation's completes with the last. Its request sits among the
 * pending replies (a->recvs), so local completion, Rput/Rget and the
 * flushes count it; user completes with it. */
static int am_native_op(fy_rma_am_t *a, int t, int write, fy_rmaop_t *op, const int64_t *pc, size_t np, uint64_t addr,
                        size_t tbytes, fy_request_t *user) {
  int contig = op->otype->is_contig;
  fy_request_t *r = fy_req_alloc(FY_REQ_RMA, 0);
  char *copy = r && !contig ? malloc(tbytes) : NULL;
  am_pend_t *rp = r && (contig || copy) ? am_pend_new(&a->recvs, r, NULL, t, user) : NULL;
  if (!rp) {
    free(copy);
    if (r) fy_req_release(r);
    return fy_err(MPI_ERR_NO_MEM, "out of memory in a one-sided operation");
  }
  fy_status_empty(&r->status);
  r->status.MPI_ERROR = MPI_SUCCESS;
  rp->seq = a->opseq++;
  char *lbuf = (char *)(write ? op->oaddr : op->raddr) + op->otype->true_lb;
  if (copy) {
    r->tmp = lbuf = copy;
    r->tmp_owned = 1;
    if (write) {
      fy_type_pack(op->otype, op->ocount, op->oaddr, copy);
    } else {
      r->rbuf = op->raddr;
      r->count = op->ocount;
      r->type = op->otype;
      fy_type_retain(op->otype);
      r->on_complete = am_get_unpack;
    }
  }
  uint64_t base = a->nraddr[t] + addr;
  if (np == 1) {
    int err = am_rma_out(a, t, write, lbuf, tbytes, base + (uint64_t)pc[0], a->nkey[t], r);
    if (err) {
      am_pend_drop(&a->recvs, rp);
      fy_req_release(r);
    }
    return err;
  }
  /* one count per block, and one held until every block is out; the
   * whole buffer registered once (where the provider wants local buffers
   * registered), which each block's registration finds in the cache */
  atomic_store(&r->nchild, (int)np + 1);
  void *mr = fy_net_mr_local(lbuf, tbytes);
  size_t off = 0, i;
  for (i = 0; i < np; i++) {
    size_t len = (size_t)pc[2 * i + 1];
    fy_request_t *c = fy_req_alloc(FY_REQ_RMA, 0);
    am_pend_t *cp = c ? am_pend_new(&a->recvs, c, NULL, t, NULL) : NULL;
    if (!cp) {
      if (c) fy_req_release(c);
      break;
    }
    fy_status_empty(&c->status);
    c->status.MPI_ERROR = MPI_SUCCESS;
    c->parent = r;
    cp->seq = rp->seq;
    if (am_rma_out(a, t, write, lbuf + off, len, base + (uint64_t)pc[2 * i], a->nkey[t], c)) {
      am_pend_drop(&a->recvs, cp);
      fy_req_release(c);
      break;
    }
    off += len;
  }
  fy_net_mr_dereg(mr); /* (the blocks hold their own references) */
  if (i < np) { /* (out of memory: the operation fails once the blocks out are done) */
    r->status.MPI_ERROR = MPI_ERR_NO_MEM;
    atomic_fetch_sub(&r->nchild, (int)(np - i)); /* (never the last: ours is held) */
  }
  if (atomic_fetch_sub(&r->nchild, 1) == 1) fy_req_complete(r);
  return MPI_SUCCESS;
}

fy_rma_stats_t fy_rma_stats;

/* FERRY_RMA_AM_INFLIGHT: the window's sends hold few enough bytes that
 * need more fit (or hold none: an operation larger than the limit goes
 * alone). */
static int am_room(const fy_rma_am_t *a, size_t need) {
  size_t cap = fy_config.rma_am_inflight;
  return !cap || !a->held || a->held + need <= cap;
}

typedef struct { fy_rma_am_t *a; size_t need; } am_room_arg_t;

static int room_ready(void *arg) {
  am_room_arg_t *x = arg;
  fy_plock();
  am_reap(&x->a->sends, &x->a->held, -1, 0);
  int ok = am_room(x->a, x->need);
  fy_punlock();
  return ok;
}

/* Before an operation packs need bytes into a message (lock held): wait,
 * progressing, until the targets have taken enough of what the window's
 * earlier operations sent. Without it, an origin that calls
 * MPI_Win_flush_local (which returns once the data is packed) or nothing
 * at all between operations holds every packed copy until its targets get
 * to them: 500 accumulates of 4 MB held 2 GB in MPICH's
 * rma/derived_acc_flush_local. The wait needs the targets to progress
 * (an agent, or their next MPI call), as MPICH's operation calls do past
 * MPIR_CVAR_RMA_ACTIVE_REQ_THRESHOLD (ch3). Never from inside the
 * progress hook, which does not issue operations. */
static void am_throttle(fy_rma_am_t *a, size_t need) {
  if (am_room(a, need) || in_poll) return;
  am_reap(&a->sends, &a->held, -1, 0);
  if (am_room(a, need)) return;
  __atomic_fetch_add(&fy_rma_stats.am_throttled, 1, __ATOMIC_RELAXED);
  am_room_arg_t x = {a, need};
  fy_punlock();
  fy_progress_wait(room_ready, &x);
  fy_plock();
}

int fy_rma_am_op(fy_win_t *w, fy_rmaop_t *op, int passive_only, MPI_Request *request) {
  fy_rma_am_t *a = w->am;
  int t = op->target, err = MPI_SUCCESS;
  fy_request_t *user = NULL;
  if (t != MPI_PROC_NULL && (t < 0 || t >= w->size))
    return fy_err(MPI_ERR_RANK, "target_rank = %d is not a rank of the window (size %d)", t, w->size);
  if (request) {
    if (!(user = fy_req_alloc(FY_REQ_RMA, 1))) return fy_err(MPI_ERR_NO_MEM, "out of requests");
    fy_status_empty(&user->status);
  }
  fy_plock();
  if (t != MPI_PROC_NULL && !covers(a, t, passive_only)) {
    err = fy_err(MPI_ERR_RMA_SYNC, passive_only ? "request-based operations need a passive target epoch "
                 "(MPI_Win_lock or MPI_Win_lock_all) toward rank %d" : "no access epoch toward rank %d is open "
                 "on the window", t);
    goto fail;
  }
  if (t == MPI_PROC_NULL) {
    if (user) fy_req_complete(user);
    goto done;
  }
  uint64_t addr = (uint64_t)op->tdisp; /* dynamic: an address, checked by the target (its regions) */
  if (w->flavor != FY_WIN_DYNAMIC && (err = fy_rma_target_range(w, t, op->tdisp, op->tcount, op->ttype, &addr)))
    goto fail;
  size_t tbytes = (size_t)(op->tcount * op->ttype->size);
  if (!tbytes) {
    /* no bytes (zero counts or zero-size types, MPICH's rma/badrma): a
     * no-op, as on one node; an accumulate has no basic type to check */
    if (user) fy_req_complete(user);
    goto done;
  }
  if (a->fence_open) a->fence_ops = 1; /* (a lock, start or post closed it otherwise) */
  int64_t *pc, inl[2];
  size_t np;
  if (am_layout(op->ttype, op->tcount, inl, &pc, &np)) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory in a one-sided operation");
    goto fail;
  }
  int kind = op->kind == FY_OP_PUT ? AM_PUT : op->kind == FY_OP_GET ? AM_GET : op->kind == FY_OP_ACC ? AM_ACC
             : op->kind == FY_OP_CAS ? AM_CAS : AM_GACC;
  fy_datatype_t *basic = NULL;
  MPI_Count per;
  if (kind >= AM_ACC && (!fy_type_reduce_basic(op->ttype, &basic, &per) || !basic)) {
    if (pc != inl) free(pc);
    err = fy_err(MPI_ERR_TYPE, "accumulate: the target datatype is not of one predefined type");
    goto fail;
  }
  if ((kind == AM_PUT || kind == AM_GET) && a->native[t] && (size_t)(op->ocount * op->otype->size) == tbytes &&
      (np == 1 || (long long)(tbytes / np) >= (long long)fy_config.rma_native_block)) {
    err = am_native_op(a, t, kind == AM_PUT, op, pc, np, addr, tbytes, user);
    if (pc != inl) free(pc);
    if (err) goto fail;
    a->touched[t] = 1; /* (the flush's answer then says the data is in place) */
    goto done;         /* (user completes with the operation) */
  }
  int sends_data = kind == AM_PUT || kind == AM_ACC || kind == AM_CAS || (kind == AM_GACC && op->op != MPI_NO_OP);
  size_t nbytes = !sends_data ? 0 : kind == AM_CAS ? 2 * tbytes : tbytes, len;
  if (nbytes) am_throttle(a, nbytes);
  am_hdr_t *h = am_msg(kind, (int32_t)op->op, np, nbytes, &len);
  if (!h) {
    if (pc != inl) free(pc);
    err = fy_err(MPI_ERR_NO_MEM, "out of memory in a one-sided operation");
    goto fail;
  }
  h->addr = (int64_t)addr;
  h->basic = basic ? basic->handle : 0;
  if (np) memcpy(h + 1, pc, np * 2 * sizeof *pc);
  if (pc != inl) free(pc);
  char *data = (char *)(h + 1) + np * 2 * sizeof(int64_t);
  if (sends_data) {
    fy_type_pack(op->otype, op->ocount, op->oaddr, data);
    if (kind == AM_CAS) memcpy(data + tbytes, op->caddr, tbytes);
  }
  fy_request_t *rr = NULL; /* the reply's receive, posted before the request leaves */
  am_pend_t *rp = NULL;
  if (kind == AM_GET) err = am_post_reply(a, t, op->raddr, op->ocount, op->otype, &rr);
  else if (kind != AM_PUT && kind != AM_ACC) err = am_post_reply(a, t, op->raddr, op->rcount, op->rtype, &rr);
  if (!err && rr && !(rp = am_pend_new(&a->recvs, rr, NULL, t, user)))
    err = fy_err(MPI_ERR_NO_MEM, "out of memory in a one-sided operation");
  if (rp) rp->seq = a->opseq++;
  if (!err) err = am_out(a, t, h, len, NULL);
  else free(h);
  if (err) {
    if (rp) am_pend_drop(&a->recvs, rp);
    if (rr) am_unpost(rr);
    goto fail;
  }
  a->touched[t] = 1;
  if (user && (kind == AM_PUT || kind == AM_ACC)) fy_req_complete(user); /* the data is copied out */
done:
  fy_punlock();
  if (request) *request = user->handle;
  return MPI_SUCCESS;
fail:
  fy_punlock();
  if (user) fy_req_release(user);
  return err;
}

/* ---- the origin side: synchronization ---- */

static int am_group(fy_win_t *w, MPI_Group group, int **out, int *nout) {
  fy_group_t *g = fy_group_get(group);
  if (!g) return fy_err(MPI_ERR_GROUP, "group = %#x is not a valid group", (unsigned)group);
  int *r = malloc(sizeof(int) * (size_t)(g->size + 1));
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  for (int i = 0; i < g->size; i++) {
    r[i] = fy_group_rank_of(w->group, g->world_of[i]);
    if (r[i] < 0) {
      free(r);
      return fy_err(MPI_ERR_RANK, "group member %d is not a process of the window", i);
    }
  }
  *out = r;
  *nout = g->size;
  return MPI_SUCCESS;
}

typedef struct { fy_rma_am_t *a; int *ranks, n; uint64_t *seen, *used; } am_count_arg_t;

/* Win_test: each origin of the exposure group has completed toward me. */
static int counts_ready(void *arg) {
  am_count_arg_t *x = arg;
  fy_plock(); /* (the hook that counts them ran in the poll just before) */
  int ok = 1;
  for (int i = 0; i < x->n && ok; i++)
    if (x->seen[x->ranks[i]] <= x->used[x->ranks[i]]) ok = 0;
  fy_punlock();
  return ok;
}

static void counts_take(am_count_arg_t *x) {
  for (int i = 0; i < x->n; i++) x->used[x->ranks[i]]++;
}

/* ---- synchronization, blocking or not (MPI_Win_*, MPIX_Win_i*) ----
 *
 * Each call checks and changes the origin's view of its epochs at once, as
 * the blocking call does, sends or queues its messages (am_out), and
 * leaves an am_sync_t that the progress hook completes (am_sync_step):
 * - ilock/ilock_all: the grants have come (they are also the gates the
 *   epoch's operations wait behind);
 * - iunlock/iflush (and _all): the answers have come and the replies of
 *   gets have arrived; iflush_local: the replies only;
 * - istart: every target's post has opened its gate; icomplete: the
 *   complete messages have left behind the operations, replies arrived;
 * - ipost: complete at once (the posts leave unqueued); iwait: every
 *   origin's complete has arrived, taken in call order;
 * - ifence: the flushes of the targets touched are answered, then (unless
 *   NOPRECEDE and NOSUCCEED) a barrier, started in call order; what is
 *   issued after an ifence waits for it (the targets may not have entered
 *   the fence yet).
 * A blocking call is the same object waited for at once, so that nothing
 * overtakes what nonblocking calls left queued. */

static int syncs_idle(void *arg) {
  fy_rma_am_t *a = arg;
  fy_plock();
  int idle = !a->syncs && !a->nqueued;
  fy_punlock();
  return idle;
}

static am_sync_t *am_sync_new(fy_win_t *w, int call, fy_request_t *user, int with_ctl) {
  fy_rma_am_t *a = w->am;
  am_sync_t *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  if (with_ctl && !(s->c = calloc((size_t)w->size, sizeof *s->c))) {
    free(s);
    return NULL;
  }
  s->call = call;
  s->user = user;
  s->hi = w->size;
  s->seq = a->opseq;
  s->bar = MPI_REQUEST_NULL;
  if (a->syncs_tail) a->syncs_tail->next = s;
  else a->syncs = s;
  a->syncs_tail = s;
  return s;
}

/* Every answer of s's control messages has come; the first error. */
static int am_sync_answers(am_sync_t *s, int *err) {
  for (int t = s->lo; t < s->hi; t++)
    if (s->c[t].r && !fy_req_done(s->c[t].r)) return 0;
  for (int t = s->lo; t < s->hi; t++)
    if (s->c[t].r) {
      int e = am_ctl_finish(&s->c[t], t, s->fname);
      s->c[t].r = NULL;
      if (e && !*err) *err = e;
    }
  return 1;
}

static void am_sync_done(am_sync_t *s) {
  s->done = 1;
  if (s->user) {
    s->user->status.MPI_ERROR = s->err;
    fy_req_complete(s->user);
    s->user = NULL;
  }
}

/* Local completion for s: the replies of the gets issued before it have
 * arrived (those issued after it may wait behind its own gate). */
static int am_sync_local(fy_rma_am_t *a, const am_sync_t *s) {
  am_reap(&a->recvs, &a->held, -1, 0);
  for (am_pend_t *p = a->recvs; p; p = p->next)
    if (p->seq < s->seq) return 0;
  return 1;
}

/* Advance s; *bar_ok: every earlier ifence has started its barrier;
 * *wait_ok: every earlier iwait took its completes. */
static void am_sync_try(fy_win_t *w, am_sync_t *s, int *bar_ok, int *wait_ok) {
  fy_rma_am_t *a = w->am;
  switch (s->call) {
    case FY_AMS_LOCK:
    case FY_AMS_LOCK_ALL:
      if (s->left == 0 && am_sync_answers(s, &s->err)) am_sync_done(s);
      return;
    case FY_AMS_UNLOCK:
    case FY_AMS_UNLOCK_ALL:
    case FY_AMS_FLUSH:
      if (am_sync_answers(s, &s->err) && am_sync_local(a, s)) am_sync_done(s);
      return;
    case FY_AMS_FLUSH_LOCAL:
      if (am_sync_local(a, s)) am_sync_done(s);
      return;
    case FY_AMS_START:
      if (s->left == 0) am_sync_done(s);
      return;
    case FY_AMS_COMPLETE:
      if (s->left == 0 && am_sync_local(a, s)) am_sync_done(s);
      return;
    case FY_AMS_WAIT: {
      if (!*wait_ok) return;
      for (int i = 0; i < s->nranks; i++)
        if (a->completes_seen[s->ranks[i]] <= a->completes_used[s->ranks[i]]) {
          *wait_ok = 0;
          return;
        }
      for (int i = 0; i < s->nranks; i++) a->completes_used[s->ranks[i]]++;
      am_sync_done(s);
      return;
    }
    case FY_AMS_FENCE: {
      int barrier = !(s->assert_ & MPI_MODE_NOPRECEDE) || !(s->assert_ & MPI_MODE_NOSUCCEED);
      if (s->phase == 0) {
        if (!am_sync_answers(s, &s->err) || !am_sync_local(a, s) || (barrier && !*bar_ok)) {
          if (barrier) *bar_ok = 0;
          return;
        }
        if (!barrier) {
          am_sync_done(s);
          return;
        }
        int e = fy_mpi_ibarrier(a->comm_h, &s->bar);
        if (e) {
          if (!s->err) s->err = e;
          am_sync_done(s);
          return;
        }
        s->phase = 1;
      }
      if (!inner_done(&s->bar, &s->err)) return;
      am_sync_done(s);
      return;
    }
  }
}

/* The progress hook's part for the origin: drain the queues, advance the
 * pending synchronizations in call order, free those done. */
static int am_sync_step(fy_win_t *w) {
  fy_rma_am_t *a = w->am;
  if (!a->syncs && !a->nqueued) return 0;
  int ev = 0, again;
  do {
    again = 0;
    for (int i = a->nqueued - 1; i >= 0; i--) /* (backwards: a target drained leaves its place to one seen) */
      am_drain(a, a->qlist[i]);
    int bar_ok = 1, wait_ok = 1;
    for (am_sync_t **pp = &a->syncs, *s, *prev = NULL; (s = *pp);) {
      if (!s->done) {
        am_sync_try(w, s, &bar_ok, &wait_ok);
        if (s->done) {
          ev++;
          again |= s->call == FY_AMS_FENCE || s->call == FY_AMS_LOCK || s->call == FY_AMS_LOCK_ALL;
        }
      }
      if (a->fence_gate == s && s->done) a->fence_gate = NULL;
      if (s->done && s->refs == 0) {
        *pp = s->next;
        if (a->syncs_tail == s) a->syncs_tail = prev;
        free(s->c);
        free(s->ranks);
        free(s);
        continue;
      }
      prev = s;
      pp = &s->next;
    }
  } while (again && a->nqueued); /* (a fence done opens gates) */
  return ev;
}

/* A lock, start or post ends the epoch a fence opened, unless operations
 * were issued in it: those need the closing fence (as on one node). */
static int fence_end(fy_rma_am_t *a, const char *fname) {
  if (!a->fence_open) return MPI_SUCCESS;
  if (a->fence_ops)
    return fy_err(MPI_ERR_RMA_SYNC, "%s: RMA operations of a fence epoch are still pending; end it with MPI_Win_fence",
                  fname);
  a->fence_open = 0;
  return MPI_SUCCESS;
}

/* A rank this process holds a lock on (MPI_Win_lock), or -1. */
static int first_locked(const fy_rma_am_t *a, int n) {
  for (int t = 0; t < n; t++)
    if (a->locked[t]) return t;
  return -1;
}

/* The checks every call makes, blocking or not, on the origin's view of
 * its epochs. */
static int am_sync_check(fy_win_t *w, int call, int rank, const char *fname) {
  fy_rma_am_t *a = w->am;
  int n = w->size, t;
  switch (call) {
    case FY_AMS_FENCE:
      if (a->lock_all || a->naccess >= 0 || a->nexpo >= 0)
        return fy_err(MPI_ERR_RMA_SYNC, "%s: another epoch is open on the window", fname);
      if ((t = first_locked(a, n)) >= 0)
        return fy_err(MPI_ERR_RMA_SYNC, "%s: rank %d is locked by this process", fname, t);
      return MPI_SUCCESS;
    case FY_AMS_LOCK:
    case FY_AMS_LOCK_ALL:
      if (w->no_locks) return fy_err(MPI_ERR_RMA_SYNC, "%s: the window was created with no_locks = true", fname);
      if (a->lock_all || (call == FY_AMS_LOCK && rank != MPI_PROC_NULL && a->locked[rank]))
        return fy_err(MPI_ERR_RMA_SYNC, "%s: %s is already locked by this process", fname,
                      call == FY_AMS_LOCK_ALL ? "the window" : "that rank");
      if (call == FY_AMS_LOCK_ALL && (t = first_locked(a, n)) >= 0)
        return fy_err(MPI_ERR_RMA_SYNC, "%s: rank %d is already locked", fname, t);
      if (a->naccess >= 0) return fy_err(MPI_ERR_RMA_SYNC, "%s: an access (start) epoch is open on the window", fname);
      return fence_end(a, fname);
    case FY_AMS_UNLOCK:
    case FY_AMS_UNLOCK_ALL:
      if (call == FY_AMS_UNLOCK && rank == MPI_PROC_NULL) return MPI_SUCCESS;
      if (call == FY_AMS_UNLOCK_ALL ? !a->lock_all : !a->locked[rank])
        return fy_err(MPI_ERR_RMA_SYNC, "%s: %s", fname, call == FY_AMS_UNLOCK_ALL ? "no MPI_Win_lock_all epoch is open"
                      : "the rank is not locked by this process");
      return MPI_SUCCESS;
    case FY_AMS_FLUSH:
    case FY_AMS_FLUSH_LOCAL:
      if (rank >= 0 && !a->lock_all && !a->locked[rank])
        return fy_err(MPI_ERR_RMA_SYNC, "%s: no passive target epoch toward rank %d", fname, rank);
      if (rank < 0 && !a->lock_all && first_locked(a, n) < 0)
        return fy_err(MPI_ERR_RMA_SYNC, "%s: no passive target epoch is open", fname);
      return MPI_SUCCESS;
    case FY_AMS_POST:
      return a->nexpo >= 0 ? fy_err(MPI_ERR_RMA_SYNC, "%s: an exposure epoch is already open", fname) : fence_end(a, fname);
    case FY_AMS_START:
      if (a->naccess >= 0) return fy_err(MPI_ERR_RMA_SYNC, "%s: an access epoch is already open", fname);
      if (a->lock_all || first_locked(a, n) >= 0)
        return fy_err(MPI_ERR_RMA_SYNC, "%s: a lock epoch is open on the window", fname);
      return fence_end(a, fname);
    case FY_AMS_COMPLETE:
      return a->naccess < 0 ? fy_err(MPI_ERR_RMA_SYNC, "%s: no access (start) epoch is open on this window", fname)
                            : MPI_SUCCESS;
    case FY_AMS_WAIT:
    case FY_AMS_TEST:
      return a->nexpo < 0 ? fy_err(MPI_ERR_RMA_SYNC, "%s: no exposure (post) epoch is open on this window", fname)
                          : MPI_SUCCESS;
  }
  return MPI_SUCCESS;
}

/* Win_post's messages to the k ranks r (owned from now on): never queued,
 * they belong to no access epoch of mine. Progress lock held. */
static int am_post_to(fy_rma_am_t *a, int *r, int k, const char *fname) {
  int err = MPI_SUCCESS;
  for (int i = 0; i < k && !err; i++) {
    size_t len;
    void *m = am_msg(AM_POST, 0, 0, 0, &len);
    err = m ? am_send(a, r[i], AM_TAG, m, len) : fy_err(MPI_ERR_NO_MEM, "out of memory in %s", fname);
  }
  a->expo = r;
  a->nexpo = k;
  return err;
}

/* Win_complete's messages, behind the epoch's operations (s, if any,
 * counts them out); ends the access epoch. Progress lock held. */
static int am_complete_to(fy_rma_am_t *a, am_sync_t *s, const char *fname) {
  int err = MPI_SUCCESS;
  for (int i = 0; i < a->naccess && !err; i++) {
    size_t len;
    void *m = am_msg(AM_COMPLETE, 0, 0, 0, &len);
    if (s) s->left++;
    if (m && (err = am_writes_gate(a, a->access[i]))) free(m);
    else err = m ? am_out(a, a->access[i], m, len, s) : fy_err(MPI_ERR_NO_MEM, "out of memory in %s", fname);
    a->touched[a->access[i]] = 0; /* the target counts the complete after them */
  }
  free(a->access);
  a->access = NULL;
  a->naccess = -1;
  return err;
}

/* Issue call as a nonblocking synchronization (checks done, progress lock
 * held); its request completes in the hook. */
static int am_sync_issue(fy_win_t *w, am_sync_t *s, int rank, int arg, int *r, int k, const char *fname) {
  fy_rma_am_t *a = w->am;
  int n = w->size, err = MPI_SUCCESS;
  switch (s->call) {
    case FY_AMS_FENCE:
      s->assert_ = arg;
      for (int t = 0; t < n && !err; t++)
        if (a->touched[t]) {
          err = am_ctl_start(a, t, AM_FLUSH, 0, &s->c[t], s);
          a->touched[t] = 0;
        }
      a->fence_open = !(arg & MPI_MODE_NOSUCCEED);
      a->fence_ops = 0;
      if (a->fence_open) { /* what follows waits until everybody entered this fence */
        a->fence_gate = s;
        a->fence_id++;
      }
      return err;
    case FY_AMS_LOCK:
    case FY_AMS_LOCK_ALL: {
      int type = s->call == FY_AMS_LOCK ? arg : MPI_LOCK_SHARED;
      for (int t = s->lo; t < s->hi && !err; t++) err = am_ctl_start(a, t, AM_LOCK, type, &s->c[t], s);
      if (s->call == FY_AMS_LOCK_ALL) a->lock_all = 1;
      else a->locked[rank] = (uint8_t)(1 + type);
      return err;
    }
    case FY_AMS_UNLOCK:
    case FY_AMS_UNLOCK_ALL:
    case FY_AMS_FLUSH:
      for (int t = s->lo; t < s->hi && !err; t++)
        if (s->call != FY_AMS_FLUSH || a->touched[t]) {
          err = am_ctl_start(a, t, s->call == FY_AMS_FLUSH ? AM_FLUSH : AM_UNLOCK, 0, &s->c[t], s);
          a->touched[t] = 0;
        }
      if (s->call == FY_AMS_UNLOCK_ALL) a->lock_all = 0;
      else if (s->call == FY_AMS_UNLOCK) a->locked[rank] = 0;
      return err;
    case FY_AMS_FLUSH_LOCAL:
      return MPI_SUCCESS; /* puts and accumulates were copied out when issued */
    case FY_AMS_START:
      for (int i = 0; i < k; i++) {
        am_item_t *g = am_push(a, r[i], Q_POST);
        if (!g) return fy_err(MPI_ERR_NO_MEM, "out of memory in %s", fname);
        am_sync_ref(g, s);
        s->left++;
      }
      a->access = r;
      a->naccess = k;
      return MPI_SUCCESS;
    case FY_AMS_COMPLETE:
      return am_complete_to(a, s, fname);
    case FY_AMS_POST:
      return am_post_to(a, r, k, fname);
    case FY_AMS_WAIT:
      s->ranks = a->expo;
      s->nranks = a->nexpo;
      a->expo = NULL;
      a->nexpo = -1;
      return MPI_SUCCESS;
  }
  return fy_err(MPI_ERR_INTERN, "%s: unknown synchronization", fname);
}

/* Run call (checked; r: its group's k ranks, owned from now on) as a
 * synchronization object the hook completes: req receives its request
 * (MPIX_Win_i*), or with req NULL the blocking call waits for it here. */
static int am_sync_run(fy_win_t *w, int call, int rank, int arg, int *r, int k, MPI_Request *req, const char *fname) {
  fy_request_t *u = fy_req_alloc(FY_REQ_RMA, req != NULL);
  if (!u) {
    free(r);
    return fy_err(MPI_ERR_NO_MEM, "out of requests");
  }
  fy_status_empty(&u->status);
  u->status.MPI_ERROR = MPI_SUCCESS;
  fy_plock();
  int ctl = call == FY_AMS_FENCE || call == FY_AMS_LOCK || call == FY_AMS_LOCK_ALL || call == FY_AMS_UNLOCK ||
            call == FY_AMS_UNLOCK_ALL || call == FY_AMS_FLUSH;
  am_sync_t *s = am_sync_new(w, call, u, ctl);
  if (!s) {
    fy_punlock();
    fy_req_release(u);
    free(r);
    return fy_err(MPI_ERR_NO_MEM, "out of memory in %s", fname);
  }
  s->fname = fname;
  if (rank >= 0) { /* (a call toward one rank: its answer is the only one to look for) */
    s->lo = rank;
    s->hi = rank + 1;
  }
  /* (the hook must not see s half issued: the sends poll) */
  int nested = in_poll;
  in_poll = 1;
  int err = am_sync_issue(w, s, rank, arg, r, k, fname);
  if (err && !s->err) s->err = err; /* (reported by the request: the epoch's state changed already) */
  if (call == FY_AMS_POST) am_sync_done(s);
  else am_sync_step(w);
  in_poll = nested;
  fy_punlock();
  err = fy_req_give_or_wait(u, req);
  if (!req && err && (call == FY_AMS_LOCK || call == FY_AMS_LOCK_ALL)) { /* a blocking lock that failed opened no epoch */
    fy_plock();
    if (call == FY_AMS_LOCK) w->am->locked[rank] = 0;
    else w->am->lock_all = 0;
    fy_punlock();
  }
  return err;
}

/* Every synchronization call, blocking or not, goes through am_sync_run:
 * one engine, so that a blocking call never overtakes what nonblocking
 * ones left queued, and an ifence on one rank meets a Win_fence on
 * another. Only MPI_Win_test is answered here. */
int fy_rma_am_sync(fy_win_t *w, int call, int rank, int arg, MPI_Group group, int *flag, MPI_Request *req,
                   const char *fname) {
  fy_rma_am_t *a = w->am;
  int err = am_sync_check(w, call, rank, fname);
  if (err) return err;
  if (call == FY_AMS_TEST) {
    /* (an earlier iwait may take the completes first: true only once the
     * nonblocking calls are done) */
    fy_progress_poll();
    am_count_arg_t x = {a, a->expo, a->nexpo, a->completes_seen, a->completes_used};
    *flag = syncs_idle(a) && counts_ready(&x);
    if (*flag) {
      counts_take(&x);
      free(a->expo);
      a->expo = NULL;
      a->nexpo = -1;
    }
    return MPI_SUCCESS;
  }
  if (call == FY_AMS_LOCK_ALL || call == FY_AMS_UNLOCK_ALL) rank = -1; /* (the caller passes 0) */
  if ((call == FY_AMS_LOCK || call == FY_AMS_UNLOCK) && rank == MPI_PROC_NULL) {
    if (req) *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  int *r = NULL, k = 0;
  if ((call == FY_AMS_POST || call == FY_AMS_START) && (err = am_group(w, group, &r, &k))) return err;
  return am_sync_run(w, call, rank, arg, r, k, req, fname);
}
