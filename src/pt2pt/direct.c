/* Direct rendezvous: the receiver publishes a posted receive, the sender
 * writes into it.
 *
 * A large nonblocking receive that found nothing to match is published on
 * this rank's board in the shm rank area (after the rendezvous slots): its
 * envelope, its buffer and how many messages this rank had taken in from
 * that sender at the time. A sender that starts a rendezvous to a rank that
 * is computing (not waiting in MPI) looks at that board: if a published
 * receive matches its message and no earlier message of its own to that
 * rank is still untaken (the counts agree), it claims the receive with one
 * CAS, writes the data with process_vm_writev and sends PUT_FIN. The
 * receiver spends no CPU at all on the transfer (no agent, no signal): it
 * finds the receive complete at its next MPI call. This is the seeds'
 * receiver-first case solved at the protocol level, the shared
 * "unmatched receive requests" of seed 000 read by the sender itself.
 *
 * Why the matching stays MPI's:
 * - only receives with a concrete source and tag, contiguous data, and
 *   that are the oldest posted receive an arrival of their envelope would
 *   take, are published (so no older receive, wildcard or not, loses a
 *   message to them); later receives are younger, so they never matter;
 * - the sender claims only if the number of messages (eager, rendezvous
 *   starts, PUT_FIN) it has sent to the receiver equals the number the
 *   receiver has taken in from it (a live count in the receiver's shm
 *   area, stored after each such message is fully matched): then no
 *   earlier message of that sender is still in flight, and one that
 *   matched the receive has withdrawn it; a later one queues behind
 *   PUT_FIN, which unlinks the receive from the posted queue before
 *   anything after it is matched;
 * - only the sender with the published source can match it; the receiver,
 *   matching it through the queue (the sender chose the normal path) or
 *   cancelling it, withdraws it first by CAS: whichever CAS wins decides.
 * Board words carry a generation, so a claim based on a stale read fails. */
#include "pt2pt/pt2pt_impl.h"
#include "pt2pt/mq/fy_mq.h"
#include "progress/async/fy_async.h"
#include "runtime/fy_config.h"
#include "core/fy_api.h"
#include <stdlib.h>
#include <string.h>

#define NBOARD 16
enum { B_FREE = 0, B_POSTED, B_CLAIMED };

/* Hints for senders, one line: which entries are posted and a hash of
 * their envelopes, so a sender reads an entry's line only on a likely
 * match. Written by the owner only. */
typedef struct board_hdr {
  _Atomic uint64_t mask;
  _Atomic uint32_t key[NBOARD];
  char pad_[128 - 8 - 4 * NBOARD];
} board_hdr_t;

typedef struct board_ent {
  _Atomic uint64_t state;   /* gen << 8 | B_* */
  uint32_t ctx;
  int32_t src, tag, src_local;
  uint64_t addr, cap, rreq;
  char pad_[64 - 48];
} board_ent_t;

/* Rank area layout after the rendezvous slots: board header, entries, the
 * live count of messages taken in from each local rank, then the line of
 * the "inside an MPI call" word (fy_tls.call_word, written on every MPI entry
 * and exit, read by senders: its own line, so those stores never touch a
 * line senders poll). */
static int nlocal;
static size_t counts_bytes(int local_size) {
  return ((size_t)local_size * sizeof(uint64_t) + 127) & ~(size_t)127;
}
size_t fy_direct_area_bytes(int local_size) {
  return sizeof(board_hdr_t) + NBOARD * sizeof(board_ent_t) + counts_bytes(local_size) + 128;
}

static int enabled;
static uint32_t gen[NBOARD];
static int free_ix[NBOARD], nfree;
uint64_t *fy_msgs_sent;       /* per local rank: message packets sent to it */
_Atomic uint64_t *fy_msgs_seen; /* in my rank area: taken in from each local rank */

static board_hdr_t *hdr_of(int local) {
  return (board_hdr_t *)((char *)fy_shm_rank_area(local) + fy_rndv_area_bytes);
}
static board_ent_t *ent_of(int local, int i) { return (board_ent_t *)(hdr_of(local) + 1) + i; }
static _Atomic uint64_t *seen_of(int local) { return (_Atomic uint64_t *)ent_of(local, NBOARD); }
static unsigned *call_of(int local) { return (unsigned *)((char *)seen_of(local) + counts_bytes(nlocal)); }

/* Whether the words are kept (fy_tls.call_word of the thread that
 * initialized MPI points to this process's: see fy_api.h). */
static int call_kept;

/* Whether local rank `local` is inside an MPI call (its own word, or a
 * blocking wait, which fy_progress_wait marks). */
int fy_direct_peer_in_call(int local) {
  if (atomic_load_explicit(fy_shm_in_mpi_word(local), memory_order_relaxed)) return 1;
  return call_kept && __atomic_load_n(call_of(local), __ATOMIC_RELAXED);
}

