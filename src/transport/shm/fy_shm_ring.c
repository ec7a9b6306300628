/* shm packet rings: one bounded multi-producer single-consumer ring of cells
 * per local rank (Vyukov's sequence-numbered cells). See fy_shm.h.
 *
 * Cell i of the ring holds seq == pos when it is free for the producer that
 * claims position pos, and seq == pos + 1 once that producer has filled it.
 * Producers claim pos by CAS on the ring's tail; the consumer, the only
 * reader, releases a cell for the next lap by storing pos + cells. */
#include "transport/shm/fy_shm_internal.h"
#include <string.h>

size_t fy_shm_max_packet(void) { return fy_shm_g.max_packet; }

static inline fy_shm_cell_t *cell_at(char *cells, uint64_t pos) {
  return (fy_shm_cell_t *)(cells + (pos & fy_shm_g.mask) * fy_shm_g.cell_stride);
}

int fy_shm_send(int dst_local, const void *hdr, size_t hlen,
                const void *data, size_t dlen, unsigned flags) {
  fy_shm_rank_t *rk = fy_shm_rank(dst_local);
  char *cells = fy_shm_ring_cells(dst_local);
  if (hlen + dlen > fy_shm_g.max_packet) return -1;
  uint64_t pos = atomic_load_explicit(&rk->tail, memory_order_relaxed);
  fy_shm_cell_t *c;
  for (;;) {
    c = cell_at(cells, pos);
    uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
    int64_t dif = (int64_t)(seq - pos);
    if (dif == 0) {
      if (atomic_compare_exchange_weak_explicit(&rk->tail, &pos, pos + 1,
                                                memory_order_relaxed, memory_order_relaxed))
        break;
    } else if (dif < 0) {
      return FY_SHM_EAGAIN;   /* the cell still holds the previous lap's packet */
    } else {
      pos = atomic_load_explicit(&rk->tail, memory_order_relaxed);
    }
  }
  c->len = (uint32_t)(hlen + dlen);
  c->src = (uint16_t)fy_shm_g.me;
  c->flags = (uint16_t)flags;
  if (hlen) memcpy(c->data, hdr, hlen);
  if (dlen) memcpy(c->data + hlen, data, dlen);
  atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
  fy_shm_doorbell_after_send(dst_local, flags);
  return 0;
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
    if (cb(arg, c->src, c->data, c->len)) break;   /* refused: stays at head */
    atomic_store_explicit(&c->seq, head + fy_shm_g.cells, memory_order_release);
    head++;
    atomic_store_explicit(&fy_shm_g.head, head, memory_order_relaxed);
    n++;
  }
  return n;
}
