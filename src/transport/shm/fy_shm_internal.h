/* shm transport internals: the segment layout and the per-process view of it,
 * shared by the files of this module only (see README.md for the picture).
 * Contract: every structure placed in the segment has a fixed layout that
 * depends only on the geometry in fy_shm_hdr_t (written by local rank 0), so
 * every process computes the same offsets. Hot words written by different
 * processes live on different FY_SHM_LINE-sized lines (128 bytes: the
 * adjacent-line prefetcher of x86 moves lines in pairs). */
#ifndef FY_SHM_INTERNAL_H
#define FY_SHM_INTERNAL_H
#include "transport/shm/fy_shm.h"

#define FY_SHM_LINE 128
#define FY_SHM_MAGIC 0x46795368304d7631ull    /* "FyShm0Mv1" */
#define FY_SHM_MAGIC_BAD 0xdeadbeefdeadbeefull /* a stale segment poisoned by rank 0 */
#define FY_SHM_VERSION 1u

#define FY_SHM_DEF_CELLS 64
#define FY_SHM_DEF_PAYLOAD (16384 + 256)
#define FY_SHM_DEF_SLOTS 32
/* Up to FY_SHM_FEW_LOCAL local ranks each gets FY_SHM_FEW_SLOTS: more
 * eager-pipe messages in flight (streaming 32 KiB 1.02-1.12x, 64 KiB
 * 1.01-1.19x, paired) for 512 KiB more per rank, which a node of many
 * ranks (and a container's 64 MiB /dev/shm) would feel. */
#define FY_SHM_FEW_LOCAL 16
#define FY_SHM_FEW_SLOTS 64
#define FY_SHM_DEF_CHUNK (16 * 1024)

#define FY_ALIGN_UP(x, a) (((x) + (size_t)(a) - 1) & ~((size_t)(a) - 1))

typedef struct fy_shm_hdr {
  _Atomic uint64_t magic;   /* FY_SHM_MAGIC once rank 0 has laid everything out */
  uint32_t version, local_size;
  uint64_t ring_cells, cell_stride, cell_payload;
  uint64_t pipe_slots, pipe_chunk, slot_stride;
  uint64_t rank_area;       /* bytes of the upper layers' area per rank */
  uint64_t off_ranks, rank_stride;   /* fy_shm_rank_t blocks (+ rank area) */
  uint64_t off_rings, ring_stride;   /* cells of each rank's receive ring */
  uint64_t off_slots, pool_stride;   /* pipe slots owned by each sender */
  uint64_t total;
} fy_shm_hdr_t;

/* One line per writer. */
typedef struct fy_shm_rank {
  /* producers' claim counter of this rank's ring (contended by senders) */
  _Alignas(FY_SHM_LINE) _Atomic uint64_t tail;
  /* the consumer's position, published after each poll; producers read it
   * only when their cached copy says the ring may be full */
  _Alignas(FY_SHM_LINE) _Atomic uint64_t head;
  /* doorbell: futex words (ANY holds even values, RNDV odd ones, both step
   * by 2, so the armed value tells which word to sleep on) and the counts
   * of armed sleepers; read by every sender after each packet */
  _Alignas(FY_SHM_LINE) _Atomic uint32_t futex[2];
  _Atomic uint32_t armed[2];
  /* kick: the thread (tid) that wants a signal (kick_sig) when a rendezvous
   * start arrives while this rank computes; 0 = nobody. Same line as the
   * doorbell words, which a sender of a rendezvous start reads anyway. */
  _Atomic int32_t kick_tid;
  _Atomic int32_t kick_sig;
  /* written once at init by the owner */
  _Alignas(FY_SHM_LINE) int32_t pid;
  uint64_t base;            /* the owner's mapping address (for the CMA probe) */
  uint64_t probe_word;      /* a known value the peers read by CMA */
  _Alignas(FY_SHM_LINE) _Atomic uint32_t in_mpi;
  /* pipe: calls of the owner's push that filled slots (see fy_shm_pipe_pushes) */
  _Alignas(FY_SHM_LINE) _Atomic uint64_t pipe_pushes;
  /* the upper layers' rank area (boot->rank_area bytes) follows */
} fy_shm_rank_t;

typedef struct fy_shm_cell {
  _Atomic uint64_t seq;     /* pos + 1 once the packet of position pos is in */
  uint32_t len;
  uint16_t src;
  uint16_t flags;
  unsigned char data[];     /* payload starts in the same line as seq */
} fy_shm_cell_t;
#define FY_SHM_CELL_HDR 16

enum { FY_SLOT_FREE = 0, FY_SLOT_FULL = 1 };
typedef struct fy_shm_slot {
  _Atomic uint32_t state;   /* release-stored last by the writer of the other fields */
  uint32_t dst;
  uint32_t seq;
  uint32_t len;
  uint64_t xfer_id;
  /* data follows at FY_SHM_LINE */
} fy_shm_slot_t;

/* This process's view. */
typedef struct fy_shm_state {
  char *base;
  size_t size;
  fy_shm_hdr_t *hdr;
  int me, n;
  uint64_t mask, cells;     /* ring_cells - 1, ring_cells */
  size_t cell_stride, max_packet;
  char *my_cells;           /* my receive ring */
  _Atomic uint64_t head;    /* my consumer position (only the poller writes it) */
  uint64_t *cached_head;    /* [n]: last published head seen of each ring */
  uint64_t *pipe_full;      /* bitmap of our pipe slots filled and not yet seen freed */
  int pipe_nfull;           /* its bits set */
  bool selective;
  bool cma_ok, cma_enabled;
  uint64_t kick_grace_ns;   /* see fy_shm_set_kick_grace */
  _Atomic uint64_t wakeups;
  _Atomic uint64_t kicks;   /* kick signals this process sent */
  char err[256];
} fy_shm_state_t;

extern fy_shm_state_t fy_shm_g;

static inline fy_shm_rank_t *fy_shm_rank(int r) {
  return (fy_shm_rank_t *)(fy_shm_g.base + fy_shm_g.hdr->off_ranks + (size_t)r * fy_shm_g.hdr->rank_stride);
}
static inline char *fy_shm_ring_cells(int r) {
  return fy_shm_g.base + fy_shm_g.hdr->off_rings + (size_t)r * fy_shm_g.hdr->ring_stride;
}
static inline fy_shm_slot_t *fy_shm_slot(int sender, int k) {
  return (fy_shm_slot_t *)(fy_shm_g.base + fy_shm_g.hdr->off_slots +
                           (size_t)sender * fy_shm_g.hdr->pool_stride +
                           (size_t)k * fy_shm_g.hdr->slot_stride);
}
static inline unsigned char *fy_shm_slot_data(fy_shm_slot_t *s) {
  return (unsigned char *)s + FY_SHM_LINE;
}

/* Doorbell side of a send (fy_shm_doorbell.c). */
/* Doorbell halves of a send: which kinds are armed (read right after the
 * claim), and the wake-up once the packet is published. */
unsigned fy_shm_doorbell_armed(fy_shm_rank_t *rk);
void fy_shm_doorbell_wake(int dst, unsigned flags, unsigned armed, uint64_t pos);
#define FY_SHM_ARMED_KICK 4u   /* in fy_shm_doorbell_armed's result */
/* CMA probe at init (fy_shm_cma.c). */
void fy_shm_cma_probe(void);
#endif
