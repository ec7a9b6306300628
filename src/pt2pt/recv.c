/* Receive side: packet dispatch, matching through the message queue,
 * eager delivery, unexpected messages, receive cancel. */
#include "pt2pt/pt2pt_impl.h"
#include "pt2pt/mq/fy_mq.h"
#include "runtime/fy_config.h"
#include "progress/fy_progress.h"
#include "progress/async/fy_async.h"
#include <sched.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "core/fy_error.h"
#include "runtime/fy_salloc.h"

struct fy_mq *fy_mq;
fy_pt2pt_stats_t fy_pt2pt_stats;
/* The next unexpected descriptor, allocated ahead: arrival hands it to the
 * queue, which keeps it if nothing matches. Descriptors and unexpected
 * payloads come from the signal-safe allocator, so a PEF turn can take in
 * any packet, not only rendezvous starts. */
static fy_unexp_t *spare;
int fy_pt2pt_in_signal;   /* a PEF turn is running on this process */
int fy_pt2pt_sig_retry;
static int sig_hits;
/* Completions a PEF turn cannot run (they free memory or unpack): done by
 * the next progress pass. */
static fy_rlist_t complete_later;

static fy_unexp_t *unexp_new(void) {
  fy_unexp_t *u = fy_salloc(sizeof *u);
  if (!u) return NULL;
  memset(u, 0, sizeof *u);
  u->mqi.owner = u;
  return u;
}

static void unexp_free(fy_unexp_t *u) {
  fy_sfree(u->data);
  fy_sfree(u);
}

/* Completing r in a signal handler must not free memory (a user-freed or
 * internal request is released at completion, a bounce buffer is unpacked
 * and freed). */
static int completes_quietly(const fy_request_t *r) {
  return !r->user_freed && !r->on_complete && !r->tmp && r->status.MPI_ERROR != MPI_ERR_TRUNCATE &&
         r->status.MPI_ERROR != MPI_ERR_TYPE;
}

static void finish_now(fy_request_t *r) {
  /* an error found in a PEF turn: format it now */
  if (r->status.MPI_ERROR == MPI_ERR_TRUNCATE || r->status.MPI_ERROR == MPI_ERR_TYPE)
    fy_recv_set_status(r, r->status.MPI_SOURCE, r->status.MPI_TAG,
                       (size_t)fy_status_get_count(&r->status), r->xfer_len);
  if (r->tmp && r->kind == FY_REQ_RECV) {
    fy_type_unpack(r->type, r->count, r->tmp, (size_t)fy_status_get_count(&r->status), r->rbuf);
    free(r->tmp);
    r->tmp = NULL;
  }
  fy_req_complete(r);
}

void fy_pt2pt_complete(fy_request_t *r) {
  if (fy_pt2pt_in_signal && !completes_quietly(r))
    fy_rlist_push(&complete_later, r);
  else
    finish_now(r);
}

/* Bytes that end inside a basic element of a non-contiguous receive type
 * (3 chars into an indexed type of ints): the type signatures differ, and
 * the piece of an element has no defined place in the layout. Checked where
 * every element is one predefined type. As MPICH: into a contiguous type the
 * bytes land where they were sent, and the count is MPI_UNDEFINED. */
static int partial_element(const fy_datatype_t *t, size_t bytes) {
  const fy_datatype_t *b = t && !t->is_contig ? t->red_basic : NULL;
  return b && b->nbasic == 1 && b->size > 1 && bytes % (size_t)b->size;
}

