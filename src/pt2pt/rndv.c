/* Rendezvous protocol: claim slots in the sender's shm rank area, copy by
 * whichever side is in MPI (cross-memory attach), or stream through the
 * shm pipe when cross-memory attach is unavailable. See pkt.h. */
#include "pt2pt/pt2pt_impl.h"
#include "progress/fy_progress.h"
#include "runtime/fy_config.h"
#include "datatype/fy_copy.h"
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#define NSLOTS 256
/* the claim slots, then one layout pair per slot (zcopy.c) */
size_t fy_rndv_area_bytes = NSLOTS * (sizeof(fy_rndv_slot_t) + sizeof(fy_zpair_t));

static uint32_t free_slots[NSLOTS];
static int nfree_slots;
static uint32_t slot_gen[NSLOTS];
static fy_request_t *slot_req[NSLOTS];
static char *split_buf[NSLOTS]; /* SHARE split: the packed back pieces, read by the receiver */
static fy_rlist_t wait_slot, recv_matched, pipe_send, pipe_recv, deferred, cts_later, share_send, share_recv;
/* Joinable single copies (see claim_copy): the side that took one and has
 * copied its pieces, waiting for the other side's last piece. */
static fy_rlist_t join_send, join_recv;
/* Our rendezvous sends whose copy the receiver may take in pieces we can
 * join (their slots; jpos = index + 1). */
static uint32_t jslots[NSLOTS], jpos[NSLOTS];
static int njslots;
/* ... and, per slot, whether it is half of an exchange: a message from
 * the same peer was on its way when we announced ours (jex), or has come
 * since (heard[peer] moved past jheard). Joining the peer's copy of ours
 * while it copies its own to us (or has just had ours copied) loses to
 * each side copying its own. */
static uint8_t jex[NSLOTS];
static uint32_t jheard[NSLOTS];
static uint32_t *heard; /* per local peer: messages from it that reached us */
static int joinable(int sender_local, uint32_t slot, size_t n);
static int sender_lazy(int sender_local, uint32_t slot);
static size_t join_chunk(size_t n);
static int use_cma;
static size_t pipe_contig_max; /* FERRY_PIPE_MAX_CONTIG resolved (fy_rndv_init) */
static int npipes; /* transfers on the lists that move only while both sides poll: pipe, share,
                      joined copies, CTS left for later (read without the lock: fy_rndv_busy) */

static void pipe_push(fy_rlist_t *l, fy_request_t *r) {
  fy_rlist_push(l, r);
  __atomic_store_n(&npipes, npipes + 1, __ATOMIC_RELAXED);
}
static void pipe_remove(fy_rlist_t *l, fy_request_t *r) {
  fy_rlist_remove(l, r);
  __atomic_store_n(&npipes, npipes - 1, __ATOMIC_RELAXED);
}
static int my_local;
/* Rendezvous sends of ours in flight, per local peer (an announcement
 * posted, not yet finished): a receive from a peer we are also sending to
 * is an exchange (see both_mode). */
static int *out_to;
static int nout_to;

/* Sends on wait_slot, per local peer. A send to a peer that has one there
 * queues behind it, whatever its size (fy_rndv_held): an eager message must
 * not overtake a rendezvous announcement that waits for a slot (MPI's
 * non-overtaking rule; 256 rendezvous sends in flight are enough). */
static int *held_to;

/* Transfers to us matched and not yet copied, per local peer (on
 * recv_matched): with one of ours to the same peer, an exchange. */
static int *in_from;

static void matched_push(fy_request_t *r) {
  fy_rlist_push(&recv_matched, r);
  if (r->peer_local >= 0 && r->peer_local < nout_to) in_from[r->peer_local]++;
}
static void matched_remove(fy_request_t *r) {
  fy_rlist_remove(&recv_matched, r);
  if (r->peer_local >= 0 && r->peer_local < nout_to) in_from[r->peer_local]--;
}

/* A message from local rank `peer` is coming to us (a published receive
 * waits for it) or has come and waits for its copy: a transfer of ours to
 * that rank now is half of an exchange. */
int fy_exchange_with(int peer) {
  if (peer < 0 || peer >= nout_to) return 0;
  return in_from[peer] > 0 || fy_direct_expecting(peer);
}

/* Per local sender, for the receiver's pipe pass (fy_rndv_progress): its
 * push count when a pass last began looking through its slots, the pass
 * that read it, whether that pass looks, and our pipe transfers from it. */
typedef struct {
  uint64_t seen;
  uint32_t pass;
  int look;
  int nrecv;
} pipe_peer_t;
static pipe_peer_t *pipe_peer;
static uint32_t pipe_pass;

void fy_rndv_heard_from(int peer) {
  if (peer >= 0 && peer < nout_to) heard[peer]++;
}

int fy_rndv_init(void) {
  for (int i = 0; i < NSLOTS; i++) free_slots[i] = (uint32_t)(NSLOTS - 1 - i);
  nfree_slots = NSLOTS;
  nout_to = fy_shm_local_size();
  out_to = calloc(nout_to > 0 ? (size_t)nout_to : 1, sizeof *out_to);
  in_from = calloc(nout_to > 0 ? (size_t)nout_to : 1, sizeof *in_from);
  heard = calloc(nout_to > 0 ? (size_t)nout_to : 1, sizeof *heard);
  held_to = calloc(nout_to > 0 ? (size_t)nout_to : 1, sizeof *held_to);
  pipe_peer = calloc(nout_to > 0 ? (size_t)nout_to : 1, sizeof *pipe_peer);
  if (!out_to || !in_from || !heard || !pipe_peer || !held_to) return -1;
  use_cma = fy_config.cma && fy_shm_cma_available();
  my_local = fy_shm_local_rank();
  long n = fy_config_size_or_auto("FERRY_PIPE_MAX_CONTIG", fy_config.pipe_contig_max);
  /* auto: the pipe's two user-space copies beat the kernel's one only
   * where glibc's memcpy is the faster of the two (see fy_copy.h) */
  pipe_contig_max = n >= 0 ? (size_t)n : fy_cpu_is_amd() ? (size_t)64 << 20 : (size_t)128 << 10;
  return 0;
}

static inline fy_rndv_slot_t *slot_at(int local, uint32_t i) {
  return (fy_rndv_slot_t *)fy_shm_rank_area(local) + i;
}

static inline fy_zpair_t *zpair_at(int local, uint32_t i) {
  return (fy_zpair_t *)((char *)fy_shm_rank_area(local) + NSLOTS * sizeof(fy_rndv_slot_t)) + i;
}

