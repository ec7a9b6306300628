/* The schedule engine: see fy_sched.h. */
#include "coll/sched/fy_sched.h"
#include "pt2pt/fy_pt2pt.h"
#include "progress/fy_progress.h"
#include "progress/async/fy_async.h"
#include "core/fy_error.h"
#include "core/fy_handle.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { ST_SEND = 1, ST_RECV, ST_REDUCE, ST_COPY, ST_FENCE };

typedef struct step {
  int kind;
  unsigned char early; /* copy: as the stage starts (fy_sched_copy_early) */
  unsigned char ran;   /* ... and it ran then (not in a signal turn) */
  const void *src;
  void *dst;
  MPI_Count scount, rcount;
  fy_datatype_t *st, *rt;
  fy_op_t *op;
  fy_request_t *req;   /* send/recv */
  void *tmp;           /* copy between two non-contiguous types */
} step_t;

struct fy_sched {
  fy_comm_t *comm;     /* the communicator new steps use */
  fy_comm_t *base;     /* the one the collective was called on */
  int tag;
  step_t *steps;
  int n, cap;
  int cur, end;        /* current stage: steps [cur, end) */
  int started;         /* its communication has been started */
  int safe;            /* every step can run in a signal turn */
  int early;           /* it has early copies (fy_sched_copy_early) */
  int finishing;       /* last stage done in a signal turn: complete later */
  atomic_int done;
  int err;
  int copy_err;        /* a local copy that does not fit (fy_sched_copy): reported at completion */
  int how;
  void **tmps;
  size_t *tmpsz;
  int ntmp, tmpcap;
  void *scratch;
  size_t scratch_bytes;
  fy_request_t *req;
  fy_sched_t *next, *prev;
  int listed;
};

fy_sched_stats_t fy_sched_stats;
static fy_sched_t *active;     /* list of started schedules (progress lock) */
static int nactive_bg;         /* started nonblocking schedules (for the agents) */
static int hooked;
static int in_progress;        /* re-entrancy guard: starting a receive may poll */

fy_comm_t *fy_sched_comm(fy_sched_t *s) { return s->comm; }

fy_comm_t *fy_sched_use_comm(fy_sched_t *s, fy_comm_t *c) {
  fy_comm_t *old = s->comm;
  s->comm = c;
  return old;
}

/* A few freed schedules are kept with their step and temporary arrays, so a
 * blocking collective allocates nothing but its temporaries (progress lock:
 * agents free nonblocking schedules). */
#define CACHE_MAX 4
static fy_sched_t *cache[CACHE_MAX];
static int ncache;

_Static_assert(16 + 0x03ffffff * 16 + 15 < FY_TAG_TAGGED, "collective tags reach the tagged range");
int fy_sched_next_tag(fy_comm_t *c) { return 16 + (int)(c->coll_seq++ & 0x03ffffffu) * 16; /* + offsets 0..15 */ }

int fy_sched_create(fy_comm_t *c, fy_sched_t **out) {
  fy_sched_t *s = NULL;
  fy_plock();
  if (ncache) s = cache[--ncache];
  fy_punlock();
  if (s) {
    step_t *steps = s->steps;
    void **tmps = s->tmps;
    size_t *tmpsz = s->tmpsz;
    int cap = s->cap, tmpcap = s->tmpcap;
    memset(s, 0, sizeof *s);
    s->steps = steps;
    s->cap = cap;
    s->tmps = tmps;
    s->tmpsz = tmpsz;
    s->tmpcap = tmpcap;
  } else {
    s = calloc(1, sizeof *s);
  }
  if (!s) return fy_err(MPI_ERR_NO_MEM, "out of memory for a collective schedule");
  s->comm = s->base = c;
  s->tag = fy_sched_next_tag(c);
  s->safe = 1;
  atomic_store(&s->done, 1);
  *out = s;
  fy_sched_stats.built++;
  return MPI_SUCCESS;
}

static step_t *add(fy_sched_t *s, int kind) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    step_t *ns = realloc(s->steps, (size_t)cap * sizeof *ns);
    if (!ns) return NULL;
    s->steps = ns;
    s->cap = cap;
  }
  step_t *st = &s->steps[s->n++];
  memset(st, 0, sizeof *st);
  st->kind = kind;
  return st;
}

static int nomem(void) { return fy_err(MPI_ERR_NO_MEM, "out of memory building a collective schedule"); }