/* Whether a receive of ours from local rank `peer` is published and not
 * claimed: the peer's next message to us has a place to go, so a transfer
 * of ours to it is one half of an exchange. */
int fy_direct_expecting(int peer) {
  if (!enabled) return 0;
  board_hdr_t *h = hdr_of(fy_state.local_rank);
  for (uint64_t m = atomic_load_explicit(&h->mask, memory_order_relaxed); m; m &= m - 1) {
    board_ent_t *e = ent_of(fy_state.local_rank, __builtin_ctzll(m));
    if (e->src_local == peer && (atomic_load_explicit(&e->state, memory_order_relaxed) & 0xff) == B_POSTED)
      return 1;
  }
  return 0;
}

static uint32_t key_of(uint32_t ctx, int src, int tag) {
  uint32_t k = ctx * 0x9e3779b1u ^ (uint32_t)src * 0x85ebca77u ^ (uint32_t)tag * 0xc2b2ae3du;
  return k ? k : 1;
}

int fy_direct_init(int local_size) {
  enabled = fy_config.direct && fy_config.cma && fy_shm_cma_available();
  for (int i = 0; i < NBOARD; i++) free_ix[i] = NBOARD - 1 - i;
  nfree = NBOARD;
  nlocal = local_size;
  fy_msgs_sent = calloc((size_t)local_size, sizeof *fy_msgs_sent);
  fy_msgs_seen = seen_of(fy_state.local_rank);
  /* One word per process: with several threads in MPI at once it would
   * not say anything useful. */
  if (enabled && fy_config.exchange_split && !fy_thread_multiple && local_size > 1) {
    call_kept = 1;
    fy_tls.call_word = call_of(fy_state.local_rank);
  }
  return fy_msgs_sent ? 0 : -1;
}

void fy_direct_finalize(void) {
  /* The segment goes away: the hook stops writing it (MPI_Finalize runs
   * on the thread that initialized MPI). */
  fy_tls.call_word = NULL;
  call_kept = 0;
  free(fy_msgs_sent);
  fy_msgs_sent = NULL;
}

static void ent_free(int i) {
  board_hdr_t *h = hdr_of(fy_state.local_rank);
  atomic_fetch_and_explicit(&h->mask, ~(1ull << i), memory_order_relaxed);
  gen[i]++;
  atomic_store_explicit(&ent_of(fy_state.local_rank, i)->state, FY_SLOT_WORD(gen[i], B_FREE),
                        memory_order_release);
  free_ix[nfree++] = i;
}

/* Receiver: r was just posted and matched nothing (progress lock held). */
void fy_direct_publish(fy_request_t *r) {
  if (!enabled || !nfree || r->peer < 0 || r->tag < 0 || !r->type->is_contig || r->bytes == 0 ||
      r->comm->is_inter)
    return;
  int src_local = fy_local_of(r->comm, r->peer);
  if (src_local == fy_state.local_rank || src_local < 0) return; /* self, or over the fabric */
  /* the oldest receive an arrival of this envelope would take must be r */
  if (fy_mq_peek_posted(fy_mq, r->ctx, r->peer, r->tag) != &r->mqi) return;
  int i = free_ix[--nfree];
  board_ent_t *e = ent_of(fy_state.local_rank, i);
  e->ctx = r->ctx;
  e->src = r->peer;
  e->tag = r->tag;
  e->src_local = src_local;
  e->addr = (uint64_t)(uintptr_t)((char *)r->rbuf + r->type->true_lb);
  e->cap = r->bytes;
  e->rreq = (uint64_t)(uintptr_t)r;
  r->board = i + 1;
  r->board_gen = gen[i];
  atomic_store_explicit(&e->state, FY_SLOT_WORD(gen[i], B_POSTED), memory_order_release);
  board_hdr_t *h = hdr_of(fy_state.local_rank);
  atomic_store_explicit(&h->key[i], key_of(r->ctx, r->peer, r->tag), memory_order_relaxed);
  atomic_fetch_or_explicit(&h->mask, 1ull << i, memory_order_release);
  fy_pt2pt_stats.direct_published++;
}

/* Receiver: r is being matched through the queue or cancelled. Returns 1
 * if it is no longer published (or never was), 0 if a sender claimed it
 * (PUT_FIN is on its way). */
int fy_direct_withdraw(fy_request_t *r) {
  if (!r->board) return 1;
  int i = r->board - 1;
  uint64_t expect = FY_SLOT_WORD(r->board_gen, B_POSTED);
  if (!atomic_compare_exchange_strong_explicit(&ent_of(fy_state.local_rank, i)->state, &expect,
                                               FY_SLOT_WORD(r->board_gen, B_FREE), memory_order_acq_rel,
                                               memory_order_acquire))
    return 0;
  r->board = 0;
  ent_free(i);
  return 1;
}

