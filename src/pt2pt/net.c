/* Point-to-point over the fabric (src/transport/ofi): the protocols for
 * peers that are not on this host (or every peer with FERRY_NOLOCAL=1).
 *
 * A peer reached through the fabric has the index fy_net_peer(world) < -1
 * where a local one has its local rank (fy_local_of), so the shared code
 * (send.c, recv.c, outq.c) routes by the sign and the arrivals of both
 * transports meet in the one matching queue (fy_pt2pt_on_packet). Every
 * fabric message is a full fy_pkt_t followed by the payload.
 *
 * - Eager (len <= FERRY_OFI_EAGER): header + data in one message; the
 *   send completes once the bytes are copied into a send buffer. SYNC sends
 *   wait for the ACK, as on shared memory.
 * - Rendezvous: the sender registers its buffer and sends RTS (addr = the
 *   address a peer uses, slot|gen = the 64-bit key, sreq = its transfer).
 *   The receive that matches it either
 *     RGET: fi_reads the data into its buffer, then sends NFIN_S, or
 *     RPUT: registers its buffer and sends NCTS (addr, key, capacity); the
 *           sender fi_writes and sends NFIN_R,
 *   chosen per message by FERRY_OFI_RNDV; auto pulls (RGET, seed 003),
 *   except that a receiver waiting on this very receive lets the sender
 *   push a message below FERRY_OFI_RGET_MIN (0 with hardware RMA, 256 KiB
 *   over the TCP providers: rget_min_for). Until 2026-12-02 a receive
 *   matched in passing (in MPI_Irecv, a test, or the fabric agent's
 *   answer while the thread computes) took RPUT, so that the waiting
 *   sender would push; across two test hosts a clear-to-send that reached
 *   a computing sender made the exchange in which both ranks compute take
 *   1.2-1.5 ms at 1 MiB against 0.75-0.9 ms with RGET, and 550-590 us at
 *   128 KiB against 466-506 (docs/transport-ofi.md, Figures).
 * - Derived types are packed by the sender (send.c) and received into a
 *   bounce buffer that the completion unpacks (r->tmp).
 * Nothing here runs in a signal handler (the PEF turn polls shared memory
 * only), and everything runs under the progress lock. */
#include "pt2pt/pt2pt_impl.h"
#include "transport/ofi/fy_ofi.h"
#include "runtime/fy_config.h"
#include "runtime/fy_pmi.h"
#include "runtime/fy_pmi_gather.h"
#include "progress/fy_progress.h"
#include "core/fy_error.h"
#include "core/fy_init.h"
#include "progress/async/fy_async.h"
#include "progress/async/fy_lend.h"
#include "runtime/fy_salloc.h"
#include <poll.h>
#include <time.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Packets only the fabric uses. */
enum { FY_PKT_NCTS = 32, FY_PKT_NFIN_S, FY_PKT_NFIN_R };
enum { RNDV_AUTO, RNDV_READ, RNDV_WRITE };

int fy_net_on;
size_t fy_net_eager_max;
size_t fy_net_now_max;
static int rndv_mode;
/* auto: a receiver that waits on a message smaller than this lets the
 * sender push it (RPUT); otherwise it pulls (FERRY_OFI_RGET_MIN). */
static size_t rget_min;

/* One rendezvous, on either side. */
typedef struct xfer {
  int one_sided;           /* 0 here; 1: a net_op_t (fy_net_rma) */
  fy_request_t *r;
  int peer;                /* world rank of the other side */
  int sender;
  char *buf;               /* local data */
  size_t n;                /* bytes to move */
  fy_ofi_mr_t *mr;
  uint64_t peer_xfer;      /* the other side's transfer id */
  int unattended;          /* counted in nxfers */
  int paced;               /* counted in npaced */
  /* data sent ahead (FERRY_OFI_AHEAD): on the sender, the bytes and
   * whether their tagged send or the receiver's NFIN_S is still to come;
   * on the receiver, the parts (data ahead, read of the rest) still to
   * complete before its NFIN_S */
  size_t ahead;
  int tsend_busy, fin_seen, parts;
  int fin_lazy; /* receiver: the sender allows a lazy answer (FY_PKF_FIN_LAZY) */
} xfer_t;

/* Data ahead: a rendezvous message's first bytes (all of it, when it fits)
 * go as one tagged message right behind its RTS, as MPICH's ofi device
 * sends every message, so that they flow before the receiver answers;
 * the receiver reads only the rest (RGET). Over TCP a receiver that
 * computes then finds them in its socket buffers, and a waiting one saves
 * the read request's crossing. The RTS carries their length and tag in
 * `rreq` (length << 32 | sequence); the tag is the sender's world rank
 * << 32 | sequence. The receiver must post the tagged receive as soon as
 * the RTS arrives (libfabric's net and tcp stop reading the connection at
 * an unmatched tagged message, which would hold back every later message
 * of the pair): into the receive's buffer if one matched, else into a
 * bounce buffer that the receive taking the message later copies from.
 * Those bounce buffers are bounded: a sender sends ahead to a peer only
 * once the peer has answered all it sent ahead before (its NFIN_S, or a
 * lazy answer: below), and at most FERRY_OFI_AHEAD bytes of a message. */
typedef struct ahead {
  size_t k;        /* bytes ahead */
  uint64_t tag;
  char *bounce;    /* where they land when no receive had matched yet */
  int posted, done, lazy;
  xfer_t *x;       /* the receive's transfer, once one matched */
} ahead_t;
static size_t ahead_max;   /* bytes of a message sent ahead at most (0: off) */
static xfer_t **ahead_out; /* per world rank: the message whose data ahead awaits its answer */
static uint32_t ahead_seq;

/* Lazy answers. A message whose data all went ahead (and whose send is not
 * synchronous) has completed on the sender when the data left; the
 * receiver's NFIN_S only frees the sender's transfer and lets the next
 * message to it go ahead. The receiver sends it as a flag on its next
 * packet to that peer instead (FY_PKF_FIN_DONE: in a pingpong the reply's
 * RTS), or as an NFIN_S of its own at its next idle pass, its fabric
 * agent's turn or shutdown, whichever comes first. Dropping that NFIN_S
 * altogether (an unsafe measurement build, 11 paired rounds across the
 * test hosts) took 128 KiB latency to 0.91x, 256 KiB-1 MiB to 0.96x. */
static uint64_t *fin_owed; /* per world rank: the sender's transfer id we owe an answer to, or 0 */
static int *owed_list, nowed; /* the ranks with one */

fy_net_stats_t fy_net_stats;

/* The header to send to world rank `world`: h, or a copy of it in *tmp
 * that carries the answer we owe that peer. */
