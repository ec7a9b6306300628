/* Internal exchanges for communicator construction: see fy_cx.h. Binomial
 * trees rooted at the domain's root; the agreement on context slots is an
 * AND of every member's free-slot bitmap (as MPICH does), so no process
 * waits for a global sequence number and a freed slot is reused. */
#include "comm/fy_cx.h"
#include "core/fy_error.h"
#include "pt2pt/fy_pt2pt.h"
#include "datatype/fy_datatype.h"
#include "coll/sched/fy_sched.h"
#include "progress/fy_progress.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_REDUCE = 4, TAG_BCAST = 5, TAG_GATHER = 6, TAG_SWAP = 7 };

enum { TAGGED_SPAN = INT_MAX - FY_TAG_TAGGED + 1 };

int fy_cx_user_tag(int tag) { return FY_TAG_TAGGED + tag % TAGGED_SPAN; }

/* FNV-1a: a string tag's value is only compared for equality */
int fy_cx_string_tag(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return FY_TAG_TAGGED + (int)(h % TAGGED_SPAN);
}

int fy_cx_send(fy_comm_t *c, int dest, int tag, const void *buf, size_t n) {
  fy_request_t *r = NULL;
  int err = fy_isend_internal(buf, (MPI_Count)n, fy_type_get(MPI_BYTE), dest, tag, c, &r);
  if (r) {
    fy_req_wait_done(r);
    if (!err) err = r->status.MPI_ERROR;
    fy_req_release(r);
  }
  return err;
}

int fy_cx_recv_from(fy_comm_t *c, int src, int tag, void *buf, size_t n, int *from) {
  fy_request_t *r = NULL;
  int err = fy_irecv_internal(buf, (MPI_Count)n, fy_type_get(MPI_BYTE), src, tag, c, &r);
  if (r) {
    fy_req_wait_done(r);
    if (!err) err = r->status.MPI_ERROR;
    if (from) *from = r->status.MPI_SOURCE;
    fy_req_release(r);
  }
  return err;
}

int fy_cx_recv(fy_comm_t *c, int src, int tag, void *buf, size_t n) {
  return fy_cx_recv_from(c, src, tag, buf, n, NULL);
}

int fy_cx_swap(fy_comm_t *c, int peer, int tag, const void *out, size_t nout, void *in, size_t nin) {
  fy_request_t *rr = NULL, *sr = NULL;
  fy_datatype_t *b = fy_type_get(MPI_BYTE);
  int err = fy_irecv_internal(in, (MPI_Count)nin, b, peer, tag, c, &rr);
  int err2 = err ? err : fy_isend_internal(out, (MPI_Count)nout, b, peer, tag, c, &sr);
  if (sr) {
    fy_req_wait_done(sr);
    fy_req_release(sr);
  }
  if (rr) {
    if (!err2) {
      fy_req_wait_done(rr);
      err2 = rr->status.MPI_ERROR;
    } else if (fy_recv_cancel(rr) == 0) {
      fy_req_wait_done(rr);
    }
    fy_req_release(rr);
  }
  return err2;
}

enum { CX_MAXKIDS = 31 };

static inline int rank_of(const fy_cx_t *d, int i) { return d->members ? d->members[i] : i; }
/* member index <-> position relative to the root */
static inline int rel(const fy_cx_t *d) { return (d->me - d->root + d->n) % d->n; }
static inline int abs_of(const fy_cx_t *d, int r) { return rank_of(d, (r + d->root) % d->n); }

/* The binomial tree over the domain rooted at d->root: the parent's rank
 * in c (-1 at the root) and the children's, nearest first (the order a
 * reduction hears them in; a broadcast sends farthest first). Returns the
 * number of children (at most 31: ranks are ints). */
static int cx_tree(const fy_cx_t *d, int *parent, int kids[CX_MAXKIDS]) {
  int me = rel(d), nk = 0, mask = 1;
  *parent = -1;
  for (; mask < d->n; mask <<= 1) {
    if (me & mask) {
      *parent = abs_of(d, me - mask);
      break;
    }
    if (me + mask < d->n) kids[nk++] = abs_of(d, me + mask);
  }
  return nk;
}