/* A derived-type transfer whose data some side moves in place. */
static int zc_transfer(int sender_local, uint32_t slot) {
  fy_zpair_t *z = zpair_at(sender_local, slot);
  return z->s.nsegs != 0 || z->r.nsegs != 0;
}

static inline uint64_t xfer_id(uint32_t slot, uint32_t gen) {
  return ((uint64_t)gen << 16) | slot;
}

static void slot_free(uint32_t i) {
  if (jpos[i]) { /* swap-remove from the joinable sends */
    uint32_t last = jslots[--njslots];
    jslots[jpos[i] - 1] = last;
    jpos[last] = jpos[i];
    jpos[i] = 0;
  }
  free(split_buf[i]); /* the receiver has read all it needed (FIN_S) */
  split_buf[i] = NULL;
  if (slot_req[i] && slot_req[i]->peer_local >= 0 && slot_req[i]->peer_local < nout_to)
    out_to[slot_req[i]->peer_local]--;
  slot_gen[i]++;
  slot_req[i] = NULL;
  atomic_store_explicit(&slot_at(my_local, i)->state, FY_SLOT_WORD(slot_gen[i], FY_SLOT_FREE),
                        memory_order_release);
  free_slots[nfree_slots++] = i;
}

static void send_rts(fy_request_t *r) {
  uint32_t i = free_slots[--nfree_slots];
  fy_rndv_slot_t *s = slot_at(my_local, i);
  slot_req[i] = r;
  if (r->peer_local >= 0 && r->peer_local < nout_to) out_to[r->peer_local]++;
  r->slot = i;
  r->gen = slot_gen[i];
  fy_zc_describe(&zpair_at(my_local, i)->s, r, fy_send_data(r), 1);
  atomic_store_explicit(&s->state, FY_SLOT_WORD(r->gen, FY_SLOT_POSTED), memory_order_release);
  fy_pkt_t h = {.type = FY_PKT_RTS, .flags = r->solo ? FY_PKF_SOLO : 0, .src = r->comm->rank,
                .tag = r->tag, .ctx = r->ctx, .len = r->bytes, .sreq = (uint64_t)(uintptr_t)r,
                .addr = (uint64_t)(uintptr_t)fy_send_data(r), .slot = i, .gen = (uint32_t)r->gen};
  r->pstate = FY_PS_RNDV_SENT;
  /* (whether the receiver's side is contiguous is known once it matched:
   * the claimer checks joinable() then, and opens the pieces only if so) */
  if (use_cma && fy_config.rndv_join && r->bytes > join_chunk(r->bytes) && !sender_lazy(my_local, i) &&
      r->peer_local >= 0 && r->peer_local < nout_to) {
    jslots[njslots++] = i;
    jpos[i] = (uint32_t)njslots;
    jex[i] = (uint8_t)fy_exchange_with(r->peer_local);
    jheard[i] = heard[r->peer_local];
  }
  fy_out_send(r->peer_local, &h, NULL, 0, FY_SHM_F_RNDV, r, 0);
  fy_pt2pt_stats.rndv_sent++;
}

static void hold(fy_request_t *r, int dst, int pstate) {
  r->pstate = pstate;
  fy_rlist_push(&wait_slot, r);
  if (dst >= 0 && dst < nout_to) held_to[dst]++;
}

/* (a send held behind others never gets here: fy_send_start holds it, and
 * progress routes it only with a slot free) */
int fy_rndv_send_start(fy_request_t *r, int dst, const void *data) {
  r->peer_local = dst;
  if (nfree_slots == 0) {
    hold(r, dst, FY_PS_RNDV_WAIT_SLOT);
    return 0;
  }
  send_rts(r);
  return 0;
}

int fy_rndv_held(int dst) { return dst >= 0 && dst < nout_to && held_to[dst] > 0; }

void fy_rndv_hold(fy_request_t *r, int dst) { hold(r, dst, FY_PS_SEND_HELD); }

/* The copy itself, by either side. Returns 0 or -1 (errno). */
static int copy_recv_side(fy_request_t *r, int src_local, const fy_rndv_slot_t *s, uint64_t saddr) {
  size_t n = (size_t)s->rcap;
  if (n == 0) return 0;
  if (zc_transfer(src_local, r->slot)) {
    fy_zpair_t *z = zpair_at(src_local, r->slot);
    return fy_zc_copy(src_local, &z->r, &z->s, 0, n, 0);
  }
  return fy_shm_cma_read(src_local, (void *)(uintptr_t)s->raddr, (const void *)(uintptr_t)saddr, n);
}

/* ---- joinable single copies ----
 * A copy that one side took alone (SCOPY: the sender writes, RCOPY: the
 * receiver reads) of plain contiguous data is claimed piece by piece from
 * the slot's `next`, so the other side, once it waits on the message (and
 * only then: never in a test, a PEF turn or an agent), claims pieces too:
 * a receiver that reaches MPI_Wait after its message was matched in
 * passing (a nonblocking collective's start, an Irecv) no longer idles
 * while the sender copies alone. The side that took the copy finishes the
 * transfer (its FIN, as before) once `done` covers the message. `next`
 * carries a tag of the slot's generation above the offset: a joiner that
 * comes late, after the slot was freed and taken again, sees another tag
 * and claims nothing. A taker whose last claim leaves a piece to the
 * joiner goes back to its own work (on join_send/join_recv); the joiner
 * whose piece completes the copy tells it with a JOINED packet, which
 * kicks a taker that computes (it may be a nonblocking collective's
 * process under the PEF, whose turns otherwise never look at these lists:
 * the other side would wait for the FIN until its next MPI call). */
#define JOIN_SHIFT 40
#define JOIN_OFF(v) ((v) & (((uint64_t)1 << JOIN_SHIFT) - 1))
static inline uint64_t join_tag(uint64_t gen) { return ((gen & 0xfffffu) + 1) << JOIN_SHIFT; }

/* The piece each side claims: a quarter of the message, at least 128 KiB
 * (measured at 256 KiB-4 MiB: 64 KiB and 32 KiB pieces gain less, 512 KiB
 * the same). Every piece is a system call of its own (about 1 us of setup
 * here), so a copy nobody joins pays up to 3 more; one that is joined
 * takes up to half as long. */
static size_t join_chunk(size_t n) {
  size_t c = (n / 4 + 4095) & ~(size_t)4095;
  return c > ((size_t)128 << 10) ? c : (size_t)128 << 10;
}