static int comm_step(fy_sched_t *s, int kind, const void *buf, MPI_Count count, fy_datatype_t *t,
                     int peer, int tagoff) {
  step_t *st = add(s, kind == FY_REQ_SEND ? ST_SEND : ST_RECV);
  if (!st) return nomem();
  fy_request_t *r = fy_req_alloc(kind, 0);
  if (!r) {
    s->n--;
    return nomem();
  }
  fy_req_setup(r, kind, FY_MODE_STD, buf, count, t, peer, s->tag + tagoff, s->comm, 1);
  r->persistent = 1; /* restarted by every run; released with the schedule */
  atomic_store(&r->done, 1);
  st->req = r;
  if (!t->is_contig && count) s->safe = 0;
  return MPI_SUCCESS;
}

int fy_sched_send_tag(fy_sched_t *s, const void *buf, MPI_Count count, fy_datatype_t *t,
                      int peer, int tagoff) {
  return comm_step(s, FY_REQ_SEND, buf, count, t, peer, tagoff);
}
int fy_sched_recv_tag(fy_sched_t *s, void *buf, MPI_Count count, fy_datatype_t *t, int peer,
                      int tagoff) {
  return comm_step(s, FY_REQ_RECV, buf, count, t, peer, tagoff);
}
int fy_sched_send(fy_sched_t *s, const void *buf, MPI_Count count, fy_datatype_t *t, int peer) {
  return comm_step(s, FY_REQ_SEND, buf, count, t, peer, 0);
}
int fy_sched_recv(fy_sched_t *s, void *buf, MPI_Count count, fy_datatype_t *t, int peer) {
  return comm_step(s, FY_REQ_RECV, buf, count, t, peer, 0);
}

int fy_sched_reduce(fy_sched_t *s, const void *in, void *inout, MPI_Count count,
                    fy_datatype_t *t, fy_op_t *op) {
  if (count == 0) return MPI_SUCCESS;
  step_t *st = add(s, ST_REDUCE);
  if (!st) return nomem();
  st->src = in;
  st->dst = inout;
  st->scount = count;
  st->st = t;
  fy_type_retain(t);
  st->op = op;
  fy_op_retain(op);
  size_t sb = fy_op_scratch(op, t, count);
  if (sb > s->scratch_bytes) s->scratch_bytes = sb;
  if (!op->builtin) s->safe = 0; /* user code never runs in a signal handler */
  return MPI_SUCCESS;
}

int fy_sched_copy_fits(MPI_Count scount, const fy_datatype_t *st, MPI_Count rcount, const fy_datatype_t *rt) {
  MPI_Count sbytes = scount * st->size, rbytes = rcount * rt->size;
  if (sbytes > rbytes)
    return fy_err(MPI_ERR_TRUNCATE, "collective: %lld bytes do not fit a receive buffer of %lld bytes",
                  (long long)sbytes, (long long)rbytes);
  return MPI_SUCCESS;
}

int fy_sched_copy(fy_sched_t *s, const void *src, MPI_Count scount, fy_datatype_t *st,
                  void *dst, MPI_Count rcount, fy_datatype_t *rt) {
  MPI_Count sbytes = scount * st->size;
  int e = fy_sched_copy_fits(scount, st, rcount, rt);
  if (e) { /* no copy; the transfers still run (the others must not wait
            * for a process that left), and the completion reports it */
    if (!s->copy_err) s->copy_err = e;
    return MPI_SUCCESS;
  }
  if (sbytes == 0) return MPI_SUCCESS;
  step_t *p = add(s, ST_COPY);
  if (!p) return nomem();
  p->src = src;
  p->dst = dst;
  p->scount = scount;
  p->rcount = rcount;
  p->st = st;
  p->rt = rt;
  fy_type_retain(st);
  fy_type_retain(rt);
  if (!st->is_contig && !rt->is_contig) {
    p->tmp = fy_sched_tmp_bytes(s, (size_t)sbytes);
    if (!p->tmp) return nomem();
  }
  return MPI_SUCCESS;
}

int fy_sched_copy_early(fy_sched_t *s, const void *src, MPI_Count scount, fy_datatype_t *st,
                        void *dst, MPI_Count rcount, fy_datatype_t *rt) {
  int n = s->n;
  int e = fy_sched_copy(s, src, scount, st, dst, rcount, rt);
  if (e || s->n == n) return e; /* (nothing to copy, or it does not fit) */
  s->steps[s->n - 1].early = 1;
  s->early = 1;
  /* This process copies before it waits: the stage's receivers copy alone. */
  for (int i = s->n - 2; i >= 0 && s->steps[i].kind != ST_FENCE; i--)
    if (s->steps[i].kind == ST_SEND) s->steps[i].req->solo = 1;
  return MPI_SUCCESS;
}

