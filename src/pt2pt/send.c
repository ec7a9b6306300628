/* Send side: the four modes over eager and rendezvous. Standard and ready
 * sends are the same protocol; synchronous eager sends wait for an ACK
 * (rendezvous is synchronous by nature); buffered sends copy into the
 * attached buffer first (fy_bsend.c) and send from there. */
#include "pt2pt/pt2pt_impl.h"
#include "progress/fy_progress.h"
#include "core/fy_error.h"
#include "runtime/fy_config.h"
#include "progress/async/fy_async.h"
#include <stdlib.h>
#include <string.h>

size_t fy_eager_max;
size_t fy_direct_min;

void fy_req_setup(fy_request_t *r, int kind, int mode, const void *buf, MPI_Count count,
                  fy_datatype_t *t, int peer, int tag, fy_comm_t *c, int coll) {
  r->kind = (uint8_t)kind;
  r->mode = (uint8_t)mode;
  r->sbuf = buf;
  r->rbuf = (void *)buf;
  r->count = count;
  /* A pending operation keeps its datatype alive through MPI_Type_free. */
  fy_type_retain(t);
  r->type = t;
  r->peer = peer;
  r->tag = tag;
  r->comm = c;
  fy_comm_retain(c);
  r->ctx = c->ctx + (coll ? 1u : 0u);
}

const void *fy_send_data(fy_request_t *r) {
  return r->tmp ? r->tmp : (const char *)r->sbuf + r->type->true_lb;
}

int fy_req_begin(fy_request_t *r) {
  atomic_store_explicit(&r->done, 0, memory_order_relaxed);
  r->active = 1;
  r->cancelled = 0;
  r->pstate = FY_PS_IDLE;
  fy_status_empty(&r->status);
  r->bytes = (size_t)(r->count * r->type->size);
  if (r->peer != MPI_PROC_NULL) return 0;
  r->status.MPI_SOURCE = MPI_PROC_NULL;
  r->status.MPI_TAG = MPI_ANY_TAG;
  fy_req_complete(r);
  return 1;
}

size_t fy_eager_pipe_max;

/* An eager message through our pipe slots (FY_PKT_EAGER_P): its first
 * chunk is pushed, the message announced, then the rest pushed at once (a
 * receiver that takes the announcement in meanwhile copies chunks out as
 * they come, a two-core pipeline as in the rendezvous pipe). A standard
 * send completes once all is pushed (the packet may still wait in the
 * queue for a full ring), a synchronous one at the ACK. Only while at
 * least half the slots would stay free: they are also the rendezvous pipe,
 * whose transfers must not wait for a receiver that computes; the rest can
 * then never find them taken (only we fill them). pipe_room says whether
 * it may go (the caller then sends it with eager_piped). */
static int pipe_room(size_t bytes, int dst) {
  /* A receiver whose agent watches for rendezvous starts (it computes with
   * a large receive posted) gets one: its agent triggers it without a copy
   * of its own, where this message would wait for its next MPI call. */
  if (fy_shm_rndv_watched(dst)) return 0;
  size_t chunk = fy_shm_pipe_chunk();
  int need = (int)((bytes + chunk - 1) / chunk), K = fy_shm_pipe_slots();
  return need + K / 2 <= K && fy_shm_pipe_free() >= need + K / 2;
}

/* Messages above the ring's threshold, up to FERRY_EAGER_PIPE_MAX. */
static int eager_piped_ok(size_t bytes, int dst) {
  return dst >= 0 && bytes <= fy_eager_pipe_max && pipe_room(bytes, dst); /* (max 0 when off) */
}

