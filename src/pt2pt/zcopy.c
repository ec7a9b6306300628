/* Rendezvous of derived datatypes: the layout descriptors, the iovec copy
 * loop and the packing sender's pieces. See pt2pt_impl.h and
 * docs/datatypes.md.
 *
 * A side moves its data in place when cross-memory attach works and its
 * blocks average at least FERRY_ZC_MIN_BLOCK bytes (a kernel iovec costs
 * more than copying a few bytes twice). Otherwise a sender is "lazy": it
 * packs while it copies (bounce-buffer pieces, or straight into pipe
 * slots), and a receiver stages the data and unpacks it (or unpacks
 * straight from pipe slots); the copy then sees a contiguous buffer on
 * that side.
 *
 * Shared staging: a receiver that stages a packing sender's data while
 * both wait (SHARE) stages it in a memfd mapping of its own (one per
 * process, reused, grown as needed up to FERRY_STAGE_MAX) and publishes
 * the fd; the sender maps it through /proc/<pid>/fd (allowed wherever
 * cross-memory attach is) and packs straight into it, so the data crosses
 * no kernel copy: the sender packs, the receiver unpacks what has arrived.
 * A header at the end of the memfd lets the sender reuse the place of a
 * piece the receiver has already unpacked and that lies FERRY_STAGE_RING
 * bytes back (a ring that stays in the shared cache while both keep pace;
 * an unused place when the receiver lags, so the sender never waits):
 * loc[k] says where piece k went. */
#include "pt2pt/pt2pt_impl.h"
#include "datatype/fy_datatype.h"
#include "runtime/fy_config.h"
#include "transport/shm/fy_shm.h"
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif
#define NIOV (IOV_MAX < 1024 ? IOV_MAX : 1024)

int fy_zc_in_place(const fy_request_t *r) {
  const fy_datatype_t *t = r->type;
  if (t->is_contig || !fy_config.cma || !fy_shm_cma_available()) return 0;
  /* counted once per type (a loop over every run here cost 7-9 % of an
   * indexed ping-pong) */
  MPI_Count blocks = t->pk_blocks;
  if (blocks == 0) return 0;
  return t->size / blocks >= (MPI_Count)fy_config.zc_min_block;
}

/* ---- shared staging ---- */

/* The staging memfd: the data area from offset 0 (what r->tmp and the
 * descriptor's base point to), this header in its last STAGE_HDR bytes. */
#define STAGE_HDR ((size_t)64 << 10)
typedef struct {
  _Atomic uint64_t unpacked; /* receiver: stream bytes unpacked (their places may be reused) */
  uint64_t chunk;            /* sender: piece size of loc[]; 0: every piece at its own offset */
  uint32_t loc[];            /* piece k (stream bytes from k*chunk) is at data + loc[k]*chunk */
} stage_hdr_t;
#define STAGE_NLOC ((STAGE_HDR - sizeof(stage_hdr_t)) / sizeof(uint32_t))

static struct {
  char *base;
  size_t size;
  int fd;
  uint32_t gen; /* a new memfd, a new generation (fd numbers are reused) */
  int busy;     /* one staged receive at a time; others malloc */
} stage = {.fd = -1};

/* A peer's staging buffer as mapped here (by local rank). */
typedef struct {
  uint32_t gen;
  int failed;   /* could not map it: write by cross-memory attach */
  char *base;   /* the data; the header in the last STAGE_HDR bytes */
  size_t size;
  uint64_t reuse, fresh; /* this transfer: next piece whose place may be reused, next unused place */
} peer_stage_t;
static peer_stage_t *pstage;
static int npstage;

#define STAGE_FD(f) ((int)(((uint64_t)(f) >> 8) & 0xffffff))
#define STAGE_GEN(f) ((uint32_t)((uint64_t)(f) >> 32))