/* Whether the copy of the transfer on sender_local's slot can be joined:
 * both sides contiguous (no iovec lists, no packing sender), more than one
 * piece long. */
static int joinable(int sender_local, uint32_t slot, size_t n) {
  return fy_config.rndv_join && n > join_chunk(n) && !zc_transfer(sender_local, slot) &&
         !sender_lazy(sender_local, slot);
}

/* The side that took the copy (its claim just won): open the pieces. */
static void join_open(fy_rndv_slot_t *s, uint64_t gen) {
  atomic_store_explicit(&s->done, 0, memory_order_relaxed);
  atomic_store_explicit(&s->next, join_tag(gen), memory_order_release);
}

/* Claim pieces of the joinable copy (generation gen, n bytes) and copy
 * them until none is left: the sender writes from `local` into the
 * receiver's `remote`, the receiver reads `remote` into `local`. Returns
 * the bytes this call copied. */
static size_t claim_copy(fy_rndv_slot_t *s, uint64_t gen, int peer, int sender, char *local, char *remote,
                         size_t n) {
  uint64_t tag = join_tag(gen);
  size_t chunk = join_chunk(n), did = 0;
  uint64_t v = atomic_load_explicit(&s->next, memory_order_acquire);
  while (v - JOIN_OFF(v) == tag && JOIN_OFF(v) < n) {
    size_t off = (size_t)JOIN_OFF(v), len = n - off < chunk ? n - off : chunk;
    if (!atomic_compare_exchange_weak_explicit(&s->next, &v, v + len, memory_order_acquire,
                                               memory_order_acquire))
      continue;
    int rc = sender ? fy_shm_cma_write(peer, remote + off, local + off, len)
                    : fy_shm_cma_read(peer, local + off, remote + off, len);
    if (rc != 0) fy_abort(MPI_ERR_INTERN, "cross-memory copy failed during a rendezvous copy");
    did += len;
    v = atomic_load_explicit(&s->next, memory_order_acquire);
  }
  /* (once: nobody needs `done` before our last piece is in, and the
   * slot may be reused as soon as it covers the message) */
  if (did) atomic_fetch_add_explicit(&s->done, did, memory_order_release);
  return did;
}

/* The joiner (not the taker) of slot s's copy claimed `did` bytes: if they
 * completed it, tell the taker (see above). Read `done` before the packet
 * goes: once the taker has seen it, the slot may be taken again. */
static void joined(fy_rndv_slot_t *s, size_t did, int taker, uint32_t slot, uint64_t gen, int to_sender) {
  if (!did || atomic_load_explicit(&s->done, memory_order_acquire) < s->rcap) return;
  fy_pkt_t h = {.type = FY_PKT_JOINED, .flags = to_sender ? FY_PKF_TO_SENDER : 0, .slot = slot,
                .gen = (uint32_t)gen};
  fy_out_send(taker, &h, NULL, 0, FY_SHM_F_RNDV, NULL, 0);
}

static int join_done(fy_rndv_slot_t *s) {
  return atomic_load_explicit(&s->done, memory_order_acquire) >= s->rcap;
}

static int try_recv_copy(fy_request_t *r);

static void send_cts(int dst, const fy_pkt_t *cts) { fy_out_send(dst, cts, NULL, 0, 0, NULL, 0); }

/* How both sides move a transfer while both are blocked in MPI on it (the
 * receiver on this very request): 0 when they are not (or cannot be), else
 * FY_SLOT_PIPE (two concurrent copies through cache-sized chunks: the
 * fastest up to FERRY_PIPE_MAX; one such transfer at a time per receiver)
 * or FY_SLOT_SHARE (both copy pieces of it by cross-memory attach). Never
 * when the receiver may go back to computing first (it matched inside
 * another call's wait, a test, a PEF turn or an agent): these move only
 * while both poll. Without cross-memory attach the pipe is the only way. */
static int exchanging(const fy_request_t *r) {
  return use_cma && fy_config.rndv_exchange && r->peer_local >= 0 && r->peer_local < nout_to &&
         out_to[r->peer_local] > 0;
}

static int both_mode(fy_request_t *r) {
  if (r->solo) return 0;
  fy_zpair_t *z = zpair_at(r->peer_local, r->slot);
  int lazy = (z->s.flags & FY_ZD_LAZY) != 0;
  if (!lazy && (z->s.nsegs != 0 || fy_zc_in_place(r))) return 0; /* one iovec copy by either side */
  if (!use_cma) return FY_SLOT_PIPE;
  if (fy_pt2pt_in_signal || fy_progress_agent || !fy_req_waited(r) || r->peer_local == my_local ||
      !atomic_load_explicit(fy_shm_in_mpi_word(r->peer_local), memory_order_relaxed))
    return 0;
  /* An exchange (we are sending to this peer too, e.g. an alltoall or
   * sendrecv): both processes are busy with their own transfers, so two
   * pipes (four copies, each process serving both) or two shared copies
   * lose to each side reading its own incoming message (one copy each,
   * in parallel). */
  if (exchanging(r)) return 0;
  /* (a sender that packs as it goes writes every piece itself in SHARE,
   * while the receiver unpacks what has arrived) */
  size_t pmax = (size_t)fy_config.pipe_threshold;
  int plain = !lazy && r->type->is_contig;
  if (plain) pmax = pipe_contig_max; /* plain copies: FERRY_PIPE_MAX_CONTIG */
  if (r->xfer_len > pmax) return FY_SLOT_SHARE;
  /* The pipe busy: a plain copy that this wait sees through to the end
   * queues for it (FERRY_PIPE_QUEUE), the chunks of successive transfers
   * follow each other through the sender's slots. Not when the wait may
   * return first (Waitany, Waitsome): its transfer would then hold the
   * sender's slots until this process calls MPI again. */
  if (pipe_recv.head && !(plain && fy_config.pipe_queue && fy_req_waited(r) == FY_WAITED_ALL)) return 0;
  return FY_SLOT_PIPE;
}

#define SPLIT_BIT ((uint64_t)1 << 63)

static int sender_lazy(int sender_local, uint32_t slot) {
  return (zpair_at(sender_local, slot)->s.flags & FY_ZD_LAZY) != 0;
}

/* Receiver: the shared counters and our own state of a SHARE transfer,
 * set before the slot says SHARE (the sender reads them when it joins).
 * Split (a packing sender, a receiver that stages or is contiguous): `done`
 * is the front prefix the sender wrote, `next` (with SPLIT_BIT) the start of
 * the back region it packed for us to read; we keep the front bytes
 * unpacked in pipe.done and the start of the back region read in pipe.len. */
