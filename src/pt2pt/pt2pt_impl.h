/* Internal state shared by the point-to-point files (not a public
 * interface of the layer; see fy_pt2pt.h for that). */
#ifndef FY_PT2PT_IMPL_H
#define FY_PT2PT_IMPL_H
#include "pt2pt/fy_pt2pt.h"
#include "pt2pt/pkt.h"
#include "core/fy_init.h"
#include <stddef.h>

/* An unexpected message (eager payload or rendezvous announcement). */
typedef struct fy_unexp {
  fy_mq_item_t mqi;
  uint8_t type, flags;
  int src_local;
  size_t len;
  uint64_t sreq, addr;
  uint32_t slot, gen;
  uint64_t rreq;     /* a fabric RTS's data ahead (net.c), else 0 */
  char *data;        /* eager payload (fy_salloc) */
} fy_unexp_t;

/* Intrusive request lists (rendezvous in flight, pipes, slot waiters). */
typedef struct fy_rlist { fy_request_t *head, *tail; } fy_rlist_t;
void fy_rlist_push(fy_rlist_t *l, fy_request_t *r);
void fy_rlist_remove(fy_rlist_t *l, fy_request_t *r);

/* Send a packet to a local rank, or queue it behind earlier ones for that
 * rank. If req is given and complete_on_send, req completes once the packet
 * is in the ring. Returns 1 if queued, 0 if sent. Signal-safe (a PEF turn
 * sends CTS and ACK): the queue takes its memory from fy_salloc. */
int fy_out_send(int dst, const fy_pkt_t *hdr, const void *data, size_t dlen, unsigned flags,
                fy_request_t *req, int complete_on_send);
int fy_out_progress_queued(void);
extern int fy_out_nqueued; /* packets queued for full rings */
/* Every poll calls it: inline, so that an empty queue costs one load. */
static inline int fy_out_progress(void) { return fy_out_nqueued ? fy_out_progress_queued() : 0; }
/* Send now or not at all (nothing queued): 0 if the packet is in the ring. */
int fy_out_send_now(int dst, const fy_pkt_t *hdr, const void *data, size_t dlen);
int fy_out_init(int nlocal);
void fy_out_finalize(void);

/* Arrivals */
void fy_eager_deliver(fy_request_t *r, const fy_pkt_t *h, const void *data, int src_local);
void fy_rndv_recv_match(fy_request_t *r, int src_local, const fy_pkt_t *h);
int fy_rndv_send_start(fy_request_t *r, int dst, const void *data);
/* A send to local peer dst must queue behind an earlier one that waits for
 * a rendezvous slot (fy_rndv_held); fy_rndv_hold queues it, progress sends
 * it in order through fy_send_route (send.c) once a slot is free. */
int fy_rndv_held(int dst);
void fy_rndv_hold(fy_request_t *r, int dst);
void fy_send_route(fy_request_t *r);
void fy_rndv_on_cts(const fy_pkt_t *h);
void fy_rndv_on_fin_s(const fy_pkt_t *h);
void fy_rndv_on_fin_r(const fy_pkt_t *h);
void fy_rndv_on_joined(int src_local, const fy_pkt_t *h);
int fy_rndv_progress(void);
int fy_rndv_init(void);
void fy_unexp_consume(fy_request_t *r, fy_unexp_t *u);
/* Complete r now, or (in a PEF turn, when completing would free memory or
 * unpack) at the next progress pass. */
void fy_pt2pt_complete(fy_request_t *r);

/* Direct rendezvous into published receives (direct.c). */
extern size_t fy_rndv_area_bytes;
size_t fy_direct_area_bytes(int local_size);
extern uint64_t *fy_msgs_sent;            /* message packets sent to each local rank */
extern _Atomic uint64_t *fy_msgs_seen;    /* ... taken in from each (shm, read by senders) */
/* A message packet from src_local is fully matched: publish the count. */
static inline void fy_msg_seen(int src_local) {
  if (src_local < 0) return; /* a fabric peer: no shared counts */
  atomic_store_explicit(&fy_msgs_seen[src_local],
                        atomic_load_explicit(&fy_msgs_seen[src_local], memory_order_relaxed) + 1,
                        memory_order_release);
}
int fy_direct_init(int nlocal);
void fy_direct_finalize(void);
void fy_direct_publish(fy_request_t *r);
int fy_direct_withdraw(fy_request_t *r);
int fy_direct_try_send(fy_request_t *r, int dst, const void *data);
void fy_direct_on_fin(const fy_pkt_t *h);
/* Exchanges (FERRY_EXCHANGE_SPLIT): local rank `local` is inside an MPI
 * call (or a blocking wait); a receive of ours from `peer` is published
 * and unclaimed (our transfer to it is half of an exchange). */
int fy_direct_peer_in_call(int local);
int fy_direct_expecting(int peer);
/* ... or a transfer from `peer` matched here waits for its copy (rndv.c). */
int fy_exchange_with(int peer);
/* A message from local rank `peer` has reached us (a rendezvous matched,
 * or a direct write into a published receive): rndv.c tells from it
 * whether a send of ours to that peer is half of an exchange. */
void fy_rndv_heard_from(int peer);