void *fy_zc_stage_get(size_t n) {
  if (fy_config.stage_max <= 0 || n > (size_t)fy_config.stage_max || stage.busy || n == 0) return NULL;
  if (n + STAGE_HDR > stage.size) {
    size_t sz = (n + STAGE_HDR + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
    if (stage.base) munmap(stage.base, stage.size);
    if (stage.fd >= 0) close(stage.fd);
    stage.base = NULL;
    stage.size = 0;
    stage.fd = memfd_create("ferry-stage", MFD_CLOEXEC);
    if (stage.fd < 0) return NULL;
    void *m = MAP_FAILED;
    if (stage.fd <= 0xffffff && ftruncate(stage.fd, (off_t)sz) == 0)
      m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, stage.fd, 0);
    if (m == MAP_FAILED) {
      close(stage.fd);
      stage.fd = -1;
      return NULL;
    }
    stage.base = m;
    stage.size = sz;
    stage.gen++;
  }
  stage.busy = 1;
  stage_hdr_t *h = (stage_hdr_t *)(stage.base + stage.size - STAGE_HDR);
  atomic_store_explicit(&h->unpacked, 0, memory_order_relaxed);
  h->chunk = 0; /* the sender sets it if it places pieces itself (published by the slot's CTS) */
  return stage.base;
}

int fy_zc_staged(const fy_request_t *r) {
  return stage.busy && r->tmp && (char *)r->tmp == stage.base;
}

void fy_zc_tmp_unpack(fy_request_t *r, size_t from, size_t to) {
  if (!fy_zc_staged(r)) {
    fy_type_unpack_range(r->type, r->count, r->rbuf, from, to - from, (char *)r->tmp + from);
    return;
  }
  stage_hdr_t *h = (stage_hdr_t *)(stage.base + stage.size - STAGE_HDR);
  size_t c = (size_t)h->chunk; /* read after `done` (acquire) showed the first piece */
  if (!c) {
    fy_type_unpack_range(r->type, r->count, r->rbuf, from, to - from, (char *)r->tmp + from);
    atomic_store_explicit(&h->unpacked, to, memory_order_release);
    return;
  }
  while (from < to) { /* piece by piece: each may sit anywhere in the data area */
    size_t k = from / c, end = (k + 1) * c < to ? (k + 1) * c : to;
    size_t at = k < STAGE_NLOC ? (size_t)h->loc[k] * c + (from - k * c) : from;
    fy_type_unpack_range(r->type, r->count, r->rbuf, from, end - from, (char *)r->tmp + at);
    from = end;
    atomic_store_explicit(&h->unpacked, from, memory_order_release); /* the sender may reuse it now */
  }
}

void fy_zc_tmp_free(fy_request_t *r) {
  if (fy_zc_staged(r)) stage.busy = 0;
  else free(r->tmp);
  r->tmp = NULL;
}

/* The receiver's staging buffer mapped here, at least `need` bytes; NULL
 * when it cannot be (the caller writes by cross-memory attach). */
static char *peer_stage(int peer_local, const fy_zdesc_t *d, size_t need) {
  if (peer_local >= npstage) {
    int n = fy_shm_local_size();
    if (peer_local >= n) return NULL;
    peer_stage_t *p = realloc(pstage, (size_t)n * sizeof *p);
    if (!p) return NULL;
    memset(p + npstage, 0, (size_t)(n - npstage) * sizeof *p);
    pstage = p;
    npstage = n;
  }
  peer_stage_t *m = &pstage[peer_local];
  uint32_t gen = STAGE_GEN(d->flags);
  if (m->base && m->gen == gen) return m->size >= need ? m->base : NULL;
  if (m->failed) return NULL;
  if (m->base) munmap(m->base, m->size);
  m->base = NULL;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)fy_shm_pid(peer_local), STAGE_FD(d->flags));
  int fd = open(path, O_RDWR | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
    if (fd >= 0) close(fd);
    m->failed = 1; /* not allowed here: never try again */
    return NULL;
  }
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return NULL;
  m->base = p;
  m->size = (size_t)st.st_size;
  m->gen = gen;
  return m->size >= need ? m->base : NULL;
}