void fy_recv_set_status(fy_request_t *r, int src, int tag, size_t bytes, size_t len) {
  r->status.MPI_SOURCE = src;
  r->status.MPI_TAG = tag;
  fy_status_set_count(&r->status, (MPI_Count)bytes);
  int cls = len > bytes ? MPI_ERR_TRUNCATE : partial_element(r->type, bytes) ? MPI_ERR_TYPE : MPI_SUCCESS;
  if (cls && fy_pt2pt_in_signal) {
    /* A signal handler formats no message: the bare class marks it, and
     * the completion (deferred for it) writes the message. */
    r->status.MPI_ERROR = cls;
    r->xfer_len = len;
  } else if (cls == MPI_ERR_TRUNCATE) {
    r->status.MPI_ERROR = fy_err(MPI_ERR_TRUNCATE,
        "message of %zu bytes from rank %d (tag %d) is longer than the receive buffer (%zu bytes)",
        len, src, tag, bytes);
  } else if (cls == MPI_ERR_TYPE) {
    r->status.MPI_ERROR = fy_err(MPI_ERR_TYPE,
        "message of %zu bytes from rank %d (tag %d) ends inside an element of the receive type (%s, "
        "%lld bytes): the send and receive type signatures differ", len, src, tag, r->type->red_basic->name,
        (long long)r->type->red_basic->size);
  } else {
    r->status.MPI_ERROR = MPI_SUCCESS;
  }
}

static void send_ack(int src_local, uint64_t sreq) {
  fy_pkt_t a = {.type = FY_PKT_ACK, .sreq = sreq};
  fy_out_send(src_local, &a, NULL, 0, 0, NULL, 0);
}

void fy_eager_deliver(fy_request_t *r, const fy_pkt_t *h, const void *data, int src_local) {
  size_t len = (size_t)h->len, n = len < r->bytes ? len : r->bytes;
  fy_recv_set_status(r, h->src, h->tag, n, len);
  if (n) {
    if (r->type->is_contig)
      memcpy((char *)r->rbuf + r->type->true_lb, data, n);
    else
      fy_type_unpack(r->type, r->count, data, n, r->rbuf);
  }
  if (h->flags & FY_PKF_SYNC) send_ack(src_local, h->sreq);
  fy_pt2pt_complete(r);
}

/* EAGER_P: the payload comes through the sender's pipe slots, which it
 * fills in the very call that sent the packet (it had room for all of it):
 * pull it into dst as it comes (cap bytes; the rest is drained). A sender
 * that lost its core mid-way gets ours (yield); a PEF turn takes the packet
 * only once the last chunk is there (piped_ready). */
static void pull_piped(const fy_pkt_t *h, int src_local, void *dst, size_t cap) {
  fy_shm_pipe_t p;
  fy_shm_pipe_init(&p, src_local, h->addr, (size_t)h->len);
  for (unsigned spins = 0; !fy_shm_pipe_pull(&p, dst, cap);)
    if (++spins % 256 == 0) sched_yield();
    else __builtin_ia32_pause();
}

static int piped_ready(const fy_pkt_t *h, int src_local) {
  size_t chunk = fy_shm_pipe_chunk();
  uint32_t last = h->len ? (uint32_t)((h->len - 1) / chunk) : 0;
  return fy_shm_pipe_has(src_local, h->addr, last);
}

/* EAGER_P matched r: straight into a contiguous buffer, else through a
 * signal-safe bounce buffer (a PEF turn may get here; it checked for room). */
static void piped_deliver(fy_request_t *r, const fy_pkt_t *h, int src_local) {
  size_t len = (size_t)h->len, n = len < r->bytes ? len : r->bytes;
  fy_recv_set_status(r, h->src, h->tag, n, len);
  if (r->type->is_contig || !n) {
    pull_piped(h, src_local, (char *)r->rbuf + r->type->true_lb, n);
  } else {
    void *tmp = fy_salloc(len);
    if (!tmp) fy_abort(MPI_ERR_NO_MEM, "out of memory for an eager message");
    pull_piped(h, src_local, tmp, len);
    fy_type_unpack(r->type, r->count, tmp, n, r->rbuf);
    fy_sfree(tmp);
  }
  if (h->flags & FY_PKF_SYNC) send_ack(src_local, h->sreq);
  fy_pt2pt_complete(r);
}

/* A rendezvous start matched: the protocol of the transport it came by. */
static void rndv_match(fy_request_t *r, int src, const fy_pkt_t *h) {
  if (src < 0) fy_net_rndv_match(r, src, h);
  else fy_rndv_recv_match(r, src, h);
}