static const fy_pkt_t *fin_ride(int world, const fy_pkt_t *h, fy_pkt_t *tmp) {
  if (!nowed || !fin_owed[world]) return h;
  fin_owed[world] = 0;
  for (int i = 0; i < nowed; i++)
    if (owed_list[i] == world) {
      owed_list[i] = owed_list[--nowed];
      break;
    }
  memcpy(tmp, h, fy_pkt_hlen(h));
  tmp->flags |= FY_PKF_FIN_DONE;
  fy_net_stats.fin_rode++;
  return tmp;
}

static void send_pkt(int world, const fy_pkt_t *h, const void *data, size_t dlen) {
  fy_pkt_t tmp;
  h = fin_ride(world, h, &tmp);
  fy_ofi_send(world, h, fy_pkt_hlen(h), data, dlen); /* EAGER and ACK: the short header */
}

static void send_fin_s(int world, uint64_t sreq) {
  fy_pkt_t f = {.type = FY_PKT_NFIN_S, .sreq = sreq};
  send_pkt(world, &f, NULL, 0);
}

/* Owe world rank `world` the answer to its transfer sreq (lazy answers). */
static void fin_owe(int world, uint64_t sreq) {
  if (fin_owed[world]) { /* (cannot happen: one message ahead at a time; answer the older one) */
    uint64_t old = fin_owed[world];
    fin_owed[world] = 0;
    send_fin_s(world, old);
  } else {
    owed_list[nowed++] = world;
  }
  fin_owed[world] = sreq;
}

/* Send every answer still owed as an NFIN_S of its own. */
static void fin_flush(void) {
  while (nowed) {
    int w = owed_list[--nowed];
    uint64_t sreq = fin_owed[w];
    fin_owed[w] = 0;
    send_fin_s(w, sreq);
  }
}

/* An eager send of at least this many bytes that completes on sending goes
 * out of the sender's buffer (fy_ofi_send_ref) and completes when the
 * provider is done with it, instead of being copied into a pool buffer.
 * Paired rounds over net (loopback, 12 rounds): 16 KiB streaming bandwidth
 * 1.11x (11 rounds of 12), latency unchanged (the completion is already in
 * the queue when the wait polls); at 8 KiB neutral within the spread.
 * fy_send_eager_now (MPI_Send's and MPI_Isend's request-free path) copies
 * only below it (fy_net_now_max): when it took every eager size, a 16 KiB
 * Isend spent 1.1 us of 12 in memmove (2026-12-03, across the test hosts:
 * streaming 1.07x at 16 KiB and 1.11-1.13x at 8 and 32 KiB). */
#define NET_REF_MIN 8192

static void on_sent(void *ctx) { fy_pt2pt_complete(ctx); }

int fy_net_out_send(int dst, const fy_pkt_t *hdr, const void *data, size_t dlen, fy_request_t *req,
                    int complete_on_send) {
  fy_pkt_t tmp;
  if (req && complete_on_send && dlen >= NET_REF_MIN && hdr->type == FY_PKT_EAGER &&
      (hdr = fin_ride(fy_net_world(dst), hdr, &tmp),
       fy_ofi_send_ref(fy_net_world(dst), hdr, fy_pkt_hlen(hdr), data, dlen, req) == 0)) {
    fy_net_stats.eager++;
    fy_net_stats.eager_ref++;
    return 0;
  }
  send_pkt(fy_net_world(dst), hdr, data, dlen);
  if (hdr->type == FY_PKT_EAGER) fy_net_stats.eager++;
  if (req) {
    if (complete_on_send) fy_req_complete(req);
    else if (hdr->type == FY_PKT_EAGER) req->pstate = FY_PS_EAGER_ACK;
  }
  return 0;
}

/* Rendezvous transfers in progress here that no blocking call waits on:
 * with a provider that progresses manually, data only moves while some
 * thread of ours polls, so the fabric agent stays awake while this is
 * nonzero. A transfer of a blocking call (MPI_Send, MPI_Recv, or a request
 * already in MPI_Wait) is polled by its caller: waking the agent for it
 * only made the two threads take turns on the rank's core (64 KiB
 * pingpong 40 us without the agent, 60-110 us with it). */
static int nxfers;
int fy_pt2pt_net_busy(void) { return __atomic_load_n(&nxfers, __ATOMIC_RELAXED) != 0; } /* any thread */

/* Of those, the ones that bring data in (our receives): what a lent CPU
 * is for (fy_lend.h). Serving a peer's read on the CPU it lends puts the
 * two ends of one copy on one CPU. */
static int nxfers_in;
int fy_pt2pt_net_busy_in(void) { return __atomic_load_n(&nxfers_in, __ATOMIC_RELAXED) != 0; } /* any thread */

/* Unattended transfers of at least FERRY_OFI_PACE_MIN bytes whose data is
 * flowing (our read posted or our clear-to-send sent, or the peer's
 * clear-to-send taken): over a provider with software progress they stall
 * once the socket buffers fill unless some thread of ours polls, so a
 * trigger-only fabric agent drains them at a pace (agent_thread.c). */
static int npaced;
static size_t pace_min;
int fy_pt2pt_net_paced(void) { return __atomic_load_n(&npaced, __ATOMIC_RELAXED) != 0; } /* any thread */

/* Rendezvous transfers alive here, attended or not: while one is, data may
 * be moving through our endpoint (the peer's write into our buffer, its
 * read of ours) with no completion of ours until the end, so a wake-up of
 * the wait that yields no event is not futile (fy_pt2pt_sleep). */
static int nlive;

static void pace(xfer_t *x, size_t n) {
  if (!x->unattended || !pace_min || n < pace_min) return;
  x->paced = 1;
  fy_net_stats.paced++;
  __atomic_store_n(&npaced, npaced + 1, __ATOMIC_RELAXED);
  if (npaced == 1) fy_intr_on_watch(); /* a parked fabric agent wakes */
}

/* The transfer's request completes (r becomes NULL) and it stops
 * counting as one in flight; xfer_done frees it. */
static void xfer_release(xfer_t *x) {
  __atomic_store_n(&nlive, nlive - 1, __ATOMIC_RELAXED); /* (read unlocked) */
  if (x->unattended) {
    __atomic_store_n(&nxfers, nxfers - 1, __ATOMIC_RELAXED);
    if (!x->sender) {
      __atomic_store_n(&nxfers_in, nxfers_in - 1, __ATOMIC_RELAXED);
      if (!nxfers_in) fy_async_lend_update();
    }
  }
  if (x->paced) __atomic_store_n(&npaced, npaced - 1, __ATOMIC_RELAXED);
  fy_ofi_mr_put(x->mr);
  x->mr = NULL;
  fy_pt2pt_complete(x->r);
  x->r = NULL;
}

