/* The PMI gather: see fy_pmi_gather.h. A PMI-1 server answers every get
 * itself, so N ranks each reading N values made N^2 round trips through
 * one process (seconds at thousands of ranks); here each node reads each
 * value once, as MPICH's ch4 does, and its ranks share them in memory. */
#include "runtime/fy_pmi_gather.h"
#include "runtime/fy_pmi.h"
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC 0x7265687461677966ULL /* "fygather": a fresh or foreign file holds other bytes */

/* The shared file: this header, then a slot of vlen bytes per rank; a slot
 * whose first byte is 0 was not filled (the file starts zeroed). */
typedef struct {
  uint64_t magic, size, vlen, pad;
} hdr_t;

static unsigned gathers; /* every rank makes the same gathers: the names agree */

static int get_one(const fy_pmi_gather_ops_t *ops, const char *prefix, int r, char *dst, size_t vlen) {
  char key[256];
  int n = snprintf(key, sizeof key, "%s%d", prefix, r);
  if (n < 0 || (size_t)n >= sizeof key || ops->get(r, key, dst, vlen) != 0) {
    dst[0] = 0; /* (still the empty marker) */
    return -1;
  }
  return 0;
}

/* Every value still empty in out, read by this rank itself. */
static int fill(const fy_pmi_gather_ops_t *ops, const char *prefix, size_t vlen, char *out) {
  int rc = 0;
  for (int r = 0; r < ops->size; r++)
    if (!out[(size_t)r * vlen] && get_one(ops, prefix, r, out + (size_t)r * vlen, vlen) != 0) rc = -1;
  return rc;
}

/* The node's first rank makes the file; NULL if it cannot (the others
 * then find no file and read alone). */
static void *create(const char *name, size_t total, const fy_pmi_gather_ops_t *ops, size_t vlen, int *created) {
  int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0 && errno == EEXIST) {
    /* a dead job's of the same name: this job's is made only here */
    shm_unlink(name);
    fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
  }
  if (fd < 0) return NULL;
  *created = 1;
  void *p = MAP_FAILED;
  /* (the blocks reserved now: a full /dev/shm must fail here, not
   * SIGBUS a writer) */
  if (ftruncate(fd, (off_t)total) == 0 && posix_fallocate(fd, 0, (off_t)total) == 0)
    p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    shm_unlink(name);
    *created = 0;
    return NULL;
  }
  hdr_t *h = p;
  h->size = (uint64_t)ops->size;
  h->vlen = vlen;
  h->magic = MAGIC;
  return p;
}

static void *attach(const char *name, size_t total, const fy_pmi_gather_ops_t *ops, size_t vlen) {
  int fd = shm_open(name, O_RDWR, 0);
  if (fd < 0) return NULL;
  struct stat st;
  void *p = MAP_FAILED;
  if (fstat(fd, &st) == 0 && (size_t)st.st_size == total)
    p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return NULL;
  const hdr_t *h = p;
  if (h->magic != MAGIC || h->size != (uint64_t)ops->size || h->vlen != vlen) {
    munmap(p, total);
    return NULL;
  }
  return p;
}

static int split(const fy_pmi_gather_ops_t *ops, const char *prefix, size_t vlen, char *out) {
  char name[300];
  unsigned g = gathers++;
  size_t total = 0;
  char *map = NULL;
  int created = 0, rc = -1;
  /* a node of one rank reads alone, with no file */
  int share = ops->local && ops->nlocal > 1 && ops->my_local >= 0 && ops->my_local < ops->nlocal;
  if ((size_t)ops->size > (SIZE_MAX - sizeof(hdr_t)) / vlen) share = 0;
  else total = sizeof(hdr_t) + (size_t)ops->size * vlen;
  if (share) {
    int n = snprintf(name, sizeof name, "/fy-%s-n%d-g%u", ops->job ? ops->job : "", ops->local[0], g);
    if (n < 0 || (size_t)n >= sizeof name) share = 0;
    for (char *p = name + 1; share && *p; p++)
      if (*p == '/') *p = '_';
  }
  if (share && ops->my_local == 0) map = create(name, total, ops, vlen, &created);
  if (ops->barrier() != 0) goto cleanup;
  if (share && ops->my_local != 0) map = attach(name, total, ops, vlen);
  if (map) {
    char *slots = map + sizeof(hdr_t);
    /* (a failed get leaves its slot empty: every reader gets it itself) */
    for (int r = ops->my_local; r < ops->size; r += ops->nlocal)
      get_one(ops, prefix, r, slots + (size_t)r * vlen, vlen);
    atomic_thread_fence(memory_order_release);
  }
  if (ops->barrier() != 0) goto cleanup;
  if (created) { /* every rank of the node has attached, or never will */
    shm_unlink(name);
    created = 0;
  }
  if (map) {
    atomic_thread_fence(memory_order_acquire);
    const char *slots = map + sizeof(hdr_t);
    for (int r = 0; r < ops->size; r++) {
      const char *s = slots + (size_t)r * vlen;
      if (s[0] && memchr(s, 0, vlen)) memcpy(out + (size_t)r * vlen, s, strlen(s) + 1);
    }
  }
  rc = fill(ops, prefix, vlen, out);
cleanup:
  if (created) shm_unlink(name);
  if (map) munmap(map, total);
  return rc;
}

int fy_pmi_gather_ops(const fy_pmi_gather_ops_t *ops, const char *prefix, size_t vlen, char *out) {
  if (vlen < 1 || ops->size < 0) return -1;
  for (int r = 0; r < ops->size; r++) out[(size_t)r * vlen] = 0;
  return ops->split ? split(ops, prefix, vlen, out) : fill(ops, prefix, vlen, out);
}

int fy_pmi_gather(const char *prefix, size_t vlen, char *out) {
  int size = 1, *local = NULL;
  if (fy_pmi_init(NULL, &size, NULL) != 0) return -1; /* (already done: its rank and size) */
  /* PMIx gets are answered by the node's own server, a singleton's by
   * itself: nothing to share */
  fy_pmi_gather_ops_t ops = {.get = fy_pmi_get, .barrier = fy_pmi_barrier, .job = fy_pmi_kvsname(),
                             .size = size, .split = !fy_pmi_is_singleton() && !fy_pmi_is_pmix()};
  if (ops.split && (local = malloc((size_t)size * sizeof *local)) &&
      fy_pmi_local_ranks(local, &ops.nlocal, &ops.my_local) == 0)
    ops.local = local;
  int rc = fy_pmi_gather_ops(&ops, prefix, vlen, out);
  free(local);
  return rc;
}