int fy_sched_fence(fy_sched_t *s) {
  if (s->n == 0 || s->steps[s->n - 1].kind == ST_FENCE) return MPI_SUCCESS;
  return add(s, ST_FENCE) ? MPI_SUCCESS : nomem();
}

/* Large temporaries of finished schedules are kept for the next ones:
 * fresh memory of that size comes from mmap, and its page faults (and
 * those of the peers writing into it) cost more than the transfer. */
#define BIG_TMP (64 * 1024)
#define BIG_KEEP 4
static struct { void *p; size_t n; } big[BIG_KEEP];

static void *big_get(size_t bytes) {
  void *p = NULL;
  fy_plock();
  for (int i = 0; i < BIG_KEEP; i++)
    if (big[i].p && big[i].n >= bytes && big[i].n <= 4 * bytes) {
      p = big[i].p;
      big[i].p = NULL;
      break;
    }
  fy_punlock();
  return p;
}

/* Keep p (bytes long) or free it. */
static void big_put(void *p, size_t bytes) {
  if (bytes >= BIG_TMP) {
    fy_plock();
    int slot = -1;
    for (int i = 0; i < BIG_KEEP && slot < 0; i++)
      if (!big[i].p) slot = i;
    if (slot < 0) { /* replace the smallest kept one */
      slot = 0;
      for (int i = 1; i < BIG_KEEP; i++)
        if (big[i].n < big[slot].n) slot = i;
      if (big[slot].n < bytes) {
        void *old = big[slot].p;
        big[slot].p = NULL;
        fy_punlock();
        free(old);
        fy_plock();
      } else {
        slot = -1;
      }
    }
    if (slot >= 0 && !big[slot].p) {
      big[slot].p = p;
      big[slot].n = bytes;
      p = NULL;
    }
    fy_punlock();
  }
  free(p);
}

void *fy_sched_tmp_bytes(fy_sched_t *s, size_t bytes) {
  if (s->ntmp == s->tmpcap) {
    int cap = s->tmpcap ? 2 * s->tmpcap : 8;
    void **nt = realloc(s->tmps, (size_t)cap * sizeof *nt);
    if (!nt) return NULL;
    s->tmps = nt;
    size_t *ns = realloc(s->tmpsz, (size_t)cap * sizeof *ns);
    if (!ns) return NULL;
    s->tmpsz = ns;
    s->tmpcap = cap;
  }
  if (!bytes) bytes = 1;
  void *p = bytes >= BIG_TMP ? big_get(bytes) : NULL;
  if (!p) p = malloc(bytes);
  if (p) {
    s->tmps[s->ntmp] = p;
    s->tmpsz[s->ntmp++] = bytes;
  }
  return p;
}

void *fy_sched_tmp(fy_sched_t *s, MPI_Count count, fy_datatype_t *t) {
  if (count == 0) return fy_sched_tmp_bytes(s, 1);
  MPI_Aint span = t->true_extent + (MPI_Aint)(count - 1) * t->extent;
  char *p = fy_sched_tmp_bytes(s, (size_t)(span > 0 ? span : 1));
  return p ? p - t->true_lb : NULL;
}

static void sched_free(fy_sched_t *s) {
  for (int i = 0; i < s->n; i++) {
    step_t *st = &s->steps[i];
    if (st->req) fy_req_release(st->req);
    if (st->op) fy_op_release(st->op);
    if (st->st) fy_type_release(st->st);
    if (st->rt) fy_type_release(st->rt);
  }
  for (int i = 0; i < s->ntmp; i++) big_put(s->tmps[i], s->tmpsz[i]);
  free(s->scratch);
  fy_plock();
  if (ncache < CACHE_MAX) {
    cache[ncache++] = s;
    s = NULL;
  }
  fy_punlock();
  if (!s) return;
  free(s->tmps);
  free(s->tmpsz);
  free(s->steps);
  free(s);
}

void fy_sched_finalize(void) {
  while (ncache) {
    fy_sched_t *s = cache[--ncache];
    free(s->tmps);
    free(s->tmpsz);
    free(s->steps);
    free(s);
  }
  for (int i = 0; i < BIG_KEEP; i++) {
    free(big[i].p);
    big[i].p = NULL;
  }
}

/* ---- running ---- */

static void run_copy(step_t *p) { fy_type_copy(p->src, p->scount, p->st, p->dst, p->rcount, p->rt, p->tmp); }