static void xfer_done(xfer_t *x) {
  if (x->r) xfer_release(x);
  free(x);
}

static xfer_t *xfer_new(fy_request_t *r, int peer, int sender, void *buf, size_t n) {
  xfer_t *x = calloc(1, sizeof *x);
  if (!x) fy_abort(MPI_ERR_NO_MEM, "out of memory for a fabric rendezvous");
  __atomic_store_n(&nlive, nlive + 1, __ATOMIC_RELAXED);
  x->unattended = !fy_req_attended(r);
  if (x->unattended) {
    __atomic_store_n(&nxfers, nxfers + 1, __ATOMIC_RELAXED);
    if (!sender) {
      __atomic_store_n(&nxfers_in, nxfers_in + 1, __ATOMIC_RELAXED);
      if (nxfers_in == 1) fy_async_lend_update();
    }
    if (nxfers == 1) fy_intr_on_watch(); /* a parked fabric agent wakes */
  }
  x->r = r;
  x->peer = peer;
  x->sender = sender;
  x->buf = buf;
  x->n = n;
  return x;
}

/* Bytes of an n-byte message to world rank peer to send ahead: none
 * while earlier data ahead to that peer is unanswered, else all of it,
 * or FERRY_OFI_AHEAD's worth of a larger one (if that is at least an
 * eager message's worth). One message ahead at a time: in a stream, the
 * receiving provider would stop at each tagged header until Ferry posts
 * that message's receive, where RGETs of the later ones run side by
 * side (streaming 1.07-1.27x at 96-128 KiB, latency unchanged). */
static size_t ahead_len(int peer, size_t n) {
  if (!ahead_max || ahead_out[peer]) return 0;
  if (n <= ahead_max) return n;
  return ahead_max >= fy_net_eager_max ? ahead_max : 0;
}

/* Sender: all of x's data goes ahead and its send is not synchronous, so
 * the send completes once that data has left (on_tsent) and only the
 * peer's flag waits for the answer, which may then be lazy. */
static int done_on_tsend(const xfer_t *x) { return x->ahead == x->n && x->r->mode != FY_MODE_SYNC; }

void fy_net_rndv_send(fy_request_t *r, const void *data) {
  xfer_t *x = xfer_new(r, fy_net_world(r->peer_local), 1, (void *)data, r->bytes);
  size_t k = ahead_len(x->peer, x->n);
  uint32_t seq = k ? ++ahead_seq : 0;
  if (x->n > k) x->mr = fy_ofi_mr_get(data, x->n); /* either side's RMA needs it */
  uint64_t key = x->mr ? fy_ofi_mr_key(x->mr) : 0;
  x->ahead = k;
  fy_pkt_t h = {.type = FY_PKT_RTS, .flags = k && done_on_tsend(x) ? FY_PKF_FIN_LAZY : 0, .src = r->comm->rank, .tag = r->tag,
                .ctx = r->ctx, .len = r->bytes,
                .sreq = (uint64_t)(uintptr_t)x, .addr = x->mr ? fy_ofi_mr_raddr(x->mr, data) : 0,
                .slot = (uint32_t)key, .gen = (uint32_t)(key >> 32), .rreq = (uint64_t)k << 32 | seq};
  fy_pt2pt_stats.rndv_sent++;
  r->pstate = FY_PS_RNDV_SENT;
  send_pkt(x->peer, &h, NULL, 0);
  if (k) { /* (right behind the RTS: fy_ofi keeps the order) */
    x->tsend_busy = 1;
    ahead_out[x->peer] = x;
    fy_net_stats.ahead++;
    if (fy_ofi_tsend(x->peer, data, k, (uint64_t)fy_state.world_rank << 32 | seq, x) != 0)
      fy_abort(MPI_ERR_INTERN, "the fabric refused the tagged send of a rendezvous message's data");
  }
}

/* Sender: the data ahead has left, or the receiver's answer came (on_fin_s);
 * the transfer ends with the second. */
static void on_tsent(void *ctx) {
  xfer_t *x = ctx;
  x->tsend_busy = 0;
  if (x->fin_seen) {
    xfer_done(x);
  } else if (done_on_tsend(x)) {
    /* All of it has left, so the buffer is free: the send completes, as
     * an eager one does (MPICH's ofi device completes there too), and
     * only the peer's flag waits for the answer. Not a synchronous send, which
     * must see its receive matched. Across two test hosts, both ranks
     * computing 300 us at 1 MiB, the send side otherwise waited a round
     * trip more for the NFIN_S. */
    xfer_release(x);
  }
}

static void on_fin_s(xfer_t *x) {
  if (x->ahead) ahead_out[x->peer] = NULL; /* (the receiver is done with its bounce buffer) */
  if (x->tsend_busy) x->fin_seen = 1;
  else xfer_done(x);
}

/* Receiver: one part of x (the data ahead, the read of the rest) is done;
 * after the last, release the sender: lazily where it allows (not from
 * the fabric agent, whose thread may park before another pass). */
static void part_done(xfer_t *x) {
  if (--x->parts) return;
  if (x->fin_lazy && !fy_progress_agent) fin_owe(x->peer, x->peer_xfer);
  else send_fin_s(x->peer, x->peer_xfer);
  xfer_done(x);
}

/* The data ahead is in, and a receive took it: out of the bounce buffer if
 * it landed in one. */
static void ahead_land(ahead_t *a) {
  xfer_t *x = a->x;
  if (a->bounce) {
    size_t m = x->n < a->k ? x->n : a->k;
    if (m) memcpy(x->buf, a->bounce, m);
    free(a->bounce);
  }
  free(a);
  part_done(x);
}

static void on_trecv(void *ctx) {
  ahead_t *a = ctx;
  a->done = 1;
  if (a->x) ahead_land(a);
  /* else unexpected: the receive that takes it copies it */
}

/* An RTS with data ahead arrived from world rank src: match it, and post
 * the receive of that data at once, wherever it must land. */
static void ahead_arrive(int src, const fy_pkt_t *h) {
  ahead_t *a = calloc(1, sizeof *a);
  if (!a) fy_abort(MPI_ERR_NO_MEM, "out of memory for a fabric rendezvous");
  a->k = (size_t)(h->rreq >> 32);
  a->tag = (uint64_t)src << 32 | (uint32_t)h->rreq;
  a->lazy = (h->flags & FY_PKF_FIN_LAZY) != 0;
  fy_pkt_t c = *h;
  c.rreq = (uint64_t)(uintptr_t)a; /* (what fy_net_rndv_match and the unexpected entry see) */
  fy_pt2pt_on_packet(fy_net_peer(src), &c, sizeof c);
  if (a->posted) return; /* a receive matched */
  a->bounce = malloc(a->k);
  if (!a->bounce) fy_abort(MPI_ERR_NO_MEM, "out of memory for an unexpected message's data");
  a->posted = 1;
  fy_net_stats.ahead_unexp++;
  fy_ofi_trecv(a->bounce, a->k, a->tag, a);
}