/* Sender: deliver r's data straight into a receive published by dst.
 * Returns 1 if done (r is complete), 0 to take the normal path. */
int fy_direct_try_send(fy_request_t *r, int dst, const void *data) {
  if (!enabled || dst == fy_state.local_rank || r->comm->is_inter) return 0;
  if (atomic_load_explicit(fy_shm_in_mpi_word(dst), memory_order_relaxed)) return 0; /* it copies */
  /* An exchange (we wait for a message from it too) with a rank that is
   * inside an MPI call, e.g. starting the same collective: writing into
   * its receive would leave us both copies (it reads ours meanwhile, or
   * waits for our write to finish and then for its own message). A
   * rendezvous start instead lets each side read its own incoming message
   * in parallel (rndv.c), as a blocking exchange does. */
  if (fy_direct_peer_in_call(dst) && fy_exchange_with(dst)) return 0;
  board_hdr_t *h = hdr_of(dst);
  uint64_t mask = atomic_load_explicit(&h->mask, memory_order_acquire);
  if (!mask) return 0;
  int me = r->comm->rank;
  uint32_t k = key_of(r->ctx, me, r->tag);
  for (; mask; mask &= mask - 1) {
    int i = __builtin_ctzll(mask);
    if (atomic_load_explicit(&h->key[i], memory_order_relaxed) != k) continue;
    board_ent_t *e = ent_of(dst, i);
    uint64_t w = atomic_load_explicit(&e->state, memory_order_acquire);
    if ((w & 0xff) != B_POSTED) continue;
    if (e->ctx != r->ctx || e->src != me || e->tag != r->tag || e->src_local != fy_state.local_rank)
      continue;
    /* Every message we sent it has been matched (acquire: with whatever
     * withdrawal that implied, which the CAS below then sees). */
    if (atomic_load_explicit(&seen_of(dst)[fy_state.local_rank], memory_order_acquire) != fy_msgs_sent[dst])
      return 0;
    uint64_t addr = e->addr, cap = e->cap, rreq = e->rreq;
    if (!atomic_compare_exchange_strong_explicit(&e->state, &w, (w & ~0xffull) | B_CLAIMED,
                                                 memory_order_acq_rel, memory_order_relaxed))
      return 0; /* withdrawn (or reused) under us: the receiver matched it itself */
    size_t n = r->bytes < cap ? r->bytes : (size_t)cap;
    int rc = 0;
    if (!n) {
      rc = 0;
    } else if (r->type->is_contig || r->tmp) {
      rc = fy_shm_cma_write(dst, (void *)(uintptr_t)addr, data, n);
    } else { /* a derived type not packed yet (zcopy.c): in place, or packed piece by piece */
      fy_zdesc_t mine, peer = {.base = addr};
      fy_zc_describe(&mine, r, data, 1);
      rc = (mine.flags & FY_ZD_LAZY) ? fy_zc_pack_write(r, dst, &peer, addr, 0, n)
                                     : fy_zc_copy(dst, &mine, &peer, 0, n, 1);
    }
    if (rc != 0)
      fy_abort(MPI_ERR_INTERN, "process_vm_writev failed writing into a published receive");
    fy_pkt_t fin = {.type = FY_PKT_PUT_FIN, .src = me, .tag = r->tag, .ctx = r->ctx, .len = r->bytes,
                    .rreq = rreq, .slot = (uint32_t)i, .gen = (uint32_t)(w >> 8)};
    fy_out_send(dst, &fin, NULL, 0, 0, NULL, 0);
    fy_pt2pt_stats.direct_sent++;
    fy_pt2pt_complete(r);
    return 1;
  }
  return 0;
}

/* Receiver: a sender wrote into a published receive. */
void fy_direct_on_fin(const fy_pkt_t *h) {
  fy_request_t *r = (fy_request_t *)(uintptr_t)h->rreq;
  if (h->slot >= NBOARD || r->board != (int)h->slot + 1 || (uint32_t)r->board_gen != h->gen)
    fy_abort(MPI_ERR_INTERN, "PUT_FIN for a receive that is not published");
  r->board = 0;
  fy_rndv_heard_from(ent_of(fy_state.local_rank, (int)h->slot)->src_local);
  ent_free((int)h->slot);
  fy_mq_cancel_posted(fy_mq, &r->mqi); /* matched: out of the posted queue */
  fy_async_unwatch(r);
  fy_recv_set_status(r, h->src, h->tag, h->len < r->bytes ? (size_t)h->len : r->bytes, (size_t)h->len);
  fy_pt2pt_stats.direct_recv++;
  fy_pt2pt_complete(r);
}
