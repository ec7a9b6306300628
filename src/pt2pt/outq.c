/* Outgoing packet queues: a packet the ring cannot take now waits here, in
 * per-destination FIFO order, so that later packets never overtake it. */
#include "pt2pt/pt2pt_impl.h"
#include "runtime/fy_config.h"
#include <stdlib.h>
#include <string.h>

typedef struct out_pkt {
  struct out_pkt *next;
  fy_pkt_t hdr;
  const void *data;
  size_t dlen;
  unsigned flags;
  fy_request_t *req;
  int complete_on_send;
} out_pkt_t;

static out_pkt_t **head, **tail;
static int nlocal, nqueued;

int fy_out_init(int n) {
  nlocal = n;
  head = calloc((size_t)n, sizeof *head);
  tail = calloc((size_t)n, sizeof *tail);
  return (head && tail) ? 0 : -1;
}

void fy_out_finalize(void) {
  for (int i = 0; head && i < nlocal; i++)
    while (head[i]) {
      out_pkt_t *o = head[i];
      head[i] = o->next;
      free(o);
    }
  free(head);
  free(tail);
  head = tail = NULL;
}

static void sent(fy_request_t *req, const fy_pkt_t *hdr, int complete_on_send) {
  if (!req) return;
  if (complete_on_send) {
    fy_req_complete(req);
  } else if (hdr->type == FY_PKT_EAGER) {
    req->pstate = FY_PS_EAGER_ACK; /* a synchronous send waits for the ACK */
  }
}

int fy_out_send(int dst, const fy_pkt_t *hdr, const void *data, size_t dlen, unsigned flags,
                fy_request_t *req, int complete_on_send) {
  if (!head[dst] && fy_shm_send(dst, hdr, fy_pkt_hlen(hdr), data, dlen, flags) == 0) {
    sent(req, hdr, complete_on_send);
    return 0;
  }
  out_pkt_t *o = malloc(sizeof *o);
  if (!o) fy_abort(MPI_ERR_NO_MEM, "out of memory queueing a packet");
  o->next = NULL;
  o->hdr = *hdr;
  o->data = data;
  o->dlen = dlen;
  o->flags = flags;
  o->req = req;
  o->complete_on_send = complete_on_send;
  if (req) req->pstate = FY_PS_QUEUED;
  if (tail[dst]) tail[dst]->next = o; else head[dst] = o;
  tail[dst] = o;
  nqueued++;
  fy_pt2pt_stats.queued_pkts++;
  return 1;
}

int fy_out_progress(void) {
  if (!nqueued) return 0;
  int n = 0;
  for (int d = 0; d < nlocal; d++) {
    while (head[d]) {
      out_pkt_t *o = head[d];
      if (fy_shm_send(d, &o->hdr, fy_pkt_hlen(&o->hdr), o->data, o->dlen, o->flags) != 0) break;
      head[d] = o->next;
      if (!head[d]) tail[d] = NULL;
      nqueued--;
      n++;
      if (o->req && o->req->pstate == FY_PS_QUEUED) o->req->pstate = FY_PS_IDLE;
      if (o->req && o->hdr.type == FY_PKT_RTS) o->req->pstate = FY_PS_RNDV_SENT;
      sent(o->req, &o->hdr, o->complete_on_send);
      free(o);
    }
  }
  return n;
}

void fy_rlist_push(fy_rlist_t *l, fy_request_t *r) {
  r->lnext = NULL;
  r->lprev = l->tail;
  if (l->tail) l->tail->lnext = r; else l->head = r;
  l->tail = r;
}

void fy_rlist_remove(fy_rlist_t *l, fy_request_t *r) {
  if (r->lprev) r->lprev->lnext = r->lnext; else l->head = r->lnext;
  if (r->lnext) r->lnext->lprev = r->lprev; else l->tail = r->lprev;
  r->lnext = r->lprev = NULL;
}

int fy_out_try_send(int dst, const fy_pkt_t *hdr, unsigned flags) {
  if (head[dst]) return -1; /* it would overtake a queued packet */
  return fy_shm_send(dst, hdr, fy_pkt_hlen(hdr), NULL, 0, flags) == 0 ? 0 : -1;
}