/* A receive matched an RTS with data ahead: the data ahead lands in its
 * buffer (or is copied there from the bounce buffer), the rest is read. */
static void rndv_ahead(xfer_t *x, ahead_t *a, const fy_pkt_t *h) {
  size_t n = x->n, k = a->k;
  a->x = x;
  x->parts = 1 + (n > k);
  x->fin_lazy = a->lazy;
  pace(x, n);
  if (n > k) {
    fy_net_stats.rget++;
    x->mr = fy_net_mr_local(x->buf + k, n - k);
    uint64_t key = (uint64_t)h->slot | ((uint64_t)h->gen << 32);
    fy_ofi_rma(0, x->peer, x->buf + k, n - k, x->mr, h->addr + k, key, x);
  }
  if (!a->posted) { /* matched as it arrived */
    a->posted = 1;
    if (n < k) { /* truncated: the whole of it must be taken */
      a->bounce = malloc(k);
      if (!a->bounce) fy_abort(MPI_ERR_NO_MEM, "out of memory for a truncated message's data");
    }
    fy_ofi_trecv(a->bounce ? a->bounce : x->buf, k, a->tag, a);
  } else if (a->done) {
    ahead_land(a);
  }
}

void fy_net_rndv_match(fy_request_t *r, int src, const fy_pkt_t *h) {
  size_t len = (size_t)h->len, n = len < r->bytes ? len : r->bytes;
  fy_recv_set_status(r, h->src, h->tag, n, len);
  r->pstate = FY_PS_RNDV_MATCHED;
  char *buf;
  if (r->type->is_contig || !n) {
    buf = (char *)r->rbuf + r->type->true_lb;
  } else {
    r->tmp = malloc(n); /* unpacked and freed by the completion */
    if (!r->tmp) fy_abort(MPI_ERR_NO_MEM, "out of memory for a bounce buffer");
    buf = r->tmp;
  }
  xfer_t *x = xfer_new(r, fy_net_world(src), 0, buf, n);
  x->peer_xfer = h->sreq;
  if (h->rreq) { /* (an ahead_t: ahead_arrive) */
    rndv_ahead(x, (ahead_t *)(uintptr_t)h->rreq, h);
    return;
  }
  int mode = rndv_mode;
  if (mode == RNDV_AUTO) mode = n < rget_min && !x->unattended ? RNDV_WRITE : RNDV_READ;
  if (!n) { /* nothing to move (an empty receive buffer): just release the sender */
    send_fin_s(x->peer, h->sreq);
    xfer_done(x);
  } else if (mode == RNDV_READ) {
    fy_net_stats.rget++;
    pace(x, n);
    x->mr = fy_net_mr_local(buf, n); /* a read's target is ours: registered only under FI_MR_LOCAL */
    uint64_t key = (uint64_t)h->slot | ((uint64_t)h->gen << 32);
    fy_ofi_rma(0, x->peer, buf, n, x->mr, h->addr, key, x);
  } else {
    fy_net_stats.rput++;
    pace(x, n);
    x->mr = fy_ofi_mr_get(buf, n); /* the sender writes into it */
    uint64_t key = fy_ofi_mr_key(x->mr);
    fy_pkt_t c = {.type = FY_PKT_NCTS, .sreq = h->sreq, .rreq = (uint64_t)(uintptr_t)x, .len = n,
                  .addr = fy_ofi_mr_raddr(x->mr, buf), .slot = (uint32_t)key, .gen = (uint32_t)(key >> 32)};
    send_pkt(x->peer, &c, NULL, 0);
  }
}

/* A one-sided read or write (fy_net_rma): no peer to tell. */
typedef struct net_op {
  int one_sided;           /* 1 (the first word of an xfer_t is 0) */
  fy_request_t *r;
  fy_ofi_mr_t *mr;
} net_op_t;

int fy_net_rma_world(fy_comm_t *c, int rank) {
  if (!fy_net_on) return -1;
  int l = fy_local_of(c, rank);
  return l < -1 ? fy_net_world(l) : -1;
}

void *fy_net_mr_reg(void *buf, size_t len, uint64_t *raddr, uint64_t *key) {
  if (!fy_net_on || !len) return NULL;
  fy_ofi_mr_t *mr = fy_ofi_mr_get(buf, len);
  if (!mr) return NULL;
  *raddr = fy_ofi_mr_raddr(mr, buf);
  *key = fy_ofi_mr_key(mr);
  return mr;
}

int fy_net_writes_ordered(void) { return fy_net_on && fy_ofi_writes_ordered(); }

void fy_net_mr_dereg(void *mr) {
  if (mr) fy_ofi_mr_put(mr);
}

void *fy_net_mr_local(void *buf, size_t len) {
  return fy_net_on && fy_ofi_local_mr() ? fy_ofi_mr_get(buf, len) : NULL;
}

int fy_net_rma(int write, int world, void *buf, size_t len, uint64_t raddr, uint64_t key, fy_request_t *r) {
  net_op_t *o = calloc(1, sizeof *o);
  /* (the local side registered only where the provider wants it) */
  fy_ofi_mr_t *mr = o ? fy_net_mr_local(buf, len) : NULL;
  if (!o || (!mr && fy_ofi_local_mr())) {
    free(o);
    return MPI_ERR_NO_MEM;
  }
  o->one_sided = 1;
  o->r = r;
  o->mr = mr;
  fy_ofi_rma(write ? FY_OFI_WRITE | FY_OFI_NOTIFY : FY_OFI_READ, world, buf, len, mr, raddr, key, o);
  return MPI_SUCCESS;
}

/* An RMA finished: a read on the receiver (tell the sender), a write on the
 * sender (tell the receiver); a one-sided one completes its request. */
static void on_rma(void *ctx) {
  if (((net_op_t *)ctx)->one_sided) {
    net_op_t *o = ctx;
    fy_ofi_mr_put(o->mr);
    fy_req_complete(o->r);
    free(o);
    return;
  }
  xfer_t *x = ctx;
  if (x->parts) { /* the rest of a message whose start came ahead */
    part_done(x);
    return;
  }
  fy_pkt_t f = {.type = x->sender ? FY_PKT_NFIN_R : FY_PKT_NFIN_S};
  if (x->sender) f.rreq = x->peer_xfer; else f.sreq = x->peer_xfer;
  send_pkt(x->peer, &f, NULL, 0);
  xfer_done(x);
}