static void share_init(fy_request_t *r, fy_rndv_slot_t *s) {
  int split = fy_config.share_split && sender_lazy(r->peer_local, r->slot) && (r->tmp || r->type->is_contig) &&
              !fy_zc_staged(r); /* a shared staging buffer: the sender packs into it, nothing to split */
  atomic_store_explicit(&s->next, split ? SPLIT_BIT | s->rcap : 0, memory_order_relaxed);
  atomic_store_explicit(&s->done, 0, memory_order_relaxed);
  r->share_out = 0;
  r->pipe.len = split ? (size_t)s->rcap : 0;
  r->pipe.next_seq = (uint32_t)split;
  r->pipe.done = 0; /* bytes unpacked so far (a packing sender, see progress) */
}

/* Receiver: set up a PIPE or SHARE transfer (before the slot says so). */
static void set_both(fy_request_t *r, fy_rndv_slot_t *s, int mode) {
  (void)s;
  if (mode == FY_SLOT_PIPE) {
    fy_shm_pipe_init(&r->pipe, r->peer_local, xfer_id(r->slot, (uint32_t)r->gen), r->xfer_len);
    r->pstate = FY_PS_RNDV_PIPE;
    pipe_push(&pipe_recv, r);
    pipe_peer[r->peer_local].nrecv++;
    fy_pt2pt_stats.rndv_pipe++;
  } else {
    r->pstate = FY_PS_RNDV_SHARE;
    pipe_push(&share_recv, r);
    fy_pt2pt_stats.rndv_share++;
  }
}

/* Receiver: the message r matched is a rendezvous announcement h. */
void fy_rndv_recv_match(fy_request_t *r, int src_local, const fy_pkt_t *h) {
  size_t len = (size_t)h->len, cap = r->bytes, n = len < cap ? len : cap;
  r->peer_local = src_local;
  fy_rndv_heard_from(src_local);
  r->join_no = exchanging(r); /* see jex */
  r->solo = (h->flags & FY_PKF_SOLO) != 0;
  r->slot = h->slot;
  r->gen = h->gen;
  r->sreq = h->sreq;
  r->xfer_len = len;
  r->saddr = h->addr; /* for our own copy */
  if (fy_pt2pt_in_signal && (n < len || !r->type->is_contig || !use_cma)) {
    /* A PEF turn cannot allocate or format an error: finish it later. */
    r->status.MPI_SOURCE = h->src;
    r->status.MPI_TAG = h->tag;
    fy_rlist_push(&deferred, r);
    return;
  }
  fy_recv_set_status(r, h->src, h->tag, n, len);
  void *dst;
  int both = both_mode(r), lazy = sender_lazy(src_local, h->slot);
  if (r->type->is_contig) {
    dst = (char *)r->rbuf + r->type->true_lb;
  } else if (fy_zc_in_place(r)) {
    dst = r->rbuf; /* moved in place by iovecs: see zcopy.c */
  } else if (both == FY_SLOT_PIPE) {
    dst = NULL; /* unpacked straight from the pipe slots */
  } else {
    r->tmp = both == FY_SLOT_SHARE && lazy ? fy_zc_stage_get(n) : NULL;
    if (!r->tmp) r->tmp = malloc(n ? n : 1);
    if (!r->tmp) fy_abort(MPI_ERR_NO_MEM, "out of memory for a rendezvous receive");
    dst = r->tmp;
  }
  fy_rndv_slot_t *s = slot_at(src_local, h->slot);
  fy_zc_describe(&zpair_at(src_local, h->slot)->r, r, dst, 0);
  s->raddr = (uint64_t)(uintptr_t)dst;
  s->rcap = n;
  s->rreq = (uint64_t)(uintptr_t)r;
  s->rlocal = my_local;
  fy_pkt_t cts = {.type = FY_PKT_CTS, .sreq = h->sreq, .slot = h->slot, .gen = h->gen};
  if (both) {
    if (both == FY_SLOT_SHARE) share_init(r, s);
    set_both(r, s, both);
    atomic_store_explicit(&s->state, FY_SLOT_WORD(h->gen, both), memory_order_release);
    send_cts(src_local, &cts);
    return;
  }
  atomic_store_explicit(&s->state, FY_SLOT_WORD(h->gen, FY_SLOT_MATCHED), memory_order_release);
  r->pstate = FY_PS_RNDV_MATCHED;
  matched_push(r);
  /* The sender moves the data if it is waiting in MPI and we are not
   * waiting for this message; otherwise we take it now. */
  if (fy_pt2pt_in_signal || fy_progress_agent)
    send_cts(src_local, &cts); /* the trigger only: an agent never copies */
  else if (!fy_req_waited(r))
    /* Matched in passing (Irecv, a test, another wait): offer the copy to
     * the sender and go on; whichever side is next in MPI takes it. */
    send_cts(src_local, &cts);
  else if (lazy)
    send_cts(src_local, &cts); /* only the sender can pack its data */
  else if (exchanging(r) || r->solo)
    try_recv_copy(r); /* each side reads its own incoming message; or the sender is busy */
  else if (atomic_load_explicit(fy_shm_in_mpi_word(src_local), memory_order_relaxed))
    /* Both sides waiting and the pipe busy (several transfers in flight):
     * offer it to the sender too. It claims in arrival order, we claim from
     * the newest (progress), so the two cores copy different messages. */
    send_cts(src_local, &cts);
  else
    try_recv_copy(r);
}

/* Receiver: both sides blocked on a transfer that is still unclaimed:
 * switch it to PIPE or SHARE (the sender joins when it sees the CTS). */
static int try_upgrade(fy_request_t *r, fy_rndv_slot_t *s) {
  int mode = both_mode(r);
  if (!mode) return 0;
  /* Claim it first, then set the shared counters up: a sender that took
   * the copy meanwhile owns them (join_open). */
  uint64_t expect = FY_SLOT_WORD(r->gen, FY_SLOT_MATCHED);
  if (!atomic_compare_exchange_strong_explicit(&s->state, &expect, FY_SLOT_WORD(r->gen, FY_SLOT_UPGRADING),
                                               memory_order_acq_rel, memory_order_acquire))
    return 0;
  if (mode == FY_SLOT_SHARE) share_init(r, s);
  atomic_store_explicit(&s->state, FY_SLOT_WORD(r->gen, mode), memory_order_release);
  matched_remove(r);
  set_both(r, s, mode);
  fy_pkt_t cts = {.type = FY_PKT_CTS, .sreq = r->sreq, .slot = r->slot, .gen = (uint32_t)r->gen};
  send_cts(r->peer_local, &cts);
  return 1;
}