static void stage_bounds(fy_sched_t *s) {
  int e = s->cur;
  while (e < s->n && s->steps[e].kind != ST_FENCE) e++;
  s->end = e;
  s->started = 0;
}

static void list_add(fy_sched_t *s) {
  s->prev = NULL;
  s->next = active;
  if (active) active->prev = s;
  active = s;
  s->listed = 1;
  if (s->how != FY_SCHED_BLOCKING) {
    __atomic_add_fetch(&nactive_bg, 1, __ATOMIC_RELAXED);
    fy_async_sched_started(); /* the agents advance it from now on */
  }
}

static void list_remove(fy_sched_t *s) {
  if (!s->listed) return;
  if (s->prev) s->prev->next = s->next;
  else active = s->next;
  if (s->next) s->next->prev = s->prev;
  s->listed = 0;
  if (s->how != FY_SCHED_BLOCKING && __atomic_sub_fetch(&nactive_bg, 1, __ATOMIC_RELAXED) == 0)
    fy_async_sched_idle();
}

static void complete(fy_sched_t *s) {
  list_remove(s);
  fy_sched_stats.completed++;
  atomic_store_explicit(&s->done, 1, memory_order_release);
  fy_request_t *r = s->req;
  if (!r) return; /* blocking: the caller frees it */
  fy_status_empty(&r->status);
  r->status.MPI_ERROR = s->err;
  if (!r->persistent) {
    /* The request outlives the schedule. */
    r->sched = NULL;
    s->req = NULL;
    sched_free(s);
  }
  fy_req_complete(r);
}

/* Advance s as far as it goes; returns events (steps finished). In a
 * signal turn (sig) a stage whose steps need memory waits for the next
 * MPI call. */
static int advance(fy_sched_t *s, int sig) {
  int ev = 0;
  if (s->finishing) {
    if (sig) return 0;
    s->finishing = 0;
    s->cur = s->end + 1;
    if (s->cur >= s->n) {
      complete(s);
      return 1;
    }
    stage_bounds(s);
  }
  for (;;) {
    if (!s->started) {
      if (sig && !s->safe) return ev;
      /* A signal turn may not grow the matching queue (malloc): a receive
       * whose context has no room yet waits for the next progress pass. */
      for (int i = s->cur; sig && i < s->end; i++)
        if (s->steps[i].kind == ST_RECV && !fy_mq_arrive_alloc_free(fy_mq, s->steps[i].req->ctx))
          return ev;
      for (int i = s->cur; i < s->end; i++) {
        step_t *st = &s->steps[i];
        if (st->kind == ST_SEND) {
          int e = fy_send_start(st->req);
          if (e && !s->err) s->err = e;
        } else if (st->kind == ST_RECV) {
          /* In a signal turn a receive is only posted: never published or
           * polled for (that path may allocate); its rendezvous start
           * kicks this thread (fy_pef_on_sched registered it). */
          if (sig) st->req->blocking = 1;
          int e = fy_recv_start(st->req);
          if (e && !s->err) s->err = e;
        }
      }
      s->started = 1;
      /* Early copies while the transfers move (a signal turn never copies
       * bulk data: then at the stage's end, as the others). */
      for (int i = s->cur; s->early && i < s->end; i++) {
        step_t *st = &s->steps[i];
        if (st->kind != ST_COPY || !st->early) continue;
        st->ran = (unsigned char)!sig;
        if (!sig) run_copy(st);
      }
    }
    for (int i = s->cur; i < s->end; i++) {
      step_t *st = &s->steps[i];
      if ((st->kind == ST_SEND || st->kind == ST_RECV) && !fy_req_done(st->req)) return ev;
    }
    for (int i = s->cur; i < s->end; i++) {
      step_t *st = &s->steps[i];
      switch (st->kind) {
        case ST_RECV:
        case ST_SEND:
          if (st->req->status.MPI_ERROR && !s->err) s->err = st->req->status.MPI_ERROR;
          break;
        case ST_REDUCE:
          fy_op_apply(st->op, st->src, st->dst, st->scount, st->st, s->scratch);
          break;
        case ST_COPY:
          if (!(st->early && st->ran)) run_copy(st);
          break;
        default:
          break;
      }
      ev++;
    }
    if (s->end + 1 >= s->n && sig) {
      /* Completing frees memory: left to the next progress pass. */
      s->finishing = 1;
      return ev;
    }
    s->cur = s->end + 1;
    if (s->cur >= s->n) {
      complete(s);
      return ev + 1;
    }
    stage_bounds(s);
  }
}