static void on_msg(int src, const void *data, size_t len) {
  if (len < FY_PKT_TINY) fy_abort(MPI_ERR_INTERN, "short packet from the fabric");
  /* (the header is read in place: the transport hands it 8-byte aligned) */
  fy_pkt_t *in = (fy_pkt_t *)(uintptr_t)data;
  if (in->flags & FY_PKF_FIN_DONE) { /* the answer to our data ahead rode on this packet */
    in->flags &= (uint8_t)~FY_PKF_FIN_DONE; /* (our receive buffer: the shared path sees it) */
    xfer_t *x = ahead_out ? ahead_out[src] : NULL;
    if (!x) fy_abort(MPI_ERR_INTERN, "a peer on the fabric answered data ahead that was not sent to it");
    on_fin_s(x);
  }
  switch (in->type) {
    case FY_PKT_NCTS:
    case FY_PKT_NFIN_S:
    case FY_PKT_NFIN_R:
    case FY_PKT_RTS:
      break;
    default: /* a message: the shared arrival path (the same layout as a
              * ring cell) reads its header itself */
      fy_pt2pt_on_packet(fy_net_peer(src), data, len);
      return;
  }
  /* The fabric's own packets and rendezvous starts: read from a whole
   * copy, zeroed beyond a short one's end. */
  fy_pkt_t h = {0};
  memcpy(&h, data, len < sizeof h ? len : sizeof h);
  switch (h.type) {
    case FY_PKT_NCTS: { /* sender: write into the receiver's buffer */
      xfer_t *x = (xfer_t *)(uintptr_t)h.sreq;
      size_t n = (size_t)h.len < x->n ? (size_t)h.len : x->n;
      x->peer_xfer = h.rreq;
      uint64_t key = (uint64_t)h.slot | ((uint64_t)h.gen << 32);
      pace(x, n);
      if (n) fy_ofi_rma(1, x->peer, x->buf, n, x->mr, h.addr, key, x);
      else on_rma(x);
      break;
    }
    case FY_PKT_NFIN_S: on_fin_s((xfer_t *)(uintptr_t)h.sreq); break;
    case FY_PKT_NFIN_R: xfer_done((xfer_t *)(uintptr_t)h.rreq); break;
    case FY_PKT_RTS:
      if (h.rreq) ahead_arrive(src, &h);
      else fy_pt2pt_on_packet(fy_net_peer(src), data, len); /* (no data ahead: the shared path) */
      break;
  }
}

/* Sends the provider refused for now (-FI_EAGAIN) go out only through our
 * polls, and the peer's answer waits for them: while any are queued the
 * pass counts as work, so a blocking wait keeps polling instead of yielding
 * its core (on a loaded machine one yield can cost a time slice). But not
 * for ever: a peer that computes does not read its socket, ours stays full
 * and the provider refuses until the peer's next MPI call (a sender whose
 * receiver computed 20 ms retried 20 000 times, never sleeping). After
 * QUEUED_SPIN passes in a row with no event the queue no longer counts,
 * so the wait yields and then sleeps on the provider's sockets, which wake
 * it when ours drains (fy_pt2pt_sleep). */
enum { QUEUED_SPIN = 1000 };

/* A blocking wait that sleeps on the fabric's fd alone can miss its
 * message: between its fi_trywait and its poll an agent turn may take the
 * rest of it off the socket, leaving nothing to wake the poll before its
 * timeout (FERRY_SLEEP_US). The agent then writes this eventfd, which the
 * wait polls too (a wait of a rank with shared-memory peers sleeps on the
 * doorbell, which the agent rings instead: the relay). */
static int wake_fd = -1;
/* Nonblocking receives from fabric peers above this many bytes are
 * watched by the fabric agent (fy_pt2pt_net_watch): the eager limit, or
 * less when the agent takes eager messages in. */
static size_t watch_above;

static uint64_t net_events; /* events our polls handled (fy_pt2pt_sleep's futile count) */
/* passes in a row with sends queued and no event (written under the
 * progress lock, read unlocked by fy_pt2pt_net_queued_only) */
static int queued_idle;
int fy_net_progress(void) {
  int n = fy_ofi_poll();
  if (n == 0 && nowed) fin_flush(); /* (nothing went to those peers meanwhile) */
  if (n > 0) __atomic_store_n(&net_events, net_events + (uint64_t)n, __ATOMIC_RELAXED); /* (read unlocked) */
  if (n > 0 || !fy_ofi_queued()) {
    __atomic_store_n(&queued_idle, 0, __ATOMIC_RELAXED);
    return n;
  }
  int q = __atomic_load_n(&queued_idle, __ATOMIC_RELAXED) + 1;
  __atomic_store_n(&queued_idle, q, __ATOMIC_RELAXED);
  return q <= QUEUED_SPIN;
}

/* Such a pass keeps a blocking wait polling, but its CPU only waits for
 * the peer to read: a computing rank's agent may borrow it (fy_lend.h),
 * and the peer that does not read is often that rank. Counted as work
 * for lending too, a late sender of 4 MiB lent its CPU only after up to
 * QUEUED_SPIN passes, while the receiver's agent waited for one
 * (agent_thread.c: await_lend). */
int fy_pt2pt_net_queued_only(void) {
  int q = __atomic_load_n(&queued_idle, __ATOMIC_RELAXED);
  return fy_net_on && q > 0 && q <= QUEUED_SPIN;
}

/* FERRY_OFI_RGET_MIN: a size, or auto. Over the TCP providers RMA is
 * software: an RGET receiver sends its NFIN_S (a system call, which on
 * loopback also runs the peer's TCP receive path) after the last byte and
 * before its next message, while an RPUT receiver completes on the NFIN_R
 * the sender queued right behind the data. Measured here (net, loopback,
 * paired rounds): RPUT 13-16 % faster at 32-128 KiB, equal at 256 KiB,
 * RGET faster at 4 MiB. Providers with hardware RMA keep RGET throughout.
 * So do udp;ofi_rxd and shm, though their data moves through the CPU as
 * well (fy_ofi_mr_cache_auto counts them as copying): across 2 test hosts
 * RPUT took 1.42x RGET's time at 192 KiB over udp;ofi_rxd and 1.02-1.04x
 * over shm (CMA: the reader copies alone), and net;ofi_rxm read 0.99-1.00
 * either way (2026-12-04, 5 paired rounds). */