/* A peer's index for the transports: its local rank (>= 0, shared memory)
 * or, for a rank reached through the fabric, fy_net_peer(world rank) < -1. */
static inline int fy_net_peer(int world) { return -2 - world; }
static inline int fy_net_world(int peer) { return -2 - peer; }
static inline int fy_local_of(fy_comm_t *c, int rank) {
  int w = fy_comm_world_rank(c, rank), l = fy_state.local_of_world[w];
  return l >= 0 ? l : fy_net_peer(w);
}

/* Point-to-point over the fabric (net.c): peers with an index < 0. */
extern int fy_net_on;              /* the ofi transport is up */
extern size_t fy_net_eager_max;
/* The largest fabric send that fy_send_eager_now copies and completes at
 * once: above it, a send that completes on sending goes out of the
 * caller's buffer (net.c, NET_REF_MIN) and needs its request. */
extern size_t fy_net_now_max;
int fy_net_init(void);
/* Polls until pending() is false, for at most 10 s (a dead peer cannot keep
 * a process from leaving); a poll that finds nothing yields the core. */
void fy_pt2pt_drain(int (*pending)(void), int (*poll)(void));
/* Sends still held (by Ferry or the provider) leave, then a PMI barrier:
 * afterwards no peer sends to this process's endpoint (collective).
 * fy_net_finalize() begins with it. */
void fy_net_quiesce(void);
void fy_net_finalize(void);
int fy_net_progress(void);
int fy_net_out_send(int dst, const fy_pkt_t *hdr, const void *data, size_t dlen, fy_request_t *req,
                    int complete_on_send);
void fy_net_rndv_send(fy_request_t *r, const void *data);
void fy_net_rndv_match(fy_request_t *r, int src, const fy_pkt_t *h);
/* The shared arrival path (recv.c), for packets from either transport. */
int fy_pt2pt_on_packet(int src, const void *pkt, size_t plen);
void fy_recv_set_status(fy_request_t *r, int src, int tag, size_t bytes, size_t len);
const void *fy_send_data(fy_request_t *r);
extern size_t fy_eager_max;
extern size_t fy_eager_pipe_max; /* FERRY_EAGER_PIPE_MAX when above fy_eager_max, else 0 */
/* Receives above it are published for the direct write (direct.c);
 * eager sends above it try that write first: min(FERRY_DIRECT_MIN,
 * fy_eager_max). */
extern size_t fy_direct_min;

/* Zero-copy rendezvous of derived types (zcopy.c): each side of a
 * transfer publishes its layout (a fy_zdesc_t in the sender's rank area,
 * next to the claim slot); whichever side copies reads the other's run list
 * and moves the data by cross-memory attach with iovec lists, no packing. */
typedef struct fy_zdesc {
  uint64_t base;        /* buffer (the data itself when nsegs == 0) */
  uint64_t segs;        /* the owner's fy_seg_t array (its address space) */
  int64_t nsegs, rep, rep_stride, extent, count, size;
  int64_t flags;        /* FY_ZD_LAZY: the sender packs as it copies (it
                           copies alone, or both stream through the pipe);
                           FY_ZD_STAGE: base is the receiver's shared
                           staging buffer (memfd in bits 8-31, its
                           generation in bits 32-63) */
} fy_zdesc_t;
enum { FY_ZD_LAZY = 1, FY_ZD_STAGE = 2 };
typedef struct fy_zpair { fy_zdesc_t s, r; } fy_zpair_t;
/* Whether this side moves r's data in place (else it packs / stages). */
int fy_zc_in_place(const fy_request_t *r);
void fy_zc_describe(fy_zdesc_t *d, const fy_request_t *r, const void *data, int sender);
/* Pipe callbacks: pack r's data into / unpack it from a pipe slot. */
void fy_zc_pack_cb(void *r, size_t off, void *data, size_t len);
void fy_zc_unpack_cb(void *r, size_t off, void *data, size_t len);
/* Move packed bytes [from, n) between my side (mine) and the peer's. */
int fy_zc_copy(int peer_local, const fy_zdesc_t *mine, const fy_zdesc_t *peer, size_t from, size_t n,
               int write);
/* Sender of FY_ZD_LAZY data: pack piece by piece and write packed bytes
 * [from, n) to the receiver (its layout `peer`, or its buffer at raddr when
 * contiguous). */
int fy_zc_pack_write(fy_request_t *r, int peer_local, const fy_zdesc_t *peer, uint64_t raddr, size_t from,
                     size_t n);
/* Receiver staging a packing sender's data in SHARE mode: the shared
 * staging buffer for n bytes (NULL: busy, too large or unavailable; use
 * malloc). fy_zc_staged(r): r->tmp is that buffer (the sender packs into
 * it directly: no split). fy_zc_tmp_free() releases r->tmp either way. */
void *fy_zc_stage_get(size_t n);
int fy_zc_staged(const fy_request_t *r);
/* Receiver: unpack packed bytes [from, to) of r->tmp (staged or private),
 * pieces complete (`done` read with acquire): in shared staging the sender
 * may have placed each piece anywhere, and learns which it may reuse. */
void fy_zc_tmp_unpack(fy_request_t *r, size_t from, size_t to);
void fy_zc_tmp_free(fy_request_t *r);
#endif
