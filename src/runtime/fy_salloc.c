/* Signal-safe allocator: see fy_salloc.h.
 *
 * Size classes are powers of two from 64 bytes to the largest class (>=
 * the largest eager packet). Each block starts with a 16-byte header naming
 * its class; a class is refilled by mapping a slab of max(64 KiB, 4 blocks)
 * and threading its blocks onto the class's free list. Slabs are chained
 * through their first bytes so finalize can unmap them. */
#include "runtime/fy_salloc.h"
#include <stdint.h>
#include <sys/mman.h>

#define NCLASS 24
#define MIN_SHIFT 6
#define HDR 16
#define SLAB_MIN (64 * 1024)

typedef struct block { struct block *next; } block_t;
typedef struct slab { struct slab *next; size_t len; } slab_t;

static block_t *free_list[NCLASS];
static slab_t *slabs;
static size_t mapped, max_block = SLAB_MIN;

static int class_of(size_t n) {
  size_t need = n + HDR;
  int c = 0;
  while (((size_t)1 << (c + MIN_SHIFT)) < need) c++;
  return c;
}

void fy_salloc_init(size_t max_size) {
  if (max_size > max_block) max_block = max_size;
}

size_t fy_salloc_max(void) { return max_block; }
size_t fy_salloc_mapped(void) { return mapped; }

static int refill(int c) {
  size_t bsz = (size_t)1 << (c + MIN_SHIFT);
  /* the slab header takes the first block of a small class, one page
   * in front of the blocks of a large one */
  size_t start = bsz < 4096 ? bsz : 4096;
  size_t len = bsz < 4096 ? SLAB_MIN : start + 4 * bsz;
  /* populated: the blocks are handed out at once, and a page fault in a
   * PEF turn would stretch the turn */
  char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (m == MAP_FAILED) return -1;
  slab_t *s = (slab_t *)m;
  s->next = slabs;
  s->len = len;
  slabs = s;
  mapped += len;
  for (size_t off = start; off + bsz <= len; off += bsz) {
    block_t *b = (block_t *)(m + off);
    b->next = free_list[c];
    free_list[c] = b;
  }
  return 0;
}

void *fy_salloc(size_t n) {
  if (n > max_block) return NULL;
  int c = class_of(n);
  if (c >= NCLASS) return NULL;
  if (!free_list[c] && refill(c) != 0) return NULL;
  block_t *b = free_list[c];
  free_list[c] = b->next;
  *(uint32_t *)b = (uint32_t)c;
  return (char *)b + HDR;
}

void fy_sfree(void *p) {
  if (!p) return;
  block_t *b = (block_t *)((char *)p - HDR);
  int c = (int)*(uint32_t *)b;
  b->next = free_list[c];
  free_list[c] = b;
}

void fy_salloc_finalize(void) {
  while (slabs) {
    slab_t *s = slabs;
    slabs = s->next;
    munmap(s, s->len);
  }
  for (int c = 0; c < NCLASS; c++) free_list[c] = NULL;
  mapped = 0;
}