void fy_zc_describe(fy_zdesc_t *d, const fy_request_t *r, const void *data, int sender) {
  memset(d, 0, sizeof *d);
  const fy_datatype_t *t = r->type;
  if (t->is_contig || r->tmp || !fy_zc_in_place(r)) {
    d->base = (uint64_t)(uintptr_t)data;
    if (sender && !t->is_contig && !r->tmp) d->flags = FY_ZD_LAZY; /* not packed yet */
    if (!sender && fy_zc_staged(r))
      d->flags = (int64_t)(FY_ZD_STAGE | ((uint64_t)stage.fd << 8) | ((uint64_t)stage.gen << 32));
    return;
  }
  d->base = (uint64_t)(uintptr_t)r->rbuf; /* sbuf and rbuf are the user buffer */
  d->segs = (uint64_t)(uintptr_t)t->pk.segs;
  d->nsegs = t->pk.nsegs;
  d->rep = t->pk.rep;
  d->rep_stride = t->pk.rep_stride;
  d->extent = t->extent;
  d->count = r->count;
  d->size = t->size;
}

void fy_zc_pack_cb(void *arg, size_t off, void *data, size_t len) {
  fy_request_t *r = arg;
  fy_type_pack_range(r->type, r->count, r->sbuf, off, len, data);
}

void fy_zc_unpack_cb(void *arg, size_t off, void *data, size_t len) {
  fy_request_t *r = arg;
  fy_type_unpack_range(r->type, r->count, r->rbuf, off, len, data);
}

/* A flat view of a descriptor (segs/pre allocated for a peer's layout). */
typedef struct {
  fy_flat_t f;
  fy_seg_t one;
  MPI_Count pre1[2];
  MPI_Count count;
  uintptr_t base;
  int owned;
} view_t;

static int view_of(view_t *v, const fy_zdesc_t *d, int peer_local, int remote, size_t n) {
  memset(v, 0, sizeof *v);
  v->base = (uintptr_t)d->base;
  if (d->nsegs == 0) { /* one contiguous block */
    v->one = (fy_seg_t){0, (MPI_Aint)n, 1, 0, 1, MPI_BYTE};
    v->f = (fy_flat_t){&v->one, 1, v->pre1, 1, 0, 0, (MPI_Aint)n};
    v->count = 1;
    fy_flat_prefix(&v->f);
    return 0;
  }
  v->f.nsegs = d->nsegs;
  v->f.rep = d->rep;
  v->f.rep_stride = d->rep_stride;
  v->f.extent = d->extent;
  v->count = d->count;
  v->f.pre = malloc((size_t)(d->nsegs + 1) * sizeof *v->f.pre);
  if (!v->f.pre) return -1;
  v->owned = 1;
  if (!remote) {
    v->f.segs = (fy_seg_t *)(uintptr_t)d->segs;
  } else {
    v->f.segs = malloc((size_t)d->nsegs * sizeof *v->f.segs);
    v->owned = 2;
    if (!v->f.segs ||
        fy_shm_cma_read(peer_local, v->f.segs, (const void *)(uintptr_t)d->segs,
                        (size_t)d->nsegs * sizeof *v->f.segs) != 0)
      return -1;
  }
  fy_flat_prefix(&v->f);
  return 0;
}

static void view_free(view_t *v) {
  if (v->owned) free(v->f.pre);
  if (v->owned == 2) free(v->f.segs);
}

int fy_zc_copy(int peer_local, const fy_zdesc_t *mine, const fy_zdesc_t *peer, size_t from, size_t n,
               int write) {
  view_t lv, rv;
  int rc = -1;
  struct iovec *liov = NULL, *riov = NULL;
  if (view_of(&lv, mine, peer_local, 0, n) || view_of(&rv, peer, peer_local, 1, n)) goto out;
  liov = malloc(2 * NIOV * sizeof *liov);
  if (!liov) goto out;
  riov = liov + NIOV;
  size_t chunk = fy_config.cma_chunk > 0 ? (size_t)fy_config.cma_chunk : n, off = from;
  int niov = NIOV;
  while (off < n) {
    size_t want = n - off < chunk ? n - off : chunk, lb, rb;
    int nl = fy_flat_iov(&lv.f, lv.count, lv.base, off, liov, niov, want, &lb);
    int nr = fy_flat_iov(&rv.f, rv.count, rv.base, off, riov, niov, lb, &rb);
    if (rb == 0) { errno = EFAULT; goto out; }
    if (rb < lb) { /* the peer's list ran out of entries first: cut ours to match */
      size_t acc = 0;
      int i = 0;
      while (acc + liov[i].iov_len < rb) acc += liov[i++].iov_len;
      liov[i].iov_len = rb - acc;
      nl = i + 1;
    }
    ssize_t k = fy_shm_cma_v(peer_local, liov, (unsigned long)nl, riov, (unsigned long)nr, write);
    if (k < 0 && (errno == ENOMEM || errno == EINVAL) && niov > 1) {
      niov /= 2; /* the kernel could not take that many iovecs: fewer per call */
      continue;
    }
    if (k <= 0) goto out;
    off += (size_t)k;
  }
  rc = 0;
out:
  free(liov);
  view_free(&lv);
  view_free(&rv);
  return rc;
}