static void eager_piped(fy_request_t *r, int dst) {
  size_t chunk = fy_shm_pipe_chunk();
  static uint64_t seq;
  uint64_t id = ((uint64_t)1 << 63) | ++seq; /* (rendezvous transfers: slot | gen << 16) */
  fy_shm_pipe_t p;
  fy_shm_pipe_init(&p, dst, id, r->bytes < chunk ? r->bytes : chunk); /* the first chunk only */
  fy_shm_pipe_push(&p, fy_send_data(r));
  int sync = r->mode == FY_MODE_SYNC;
  fy_pkt_t h = {.type = FY_PKT_EAGER_P, .flags = sync ? FY_PKF_SYNC : 0, .src = r->comm->rank, .tag = r->tag,
                .ctx = r->ctx, .len = r->bytes, .sreq = (uint64_t)(uintptr_t)r, .addr = id};
  fy_pt2pt_stats.eager_sent++;
  fy_pt2pt_stats.eager_piped++;
  /* Not completed by the send of the packet (its data, maybe a packed copy
   * that completion frees, is not all pushed yet); sent as a rendezvous
   * start, so that an agent that began watching since eager_piped_ok is
   * woken or kicked for it and takes it in. */
  fy_out_send(dst, &h, NULL, 0, FY_SHM_F_RNDV, sync ? r : NULL, 0);
  p.len = r->bytes;
  if (!fy_shm_pipe_push(&p, fy_send_data(r)))
    fy_abort(MPI_ERR_INTERN, "pipe slots counted free were taken during an eager send");
  if (!sync) fy_req_complete(r); /* all in the slots: the buffer is free */
}

/* Send r (packed already if it needed to be) by the path its size, its
 * peer and the receiver's state call for. Called locked. */
void fy_send_route(fy_request_t *r) {
  int dst = r->peer_local;
  size_t eager = dst < 0 ? fy_net_eager_max : fy_eager_max;
  if (r->solo && dst >= 0 && fy_config.coll_root_rndv > 0 && r->bytes >= (size_t)fy_config.coll_root_rndv) {
    /* a Scatter root (or a schedule's early copy), which copies its own
     * block meanwhile: the receiver reads this one (FERRY_COLL_ROOT_RNDV) */
    fy_rndv_send_start(r, dst, fy_send_data(r));
  } else if (dst >= 0 && r->bytes > fy_direct_min && r->bytes <= eager && fy_direct_try_send(r, dst, fy_send_data(r))) {
    /* a medium message, written into the receive it published (it
     * computes: nothing left for it to copy); to a receiver that waits in
     * MPI, the eager copy below streams faster */
  } else if (r->blocking && dst >= 0 && fy_config.eager_pipe_max && r->bytes <= eager && r->bytes > 2 * fy_shm_pipe_chunk() &&
             (r->type->is_contig || r->tmp) && pipe_room(r->bytes, dst)) {
    /* A blocking send of a large eager message: through the pipe, where
     * the receiver copies one chunk out while we push the next (64 KiB
     * latency 0.85x the cell's two copies one after the other). The
     * nonblocking ones, which come in windows, take a cell: one hand-off
     * per message instead of one per chunk. */
    eager_piped(r, dst);
  } else if (r->bytes <= eager) {
    int sync = r->mode == FY_MODE_SYNC;
    fy_pkt_t h = {.type = FY_PKT_EAGER, .flags = sync ? FY_PKF_SYNC : 0, .src = r->comm->rank,
                  .tag = r->tag, .ctx = r->ctx, .len = r->bytes, .sreq = (uint64_t)(uintptr_t)r};
    fy_pt2pt_stats.eager_sent++;
    fy_out_send(dst, &h, fy_send_data(r), r->bytes, 0, r, !sync);
  } else if (dst < 0) {
    fy_net_rndv_send(r, fy_send_data(r));
  } else if (fy_direct_try_send(r, dst, fy_send_data(r))) {
    /* written into the receive it published (it computes: no copy for it) */
  } else if ((r->type->is_contig || r->tmp) && eager_piped_ok(r->bytes, dst)) {
    eager_piped(r, dst);
  } else {
    fy_rndv_send_start(r, dst, fy_send_data(r));
  }
}