static int on_packet(void *arg, int src_local, const void *pkt, size_t plen) {
  fy_pkt_t tmp;
  const void *payload;
  const fy_pkt_t *h = fy_pkt_read(pkt, plen, &tmp, &payload);
  switch (h->type) {
    case FY_PKT_EAGER:
    case FY_PKT_EAGER_P:
    case FY_PKT_RTS: {
      if (!spare && !(spare = unexp_new())) {
        if (fy_pt2pt_in_signal) return 1; /* no memory now: the next MPI call retries */
        fy_abort(MPI_ERR_NO_MEM, "out of memory for an unexpected message");
      }
      fy_unexp_t *u = spare;
      u->mqi.ctx = h->ctx;
      u->mqi.rank = h->src;
      u->mqi.tag = h->tag;
      fy_mq_item_t *m = fy_mq_arrive(fy_mq, &u->mqi);
      if (m) {
        fy_request_t *r = m->owner;
        if (!fy_direct_withdraw(r))
          fy_abort(MPI_ERR_INTERN, "a published receive was claimed by a sender and matched by an arrival");
        if (r->watch_idx) {
          fy_async_triggered(r);
          if (fy_pt2pt_in_signal) sig_hits++;
        }
        if (h->type == FY_PKT_EAGER)
          fy_eager_deliver(r, h, payload, src_local);
        else if (h->type == FY_PKT_EAGER_P)
          piped_deliver(r, h, src_local);
        else
          rndv_match(r, src_local, h);
        fy_msg_seen(src_local);
        break;
      }
      /* Unexpected: keep it (the descriptor is now queued). A piped eager
       * message stays in the sender's slots until a receive matches it,
       * which then pulls it straight into its buffer: copying it out into
       * a bounce buffer first made the receiver copy it twice, the
       * bottleneck of a stream whose receiver posts late. The sender
       * sends eagerly through at most half its slots (send.c), so
       * rendezvous transfers always have the rest. */
      u->type = h->type;
      u->flags = h->flags;
      u->src_local = src_local;
      u->len = (size_t)h->len;
      u->sreq = h->sreq;
      if (h->type == FY_PKT_RTS || h->type == FY_PKT_EAGER_P) {
        u->addr = h->addr;
        u->slot = h->slot;
        u->gen = h->gen;
        u->rreq = h->type == FY_PKT_RTS && src_local < 0 ? h->rreq : 0;
      }
      if (h->type == FY_PKT_EAGER && u->len) {
        /* The descriptor is queued already: no way back, so running out
         * of memory is fatal here (a PEF turn checked for room first). */
        u->data = fy_salloc(u->len);
        if (!u->data) fy_abort(MPI_ERR_NO_MEM, "out of memory for an unexpected message");
        memcpy(u->data, payload, u->len);
      }
      spare = unexp_new(); /* NULL: retried at the next arrival */
      fy_pt2pt_stats.unexpected++;
      fy_msg_seen(src_local);
      break;
    }
    case FY_PKT_CTS: fy_rndv_on_cts(h); break;
    case FY_PKT_FIN_S: fy_rndv_on_fin_s(h); break;
    case FY_PKT_FIN_R: fy_rndv_on_fin_r(h); break;
    case FY_PKT_JOINED: fy_rndv_on_joined(src_local, h); break;
    case FY_PKT_ACK: fy_pt2pt_complete((fy_request_t *)(uintptr_t)h->sreq); break;
    case FY_PKT_PUT_FIN:
      fy_direct_on_fin(h);
      fy_msg_seen(src_local);
      break;
    default:
      fy_abort(MPI_ERR_INTERN, "corrupt packet in the shared-memory ring");
  }
  return 0;
}

/* Arrivals from the fabric (net.c): src is fy_net_peer(world rank). */
int fy_pt2pt_on_packet(int src, const void *pkt, size_t plen) { return on_packet(NULL, src, pkt, plen); }