static size_t rget_min_for(const char *v, const char *prov) {
  long x = fy_config_size_or_auto("FERRY_OFI_RGET_MIN", v);
  if (x >= 0) return (size_t)x;
  int soft = !strncmp(prov, "tcp", 3) || !strcmp(prov, "net") || strstr(prov, "sockets") != NULL;
  return soft ? (size_t)256 << 10 : 0;
}

/* FERRY_OFI_AHEAD: a size, or auto: 4 MiB over the TCP providers' own
 * RDM endpoints (net, tcp), where RMA is software and the data ahead
 * streams like any message; 0 on the others (a NIC reads the sender's
 * buffer with no CPU on either side; ofi_rxm moves a large tagged message
 * by its own rendezvous anyway). Only with FERRY_OFI_RNDV=auto: read and
 * write keep their one protocol. */
static long ahead_conf(const char *prov) {
  long x = fy_config_size_or_auto("FERRY_OFI_AHEAD", fy_config.ofi_ahead);
  if (rndv_mode != RNDV_AUTO) return 0;
  if (x >= 0) return x > (1L << 30) ? 1L << 30 : x;
  return !strcmp(prov, "net") || !strcmp(prov, "tcp") ? 4L << 20 : 0;
}
static int wants_tagged(const char *prov) { return ahead_conf(prov) > 0; }
/* FERRY_OFI_EAGER as given (-1: auto), and the eager limit over provider
 * prov: auto takes fy_net_eager_max (64 KiB, or what the allocator holds)
 * but no more than prov moves whole, so that a larger message goes by our
 * rendezvous rather than ofi_rxm's segmentation (over tcp;ofi_rxm, 16-64
 * KiB: 0.72x the latency, 1.3x the bandwidth) */
static long eager_given;
static size_t eager_for(const char *prov) {
  size_t whole = fy_ofi_whole_max(prov), e = fy_net_eager_max;
  if (eager_given < 0 && whole != SIZE_MAX && whole < e + FY_PKT_SHORT)
    e = whole > 64 + FY_PKT_SHORT ? whole - FY_PKT_SHORT : 64;
  return e;
}
/* what a peer's protocol must share with ours (fy_ofi_boot_t's agree): its
 * eager limit sizes our receive buffers, its data ahead needs our tagged
 * receives */
static void agree(const char *prov, char *buf, size_t len) {
  snprintf(buf, len, "FERRY_OFI_EAGER=%zu FERRY_OFI_AHEAD=%ld", eager_for(prov), ahead_conf(prov));
}

static int pmi_get(int rank, const char *key, char *val, size_t len) { return fy_pmi_get(rank, key, val, len); }

/* The running kernel's boot id: hosts that are containers or network
 * namespaces of one machine have host names of their own but share it, and
 * with it the CPUs (agent_thread.c counts ranks per machine). "" if it
 * cannot be read. */
static const char *machine_id(void) {
  static char id[64];
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (!f) return "";
  if (!fgets(id, sizeof id, f)) id[0] = 0;
  fclose(f);
  id[strcspn(id, "\n ,")] = 0;
  return id;
}

int fy_pt2pt_net_machine_ranks(void) { return fy_net_on ? fy_ofi_machine_ranks() : 0; }

/* FERRY_OFI_MR_CACHE: entries, or -1 for the provider's default */
static int mr_cache(void) {
  long n = fy_config_size_or_auto("FERRY_OFI_MR_CACHE", fy_config.ofi_mr_cache);
  return n < 0 ? -1 : n > 4096 ? 4096 : (int)n;
}

/* FERRY_OFI_EMULATE (tests): "mr_local,max_msg=SIZE,eagain=N,key64" into b. */
static void emulate(fy_ofi_boot_t *b, const char *spec) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
    long n = 0;
    if (!strcmp(t, "mr_local")) {
      b->emu_local_mr = 1;
    } else if (!strcmp(t, "key64")) {
      b->emu_key64 = 1;
    } else if (!strncmp(t, "max_msg=", 8) && fy_config_parse_size(t + 8, &n) == 0 && n > 0) {
      b->emu_max_msg = (size_t)n;
    } else if (!strncmp(t, "eagain=", 7) && fy_config_parse_size(t + 7, &n) == 0 && n > 1) {
      b->emu_eagain = (unsigned)n;
    } else {
      fprintf(stderr, "ferry: FERRY_OFI_EMULATE: '%s' is not mr_local, max_msg=SIZE, eagain=N (N > 1) or key64; ignored\n", t);
    }
  }
}