/* Receiver: all of r is in its buffer: tell the sender, complete. */
static void recv_copied(fy_request_t *r) {
  fy_pkt_t fin = {.type = FY_PKT_FIN_S, .sreq = r->sreq, .slot = r->slot, .gen = (uint32_t)r->gen};
  fy_out_send(r->peer_local, &fin, NULL, 0, 0, NULL, 0);
  fy_pt2pt_complete(r);
}

/* Receiver: whether the single copy of r (n bytes) is cut in pieces the
 * other side can join; not in an exchange, where the sender does not join
 * (see jex) and each side copying its own is faster. */
static int recv_joinable(fy_request_t *r, size_t n) {
  return !r->join_no && !exchanging(r) && joinable(r->peer_local, r->slot, n);
}

/* Receiver: try to claim and copy a matched transfer. */
static int try_recv_copy(fy_request_t *r) {
  fy_rndv_slot_t *s = slot_at(r->peer_local, r->slot);
  if (try_upgrade(r, s)) return 1;
  if (sender_lazy(r->peer_local, r->slot)) return 0; /* the sender packs and copies */
  uint64_t expect = FY_SLOT_WORD(r->gen, FY_SLOT_MATCHED);
  size_t n = (size_t)s->rcap;
  if (!atomic_compare_exchange_strong_explicit(&s->state, &expect, FY_SLOT_WORD(r->gen, FY_SLOT_RCOPY),
                                               memory_order_acq_rel, memory_order_acquire)) {
    /* The sender has it (FIN_R will tell us): join it if we wait on it,
     * unless the sender waits for our copy of a message to it (an
     * exchange: each side copying its own is faster than both copying
     * both). */
    if (expect != FY_SLOT_WORD(r->gen, FY_SLOT_SCOPY) || !fy_req_waited(r) || fy_pt2pt_in_signal ||
        fy_progress_agent || !recv_joinable(r, n))
      return 0;
    size_t did = claim_copy(s, r->gen, r->peer_local, 0, (char *)(uintptr_t)s->raddr, (char *)(uintptr_t)r->saddr, n);
    if (!did) return 0;
    joined(s, did, r->peer_local, r->slot, r->gen, 1);
    fy_pt2pt_stats.rndv_joined++;
    return 1;
  }
  fy_pt2pt_stats.rndv_cma_recv++;
  if (recv_joinable(r, n)) {
    join_open(s, r->gen);
    claim_copy(s, r->gen, r->peer_local, 0, (char *)(uintptr_t)s->raddr, (char *)(uintptr_t)r->saddr, n);
    matched_remove(r);
    if (join_done(s)) {
      recv_copied(r);
    } else { /* the sender is copying a piece: progress finishes it */
      r->pstate = FY_PS_RNDV_JOIN;
      pipe_push(&join_recv, r);
    }
    return 1;
  }
  if (copy_recv_side(r, r->peer_local, s, r->saddr) != 0) {
    int e = errno;
    fy_abort(MPI_ERR_INTERN, e == EPERM ? "process_vm_readv denied after the start-up probe succeeded"
                                        : "process_vm_readv failed during a rendezvous receive");
  }
  matched_remove(r);
  recv_copied(r);
  return 1;
}

static void send_copy(fy_request_t *r, fy_rndv_slot_t *s);

/* Progress passes a copy left to the receiver waits before we take it. */
#define LEAVE_MAX_CHECKS 2000

/* Sender, offered the copy of r by a CTS: leave it to the receiver for
 * now when this is half of an exchange (its message to us is coming or
 * waits for our copy: fy_exchange_with) and the receiver is inside
 * an MPI call, whose progress reads r (it matched r in passing). Taking it
 * would leave us both copies while the receiver waits for ours. Kept on
 * cts_later and looked at again by every progress pass: once the receiver
 * leaves MPI (or our own message has arrived) we copy it ourselves. A
 * sender that packs as it copies always copies. */
static int leave_to_receiver(fy_request_t *r) {
  if (!fy_config.exchange_split || r->peer_local < 0 || r->peer_local == my_local) return 0;
  if (sender_lazy(my_local, r->slot)) return 0;
  return fy_direct_peer_in_call(r->peer_local) && fy_exchange_with(r->peer_local);
}

static void cts_act(fy_request_t *r, int may_leave);

/* Sender: the receiver matched (CTS wakes us): copy if still unclaimed. */
void fy_rndv_on_cts(const fy_pkt_t *h) {
  fy_request_t *r = (fy_request_t *)(uintptr_t)h->sreq;
  if (h->slot >= NSLOTS || slot_req[h->slot] != r || (uint32_t)r->gen != h->gen) return;
  cts_act(r, 1);
}

static void cts_act(fy_request_t *r, int may_leave) {
  fy_rndv_slot_t *s = slot_at(my_local, r->slot);
  if (atomic_load_explicit(&s->state, memory_order_acquire) == FY_SLOT_WORD(r->gen, FY_SLOT_PIPE)) {
    if (r->pstate != FY_PS_RNDV_PIPE) {
      /* a first CTS seen in a PEF turn queued it: one list at a time */
      if (r->pstate == FY_PS_RNDV_CTS) pipe_remove(&cts_later, r);
      fy_shm_pipe_init(&r->pipe, r->peer_local, xfer_id(r->slot, (uint32_t)r->gen), r->bytes);
      r->pstate = FY_PS_RNDV_PIPE;
      pipe_push(&pipe_send, r);
    }
    return;
  }
  if (atomic_load_explicit(&s->state, memory_order_acquire) == FY_SLOT_WORD(r->gen, FY_SLOT_SHARE)) {
    if (r->pstate != FY_PS_RNDV_SHARE) {
      if (r->pstate == FY_PS_RNDV_CTS) pipe_remove(&cts_later, r);
      r->share_out = 0;
      r->pstate = FY_PS_RNDV_SHARE;
      fy_rlist_push(&share_send, r);
    }
    return;
  }
  if (fy_pt2pt_in_signal) {
    /* A busy handler never copies: the next MPI call of this process does
     * (unless the receiver claims it first). */
    if (r->pstate != FY_PS_RNDV_CTS) {
      r->pstate = FY_PS_RNDV_CTS;
      r->cts_checks = 0;
      pipe_push(&cts_later, r);
    }
    return;
  }
  if (r->pstate == FY_PS_RNDV_CTS) return; /* already queued for progress */
  if (may_leave && leave_to_receiver(r)) {
    r->pstate = FY_PS_RNDV_CTS;
    r->cts_checks = 0;
    pipe_push(&cts_later, r);
    return;
  }
  send_copy(r, s);
}