/* A sender that packs as it copies: pack a cache-sized piece into a bounce
 * buffer, write it to the receiver (its buffer or its layout), repeat. */
int fy_zc_pack_write(fy_request_t *r, int peer_local, const fy_zdesc_t *peer, uint64_t raddr, size_t from,
                     size_t n) {
  static char *bounce;
  static size_t bounce_len;
  size_t chunk = fy_config.cma_chunk > 0 ? (size_t)fy_config.cma_chunk : (size_t)128 << 10;
  if (bounce_len < chunk) {
    free(bounce);
    bounce_len = 0;
    if (!(bounce = malloc(chunk))) return -1;
    bounce_len = chunk;
  }
  if (!peer->nsegs && (peer->flags & FY_ZD_STAGE) && raddr == peer->base) {
    /* the receiver's shared staging buffer: pack straight into it */
    char *m = peer_stage(peer_local, peer, n + STAGE_HDR);
    if (m) {
      peer_stage_t *ps = &pstage[peer_local];
      stage_hdr_t *h = (stage_hdr_t *)(m + ps->size - STAGE_HDR);
      char *data = m;
      size_t c = chunk, k = from / c;
      if (from % c || n - from > c || k >= STAGE_NLOC || fy_config.stage_ring <= 0 || (k && h->chunk != c)) {
        /* Not a piece of a run of pieces that the table covers: at its own
         * offset (beyond the table, that is where the receiver looks, and
         * no place reused earlier lies that far) */
        fy_type_pack_range(r->type, r->count, r->sbuf, from, n - from, data + from);
        return 0;
      }
      if (k == 0) { /* the first piece of a transfer */
        ps->reuse = ps->fresh = 0;
        h->chunk = c;
      }
      /* the oldest piece's place if the receiver has unpacked it (it
       * publishes `unpacked` after unpacking) and at least FERRY_STAGE_RING
       * bytes were packed since (so that it has left this core's cache
       * for the shared one: rewriting lines the other core just read, or
       * reading lines this core just wrote, moves them between the cores'
       * own caches line by line), else an unused one */
      uint64_t u = atomic_load_explicit(&h->unpacked, memory_order_acquire);
      uint32_t at;
      if ((k - ps->reuse) * c >= (size_t)fy_config.stage_ring && u >= (ps->reuse + 1) * c)
        at = h->loc[ps->reuse++];
      else at = (uint32_t)ps->fresh++;
      fy_type_pack_range(r->type, r->count, r->sbuf, from, n - from, data + (size_t)at * c);
      h->loc[k] = at; /* published with `done` (release) by the caller */
      return 0;
    }
  }
  for (size_t off = from; off < n; off += chunk) {
    size_t len = n - off < chunk ? n - off : chunk;
    fy_type_pack_range(r->type, r->count, r->sbuf, off, len, bounce);
    /* seen from the copy loop, the bounce buffer holds bytes [off, off+len) */
    fy_zdesc_t mine = {.base = (uint64_t)(uintptr_t)bounce - off};
    int rc = peer->nsegs ? fy_zc_copy(peer_local, &mine, peer, off, off + len, 1)
                         : fy_shm_cma_write(peer_local, (void *)(uintptr_t)(raddr + off), bounce, len);
    if (rc) return rc;
  }
  return 0;
}
