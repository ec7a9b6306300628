/* Send side: the four modes over eager and rendezvous. Standard and ready
 * sends are the same protocol; synchronous eager sends wait for an ACK
 * (rendezvous is synchronous by nature); buffered sends copy into the
 * attached buffer first (fy_bsend.c) and send from there. */
#include "pt2pt/pt2pt_impl.h"
#include "progress/fy_progress.h"
#include "core/fy_error.h"
#include "progress/async/fy_async.h"
#include <stdlib.h>
#include <string.h>

size_t fy_eager_max;

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
  /* (over the fabric derived types are always packed) */
  if (!r->type->is_contig && r->bytes &&
      (r->bytes <= eager || dst < 0 || (!r->blocking && !fy_zc_in_place(r)))) {
    if (!r->tmp || !r->tmp_owned) {
      r->tmp = malloc(r->bytes);
      if (!r->tmp) return fy_err(MPI_ERR_NO_MEM, "out of memory packing %zu bytes", r->bytes);
      r->tmp_owned = 1;
    }
    fy_type_pack(r->type, r->count, r->sbuf, r->tmp);
  }
  r->peer_local = dst;
  fy_plock();
  if (r->bytes <= eager) {
    int sync = r->mode == FY_MODE_SYNC;
    fy_pkt_t h = {.type = FY_PKT_EAGER, .flags = sync ? FY_PKF_SYNC : 0, .src = r->comm->rank,
                  .tag = r->tag, .ctx = r->ctx, .len = r->bytes, .sreq = (uint64_t)(uintptr_t)r};
    fy_pt2pt_stats.eager_sent++;
    fy_out_send(dst, &h, fy_send_data(r), r->bytes, 0, r, !sync);
  } else if (dst < 0) {
    fy_net_rndv_send(r, fy_send_data(r));
  } else if (!fy_direct_try_send(r, dst, fy_send_data(r))) {
    fy_rndv_send_start(r, dst, fy_send_data(r));
  }
  fy_punlock();
  return MPI_SUCCESS;
}

int fy_send_eager_now(const void *buf, MPI_Count count, fy_datatype_t *t, int peer, int tag, fy_comm_t *c) {
  if (peer == MPI_PROC_NULL || !t->is_contig) return -1;
  size_t bytes = (size_t)(count * t->size);
  int dst = fy_local_of(c, peer);
  if (bytes > (dst < 0 ? fy_net_eager_max : fy_eager_max)) return -1;
  fy_pkt_t h = {.type = FY_PKT_EAGER, .src = c->rank, .tag = tag, .ctx = c->ctx, .len = bytes};
  fy_plock();
  int rc = fy_out_send_now(dst, &h, (const char *)buf + t->true_lb, bytes);
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
