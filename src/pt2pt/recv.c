/* Receive side: packet dispatch, matching through the message queue,
 * eager delivery, unexpected messages, receive cancel. */
#include "pt2pt/pt2pt_impl.h"
#include "pt2pt/mq/fy_mq.h"
#include "runtime/fy_config.h"
#include "progress/fy_progress.h"
#include "progress/async/fy_async.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "core/fy_error.h"

struct fy_mq *fy_mq;
fy_pt2pt_stats_t fy_pt2pt_stats;
static fy_unexp_t *spare; /* the next unexpected descriptor, allocated ahead */
/* Descriptors the PEF signal handler may use (it cannot allocate). */
#define SIG_POOL 8
static fy_unexp_t *sig_pool[SIG_POOL];
static int sig_npool;
/* Payload buffers for small unexpected messages taken in a PEF turn; they
 * go back to this list when the message is received. */
#define SIG_EAGER_BUFS 4
#define SIG_EAGER_BYTES 4096
static char *sig_buf[SIG_EAGER_BUFS];
static int sig_nbuf, sig_buf_made;
int fy_pt2pt_in_signal;   /* a PEF turn is running on this process */
static int sig_hits;
static fy_rlist_t complete_later; /* matched in a PEF turn, completed by progress */
static int completes_quietly(const fy_request_t *r);

static fy_unexp_t *unexp_new(void) {
  fy_unexp_t *u = calloc(1, sizeof *u);
  if (!u) fy_abort(MPI_ERR_NO_MEM, "out of memory for an unexpected message");
  u->mqi.owner = u;
  return u;
}