int fy_net_init(void) {
  /* Every rank reaches the same answer (collective PMI below). */
  int need = fy_config.nolocal ? fy_state.world_size > 1 : fy_state.local_size < fy_state.world_size;
  if (!need) return MPI_SUCCESS;
  const char *r = fy_config.ofi_rndv;
  rndv_mode = !strcmp(r, "read") ? RNDV_READ : !strcmp(r, "write") ? RNDV_WRITE : RNDV_AUTO;
  if (strcmp(r, "read") && strcmp(r, "write") && strcmp(r, "auto"))
    fprintf(stderr, "ferry: FERRY_OFI_RNDV=%s is not one of read, write, auto; using auto\n", r);
  eager_given = fy_config_size_or_auto("FERRY_OFI_EAGER", fy_config.ofi_eager);
  fy_net_eager_max = eager_given < 0 ? (size_t)64 << 10 : (size_t)eager_given;
  if (fy_net_eager_max < 64) fy_net_eager_max = 64;
  /* an unexpected eager payload is kept in the signal-safe allocator */
  /* ... so make its blocks hold the largest one (64 KiB at most: the 128
   * send buffers and the receive buffers' slots are this size too) */
  if (fy_net_eager_max > (size_t)64 << 10) fy_net_eager_max = (size_t)64 << 10;
  fy_salloc_init(fy_net_eager_max + FY_PKT_SHORT);
  if (fy_net_eager_max > fy_salloc_max() - FY_PKT_SHORT) fy_net_eager_max = fy_salloc_max() - FY_PKT_SHORT;
  watch_above = fy_net_eager_max;
  fy_ofi_boot_t b = {.rank = fy_state.world_rank, .size = fy_state.world_size,
                     .provider = fy_config.ofi_provider, .msg_max = sizeof(fy_pkt_t) + fy_net_eager_max,
                     .mr_cache = mr_cache(), .multi_recv = fy_config.ofi_multi_recv,
                     .connect_timeout = fy_config.ofi_connect_timeout > 0 ? fy_config.ofi_connect_timeout : 0,
                     .put = fy_pmi_put, .barrier = fy_pmi_barrier, .gather = fy_pmi_gather,
                     .get = pmi_get, .machine = machine_id(), .loopback = fy_state.node_size == fy_state.world_size,
                     .node_of = fy_pmi_nodes(),
                     .tagged = wants_tagged, .agree = agree};
  emulate(&b, fy_config.ofi_emulate);
  fy_ofi_cb_t cb = {.on_msg = on_msg, .on_rma = on_rma, .on_sent = on_sent, .on_tsent = on_tsent,
                    .on_trecv = on_trecv};
  /* (the board of CPU lending is opened before the exchange's barrier and
   * unlinked after it) */
  fy_lend_open(fy_pmi_kvsname());
  int rc = fy_ofi_init(&b, &cb);
  fy_lend_setup(rc == 0 ? fy_ofi_machine_index() : -1, rc == 0 ? fy_ofi_machine_ranks() : 0);
  if (rc != 0)
    return fy_err(MPI_ERR_OTHER, "ranks on other hosts%s need the ofi transport: %s",
                  fy_config.nolocal ? " (FERRY_NOLOCAL=1)" : "", fy_ofi_error());
  /* (the receive buffers stay sized for the upper bound: msg_max above) */
  fy_net_eager_max = eager_for(fy_ofi_provider());
  watch_above = fy_net_eager_max;
  rget_min = rget_min_for(fy_config.ofi_rget_min, fy_ofi_provider());
  /* (the tagged send goes out of the user's buffer: not where the provider
   * wants local buffers registered) */
  ahead_max = fy_ofi_local_mr() ? 0 : (size_t)ahead_conf(fy_ofi_provider());
  if (ahead_max > fy_ofi_tagged_max()) ahead_max = fy_ofi_tagged_max(); /* (0 without tagged messages) */
  if (ahead_max) {
    ahead_out = calloc((size_t)fy_state.world_size, sizeof *ahead_out);
    fin_owed = calloc((size_t)fy_state.world_size, sizeof *fin_owed);
    owed_list = calloc((size_t)fy_state.world_size, sizeof *owed_list);
    if (!ahead_out || !fin_owed || !owed_list)
      return fy_err(MPI_ERR_NO_MEM, "out of memory for the fabric's data-ahead tables");
  }
  pace_min = fy_config.ofi_pace_us > 0 ? (size_t)fy_config.ofi_pace_min : 0;
  /* (a provider that wants local buffers registered takes copies only) */
  fy_net_now_max = fy_ofi_local_mr() || fy_net_eager_max < NET_REF_MIN ? fy_net_eager_max : NET_REF_MIN - 1;
  fy_net_on = 1;
  return MPI_SUCCESS;
}

void fy_net_quiesce(void) {
  if (!fy_net_on) return;
  /* Everything sent must have left before the endpoint closes: a peer may
   * still be reading our last packets. */
  if (nowed) fin_flush();
  fy_ofi_flush();
  fy_pt2pt_drain(fy_ofi_busy, fy_ofi_poll);
  fy_pmi_barrier(); /* nobody closes while another still needs its endpoint */
}

void fy_net_finalize(void) {
  if (!fy_net_on) return;
  fy_net_quiesce();
  const fy_net_stats_t *ns = &fy_net_stats;
  if (fy_config.stats)
    fprintf(stderr,
            "ferry-stats rank=%d ofi: provider=%s domain=%s eager=%llu eager_ref=%llu rget=%llu rput=%llu ahead=%llu ahead_unexp=%llu fin_rode=%llu sent=%llu recvd=%llu "
            "queued=%llu eagain=%llu (inject %llu send %llu rma %llu) connecting=%llu rma_pieces=%llu mr_hits=%llu mr_misses=%llu early=%llu injected=%llu landed=%llu realigned=%llu "
            "wait_busy=%llu fd_sleeps=%llu fd_woken=%llu fd_timeouts=%llu naps=%llu relayed=%llu relays=%llu paced=%llu "
            "machine_ranks=%d\n",
            fy_state.world_rank, fy_ofi_provider(), fy_ofi_domain(), (unsigned long long)ns->eager, (unsigned long long)ns->eager_ref,
            (unsigned long long)ns->rget,
            (unsigned long long)ns->rput, (unsigned long long)ns->ahead, (unsigned long long)ns->ahead_unexp,
            (unsigned long long)ns->fin_rode,
            (unsigned long long)fy_ofi_stats.sent,
            (unsigned long long)fy_ofi_stats.recvd, (unsigned long long)fy_ofi_stats.queued,
            (unsigned long long)(fy_ofi_stats.eagain_inject + fy_ofi_stats.eagain_send + fy_ofi_stats.eagain_rma),
            (unsigned long long)fy_ofi_stats.eagain_inject,
            (unsigned long long)fy_ofi_stats.eagain_send, (unsigned long long)fy_ofi_stats.eagain_rma,
            (unsigned long long)fy_ofi_stats.eagain_connect,
            (unsigned long long)fy_ofi_stats.rma_pieces,
            (unsigned long long)fy_ofi_stats.mr_hits, (unsigned long long)fy_ofi_stats.mr_misses,
            (unsigned long long)fy_ofi_stats.early, (unsigned long long)fy_ofi_stats.injected, (unsigned long long)fy_ofi_stats.landed,
            (unsigned long long)fy_ofi_stats.realigned,
            (unsigned long long)ns->busy, (unsigned long long)ns->sleeps, (unsigned long long)ns->woken,
            (unsigned long long)ns->timeouts, (unsigned long long)ns->naps, (unsigned long long)ns->relayed,
            (unsigned long long)ns->relays, (unsigned long long)ns->paced,
            fy_ofi_machine_ranks());
  fy_ofi_finalize();
  /* Transfers whose answer came too late to be read (their sends have
   * completed: the data left) */
  for (int i = 0; ahead_out && i < fy_state.world_size; i++)
    if (ahead_out[i] && !ahead_out[i]->r) free(ahead_out[i]);
  free(ahead_out);
  free(fin_owed);
  free(owed_list);
  ahead_out = NULL;
  fin_owed = NULL;
  owed_list = NULL;
  nowed = 0;
  ahead_max = 0;
  fy_lend_close();
  if (wake_fd >= 0) close(wake_fd);
  wake_fd = -1;
  fy_net_on = 0;
}

/* ---- sleeping (progress.c, the interrupt agent) ---- */

int fy_pt2pt_net_active(void) { return fy_net_on; }
int fy_pt2pt_net_may_rndv(size_t bytes) { return fy_net_on && bytes > fy_net_eager_max; }

void fy_pt2pt_net_watch_above(size_t bytes) {
  if (bytes && bytes < watch_above) watch_above = bytes;
}

