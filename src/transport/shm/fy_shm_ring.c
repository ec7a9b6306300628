/* shm packet rings: one bounded multi-producer single-consumer ring of cells
 * per local rank. See fy_shm.h and README.md.
 *
 * Position pos lives in cell pos & mask; the cell's seq == pos + 1 says the
 * packet of position pos is in (a value of an earlier lap never matches, so
 * the consumer never writes the cells: only producers do, which saves the
 * cache-line transfer a "free" mark would cost on every packet). Producers
 * claim positions by CAS on the ring's tail, after checking pos - head <
 * cells against a cached copy of the consumer's published head (reloaded
 * only when the cached copy says the ring is full). */
#include "transport/shm/fy_shm_internal.h"
#include <string.h>

size_t fy_shm_max_packet(void) { return fy_shm_g.max_packet; }

static inline fy_shm_cell_t *cell_at(char *cells, uint64_t pos) {
  return (fy_shm_cell_t *)(cells + (pos & fy_shm_g.mask) * fy_shm_g.cell_stride);
}

int fy_shm_send(int dst_local, const void *hdr, size_t hlen,
                const void *data, size_t dlen, unsigned flags) {
  if (hlen + dlen > fy_shm_g.max_packet) return -1;
  fy_shm_rank_t *rk = fy_shm_rank(dst_local);
  uint64_t *ch = &fy_shm_g.cached_head[dst_local];
  uint64_t pos = atomic_load_explicit(&rk->tail, memory_order_relaxed);
  do {
    if (pos - *ch >= fy_shm_g.cells) {
      /* acquire: the consumer is done reading the cell we will overwrite */
      *ch = atomic_load_explicit(&rk->head, memory_order_acquire);
      if (pos - *ch >= fy_shm_g.cells) return FY_SHM_EAGAIN;
    }
  } while (!atomic_compare_exchange_weak_explicit(&rk->tail, &pos, pos + 1,
                                                  memory_order_seq_cst, memory_order_relaxed));
  /* The claim (a locked instruction) orders this load: no extra fence. */
  unsigned armed = fy_shm_doorbell_armed(rk);
  fy_shm_cell_t *c = cell_at(fy_shm_ring_cells(dst_local), pos);
  c->len = (uint32_t)(hlen + dlen);
  c->src = (uint16_t)fy_shm_g.me;
  c->flags = (uint16_t)flags;
  if (hlen) memcpy(c->data, hdr, hlen);
  if (dlen) memcpy(c->data + hlen, data, dlen);
  atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
  if (flags & FY_SHM_F_RNDV) {
    /* Selective sleepers do not look at claims (other packets may sit
     * unconsumed): for them, publish first, fence, then read. Rendezvous
     * starts are rare enough to pay for the fence. */
    atomic_thread_fence(memory_order_seq_cst);
    armed = fy_shm_doorbell_armed(rk);
  }
  if (__builtin_expect(armed != 0, 0)) fy_shm_doorbell_wake(dst_local, flags, armed, pos);
  return 0;
}

uint64_t fy_shm_ring_head(int dst) {
  return atomic_load_explicit(&fy_shm_rank(dst)->head, memory_order_relaxed);
}

bool fy_shm_incoming(void) {
  fy_shm_rank_t *rk = fy_shm_rank(fy_shm_g.me);
  return atomic_load_explicit(&rk->tail, memory_order_seq_cst) !=
         atomic_load_explicit(&fy_shm_g.head, memory_order_relaxed);
}

bool fy_shm_pending(void) {
  uint64_t head = atomic_load_explicit(&fy_shm_g.head, memory_order_relaxed);
  fy_shm_cell_t *c = cell_at(fy_shm_g.my_cells, head);
  return atomic_load_explicit(&c->seq, memory_order_acquire) == head + 1;
}

int fy_shm_poll(fy_shm_pkt_cb cb, void *arg, int max) {
  uint64_t head = atomic_load_explicit(&fy_shm_g.head, memory_order_relaxed);
  int n = 0;
  while (max <= 0 || n < max) {
    fy_shm_cell_t *c = cell_at(fy_shm_g.my_cells, head);
    if (atomic_load_explicit(&c->seq, memory_order_acquire) != head + 1) break;
    /* The next cells' first lines, while this packet is handled: in a
     * stream they are already written, and a miss each (a line the sender
     * owns) would come one after the other. Otherwise the lines hold the
     * previous lap's packets, still in our cache: nothing is fetched. */
    __builtin_prefetch(cell_at(fy_shm_g.my_cells, head + 1));
    __builtin_prefetch(cell_at(fy_shm_g.my_cells, head + 2));
    /* and this packet's next lines, while its header is read */
    for (size_t off = FY_SHM_LINE; off < FY_SHM_CELL_HDR + c->len && off <= 3 * FY_SHM_LINE; off += FY_SHM_LINE)
      __builtin_prefetch((char *)c + off);
    if (cb(arg, c->src, c->data, c->len)) break;   /* refused: stays at head */
    head++;
    atomic_store_explicit(&fy_shm_g.head, head, memory_order_relaxed);
    n++;
  }
  /* release: our reads of the consumed cells happen before their reuse */
  if (n) atomic_store_explicit(&fy_shm_rank(fy_shm_g.me)->head, head, memory_order_release);
  return n;
}