/* Sender: all of r is in the receiver's buffer: tell it, free the slot,
 * complete. */
static void sent_copied(fy_request_t *r, fy_rndv_slot_t *s) {
  fy_pkt_t fin = {.type = FY_PKT_FIN_R, .rreq = s->rreq, .len = s->rcap};
  fy_out_send(r->peer_local, &fin, NULL, 0, 0, NULL, 0);
  slot_free(r->slot);
  fy_pt2pt_complete(r); /* (a PEF turn may get here: fy_rndv_on_joined) */
}

/* Sender: claim and write a matched transfer (the receiver offered it with
 * a CTS), unless the receiver has claimed it. */
static void send_copy(fy_request_t *r, fy_rndv_slot_t *s) {
  uint64_t expect = FY_SLOT_WORD(r->gen, FY_SLOT_MATCHED);
  if (!atomic_compare_exchange_strong_explicit(&s->state, &expect, FY_SLOT_WORD(r->gen, FY_SLOT_SCOPY),
                                               memory_order_acq_rel, memory_order_acquire))
    return; /* the receiver copies (FIN_S follows); we join it if we wait (join_progress) */
  size_t n = (size_t)s->rcap;
  fy_zpair_t *z = zpair_at(my_local, r->slot);
  int rc = 0;
  if (jpos[r->slot] && !jex[r->slot] && !fy_exchange_with(r->peer_local) && joinable(my_local, r->slot, n)) {
    fy_pt2pt_stats.rndv_cma_send++;
    join_open(s, r->gen);
    claim_copy(s, r->gen, r->peer_local, 1, (char *)fy_send_data(r), (char *)(uintptr_t)s->raddr, n);
    if (join_done(s)) {
      sent_copied(r, s);
    } else { /* the receiver is copying a piece: progress finishes it */
      r->pstate = FY_PS_RNDV_JOIN;
      pipe_push(&join_send, r);
    }
    return;
  }
  if (!n)
    rc = 0;
  else if (z->s.flags & FY_ZD_LAZY) /* pack piece by piece as it copies */
    rc = fy_zc_pack_write(r, r->peer_local, &z->r, s->raddr, 0, n);
  else if (z->s.nsegs || z->r.nsegs)
    rc = fy_zc_copy(r->peer_local, &z->s, &z->r, 0, n, 1);
  else
    rc = fy_shm_cma_write(r->peer_local, (void *)(uintptr_t)s->raddr, fy_send_data(r), n);
  if (rc != 0)
    fy_abort(MPI_ERR_INTERN, "process_vm_writev failed during a rendezvous send");
  fy_pt2pt_stats.rndv_cma_send++;
  sent_copied(r, s);
}

void fy_rndv_on_fin_s(const fy_pkt_t *h) {
  fy_request_t *r = (fy_request_t *)(uintptr_t)h->sreq;
  if (h->slot >= NSLOTS || slot_req[h->slot] != r) return;
  if (r->pstate == FY_PS_RNDV_CTS) pipe_remove(&cts_later, r); /* the receiver copied */
  if (r->pstate == FY_PS_RNDV_SHARE) fy_rlist_remove(&share_send, r); /* the receiver saw it all */
  slot_free(h->slot);
  fy_pt2pt_complete(r);
}

/* A copy we took and left to its joiner (r on join_send, or join_recv for
 * a receive): if every piece is in, send our FIN and complete. Returns 1
 * if it did. Signal-safe (a PEF turn). */
static int join_finish(fy_request_t *r, int sender) {
  fy_rndv_slot_t *s = slot_at(sender ? my_local : r->peer_local, r->slot);
  if (!join_done(s)) return 0;
  pipe_remove(sender ? &join_send : &join_recv, r);
  if (sender) sent_copied(r, s);
  else recv_copied(r);
  return 1;
}

/* The joiner put the last piece of a copy we took in (see joined()):
 * finish it now, as join_progress would. */
void fy_rndv_on_joined(int src_local, const fy_pkt_t *h) {
  if (h->flags & FY_PKF_TO_SENDER) {
    fy_request_t *r = h->slot < NSLOTS ? slot_req[h->slot] : NULL;
    if (r && (uint32_t)r->gen == h->gen && r->pstate == FY_PS_RNDV_JOIN) join_finish(r, 1); /* else finished already */
    return;
  }
  for (fy_request_t *r = join_recv.head; r; r = r->lnext)
    if (r->peer_local == src_local && r->slot == h->slot && (uint32_t)r->gen == h->gen) {
      join_finish(r, 0);
      return;
    }
}

void fy_rndv_on_fin_r(const fy_pkt_t *h) {
  fy_request_t *r = (fy_request_t *)(uintptr_t)h->rreq;
  matched_remove(r);
  fy_pt2pt_complete(r);
}

/* SHARE: claim pieces and copy them until none is left (sender: write into
 * the receiver's buffer; receiver: read from the sender's). Returns 1 if
 * this call copied something. */