int fy_send_start(fy_request_t *r) {
  if (fy_req_begin(r)) return MPI_SUCCESS;
  r->status.MPI_SOURCE = r->peer;
  r->status.MPI_TAG = r->tag;
  /* Non-contiguous data is packed here for an eager send, and for a
   * nonblocking rendezvous send of small blocks (the receiver can then take
   * it while the sender computes); a blocking one packs while it copies,
   * and large blocks move in place (zcopy.c). */
  int dst = fy_local_of(r->comm, r->peer);
  size_t eager = dst < 0 ? fy_net_eager_max : fy_eager_max;
  /* (over the fabric derived types are always packed; for the eager pipe
   * too, which is decided here first and again under the lock) */
  if (!r->type->is_contig && r->bytes &&
      (r->bytes <= eager || dst < 0 || (!r->blocking && !fy_zc_in_place(r)) || eager_piped_ok(r->bytes, dst))) {
    if (!r->tmp || !r->tmp_owned) {
      r->tmp = malloc(r->bytes);
      if (!r->tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory packing %zu bytes", r->bytes);
      r->tmp_owned = 1;
    }
    fy_type_pack(r->type, r->count, r->sbuf, r->tmp);
  }
  r->peer_local = dst;
  fy_plock();
  if (fy_rndv_held(dst))
    fy_rndv_hold(r, dst); /* behind a rendezvous send to dst that waits for a slot */
  else
    fy_send_route(r);
  fy_punlock();
  return MPI_SUCCESS;
}

int fy_send_eager_now(const void *buf, MPI_Count count, fy_datatype_t *t, int peer, int tag, fy_comm_t *c,
                      int coll) {
  if (peer == MPI_PROC_NULL || !t->is_contig) return -1;
  size_t bytes = (size_t)(count * t->size);
  int dst = fy_local_of(c, peer);
  /* (a medium one may write into a published receive: fy_send_start) */
  if (bytes > (dst < 0 ? fy_net_now_max : fy_direct_min)) return -1;
  fy_pkt_t h = {.type = FY_PKT_EAGER, .src = c->rank, .tag = tag, .ctx = c->ctx + (coll ? 1u : 0u), .len = bytes};
  fy_plock();
  /* (behind a send that waits for a rendezvous slot: the caller's full path queues it) */
  int rc = fy_rndv_held(dst) ? -1 : fy_out_send_now(dst, &h, (const char *)buf + t->true_lb, bytes);
  if (rc == 0) fy_pt2pt_stats.eager_sent++;
  fy_punlock();
  return rc;
}

static int req_is_done(void *arg) { return fy_req_done(arg); }

void fy_req_wait_done(fy_request_t *r) {
  fy_req_set_waited(r, FY_WAITED_ALL);
  fy_async_unwatch_locked(r); /* waited on: the wait progresses it */
  fy_progress_wait(req_is_done, r);
}

int fy_req_give_or_wait(fy_request_t *r, MPI_Request *request) {
  if (request) {
    *request = r->handle;
    return MPI_SUCCESS;
  }
  fy_req_wait_done(r);
  int err = r->status.MPI_ERROR;
  fy_req_release(r);
  return err;
}

int fy_isend_internal(const void *buf, MPI_Count count, fy_datatype_t *t, int dest, int tag,
                      fy_comm_t *c, fy_request_t **out) {
  fy_request_t *r = fy_req_alloc(FY_REQ_SEND, 0);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests");
  fy_req_setup(r, FY_REQ_SEND, FY_MODE_STD, buf, count, t, dest, tag, c, 1);
  *out = r;
  return fy_send_start(r);
}

int fy_irecv_internal(void *buf, MPI_Count count, fy_datatype_t *t, int src, int tag,
                      fy_comm_t *c, fy_request_t **out) {
  fy_request_t *r = fy_req_alloc(FY_REQ_RECV, 0);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests");
  fy_req_setup(r, FY_REQ_RECV, FY_MODE_STD, buf, count, t, src, tag, c, 1);
  *out = r;
  return fy_recv_start(r);
}
