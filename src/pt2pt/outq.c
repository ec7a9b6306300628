/* Outgoing packet queues: a packet the ring cannot take now waits here, in
 * per-destination FIFO order, so that later packets never overtake it. */
#include "pt2pt/pt2pt_impl.h"
#include "runtime/fy_config.h"
#include "runtime/fy_salloc.h"
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
static int nlocal;
int fy_out_nqueued;
/* Per destination: its ring's consumer position when we last kicked it
 * (UINT64_MAX: not kicked since its queue here started). */
static uint64_t *kicked_at;

int fy_out_init(int n) {
  nlocal = n;
  head = calloc((size_t)n, sizeof *head);
  tail = calloc((size_t)n, sizeof *tail);
  kicked_at = malloc((size_t)n * sizeof *kicked_at);
  if (!head || !tail || !kicked_at) return -1;
  for (int i = 0; i < n; i++) kicked_at[i] = UINT64_MAX;
  return 0;
}

/* dst's ring is full: if it computes with a receive waiting for a
 * rendezvous start (its PEF is registered for kicks), kick it so that it
 * drains the ring. Once per fill: again only after it has consumed
 * something, so a waiting sender never floods it with signals. */
static void kick_full(int dst) {
  uint64_t h = fy_shm_ring_head(dst);
  if (kicked_at[dst] == h) return;
  if (fy_shm_kick(dst)) kicked_at[dst] = h;
}

void fy_out_finalize(void) {
  for (int i = 0; head && i < nlocal; i++)
    while (head[i]) {
      out_pkt_t *o = head[i];
      head[i] = o->next;
      fy_sfree(o);
    }
  free(head);
  free(tail);
  free(kicked_at);
  head = tail = NULL;
  kicked_at = NULL;
}

static void sent(fy_request_t *req, const fy_pkt_t *hdr, int complete_on_send) {
  if (!req) return;
  if (complete_on_send) {
    fy_req_complete(req);
  } else if (hdr->type == FY_PKT_EAGER || hdr->type == FY_PKT_EAGER_P) {
    req->pstate = FY_PS_EAGER_ACK; /* a synchronous send waits for the ACK */
  }
}

int fy_out_send(int dst, const fy_pkt_t *hdr, const void *data, size_t dlen, unsigned flags,
                fy_request_t *req, int complete_on_send) {
  if (dst < 0) return fy_net_out_send(dst, hdr, data, dlen, req, complete_on_send);
  if (fy_pkt_is_msg(hdr->type)) fy_msgs_sent[dst]++; /* in send order: queued ones too */
  if (!head[dst] && fy_shm_send(dst, hdr, fy_pkt_hlen(hdr), data, dlen, flags) == 0) {
    sent(req, hdr, complete_on_send);
    return 0;
  }
  /* signal-safe: a PEF turn may queue a CTS or an ACK */
  out_pkt_t *o = fy_salloc(sizeof *o);
  if (!o) fy_abort(MPI_ERR_NO_MEM, "out of memory queueing a packet");
  if (!head[dst]) kick_full(dst);
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
  fy_out_nqueued++;
  fy_pt2pt_stats.queued_pkts++;
  return 1;
}

int fy_out_progress_queued(void) {
  int n = 0;
  for (int d = 0; d < nlocal; d++) {
    while (head[d]) {
      out_pkt_t *o = head[d];
      if (fy_shm_send(d, &o->hdr, fy_pkt_hlen(&o->hdr), o->data, o->dlen, o->flags) != 0) {
        kick_full(d);
        break;
      }
      head[d] = o->next;
      if (!head[d]) tail[d] = NULL;
      fy_out_nqueued--;
      n++;
      if (o->req && o->req->pstate == FY_PS_QUEUED) o->req->pstate = FY_PS_IDLE;
      if (o->req && o->hdr.type == FY_PKT_RTS) o->req->pstate = FY_PS_RNDV_SENT;
      sent(o->req, &o->hdr, o->complete_on_send);
      fy_sfree(o);
    }
  }
  return n;
}

int fy_out_send_now(int dst, const fy_pkt_t *hdr, const void *data, size_t dlen) {
  if (dst < 0) return fy_net_out_send(dst, hdr, data, dlen, NULL, 0); /* copied: never refused */
  if (head[dst] || fy_shm_send(dst, hdr, fy_pkt_hlen(hdr), data, dlen, 0) != 0) return -1;
  if (fy_pkt_is_msg(hdr->type)) fy_msgs_sent[dst]++;
  return 0;
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