static int run_list(int sig) {
  if (in_progress || !active) return 0;
  in_progress = 1;
  int ev = 0;
  fy_sched_t *s = active;
  while (s) {
    fy_sched_t *next = s->next; /* s may complete and be freed */
    ev += advance(s, sig);
    s = next;
  }
  in_progress = 0;
  return ev;
}

int fy_sched_progress(void) { return run_list(0); }

int fy_sched_signal_progress(void) {
  int was = fy_pt2pt_in_signal;
  fy_pt2pt_in_signal = 1;
  int ev = run_list(1);
  fy_pt2pt_in_signal = was;
  fy_sched_stats.agent_steps += (uint64_t)ev;
  return ev;
}

int fy_sched_pending(void) { return __atomic_load_n(&nactive_bg, __ATOMIC_RELAXED) > 0; }

/* Start (or restart) s; the progress lock is taken here. */
static int start(fy_sched_t *s) {
  fy_plock();
  if (!hooked) {
    fy_progress_hook_add(fy_sched_progress);
    hooked = 1;
  }
  s->cur = 0;
  s->finishing = 0;
  s->err = s->copy_err;
  if (s->how != FY_SCHED_BLOCKING) /* a restart is not waited on until its request is */
    for (int i = 0; i < s->n; i++)
      if (s->steps[i].req) __atomic_store_n(&s->steps[i].req->waited, 0, __ATOMIC_RELAXED);
  atomic_store_explicit(&s->done, 0, memory_order_relaxed);
  stage_bounds(s);
  fy_sched_stats.started++;
  list_add(s);
  /* Run what can run now: the first sends leave at once. */
  in_progress++;
  advance(s, 0);
  in_progress--;
  fy_punlock();
  return MPI_SUCCESS;
}

static int sched_done(void *arg) {
  fy_sched_t *s = arg;
  return atomic_load_explicit(&s->done, memory_order_acquire);
}

static int prepare(fy_sched_t *s) {
  if (s->scratch_bytes && !s->scratch) {
    s->scratch = malloc(s->scratch_bytes);
    if (!s->scratch) return nomem();
  }
  if (s->n && s->steps[s->n - 1].kind == ST_FENCE) s->n--; /* no empty last stage */
  return MPI_SUCCESS;
}

int fy_sched_finish(fy_sched_t *s, int err, int how, MPI_Request *request) {
  if (!err) err = prepare(s);
  if (err) {
    sched_free(s);
    return err;
  }
  s->how = how;
  if (how == FY_SCHED_BLOCKING) {
    for (int i = 0; i < s->n; i++)
      if (s->steps[i].req) {
        s->steps[i].req->blocking = 1; /* never watched by the agents */
        fy_req_set_waited(s->steps[i].req, FY_WAITED_ALL);
      }
    start(s);
    fy_progress_wait(sched_done, s);
    err = s->err;
    sched_free(s);
    return err;
  }
  fy_request_t *r = fy_req_alloc(FY_REQ_COLL, 1);
  if (!r) {
    sched_free(s);
    return fy_err(MPI_ERR_NO_MEM, "out of request objects");
  }
  r->comm = s->base;
  fy_comm_retain(s->base); /* released with the request */
  r->sched = s;
  s->req = r;
  fy_status_empty(&r->status);
  if (how == FY_SCHED_PERSISTENT) {
    r->persistent = 1;
    r->active = 0;
    atomic_store(&r->done, 1);
    *request = r->handle;
    return MPI_SUCCESS;
  }
  r->active = 1;
  atomic_store(&r->done, 0);
  *request = r->handle;
  return start(s);
}

int fy_sched_req_start(fy_request_t *r) {
  fy_sched_t *s = r->sched;
  if (!s) return fy_err(MPI_ERR_REQUEST, "persistent collective request without a schedule");
  r->active = 1;
  fy_status_empty(&r->status);
  atomic_store(&r->done, 0);
  return start(s);
}

void fy_sched_req_waited(fy_request_t *r, int how) {
  fy_plock();
  fy_sched_t *s = r->sched; /* NULL once a nonpersistent schedule completed */
  if (s && !atomic_load_explicit(&s->done, memory_order_relaxed))
    for (int i = 0; i < s->n; i++)
      if (s->steps[i].req) fy_req_set_waited(s->steps[i].req, how);
  fy_punlock();
}

void fy_sched_req_free(fy_request_t *r) {
  fy_sched_t *s = r->sched;
  if (!s) return;
  r->sched = NULL;
  s->req = NULL;
  fy_plock();
  list_remove(s);
  fy_punlock();
  sched_free(s);
}
