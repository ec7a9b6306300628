/* Point-to-point wire format over the node-local transport.
 *
 * Every packet starts with fy_pkt_t; EAGER carries the payload after it.
 * EAGER_P (above the eager threshold, up to FERRY_EAGER_PIPE_MAX) is an
 * eager message too, but its payload goes through the sender's pipe
 * slots (its first chunk before the packet, the rest right after; transfer
 * id in `addr`): the receiver pulls it out into the matched receive, as
 * it takes the packet in or, for an unexpected one, once a receive
 * matches it; the sender's request completes once all of the payload is
 * in the slots.
 * Rendezvous: the sender publishes a claim slot in its shm rank area and
 * sends RTS; the receiver that matches it writes its buffer into the slot
 * (MATCHED); then whichever side is in MPI first claims the copy with one
 * CAS (SCOPY: the sender writes by process_vm_writev; RCOPY: the receiver
 * reads by process_vm_readv) and sends FIN to the other. Without
 * cross-memory attach the receiver sets PIPE and both sides stream the data
 * through the sender's shared pipe slots. Slot words carry a generation so
 * a stale CAS after reuse fails.
 * Direct (direct.c): a computing receiver publishes a posted receive; the
 * sender writes into it and sends PUT_FIN instead of RTS.
 * When both sides are blocked in MPI at the match (a blocking exchange),
 * the receiver chooses PIPE even with cross-memory attach for messages up
 * to FERRY_PIPE_MAX (two concurrent copies through cache-sized chunks beat
 * one cross-memory copy), and SHARE above it: both sides claim
 * FERRY_CMA_CHUNK-sized pieces from `next` and copy them by cross-memory
 * attach at once (the receiver reads, the sender writes), each bumping
 * `done`; the receiver, once done reaches the length, sends FIN_S and the
 * sender then frees the slot. */
#ifndef FY_PT2PT_PKT_H
#define FY_PT2PT_PKT_H
#include <stdint.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

enum { FY_PKT_EAGER = 1, FY_PKT_RTS, FY_PKT_CTS, FY_PKT_FIN_S, FY_PKT_FIN_R, FY_PKT_ACK,
       FY_PKT_PUT_FIN, /* the sender wrote into a published receive (direct.c) */
       FY_PKT_EAGER_P, /* an eager message whose payload waits in the sender's pipe
                         slots, transfer `addr` (FERRY_EAGER_PIPE_MAX) */
       FY_PKT_JOINED /* the joiner of a joinable copy put its last piece in (rndv.c):
                        slot, gen; FY_PKF_TO_SENDER when the slot is the receiver's
                        peer's, i.e. the copy's taker is the sender */ };
/* Packets that carry a message (the counts direct.c compares). */
static inline int fy_pkt_is_msg(int type) {
  return type == FY_PKT_EAGER || type == FY_PKT_RTS || type == FY_PKT_PUT_FIN || type == FY_PKT_EAGER_P;
}
/* FY_PKF_SOLO (RTS): the sender has other work before it waits (a rooted
 * collective's own block): the receiver copies by itself, no pipe or shared
 * copy that would need the sender. */
enum { FY_PKF_SYNC = 1, FY_PKF_TO_SENDER = 2, FY_PKF_SOLO = 4,
       /* Over the fabric only (net.c): FIN_LAZY (RTS): the message's data
        * all went ahead and its send is complete, so the receiver may say it
        * is done with it on a later packet instead of its own NFIN_S;
        * FIN_DONE (any packet): that message is done (net.c knows which: one
        * message ahead per peer at a time). */
       FY_PKF_FIN_LAZY = 8, FY_PKF_FIN_DONE = 16 };

typedef struct fy_pkt {
  uint8_t type, flags;
  uint16_t pad_;
  int32_t src;       /* sender's rank in the communicator */
  int32_t tag;
  uint32_t ctx;
  uint64_t len;      /* message bytes */
  uint64_t sreq;     /* sender's request (echoed by ACK and FIN_S) */
  /* Rendezvous and completion packets only: EAGER and ACK travel with the
   * first FY_PKT_SHORT bytes (an EAGER without FY_PKF_SYNC with the first
   * FY_PKT_TINY, before `len`), so that a small message and the ring
   * cell's own header share one cache line. */
  uint64_t rreq;     /* receiver's request (FIN_R) */
  uint64_t addr;     /* RTS: sender's data address */
  uint32_t slot, gen;
} fy_pkt_t;

#define FY_PKT_SHORT offsetof(fy_pkt_t, rreq)
/* An EAGER packet that nothing answers (no FY_PKF_SYNC) carries only the
 * first FY_PKT_TINY bytes: no `sreq` (nobody echoes it) and no `len` (the
 * packet's own length gives it: fy_pkt_read). With the ring cell's 16-byte
 * header a message of up to 32 bytes is then one cache line, one transfer
 * between the cores (16 bytes with the short header). */
#define FY_PKT_TINY offsetof(fy_pkt_t, len)
static inline size_t fy_pkt_hlen(const fy_pkt_t *h) {
  if (h->type == FY_PKT_EAGER) return (h->flags & FY_PKF_SYNC) ? FY_PKT_SHORT : FY_PKT_TINY;
  return h->type == FY_PKT_ACK ? FY_PKT_SHORT : sizeof *h;
}
/* The header of a packet of plen bytes as it arrived, whole (a tiny one
 * copied into *tmp with `len` filled in), and where its payload starts. */
static inline const fy_pkt_t *fy_pkt_read(const void *pkt, size_t plen, fy_pkt_t *tmp,
                                          const void **payload) {
  const fy_pkt_t *h = pkt;
  size_t hl = fy_pkt_hlen(h);
  *payload = (const char *)pkt + hl;
  if (hl != FY_PKT_TINY) return h;
  memcpy(tmp, pkt, FY_PKT_TINY);
  tmp->len = plen - FY_PKT_TINY;
  tmp->sreq = 0;
  return tmp;
}

enum { FY_SLOT_FREE = 0, FY_SLOT_POSTED, FY_SLOT_MATCHED,
       FY_SLOT_SCOPY, FY_SLOT_RCOPY, /* one side took the copy; the other may join it (rndv.c) */
       FY_SLOT_PIPE,
       FY_SLOT_SHARE,    /* both sides copy, claiming chunks from `next` */
       FY_SLOT_UPGRADING /* receiver: setting up PIPE or SHARE (nobody else claims) */ };

typedef struct fy_rndv_slot {
  _Atomic uint64_t state;   /* gen << 8 | FY_SLOT_* */
  uint64_t raddr, rcap, rreq;
  int32_t rlocal, pad0_;
  uint64_t pbuf;            /* SHARE split (a packing sender): its packed-buffer address */
  /* The claim counters on a line of their own: the side waiting for a
   * transfer polls `state`, and a copier updating counters on that line
   * would pull it back for every piece. */
  _Atomic uint64_t next __attribute__((aligned(64)));
                            /* SHARE: first byte nobody has claimed (a joinable
                               SCOPY/RCOPY: the same, tagged with the generation) */
  _Atomic uint64_t done;    /* SHARE, SCOPY/RCOPY: bytes copied (by either side) */
} fy_rndv_slot_t;

#define FY_SLOT_WORD(gen, st) (((uint64_t)(gen) << 8) | (uint64_t)(st))
#endif