/* PEF turn: take every packet that can be handled without the C heap:
 * arrivals (descriptors and payloads come from the signal-safe allocator),
 * completions (deferred to the next progress pass when they would free
 * memory), CTS (acted on by the next MPI call: a busy handler never copies
 * bulk data). A packet the turn cannot take stays at the head of the ring
 * for the next MPI call: an arrival on a queue that would need the heap to
 * grow (the 4D back end), or one that finds no memory at all. */
static int on_packet_signal(void *arg, int src_local, const void *pkt, size_t plen) {
  fy_pkt_t tmp;
  const void *payload;
  const fy_pkt_t *h = fy_pkt_read(pkt, plen, &tmp, &payload);
  if (h->type == FY_PKT_EAGER || h->type == FY_PKT_EAGER_P || h->type == FY_PKT_RTS) {
    if (!fy_mq_arrive_alloc_free(fy_mq, h->ctx)) return 1;
    if (!spare && !(spare = unexp_new())) return 1;
    if (h->type == FY_PKT_EAGER_P && !piped_ready(h, src_local)) { /* never wait here */
      fy_pt2pt_sig_retry = 1;
      return 1;
    }
    if ((h->type == FY_PKT_EAGER || h->type == FY_PKT_EAGER_P) && h->len) {
      /* room for the payload: an unexpected EAGER's copy, or the bounce
       * buffer of an EAGER_P into a derived type */
      void *probe = fy_salloc((size_t)h->len);
      if (!probe) return 1;
      fy_sfree(probe);
    }
  }
  return on_packet(arg, src_local, pkt, plen);
}

int fy_pt2pt_signal_poll(void) {
  fy_pt2pt_in_signal = 1;
  fy_pt2pt_sig_retry = 0;
  fy_mq_set_no_free(fy_mq, true);
  sig_hits = 0;
  fy_shm_poll(on_packet_signal, NULL, 0);
  fy_mq_set_no_free(fy_mq, false);
  fy_pt2pt_in_signal = 0;
  return sig_hits;
}

int fy_pt2pt_progress(void) {
  int n = 0;
  while (complete_later.head) {
    fy_request_t *r = complete_later.head;
    fy_rlist_remove(&complete_later, r);
    finish_now(r);
    n++;
  }
  if (fy_shm_pending()) n += fy_shm_poll(on_packet, NULL, 0);
  n += fy_out_progress();
  n += fy_rndv_progress();
  if (fy_net_on) n += fy_net_progress();
  return n;
}

/* A receive matched an unexpected message u: deliver and free u. */
void fy_unexp_consume(fy_request_t *r, fy_unexp_t *u) {
  fy_pkt_t h = {.type = u->type, .flags = u->flags, .src = u->mqi.rank, .tag = u->mqi.tag,
                .ctx = u->mqi.ctx, .len = u->len, .sreq = u->sreq, .addr = u->addr,
                .slot = u->slot, .gen = u->gen, .rreq = u->rreq};
  if (u->type == FY_PKT_EAGER)
    fy_eager_deliver(r, &h, u->data, u->src_local);
  else if (u->type == FY_PKT_EAGER_P)
    piped_deliver(r, &h, u->src_local);
  else
    rndv_match(r, u->src_local, &h);
  unexp_free(u);
}

