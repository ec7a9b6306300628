/* shm pipelined copy through per-sender slots. See fy_shm.h.
 *
 * Every sender owns pipe_slots slots of pipe_chunk bytes. A slot's state word
 * is the only synchronisation: the sender fills data and the tag (dst,
 * xfer_id, seq, len) of a FREE slot, then release-stores FULL; the receiver
 * acquire-loads FULL, checks the tag, copies the data out, then
 * release-stores FREE, which the sender's acquire-load pairs with before it
 * overwrites the slot. Chunks of one transfer carry consecutive seq numbers
 * and are pulled in that order; slots are shared by all transfers of a
 * sender, so memory stays linear in local ranks. */
#include "transport/shm/fy_shm_internal.h"
#include <string.h>

size_t fy_shm_pipe_chunk(void) { return fy_shm_g.hdr->pipe_chunk; }
int fy_shm_pipe_slots(void) { return (int)fy_shm_g.hdr->pipe_slots; }

/* Our slots filled and not yet seen freed are kept in a bitmap, so the
 * free count reads only those state words: each sits on a line the
 * receiver writes when it frees the slot, and reading all 32 of them cost
 * each send through the eager pipe a miss per slot. */
static void mark_full(uint32_t k) {
  uint64_t *w = &fy_shm_g.pipe_full[k >> 6], bit = (uint64_t)1 << (k & 63);
  if (*w & bit) return; /* freed and filled again since we last counted */
  *w |= bit;
  fy_shm_g.pipe_nfull++;
}

int fy_shm_pipe_free(void) {
  const int K = (int)fy_shm_g.hdr->pipe_slots;
  for (int w = 0; w < (K + 63) / 64; w++)
    for (uint64_t m = fy_shm_g.pipe_full[w]; m; m &= m - 1) {
      int k = w * 64 + __builtin_ctzll(m);
      if (atomic_load_explicit(&fy_shm_slot(fy_shm_g.me, k)->state, memory_order_relaxed) != FY_SLOT_FREE)
        continue;
      fy_shm_g.pipe_full[w] &= ~((uint64_t)1 << (k & 63));
      fy_shm_g.pipe_nfull--;
    }
  return K - fy_shm_g.pipe_nfull;
}

/* Slot s holds chunk seq of transfer xfer_id for us (acquire: its data
 * and tag are then visible). */
static bool holds(fy_shm_slot_t *s, uint64_t xfer_id, uint32_t seq) {
  return atomic_load_explicit(&s->state, memory_order_acquire) == FY_SLOT_FULL &&
         s->dst == (uint32_t)fy_shm_g.me && s->xfer_id == xfer_id && s->seq == seq;
}

bool fy_shm_pipe_has(int sender, uint64_t xfer_id, uint32_t seq) {
  const int K = (int)fy_shm_g.hdr->pipe_slots;
  for (int k = 0; k < K; k++)
    if (holds(fy_shm_slot(sender, k), xfer_id, seq)) return true;
  return false;
}

uint64_t fy_shm_pipe_pushes(int sender) {
  return atomic_load_explicit(&fy_shm_rank(sender)->pipe_pushes, memory_order_acquire);
}

void fy_shm_pipe_init(fy_shm_pipe_t *p, int peer, uint64_t xfer_id, size_t len) {
  memset(p, 0, sizeof *p);
  p->peer = peer;
  p->xfer_id = xfer_id;
  p->len = len;
}

/* Push/pull with each chunk produced / consumed by a callback (derived
 * datatypes pack into and unpack from the slots directly); the plain
 * forms below copy. */
int fy_shm_pipe_push_fn(fy_shm_pipe_t *p, fy_shm_pipe_fn fill, void *arg) {
  const uint32_t K = (uint32_t)fy_shm_g.hdr->pipe_slots;
  const size_t C = fy_shm_g.hdr->pipe_chunk;
  uint32_t k = p->hint;
  size_t before = p->done;
  for (uint32_t tried = 0; p->done < p->len && tried < K; tried++, k = k + 1 == K ? 0 : k + 1) {
    fy_shm_slot_t *s = fy_shm_slot(fy_shm_g.me, (int)k);
    if (atomic_load_explicit(&s->state, memory_order_acquire) != FY_SLOT_FREE) continue;
    size_t n = p->len - p->done < C ? p->len - p->done : C;
    fill(arg, p->done, fy_shm_slot_data(s), n);
    s->dst = (uint32_t)p->peer;
    s->xfer_id = p->xfer_id;
    s->seq = p->next_seq++;
    s->len = (uint32_t)n;
    atomic_store_explicit(&s->state, FY_SLOT_FULL, memory_order_release);
    mark_full(k);
    p->done += n;
    tried = (uint32_t)-1;
  }
  p->hint = k;
  if (p->done != before) {
    _Atomic uint64_t *c = &fy_shm_rank(fy_shm_g.me)->pipe_pushes;
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_release);
  }
  return p->done >= p->len;
}

int fy_shm_pipe_pull_fn(fy_shm_pipe_t *p, fy_shm_pipe_fn drain, void *arg, size_t cap) {
  const uint32_t K = (uint32_t)fy_shm_g.hdr->pipe_slots;
  uint32_t k = p->hint;
  for (uint32_t tried = 0; p->done < p->len && tried < K; tried++, k = k + 1 == K ? 0 : k + 1) {
    fy_shm_slot_t *s = fy_shm_slot(p->peer, (int)k);
    if (!holds(s, p->xfer_id, p->next_seq)) continue;
    size_t n = s->len;
    if (p->done < cap) drain(arg, p->done, fy_shm_slot_data(s), cap - p->done < n ? cap - p->done : n);
    atomic_store_explicit(&s->state, FY_SLOT_FREE, memory_order_release);
    p->done += n;
    p->next_seq++;
    tried = (uint32_t)-1;
  }
  p->hint = k;
  return p->done >= p->len;
}

/* A copy in or out of a contiguous buffer, as a pipe callback (one
 * indirect call per chunk of FERRY_SHM_PIPE_CHUNK bytes). */
static void copy_out(void *buf, size_t off, void *slot, size_t n) { memcpy(slot, (const char *)buf + off, n); }
static void copy_in(void *buf, size_t off, void *slot, size_t n) { memcpy((char *)buf + off, slot, n); }

int fy_shm_pipe_push(fy_shm_pipe_t *p, const void *buf) { return fy_shm_pipe_push_fn(p, copy_out, (void *)buf); }

int fy_shm_pipe_pull(fy_shm_pipe_t *p, void *buf, size_t cap) { return fy_shm_pipe_pull_fn(p, copy_in, buf, cap); }