int fy_cx_bcast(const fy_cx_t *d, void *buf, size_t n) {
  int parent, kids[CX_MAXKIDS], nk = cx_tree(d, &parent, kids), err;
  if (parent >= 0 && (err = fy_cx_recv(d->c, parent, fy_cx_tag(d, TAG_BCAST), buf, n))) return err;
  while (nk-- > 0)
    if ((err = fy_cx_send(d->c, kids[nk], fy_cx_tag(d, TAG_BCAST), buf, n))) return err;
  return MPI_SUCCESS;
}

int fy_cx_reduce_band(const fy_cx_t *d, uint32_t *w, int nw) {
  int parent, kids[CX_MAXKIDS], nk = cx_tree(d, &parent, kids), err = MPI_SUCCESS;
  uint32_t *tmp = malloc((size_t)nw * sizeof *tmp);
  if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory agreeing on a context id");
  for (int k = 0; k < nk && !err; k++) {
    if (!(err = fy_cx_recv(d->c, kids[k], fy_cx_tag(d, TAG_REDUCE), tmp, (size_t)nw * sizeof *tmp)))
      for (int i = 0; i < nw; i++) w[i] &= tmp[i];
  }
  if (!err && parent >= 0) err = fy_cx_send(d->c, parent, fy_cx_tag(d, TAG_REDUCE), w, (size_t)nw * sizeof *w);
  free(tmp);
  return err;
}

/* Recursive doubling (log2 n rounds, each a swap); the members beyond the
 * largest power of two fold into a partner first and get the result last. */