int fy_pt2pt_net_watch(const fy_request_t *r) {
  return fy_net_on && !r->blocking && r->bytes > watch_above && r->peer >= 0 && fy_local_of(r->comm, r->peer) < -1;
}
int fy_pt2pt_net_wait_fd(void) { return fy_net_on ? fy_ofi_wait_fd() : -1; }

void fy_pt2pt_net_wake_init(void) {
  /* (only where waits sleep on the fabric's fd: see fy_pt2pt_sleep) */
  if (fy_net_on && wake_fd < 0 && fy_state.local_size <= 1 && fy_ofi_wait_fd() >= 0)
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

void fy_pt2pt_net_wake_waiters(void) {
  uint64_t one = 1;
  if (wake_fd >= 0 && write(wake_fd, &one, sizeof one) == sizeof one)
    FY_NET_STAT_ADD(relays);
}

/* poll for us microseconds exactly: poll's whole milliseconds rounded a
 * FERRY_SLEEP_US of 1500 up to 2 ms, and the waits' wake-up cost estimate
 * (progress.c), which measures how late a full sleep returns, counted the
 * rounding as lateness. */
static int poll_us(struct pollfd *p, nfds_t n, long us) {
  if (us < 0) us = 0;
  struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
  return ppoll(p, n, &ts, NULL);
}

int fy_pt2pt_net_sleep(long us) {
  if (!fy_ptrylock()) { /* someone is progressing */
    fy_sleep_us(20);
    return -1;
  }
  int ok = fy_ofi_trywait();
  fy_punlock();
  if (!ok) return 0; /* completions are waiting: progress */
  struct pollfd p = {.fd = fy_ofi_wait_fd(), .events = POLLIN};
  return poll_us(&p, 1, us) > 0 ? 0 : -1;
}

int fy_pt2pt_sleep(uint32_t v, long us) {
  if (!fy_net_on) return fy_shm_doorbell_sleep(v, us);
  if (!fy_ptrylock()) { /* someone is progressing: let it */
    sched_yield();
    return -1;
  }
  long nap = us < fy_config.ofi_mixed_sleep_us ? us : fy_config.ofi_mixed_sleep_us;
  int busy = fy_ofi_busy(), ok = fy_ofi_trywait(), stalled = busy && fy_ofi_connect_stalled();
  fy_punlock();
  /* (from here unlocked, as other threads' waits: counters count atomically) */
  if (fy_state.local_size > 1 || fy_ofi_wait_fd() < 0) {
    /* Shared-memory peers ring a futex, the fabric an fd: no one call
     * sleeps on both. The fabric agent, where one runs, watches the fd and
     * rings the doorbell for us (the relay), so the wait sleeps its full
     * time; without it, nap on the doorbell and poll the fabric after
     * (also when the provider has no fd to sleep on). A rank blocked 1 s
     * in MPI_Recv for a peer on another host used 94-108 ms of CPU
     * napping, 12-17 ms relayed (bench/net/waitcpu.c -r). */
    if (stalled) { /* (see below; counted as busy, not as a nap) */
      FY_NET_STAT_ADD(busy);
      return fy_shm_doorbell_sleep(v, nap);
    }
    if (busy) { /* a transfer only moves while we poll (manual progress) */
      sched_yield();
      return -1;
    }
    if (!ok) {
      /* Completions or queued sends wait: a nap polls them soon. Counted
       * as busy, not as a nap: which of the two a wait meets depends on
       * timing, a nap on whether anyone watches the fd (the test of the
       * relay asserts none in modes with a fabric agent). */
      FY_NET_STAT_ADD(busy);
      return fy_shm_doorbell_sleep(v, nap);
    }
    if (fy_net_agent_relay_begin()) {
      int rc = fy_shm_doorbell_sleep(v, us);
      fy_net_agent_relay_end();
      return rc;
    }
    FY_NET_STAT_ADD(naps);
    return fy_shm_doorbell_sleep(v, nap);
  }
  if (!ok && stalled) {
    /* The queue waits for a connection, which the peer's progress makes:
     * polling for it took a whole core (20 million polls while a peer
     * slept 8 s after MPI_Init), and on a shared core the peer's. */
    FY_NET_STAT_ADD(busy);
    fy_sleep_us(nap);
    return -1;
  }
  if (!ok) {
    FY_NET_STAT_ADD(busy);
    return -1;
  }
  /* The wait fd can stay readable with nothing to take: fi_trywait says
   * block, poll returns at once, the next poll of the queue finds nothing
   * (seen with net of libfabric 1.17, whose completion signal is never
   * reset, before fy_ofi slept on the provider's sockets instead: a rank
   * in MPI_Barrier while its peer computed 20 ms woke about once a
   * microsecond). Where that still happens (a provider whose wait fd
   * fy_ofi keeps), after FUTILE_MAX such wake-ups in a row the wait naps
   * instead (FERRY_OFI_MIXED_SLEEP_US), so it stops taking a core; any
   * event handled ends it. While a rendezvous is alive, a wake-up with no
   * event is mostly the peer's data arriving, or its read requests that
   * our poll serves, none of which completes anything before the last
   * byte: napping then stalled the transfer, so the streak allowed is
   * longer, and still bounded. */
  enum { FUTILE_MAX = 16, FUTILE_XFER_MAX = 1024 };
  static _Thread_local uint64_t seen; /* (each waiting thread its own) */
  static _Thread_local int futile, woke;
  uint64_t ev = __atomic_load_n(&net_events, __ATOMIC_RELAXED);
  if (woke) futile = ev == seen ? futile + 1 : 0;
  else if (ev != seen) futile = 0; /* (a timeout says nothing) */
  woke = 0;
  seen = ev;
  int live = __atomic_load_n(&nlive, __ATOMIC_RELAXED);
  if (futile > (live ? FUTILE_XFER_MAX : FUTILE_MAX) && !busy) {
    FY_NET_STAT_ADD(naps);
    fy_sleep_us(nap);
    return -1;
  }
  FY_NET_STAT_ADD(sleeps);
  struct pollfd p[2] = {{.fd = fy_ofi_wait_fd(), .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
  int rc = poll_us(p, wake_fd >= 0 ? 2 : 1, us);
  if (rc > 0 && wake_fd >= 0 && (p[1].revents & POLLIN)) {
    uint64_t n;
    ssize_t got = read(wake_fd, &n, sizeof n); /* (-1: another waiter took it) */
    (void)got;
  }
  if (rc > 0) {
    FY_NET_STAT_ADD(woken);
    woke = 1;
  } else {
    FY_NET_STAT_ADD(timeouts);
  }
  return rc > 0 ? 0 : -1;
}