static int share_copy(fy_request_t *r, fy_rndv_slot_t *s, int sender) {
  if (r->share_out) return 0;
  size_t n = (size_t)s->rcap, chunk = fy_config.cma_chunk > 0 ? (size_t)fy_config.cma_chunk : n;
  if (sender && sender_lazy(my_local, r->slot)) {
    /* Only the sender can pack its data: it claims every piece, in order,
     * so `done` is a prefix the receiver unpacks while the rest arrives. */
    fy_zpair_t *z = zpair_at(my_local, r->slot);
    int did = 0;
    uint64_t v = atomic_load_explicit(&s->next, memory_order_relaxed);
    if (v & SPLIT_BIT) {
      /* Split: pack pieces alternately at the front (written to the
       * receiver here) and at the back (left in split_buf for the receiver
       * to read), until the two meet: each core copies half the bytes. */
      size_t F = 0, B = (size_t)(v & ~SPLIT_BIT);
      if (B > 0 && !split_buf[r->slot]) {
        split_buf[r->slot] = malloc(B);
        if (!split_buf[r->slot]) fy_abort(MPI_ERR_NO_MEM, "out of memory for a rendezvous send");
      }
      s->pbuf = (uint64_t)(uintptr_t)split_buf[r->slot];
      for (int back = 0; F < B; back ^= 1) {
        size_t len = B - F < chunk ? B - F : chunk;
        if (back) {
          B -= len;
          fy_type_pack_range(r->type, r->count, r->sbuf, B, len, split_buf[r->slot] + B);
          atomic_store_explicit(&s->next, SPLIT_BIT | B, memory_order_release);
        } else {
          if (fy_zc_pack_write(r, r->peer_local, &z->r, s->raddr, F, F + len) != 0)
            fy_abort(MPI_ERR_INTERN, "cross-memory copy failed during a shared rendezvous copy");
          F += len;
          atomic_store_explicit(&s->done, F, memory_order_release);
        }
      }
      r->share_out = 1;
      return 1;
    }
    for (;;) {
      size_t off = (size_t)atomic_fetch_add_explicit(&s->next, chunk, memory_order_relaxed);
      if (off >= n) break;
      size_t len = n - off < chunk ? n - off : chunk;
      if (fy_zc_pack_write(r, r->peer_local, &z->r, s->raddr, off, off + len) != 0)
        fy_abort(MPI_ERR_INTERN, "cross-memory copy failed during a shared rendezvous copy");
      atomic_fetch_add_explicit(&s->done, len, memory_order_release);
      did = 1;
    }
    r->share_out = 1;
    return did;
  }
  char *dst = (char *)(uintptr_t)s->raddr;
  const char *src = sender ? (const char *)fy_send_data(r) : (const char *)(uintptr_t)r->saddr;
  int did = 0;
  for (;;) {
    size_t off = (size_t)atomic_fetch_add_explicit(&s->next, chunk, memory_order_relaxed);
    if (off >= n) break;
    size_t len = n - off < chunk ? n - off : chunk;
    int rc = sender ? fy_shm_cma_write(r->peer_local, dst + off, src + off, len)
                    : fy_shm_cma_read(r->peer_local, dst + off, src + off, len);
    if (rc != 0) fy_abort(MPI_ERR_INTERN, "cross-memory copy failed during a shared rendezvous copy");
    atomic_fetch_add_explicit(&s->done, len, memory_order_release);
    did = 1;
  }
  r->share_out = 1;
  return did;
}

/* SHARE split, receiver: unpack the front prefix the sender wrote and read
 * (then unpack) the back pieces it packed for us, a piece at a time. Done
 * when the two regions meet (pipe.done == pipe.len). */
static int split_recv(fy_request_t *r, fy_rndv_slot_t *s) {
  size_t chunk = fy_config.cma_chunk > 0 ? (size_t)fy_config.cma_chunk : (size_t)128 << 10;
  char *dst = r->tmp ? (char *)r->tmp : (char *)(uintptr_t)s->raddr;
  int did = 0;
  for (int more = 1; more && r->pipe.done < r->pipe.len;) {
    more = 0;
    size_t F = (size_t)atomic_load_explicit(&s->done, memory_order_acquire);
    if (F > r->pipe.len) F = r->pipe.len;
    if (F > r->pipe.done) {
      if (r->tmp)
        fy_type_unpack_range(r->type, r->count, r->rbuf, r->pipe.done, F - r->pipe.done, dst + r->pipe.done);
      r->pipe.done = F;
      more = did = 1;
    }
    size_t B = (size_t)(atomic_load_explicit(&s->next, memory_order_acquire) & ~SPLIT_BIT);
    if (B < r->pipe.len) {
      size_t off = r->pipe.len - B > chunk ? r->pipe.len - chunk : B, len = r->pipe.len - off;
      if (fy_shm_cma_read(r->peer_local, dst + off, (const char *)(uintptr_t)s->pbuf + off, len) != 0)
        fy_abort(MPI_ERR_INTERN, "cross-memory copy failed during a shared rendezvous copy");
      if (r->tmp) fy_type_unpack_range(r->type, r->count, r->rbuf, off, len, dst + off);
      r->pipe.len = off;
      more = did = 1;
    }
  }
  return did;
}

/* Joinable copies: finish the ones we took once the other side's pieces
 * are in; join the receiver's copy of a send we wait on. */
static int join_progress(void) {
  int n = 0;
  for (fy_request_t *r = join_send.head, *nx; r; r = nx) {
    nx = r->lnext;
    n += join_finish(r, 1);
  }
  for (fy_request_t *r = join_recv.head, *nx; r; r = nx) {
    nx = r->lnext;
    n += join_finish(r, 0);
  }
  if (fy_progress_agent || fy_pt2pt_in_signal) return n;
  for (int k = 0; k < njslots; k++) {
    uint32_t i = jslots[k];
    fy_request_t *r = slot_req[i];
    if (!r || !fy_req_attended(r)) continue;
    fy_rndv_slot_t *s = slot_at(my_local, i);
    if (atomic_load_explicit(&s->state, memory_order_acquire) != FY_SLOT_WORD(r->gen, FY_SLOT_RCOPY) || jex[i] ||
        jheard[i] != heard[r->peer_local] || fy_exchange_with(r->peer_local))
      continue;
    size_t did = claim_copy(s, r->gen, r->peer_local, 1, (char *)fy_send_data(r), (char *)(uintptr_t)s->raddr,
                            (size_t)s->rcap);
    if (did) {
      joined(s, did, r->peer_local, i, r->gen, 0);
      fy_pt2pt_stats.rndv_joined++;
      n++;
    }
  }
  return n;
}