void fy_recv_set_status(fy_request_t *r, int src, int tag, size_t bytes, size_t len) {
  r->status.MPI_SOURCE = src;
  r->status.MPI_TAG = tag;
  fy_status_set_count(&r->status, (MPI_Count)bytes);
  if (len > bytes) {
    r->status.MPI_ERROR = fy_err(MPI_ERR_TRUNCATE,
        "message of %zu bytes from rank %d (tag %d) is longer than the receive buffer (%zu bytes)",
        len, src, tag, bytes);
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
  if (fy_pt2pt_in_signal && !completes_quietly(r))
    fy_rlist_push(&complete_later, r); /* its release would free memory */
  else
    fy_req_complete(r);
}

static int on_packet(void *arg, int src_local, const void *pkt, size_t plen) {
  const fy_pkt_t *h = pkt;
  switch (h->type) {
    case FY_PKT_EAGER:
    case FY_PKT_RTS: {
      fy_unexp_t *u = spare;
      u->mqi.ctx = h->ctx;
      u->mqi.rank = h->src;
      u->mqi.tag = h->tag;
      fy_mq_item_t *m = fy_mq_arrive(fy_mq, &u->mqi);
      if (m) {
        fy_request_t *r = m->owner;
        if (r->watch_idx) {
          fy_async_triggered(r);
          if (fy_pt2pt_in_signal) sig_hits++;
        }
        if (h->type == FY_PKT_EAGER)
          fy_eager_deliver(r, h, fy_pkt_payload(h), src_local);
        else
          fy_rndv_recv_match(r, src_local, h);
        break;
      }
      /* Unexpected: keep it (the descriptor is now queued). */
      u->type = h->type;
      u->flags = h->flags;
      u->src_local = src_local;
      u->len = (size_t)h->len;
      u->sreq = h->sreq;
      if (h->type == FY_PKT_RTS) {
        u->addr = h->addr;
        u->slot = h->slot;
        u->gen = h->gen;
      }
      if (h->type == FY_PKT_EAGER && u->len && fy_pt2pt_in_signal) {
        u->data = sig_buf[--sig_nbuf];
        u->data_pooled = 1;
        memcpy(u->data, fy_pkt_payload(h), u->len);
      } else if (h->type == FY_PKT_EAGER && u->len) {
        u->data = malloc(u->len);
        if (!u->data) fy_abort(MPI_ERR_NO_MEM, "out of memory for an unexpected message");
        memcpy(u->data, fy_pkt_payload(h), u->len);
      }
      spare = fy_pt2pt_in_signal ? sig_pool[--sig_npool] : unexp_new();
      fy_pt2pt_stats.unexpected++;
      break;
    }
    case FY_PKT_CTS: fy_rndv_on_cts(h); break;
    case FY_PKT_FIN_S: fy_rndv_on_fin_s(h); break;
    case FY_PKT_FIN_R: fy_rndv_on_fin_r(h); break;
    case FY_PKT_ACK: fy_req_complete((fy_request_t *)(uintptr_t)h->sreq); break;
    default:
      fy_abort(MPI_ERR_INTERN, "corrupt packet in the shared-memory ring");
  }
  return 0;
}

/* Completing r in a signal handler must not free memory (a user-freed or
 * internal request is released at completion, a bounce buffer is freed). */
static int completes_quietly(const fy_request_t *r) {
  return !r->user_freed && !r->on_complete && !r->tmp;
}

/* PEF turn: take the packets at the head of the ring that can be handled
 * without allocating, freeing or copying bulk data (rendezvous starts,
 * eager messages that fit a preallocated buffer, completions that release
 * nothing, CTS which only the non-signal path acts on); stop at anything
 * else, which the next MPI call will take. A small message ahead of a
 * rendezvous start therefore does not hide it. */
static int on_packet_signal(void *arg, int src_local, const void *pkt, size_t plen) {
  const fy_pkt_t *h = pkt;
  if (src_local == fy_state.local_rank) return 1;
  switch (h->type) {
    case FY_PKT_EAGER:
      if ((h->flags & FY_PKF_SYNC) || h->len > SIG_EAGER_BYTES || sig_nbuf == 0) return 1;
      __attribute__((fallthrough)); /* the same matching constraints as a rendezvous start */
    case FY_PKT_RTS:
      if (sig_npool == 0 || !fy_mq_arrive_alloc_free(fy_mq, h->ctx)) return 1;
      break;
    case FY_PKT_CTS: break;
    case FY_PKT_FIN_S:
    case FY_PKT_ACK:
      if (!completes_quietly((fy_request_t *)(uintptr_t)h->sreq)) return 1;
      break;
    case FY_PKT_FIN_R:
      if (!completes_quietly((fy_request_t *)(uintptr_t)h->rreq)) return 1;
      break;
    default: return 1;
  }
  return on_packet(arg, src_local, pkt, plen);
}

int fy_pt2pt_signal_poll(void) {
  fy_pt2pt_in_signal = 1;
  sig_hits = 0;
  fy_shm_poll(on_packet_signal, NULL, 0);
  fy_pt2pt_in_signal = 0;
  return sig_hits;
}

int fy_pt2pt_progress(void) {
  int n = 0;
  while (complete_later.head) {
    fy_request_t *r = complete_later.head;
    fy_rlist_remove(&complete_later, r);
    fy_req_complete(r);
    n++;
  }
  while (sig_npool < SIG_POOL) sig_pool[sig_npool++] = unexp_new();
  if (!sig_buf_made && fy_async_mode == FY_ASYNC_PEF) {
    /* Made once: taken buffers come back when their message is received. */
    sig_buf_made = 1;
    while (sig_nbuf < SIG_EAGER_BUFS && (sig_buf[sig_nbuf] = malloc(SIG_EAGER_BYTES))) sig_nbuf++;
  }
  if (fy_shm_pending()) n += fy_shm_poll(on_packet, NULL, 0);
  n += fy_out_progress();
  n += fy_rndv_progress();
  return n;
}

/* A receive matched an unexpected message u: deliver and free u. */
void fy_unexp_consume(fy_request_t *r, fy_unexp_t *u) {
  fy_pkt_t h = {.type = u->type, .flags = u->flags, .src = u->mqi.rank, .tag = u->mqi.tag,
                .ctx = u->mqi.ctx, .len = u->len, .sreq = u->sreq, .addr = u->addr,
                .slot = u->slot, .gen = u->gen};
  if (u->type == FY_PKT_EAGER)
    fy_eager_deliver(r, &h, u->data, u->src_local);
  else
    fy_rndv_recv_match(r, u->src_local, &h);
  if (u->data_pooled)
    sig_buf[sig_nbuf++] = u->data;
  else
    free(u->data);
  free(u);
}

int fy_recv_start(fy_request_t *r) {
  r->tmp = NULL;
  if (fy_req_begin(r)) return MPI_SUCCESS;
  r->mqi.ctx = r->ctx;
  r->mqi.rank = r->peer;
  r->mqi.tag = r->tag;
  r->mqi.owner = r;
  fy_plock();
  int may_watch = r->bytes > fy_eager_max && !r->blocking && fy_async_mode != FY_ASYNC_NONE;
  /* A rendezvous start already in the ring is "sender first": take it in
   * before posting, so that no agent is armed for nothing (seed 002 3.2). */
  if (may_watch && fy_config.irecv_poll && fy_shm_pending()) fy_progress_poll_locked();
  fy_mq_item_t *m = fy_mq_post(fy_mq, &r->mqi);
  if (m)
    fy_unexp_consume(r, m->owner);
  else if (may_watch)
    fy_async_watch(r); /* it may be a rendezvous whose start has not come */
  fy_punlock();
  return MPI_SUCCESS;
}

int fy_recv_cancel(fy_request_t *r) {
  int ok = 0;
  fy_plock();
  if (!fy_req_done(r) && r->pstate == FY_PS_IDLE && fy_mq_cancel_posted(fy_mq, &r->mqi)) {
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
  return msg;
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
  spare = unexp_new();
  fy_eager_max = (size_t)fy_config.eager_threshold;
  if (!fy_mq || fy_out_init(fy_state.local_size) != 0 || fy_rndv_init() != 0)
    return fy_err(MPI_ERR_NO_MEM, "cannot set up point-to-point state");
  return MPI_SUCCESS;
}

void fy_pt2pt_finalize(void) {
  while (sig_npool > 0) free(sig_pool[--sig_npool]);
  while (sig_nbuf > 0) free(sig_buf[--sig_nbuf]);
  fy_out_finalize();
  if (fy_mq) fy_mq_destroy(fy_mq);
  fy_mq = NULL;
  free(spare);
  spare = NULL;
}

void fy_pt2pt_ctx_close(fy_comm_t *c) {
  fy_plock();
  fy_mq_ctx_close(fy_mq, c->ctx);
  fy_mq_ctx_close(fy_mq, c->ctx + 1);
  fy_punlock();
}

void fy_pt2pt_ctx_open(fy_comm_t *c) {
  fy_mq_ctx_open(fy_mq, c->ctx, c->size);
  fy_mq_ctx_open(fy_mq, c->ctx + 1, c->size);
}

size_t fy_pt2pt_cell_bytes(size_t eager) {
  size_t need = FY_PKT_SHORT + eager;
  return need > sizeof(fy_pkt_t) ? need : sizeof(fy_pkt_t);
}