int fy_recv_start(fy_request_t *r) {
  r->tmp = NULL;
  if (fy_req_begin(r)) return MPI_SUCCESS;
  r->mqi.ctx = r->ctx;
  r->mqi.rank = r->peer;
  r->mqi.tag = r->tag;
  r->mqi.owner = r;
  fy_plock();
  /* A large nonblocking receive may be a rendezvous whose start has not
   * come: it is watched by the agent. It and a medium one (an eager
   * message above FERRY_DIRECT_MIN) are published for the sender
   * (direct.c), which writes into them while this process computes. So is
   * a blocking one that is not waited on yet (the root of a blocking
   * Gather copies its own block first: rooted.c), outside a signal turn. */
  int large = r->bytes > fy_eager_max && !r->blocking;
  int publish = r->bytes > fy_direct_min && (!r->blocking || (!fy_req_waited(r) && !fy_pt2pt_in_signal));
  /* A rendezvous start already in the ring is "sender first": take it in
   * before posting, so that no agent is armed for nothing (seed 002 3.2). */
  if (large && fy_config.irecv_poll && fy_shm_pending()) fy_progress_poll_locked();
  fy_mq_item_t *m = fy_mq_post(fy_mq, &r->mqi);
  if (m) {
    fy_unexp_consume(r, m->owner);
  } else {
    if (publish) fy_direct_publish(r);
    if (large) {
      fy_async_watch(r);
      /* A start that arrived while the agent was being armed was not
       * announced to it: take it in now. */
      if (r->watch_idx && fy_shm_pending()) fy_progress_poll_locked();
    } else if (fy_pt2pt_net_watch(r)) {
      /* (what the fabric brings needs no PEF: its agent alone watches) */
      fy_async_watch_net(r);
    }
  }
  fy_punlock();
  return MPI_SUCCESS;
}

int fy_recv_cancel(fy_request_t *r) {
  int ok = 0;
  fy_plock();
  if (!fy_req_done(r) && r->pstate == FY_PS_IDLE && fy_direct_withdraw(r) &&
      fy_mq_cancel_posted(fy_mq, &r->mqi)) {
    r->cancelled = 1;
    fy_status_set_cancelled(&r->status, 1);
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    fy_req_complete(r);
    ok = 1;
  }
  fy_punlock();
  return ok;
}

/* The status a probe reports for an unexpected message. */
static void unexp_status(const fy_unexp_t *u, MPI_Status *st) {
  if (!st) return;
  fy_status_empty(st);
  st->MPI_SOURCE = u->mqi.rank;
  st->MPI_TAG = u->mqi.tag;
  fy_status_set_count(st, (MPI_Count)u->len);
}

int fy_probe_peek(fy_comm_t *c, int src, int tag, MPI_Status *st) {
  fy_plock();
  fy_mq_item_t *m = fy_mq_peek_unexpected(fy_mq, c->ctx, src, tag);
  if (m) unexp_status(m->owner, st);
  fy_punlock();
  return m != NULL;
}

fy_request_t *fy_probe_take(fy_comm_t *c, int src, int tag, MPI_Status *st) {
  fy_plock();
  fy_mq_item_t *m = fy_mq_take_unexpected(fy_mq, c->ctx, src, tag);
  fy_punlock();
  if (!m) return NULL;
  fy_unexp_t *u = m->owner;
  unexp_status(u, st);
  fy_request_t *msg = fy_req_alloc(FY_REQ_MSG, 1);
  msg->msg = u;
  msg->comm = c;
  fy_comm_retain(c); /* released with the message handle */
  return msg;
}

int fy_probe_take_eager(fy_comm_t *c, int src, int tag, MPI_Status *st, void **handle, const void **data,
                        size_t *len) {
  fy_plock();
  fy_mq_item_t *m = fy_mq_peek_unexpected(fy_mq, c->ctx, src, tag);
  fy_unexp_t *u = m ? m->owner : NULL;
  if (!u) {
    fy_punlock();
    return 0;
  }
  if (u->type != FY_PKT_EAGER || (u->flags & FY_PKF_SYNC) || (u->len && !u->data)) {
    unexp_status(u, st); /* (under the lock: it stays queued) */
    fy_punlock();
    return 2;
  }
  fy_mq_take_unexpected(fy_mq, c->ctx, src, tag); /* (the same one: the first match) */
  fy_punlock();
  unexp_status(u, st);
  *handle = u;
  *data = u->data;
  *len = u->len;
  return 1;
}

void fy_probe_release(void *m) {
  fy_plock();
  unexp_free(m);
  fy_punlock();
}

int fy_msg_recv_start(fy_request_t *msg, void *buf, MPI_Count count, fy_datatype_t *t,
                      fy_request_t *r) {
  fy_unexp_t *u = msg->msg;
  fy_req_setup(r, FY_REQ_RECV, FY_MODE_STD, buf, count, t, u->mqi.rank, u->mqi.tag, msg->comm, 0);
  fy_req_begin(r);
  msg->msg = NULL;
  fy_plock();
  fy_unexp_consume(r, u);
  fy_punlock();
  return MPI_SUCCESS;
}