int fy_rndv_progress(void) {
  /* Idle, the case of nearly every poll of a wait: a blocking receive
   * spins through here until its message comes, so this is most of the
   * delay between the message's arrival and its detection. */
  if (!npipes && !njslots && !recv_matched.head && !deferred.head && !wait_slot.head &&
      !share_send.head)
    return 0;
  int n = 0;
  /* CTS seen in a PEF turn, or left to a receiver inside MPI (see
   * leave_to_receiver): act on them once that no longer holds. */
  for (fy_request_t *r = cts_later.head, *nx; r; r = nx) {
    nx = r->lnext;
    fy_rndv_slot_t *s = slot_at(my_local, r->slot);
    uint64_t w = atomic_load_explicit(&s->state, memory_order_acquire);
    /* (bounded: a receiver inside a call that does not progress, e.g. in a
     * long user callback, does not hold up our own wait for long) */
    if (w == FY_SLOT_WORD(r->gen, FY_SLOT_MATCHED) && ++r->cts_checks < LEAVE_MAX_CHECKS && leave_to_receiver(r))
      continue;
    pipe_remove(&cts_later, r);
    r->pstate = FY_PS_RNDV_SENT;
    cts_act(r, 0);
    n++;
  }
  while (deferred.head) {
    fy_request_t *r = deferred.head;
    fy_rlist_remove(&deferred, r);
    fy_pkt_t h = {.type = FY_PKT_RTS, .flags = r->solo ? FY_PKF_SOLO : 0, .src = r->status.MPI_SOURCE,
                  .tag = r->status.MPI_TAG,
                  .len = r->xfer_len, .sreq = r->sreq, .addr = r->saddr,
                  .slot = r->slot, .gen = (uint32_t)r->gen};
    fy_rndv_recv_match(r, r->peer_local, &h);
    n++;
  }
  /* in order, and only with a slot free: a held send may take the
   * rendezvous path too (a held one waits for a pass outside a PEF turn:
   * the send paths were written for the application's context) */
  while (wait_slot.head && nfree_slots > 0 &&
         !(fy_pt2pt_in_signal && wait_slot.head->pstate == FY_PS_SEND_HELD)) {
    fy_request_t *r = wait_slot.head;
    fy_rlist_remove(&wait_slot, r);
    if (r->peer_local >= 0 && r->peer_local < nout_to) held_to[r->peer_local]--;
    if (r->pstate == FY_PS_RNDV_WAIT_SLOT) send_rts(r);
    else fy_send_route(r);
    n++;
  }
  /* newest first: a waiting sender claims the oldest (CTS order) */
  for (fy_request_t *r = recv_matched.tail, *pv; r && !fy_progress_agent; r = pv) {
    pv = r->lprev;
    n += try_recv_copy(r);
  }
  n += join_progress();
  for (fy_request_t *r = share_send.head, *nx; r && !fy_progress_agent; r = nx) {
    nx = r->lnext;
    n += share_copy(r, slot_at(my_local, r->slot), 1); /* FIN_S completes it */
  }
  for (fy_request_t *r = share_recv.head, *nx; r && !fy_progress_agent; r = nx) {
    nx = r->lnext;
    fy_rndv_slot_t *s = slot_at(r->peer_local, r->slot);
    if (!sender_lazy(r->peer_local, r->slot)) {
      n += share_copy(r, s, 0);
    } else if (r->pipe.next_seq) {
      n += split_recv(r, s);
      if (r->pipe.done < r->pipe.len) continue;
      fy_zc_tmp_free(r);
      goto finish;
    } else if (r->tmp) {
      /* the sender packs and writes in order: unpack what is there (pipe.done
       * counts the bytes unpacked; the pipe is unused in this mode) */
      size_t avail = (size_t)atomic_load_explicit(&s->done, memory_order_acquire);
      if (avail > r->pipe.done) {
        fy_zc_tmp_unpack(r, r->pipe.done, avail);
        r->pipe.done = avail;
        n++;
      }
      if (avail < s->rcap) continue;
      fy_zc_tmp_free(r); /* all unpacked already */
    }
    if (atomic_load_explicit(&s->done, memory_order_acquire) < s->rcap) continue;
  finish:
    /* All of it is here, whoever copied it: we never touch the slot again. */
    fy_pkt_t fin = {.type = FY_PKT_FIN_S, .sreq = r->sreq, .slot = r->slot, .gen = (uint32_t)r->gen};
    fy_out_send(r->peer_local, &fin, NULL, 0, 0, NULL, 0);
    pipe_remove(&share_recv, r);
    fy_pt2pt_complete(r);
    n++;
  }
  /* Our slots serve all our pipe transfers: once one finds none free, the
   * next ones would not either (until the next pass). */
  for (fy_request_t *r = pipe_send.head, *nx; r; r = nx) {
    nx = r->lnext;
    size_t before = r->pipe.done;
    int fin = sender_lazy(my_local, r->slot) ? fy_shm_pipe_push_fn(&r->pipe, fy_zc_pack_cb, r)
                                             : fy_shm_pipe_push(&r->pipe, fy_send_data(r));
    if (fin) {
      pipe_remove(&pipe_send, r);
      slot_free(r->slot);
      fy_req_complete(r);
      n++;
    } else if (r->pipe.done != before) {
      n++;
    } else {
      break;
    }
  }
  /* With several transfers from one sender queued, its slots are looked
   * through only when it has pushed since a pass last began looking
   * (fy_shm_pipe_pushes): each pull takes every chunk of its transfer that
   * is there, and the others would each scan every slot for nothing. Not
   * for a single transfer: reading the count would move its line between
   * the cores at every push (1.3x the time of a 256 KiB ping-pong). */
  pipe_pass++;
  for (fy_request_t *r = pipe_recv.head, *nx; r; r = nx) {
    nx = r->lnext;
    pipe_peer_t *pp = &pipe_peer[r->peer_local];
    if (pp->nrecv < 2) {
      pp->look = 1;
    } else if (pp->pass != pipe_pass) {
      uint64_t c = fy_shm_pipe_pushes(r->peer_local);
      pp->pass = pipe_pass;
      pp->look = c != pp->seen;
      pp->seen = c;
    }
    if (!pp->look) continue;
    size_t before = r->pipe.done;
    void *dst = r->tmp ? r->tmp : (char *)r->rbuf + r->type->true_lb;
    size_t cap = (size_t)fy_status_get_count(&r->status);
    int fin = r->tmp || r->type->is_contig ? fy_shm_pipe_pull(&r->pipe, dst, cap)
                                           : fy_shm_pipe_pull_fn(&r->pipe, fy_zc_unpack_cb, r, cap);
    if (fin) {
      pipe_remove(&pipe_recv, r);
      pipe_peer[r->peer_local].nrecv--;
      fy_pt2pt_complete(r);
      n++;
    } else if (r->pipe.done != before) {
      n++;
    }
  }
  return n;
}

/* Transfers that move only while both sides poll (pipe, share, a CTS left
 * to the receiver): a blocking wait must not sleep on the doorbell while
 * one is active, since chunk hand-offs (and a receiver leaving MPI) do not
 * ring it. */
int fy_rndv_busy(void) {
  /* (a copy left to a receiver inside MPI: we take it back when it leaves,
   * which rings no doorbell) */
  return __atomic_load_n(&npipes, __ATOMIC_RELAXED) != 0;
}