int fy_cx_allreduce_band(const fy_cx_t *d, uint32_t *w, int nw) {
  int n = d->n, me = rel(d), p2 = 1, err = MPI_SUCCESS;
  size_t bytes = (size_t)nw * sizeof *w;
  while (p2 * 2 <= n) p2 *= 2;
  uint32_t *tmp = malloc(bytes ? bytes : 1);
  if (!tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory agreeing on a context id");
  if (me >= p2) {
    if (!(err = fy_cx_send(d->c, abs_of(d, me - p2), fy_cx_tag(d, TAG_REDUCE), w, bytes)))
      err = fy_cx_recv(d->c, abs_of(d, me - p2), fy_cx_tag(d, TAG_BCAST), w, bytes);
    free(tmp);
    return err;
  }
  if (me + p2 < n) {
    if ((err = fy_cx_recv(d->c, abs_of(d, me + p2), fy_cx_tag(d, TAG_REDUCE), tmp, bytes))) goto done;
    for (int i = 0; i < nw; i++) w[i] &= tmp[i];
  }
  for (int mask = 1; mask < p2; mask <<= 1) {
    if ((err = fy_cx_swap(d->c, abs_of(d, me ^ mask), fy_cx_tag(d, TAG_SWAP + 1), w, bytes, tmp, bytes))) goto done;
    for (int i = 0; i < nw; i++) w[i] &= tmp[i];
  }
  if (me + p2 < n) err = fy_cx_send(d->c, abs_of(d, me + p2), fy_cx_tag(d, TAG_BCAST), w, bytes);
done:
  free(tmp);
  return err;
}

int fy_cx_allgather(const fy_cx_t *d, const void *mine, size_t n, void *all) {
  char *a = all;
  int err;
  if (d->me == d->root) {
    memcpy(a + (size_t)d->me * n, mine, n);
    for (int i = 0; i < d->n; i++)
      if (i != d->me && (err = fy_cx_recv(d->c, rank_of(d, i), fy_cx_tag(d, TAG_GATHER), a + (size_t)i * n, n)))
        return err;
  } else if ((err = fy_cx_send(d->c, rank_of(d, d->root), fy_cx_tag(d, TAG_GATHER), mine, n))) {
    return err;
  }
  return fy_cx_bcast(d, all, n * (size_t)d->n);
}

/* One process may run several agreements at once (threads, each on its own
 * parent; MPI_Comm_idup's): only one of them offers a region of the
 * bitmap in a round, the others offer nothing there and retry. The one
 * with the lowest key goes first, so some agreement always progresses
 * (MPICH's rule). The key is the parent's context id, then the order the
 * agreements were started in on that parent, which every member sees
 * alike: a nonblocking one's collective tag, and after all of those a
 * blocking one (it can only be waiting on them, never they on it).
 * Without that second part two agreements on one parent took turns by
 * chance, each round failing while the members disagreed on which one
 * offers. Blocking agreements with a tag (fy_cx.h) are ordered by it.
 *
 * An owner holds its region until its round ends, and a first round can
 * wait long: for the members that have not entered the call yet. So the
 * bitmap has three regions, each offered by one agreement at a time: the
 * first EAGER words, which only a blocking agreement's first round
 * offers, the next EAGER, which only a nonblocking one's first round
 * offers, and the rest, which only later rounds offer, when every member
 * is known to be in the call. Otherwise an owner waiting for
 * absent members kept every agreement of its process from offering while
 * those members waited for one of them: threads' Comm_create_group calls
 * over different groups (MPICH's threads/comm/comm_create_group_threads2),
 * or half the processes calling Comm_idup and then Comm_create_group, the
 * others the reverse (comm/comm_create_group_idup). MPICH's "eager" part
 * of its mask serves the same purpose. */
#define MAXWAIT 64
#define KEY(ctx, seq) (((uint64_t)(ctx) << 32) | (uint32_t)(seq))
#define KEY_BLOCKING(ctx) KEY(ctx, UINT32_MAX)
/* blocking ones told apart by a tag: after the nonblocking ones, among
 * themselves by tag (threads' MPI_Comm_create_group on one parent) */
#define KEY_TAGGED(ctx, tag) KEY(ctx, 0x80000000u | (uint32_t)((tag) - FY_TAG_TAGGED))

enum { W = FY_CTX_WORDS, EAGER = 4, MAIN = 2 * EAGER, STEP = 4 };
/* An agreement's offers, in order, each a span [lo, hi) of the bitmap's
 * words: the first for one round, each later one until a round in which
 * every member offered it and it had no slot in common. A small span
 * before the whole: small messages. */
typedef struct span { int lo, hi; } span_t;
static const span_t steps_blocking[] = {{0, EAGER}, {MAIN, MAIN + STEP}, {MAIN, W}};
static const span_t steps_nb[] = {{EAGER, MAIN}, {MAIN, MAIN + STEP}, {MAIN, W}};
#define NSTEPS(a) ((int)(sizeof(a) / sizeof *(a)))
enum { NREGIONS = 3 };
static inline int region_of(span_t sp) { return sp.lo < EAGER ? 0 : sp.lo < MAIN ? 1 : 2; }
static inline int span_words(span_t sp) { return sp.hi - sp.lo; }

static span_t busy[NREGIONS]; /* what an agreement under way offers of region r (lo == hi: nothing) */
static struct {
  uint64_t key1; /* key + 1; 0 = a free entry */
  int region;    /* the region it offers next */
} waiting[MAXWAIT];

static int wait_enter(uint64_t key, int region) {
  for (int i = 0; i < MAXWAIT; i++)
    if (!waiting[i].key1) {
      waiting[i].key1 = key + 1;
      waiting[i].region = region;
      return i;
    }
  return -1;
}

static void wait_leave(int slot) {
  if (slot >= 0) waiting[slot].key1 = 0;
}

/* May the agreement of this key offer region r in the round it starts? */
static int may_offer(int slot, uint64_t key, span_t sp) {
  int r = region_of(sp);
  if (slot >= 0) waiting[slot].region = r;
  if (span_words(busy[r]) > 0) return 0;
  for (int i = 0; i < MAXWAIT; i++)
    if (waiting[i].key1 && waiting[i].region == r && waiting[i].key1 - 1 < key) return 0;
  return 1;
}

/* The offer of span sp: the free words, and the word after them set
 * ("everybody offered"); its region is busy until the round's end. */
static void offer(span_t sp, uint32_t *m) {
  uint32_t full[W];
  fy_ctx_mask_snapshot(full);
  busy[region_of(sp)] = sp;
  memcpy(m, full + sp.lo, (size_t)span_words(sp) * sizeof *m);
  m[span_words(sp)] = 1;
}

/* The round's result m over span sp: take its first slot (still free
 * here: the region was busy from the snapshot on). 0, or -1 when none. */
static int claim_span(span_t sp, const uint32_t *m, uint32_t *ctx) {
  uint32_t agreed[W];
  memset(agreed, 0, sizeof agreed);
  memcpy(agreed + sp.lo, m, (size_t)span_words(sp) * sizeof *m);
  return fy_ctx_mask_claim(agreed, ctx);
}

static int out_of_ids(void) {
  return fy_err(MPI_ERR_OTHER, "out of context ids (%d communicators per process at most; %d free here)",
                W * 32 - 2, fy_ctx_free_slots());
}

static void release(span_t sp) { busy[region_of(sp)] = (span_t){0, 0}; }

/* The end of a round over steps[*step] whose result is m (own: this
 * agreement offered it; *err: the round's error). 1: the agreement is
 * over (*err set, or the slot in *ctx). 0: another round, over the next
 * span after the first round or after a round in which every member
 * offered and none had a slot in common, else over the same. */
static int round_end(const span_t *steps, int nsteps, int *step, const uint32_t *m, int own, int *err,
                     uint32_t *ctx) {
  span_t sp = steps[*step];
  int got = -1;
  if (own) {
    if (!*err) got = claim_span(sp, m, ctx);
    release(sp);
  }
  if (*err || got == 0) return 1;
  if ((*step == 0 || m[span_words(sp)]) && ++*step == nsteps) {
    *err = out_of_ids();
    return 1;
  }
  return 0;
}

/* A domain of one process has nobody to agree with: it takes a free slot
 * at once, outside the words agreements under way offer (which may
 * wait for other processes: MPI_Comm_dup(MPI_COMM_SELF) in one thread
 * while another thread's MPI_Comm_dup waits for its peers, MPICH's
 * threads/comm/comm_dup_deadlock). -1 when no such slot is free. */
static int claim_alone(uint32_t *ctx) {
  uint32_t m[W];
  fy_ctx_mask_snapshot(m);
  for (int r = 0; r < NREGIONS; r++) memset(m + busy[r].lo, 0, (size_t)span_words(busy[r]) * sizeof *m);
  return fy_ctx_mask_claim(m, ctx);
}

/* The blocking one-process agreement waits, the API lock released, for
 * a free slot outside the offered words (the offers end with their
 * rounds, which other threads run); done at once when no slot is free at
 * all. */
struct alone { uint32_t *ctx; int got; };
static int alone_done(void *arg) {
  struct alone *a = arg;
  if (claim_alone(a->ctx) == 0) return a->got = 1;
  return fy_ctx_free_slots() == 0;
}

int fy_cx_agree_ctx(const fy_cx_t *d, fy_comm_t *bridge, int bridge_peer, uint32_t *ctx) {
  uint32_t m[W + 1], o[W + 1];
  uint64_t key = d->tag ? KEY_TAGGED(d->c->ctx, d->tag) : KEY_BLOCKING(d->c->ctx);
  if (d->n == 1 && !bridge) {
    struct alone a = {ctx, 0};
    fy_progress_wait(alone_done, &a);
    return a.got ? MPI_SUCCESS : out_of_ids();
  }
  int err = MPI_SUCCESS, step = 0;
  int slot = wait_enter(key, region_of(steps_blocking[0]));
  for (;;) {
    span_t sp = steps_blocking[step];
    int nw = span_words(sp), own = may_offer(slot, key, sp);
    memset(m, 0, sizeof m);
    if (own) offer(sp, m);
    size_t bytes = (size_t)(nw + 1) * sizeof *m;
    if (bridge) {
      err = fy_cx_reduce_band(d, m, nw + 1);
      if (!err && d->me == d->root) {
        err = fy_cx_swap(bridge, bridge_peer, fy_cx_bridge_tag(d, TAG_SWAP), m, bytes, o, bytes);
        for (int i = 0; !err && i <= nw; i++) m[i] &= o[i];
      }
      if (!err) err = fy_cx_bcast(d, m, bytes);
    } else {
      err = fy_cx_allreduce_band(d, m, nw + 1);
    }
    int all = m[nw];
    if (round_end(steps_blocking, NSTEPS(steps_blocking), &step, m, own, &err, ctx)) break;
    if (!all && !own) fy_progress_poll(); /* another agreement offers: let it move (MPI_Comm_idup's) */
  }
  wait_leave(slot);
  return err;
}

/* ---- the agreement, nonblocking ---- */

enum { NB_MAXKIDS = CX_MAXKIDS };
enum { NB_START, NB_UP, NB_BRIDGE, NB_RESULT, NB_DOWN, NB_DONE };

struct fy_cx_nb {
  fy_comm_t *c;         /* retained */
  fy_comm_t *bridge;    /* retained; NULL: the agreement is c's alone */
  int tag, slot, step, own, phase, err; /* step: of steps_nb */
  uint64_t key;
  uint32_t ctx;
  int parent, nkids, kids[NB_MAXKIDS];
  uint32_t m[W + 1], up[W + 1], o[W + 1];
  uint32_t *kidbuf;     /* nkids x (W + 1) words */
  fy_request_t *rq[NB_MAXKIDS + 2];
  int nrq;
};

int fy_cx_nb_start(fy_comm_t *c, fy_comm_t *bridge, int tag, fy_cx_nb_t **out) {
  fy_cx_nb_t *a = calloc(1, sizeof *a);
  if (!a) return fy_err(MPI_ERR_NO_MEM, "out of memory duplicating %s", c->name);
  a->c = c;
  fy_comm_retain(c);
  if ((a->bridge = bridge)) fy_comm_retain(bridge);
  a->tag = tag;
  a->key = KEY(c->ctx, tag);
  a->slot = wait_enter(a->key, region_of(steps_nb[0]));
  fy_cx_t d = fy_cx_of(c); /* the blocking agreement's tree, rooted at rank 0 */
  a->nkids = cx_tree(&d, &a->parent, a->kids);
  for (int i = 0, j = a->nkids - 1; i < j; i++, j--) { /* farthest first, as a broadcast sends */
    int t = a->kids[i];
    a->kids[i] = a->kids[j];
    a->kids[j] = t;
  }
  if (a->nkids && !(a->kidbuf = malloc((size_t)a->nkids * (W + 1) * sizeof *a->kidbuf))) {
    fy_cx_nb_free(a);
    return fy_err(MPI_ERR_NO_MEM, "out of memory duplicating %s", c->name);
  }
  *out = a;
  return MPI_SUCCESS;
}

/* All requests of the current phase complete (the first error kept). */
static int nb_reqs_done(fy_cx_nb_t *a) {
  for (int i = 0; i < a->nrq; i++)
    if (!fy_req_done(a->rq[i])) return 0;
  for (int i = 0; i < a->nrq; i++) {
    if (!a->err) a->err = a->rq[i]->status.MPI_ERROR;
    fy_req_release(a->rq[i]);
  }
  a->nrq = 0;
  return 1;
}

static void nb_post_on(fy_cx_nb_t *a, fy_comm_t *c, int send, void *buf, int peer) {
  size_t bytes = (size_t)(span_words(steps_nb[a->step]) + 1) * sizeof(uint32_t);
  fy_request_t *r = NULL;
  int err = send ? fy_isend_internal(buf, (MPI_Count)bytes, fy_type_get(MPI_BYTE), peer, a->tag, c, &r)
                 : fy_irecv_internal(buf, (MPI_Count)bytes, fy_type_get(MPI_BYTE), peer, a->tag, c, &r);
  if (err && !a->err) a->err = err;
  if (r) a->rq[a->nrq++] = r;
}

static void nb_post(fy_cx_nb_t *a, int send, void *buf, int peer) { nb_post_on(a, a->c, send, buf, peer); }

int fy_cx_nb_step(fy_cx_nb_t *a, int *errp, uint32_t *ctxp) {
  for (;;) {
    if (a->phase == NB_DONE) { /* (after running out of ids, step is past the table) */
      *errp = a->err;
      *ctxp = a->ctx;
      return 1;
    }
    span_t sp = steps_nb[a->step];
    int nw = span_words(sp);
    switch (a->phase) {
      case NB_START: /* offer the bitmap if no other agreement of this process does */
        if (a->c->size == 1 && !a->bridge && claim_alone(&a->ctx) == 0) {
          a->phase = NB_DONE;
          break;
        }
        memset(a->m, 0, sizeof a->m);
        a->own = may_offer(a->slot, a->key, sp);
        if (a->own) offer(sp, a->m);
        for (int k = 0; k < a->nkids; k++) nb_post(a, 0, a->kidbuf + (size_t)k * (W + 1), a->kids[k]);
        a->phase = NB_UP;
        break;
      case NB_UP:
        if (!nb_reqs_done(a)) return 0;
        for (int k = 0; k < a->nkids; k++)
          for (int i = 0; i <= nw; i++) a->m[i] &= a->kidbuf[(size_t)k * (W + 1) + i];
        if (a->parent >= 0) {
          memcpy(a->up, a->m, sizeof a->up);
          nb_post(a, 1, a->up, a->parent);
          nb_post(a, 0, a->m, a->parent);
          a->phase = NB_RESULT;
        } else if (a->bridge) { /* the roots of both groups swap their results */
          memcpy(a->up, a->m, sizeof a->up);
          nb_post_on(a, a->bridge, 1, a->up, 0);
          nb_post_on(a, a->bridge, 0, a->o, 0);
          a->phase = NB_BRIDGE;
        } else {
          for (int k = 0; k < a->nkids; k++) nb_post(a, 1, a->m, a->kids[k]);
          a->phase = NB_DOWN;
        }
        break;
      case NB_BRIDGE:
        if (!nb_reqs_done(a)) return 0;
        for (int i = 0; i <= nw; i++) a->m[i] &= a->o[i];
        for (int k = 0; k < a->nkids; k++) nb_post(a, 1, a->m, a->kids[k]);
        a->phase = NB_DOWN;
        break;
      case NB_RESULT:
        if (!nb_reqs_done(a)) return 0;
        for (int k = 0; k < a->nkids; k++) nb_post(a, 1, a->m, a->kids[k]);
        a->phase = NB_DOWN;
        break;
      case NB_DOWN: { /* the round's result is in m on every rank */
        if (!nb_reqs_done(a)) return 0;
        int own = a->own;
        a->own = 0; /* (round_end gives the region back) */
        if (round_end(steps_nb, NSTEPS(steps_nb), &a->step, a->m, own, &a->err, &a->ctx)) {
          a->phase = NB_DONE;
          break;
        }
        /* Another round, at the next pass: an agreement that could not
         * offer must let the one that did move on (a one-process round
         * completes at once). */
        a->phase = NB_START;
        return 0;
      }
    }
  }
}

void fy_cx_nb_free(fy_cx_nb_t *a) {
  if (!a) return;
  for (int i = 0; i < a->nrq; i++) fy_req_release(a->rq[i]); /* only after an error */
  if (a->own) release(steps_nb[a->step]); /* freed in the middle of a round */
  wait_leave(a->slot);
  fy_comm_release(a->c);
  if (a->bridge) fy_comm_release(a->bridge);
  free(a->kidbuf);
  free(a);
}