int fy_pt2pt_init(void) {
  fy_mq_kind_t kind;
  if (fy_mq_kind_parse(fy_config.mq, &kind) != 0) {
    fprintf(stderr, "ferry: FERRY_MQ=%s is not one of list, array, 4d, auto; using auto\n", fy_config.mq);
    kind = FY_MQ_AUTO;
  }
  double adj = fy_config.mq_adjustment < 1.0 ? 1.0 : fy_config.mq_adjustment;
  fy_mq = fy_mq_create(kind, adj);
  fy_eager_max = (size_t)fy_config.eager_threshold;
  /* the segment's cells, if local rank 0 made them smaller to fit /dev/shm */
  size_t cell = fy_shm_max_packet() > FY_PKT_SHORT ? fy_shm_max_packet() - FY_PKT_SHORT : 0;
  if (cell < fy_eager_max) fy_eager_max = cell;
  fy_eager_pipe_max = (size_t)fy_config.eager_pipe_max > fy_eager_max ? (size_t)fy_config.eager_pipe_max : 0;
  fy_direct_min = (size_t)fy_config.direct_min < fy_eager_max ? (size_t)fy_config.direct_min : fy_eager_max;
  size_t smax = fy_pt2pt_cell_bytes(fy_eager_max);
  fy_salloc_init(smax > fy_eager_pipe_max ? smax : fy_eager_pipe_max);
  spare = unexp_new();
  if (!fy_mq || fy_out_init(fy_state.local_size) != 0 || fy_rndv_init() != 0 ||
      fy_direct_init(fy_state.local_size) != 0)
    return fy_err(MPI_ERR_NO_MEM, "cannot set up point-to-point state");
  return fy_net_init();
}

void fy_pt2pt_drain(int (*pending)(void), int (*poll)(void)) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (pending()) {
    if (!poll()) sched_yield(); /* the peer that must read may need our core */
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec > 10) break;
  }
}

static int out_queued(void) {
  fy_plock();
  int q = fy_out_nqueued;
  fy_punlock();
  return q;
}

static int progress_pass(void) {
  fy_plock();
  int n = fy_pt2pt_progress();
  fy_punlock();
  return n;
}

/* Packets still queued for full rings go out (a send completes once its
 * packet is queued, and an ACK or FIN follows a completion: left behind, a
 * peer would wait for ever); then the fabric's flush and barrier. */
void fy_pt2pt_quiesce(void) {
  fy_pt2pt_drain(out_queued, progress_pass);
  fy_net_quiesce();
}

void fy_pt2pt_finalize(void) {
  fy_net_finalize();
  fy_out_finalize();
  fy_direct_finalize();
  if (fy_mq) fy_mq_destroy(fy_mq);
  fy_mq = NULL;
  spare = NULL;
  fy_salloc_finalize(); /* descriptors, payloads and queued packets */
}

void fy_pt2pt_ctx_close(fy_comm_t *c) {
  fy_plock();
  fy_mq_ctx_close(fy_mq, c->ctx);
  fy_mq_ctx_close(fy_mq, c->ctx + 1);
  fy_punlock();
}

void fy_pt2pt_ctx_open(fy_comm_t *c) {
  /* (the matching queue is the engine's: an agent thread may be matching
   * an arrival while a communicator is created) */
  fy_plock();
  fy_mq_ctx_open(fy_mq, c->ctx, c->size);
  fy_mq_ctx_open(fy_mq, c->ctx + 1, c->size);
  fy_punlock();
}

size_t fy_pt2pt_area_bytes(int local_size) { return fy_rndv_area_bytes + fy_direct_area_bytes(local_size); }

size_t fy_pt2pt_cell_bytes(size_t eager) {
  size_t need = FY_PKT_SHORT + eager;
  return need > sizeof(fy_pkt_t) ? need : sizeof(fy_pkt_t);
}
