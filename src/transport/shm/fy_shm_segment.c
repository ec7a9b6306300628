/* shm segment: creation by local rank 0, attachment by the others, unlink
 * once everyone is attached; per-rank state words. See fy_shm.h. */
#include "transport/shm/fy_shm_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

fy_shm_state_t fy_shm_g;

static void set_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(fy_shm_g.err, sizeof fy_shm_g.err, fmt, ap);
  va_end(ap);
}

const char *fy_shm_error(void) { return fy_shm_g.err; }
int fy_shm_local_rank(void) { return fy_shm_g.me; }
int fy_shm_local_size(void) { return fy_shm_g.n; }

/* /fy-<job_id>-0 with characters that shm_open refuses replaced. */
static int seg_name(char *out, size_t len, const char *job_id) {
  int n = snprintf(out, len, "/fy-%s-0", job_id);
  if (n < 0 || (size_t)n >= len) return -1;
  for (char *p = out + 1; *p; p++)
    if (*p == '/') *p = '_';
  return 0;
}

static void layout(fy_shm_hdr_t *h, const fy_shm_boot_t *b) {
  const size_t page = 4096;
  h->version = FY_SHM_VERSION;
  h->local_size = (uint32_t)b->local_size;
  h->ring_cells = b->ring_cells > 0 ? (uint64_t)b->ring_cells : FY_SHM_DEF_CELLS;
  h->cell_payload = b->cell_payload ? b->cell_payload : FY_SHM_DEF_PAYLOAD;
  h->cell_stride = FY_ALIGN_UP(FY_SHM_CELL_HDR + h->cell_payload, 64);
  h->pipe_slots = b->pipe_slots > 0                     ? (uint64_t)b->pipe_slots
                  : b->local_size <= FY_SHM_FEW_LOCAL ? FY_SHM_FEW_SLOTS
                                                      : FY_SHM_DEF_SLOTS;
  h->pipe_chunk = FY_ALIGN_UP(b->pipe_chunk ? b->pipe_chunk : FY_SHM_DEF_CHUNK, page);
  h->slot_stride = FY_SHM_LINE + h->pipe_chunk;
  h->rank_area = FY_ALIGN_UP(b->rank_area, FY_SHM_LINE);
  size_t n = (size_t)b->local_size;
  h->off_ranks = FY_ALIGN_UP(sizeof(fy_shm_hdr_t), page);
  h->rank_stride = sizeof(fy_shm_rank_t) + h->rank_area;
  h->off_rings = FY_ALIGN_UP(h->off_ranks + n * h->rank_stride, page);
  h->ring_stride = FY_ALIGN_UP(h->ring_cells * h->cell_stride, page);
  h->off_slots = h->off_rings + n * h->ring_stride;
  h->pool_stride = FY_ALIGN_UP(h->pipe_slots * h->slot_stride, page);
  h->total = h->off_slots + n * h->pool_stride;
}

/* Everything that only rank 0 writes, before it publishes the magic. */
static void format(fy_shm_hdr_t *h) {
  for (uint32_t r = 0; r < h->local_size; r++) {
    fy_shm_rank_t *rk = fy_shm_rank((int)r);
    atomic_init(&rk->futex[FY_SHM_WAIT_ANY], 0);
    atomic_init(&rk->futex[FY_SHM_WAIT_RNDV], 1);
    /* tail, head, cell seq (0 never equals pos + 1) and pipe slot states
     * (FREE) start at zero from ftruncate's zero fill */
  }
}

static void view(void) {
  fy_shm_hdr_t *h = fy_shm_g.hdr;
  fy_shm_g.cells = h->ring_cells;
  fy_shm_g.mask = h->ring_cells - 1;
  fy_shm_g.cell_stride = h->cell_stride;
  fy_shm_g.max_packet = h->cell_payload;
  fy_shm_g.my_cells = fy_shm_ring_cells(fy_shm_g.me);
}

/* The bytes free in /dev/shm, or -1 when statvfs cannot tell. */
static double shm_free_bytes(void) {
  struct statvfs v;
  return statvfs("/dev/shm", &v) == 0 ? (double)v.f_bavail * (double)v.f_frsize : -1.0;
}

/* The error of a segment that /dev/shm has no room for. Every local rank
 * gives it: the first rank to fail ends the job, and a rank that only
 * found the segment missing would otherwise hide local rank 0's reason. */
static void set_no_room(const char *name, size_t total, int e, int local_size) {
  char free_text[32] = "unknown";
  double f = shm_free_bytes();
  if (f >= 0) snprintf(free_text, sizeof free_text, "%.1f MiB", f / 1048576.0);
  set_err("shm: no room for the %zu-byte segment /dev/shm%s (%s): %s free in /dev/shm for %d "
          "local processes (a container's default is 64 MiB: docker run --shm-size; or shrink the "
          "receive rings' cells with a smaller FERRY_EAGER_THRESHOLD, e.g. 16384)",
          total, name, strerror(e), free_text, local_size);
}

/* Whether /dev/shm has fewer free bytes than len. */
static bool shm_lacks(size_t len) {
  double f = shm_free_bytes();
  return f >= 0 && f < (double)len;
}

/* A /dev/shm without room for the segment (a container's 64 MiB with a
 * dozen ranks): smaller ring cells, said once, where the job would
 * otherwise not start. If even those do not fit, creation fails as usual
 * with set_no_room's message. */
static void fit_cells(fy_shm_hdr_t *geo, const fy_shm_boot_t *b, bool say) {
  if (!b->cell_payload_min || b->cell_payload_min >= geo->cell_payload || !shm_lacks((size_t)geo->total)) return;
  fy_shm_boot_t small = *b;
  size_t want = (size_t)geo->total, from = (size_t)geo->cell_payload;
  small.cell_payload = b->cell_payload_min;
  layout(geo, &small);
  if (!say) return;
  fprintf(stderr,
          "ferry: /dev/shm has %.1f MiB free, too little for the %zu-byte segment of %d local "
          "processes with ring cells of %zu bytes; using cells of %zu bytes (%zu-byte segment), "
          "so messages above them no longer go eagerly (docker run --shm-size gives more room)\n",
          shm_free_bytes() / 1048576.0, want, b->local_size, from, (size_t)geo->cell_payload,
          (size_t)geo->total);
}

int fy_shm_init(const fy_shm_boot_t *b) {
  char name[300];
  int fd = -1, rc = -1, created = 0;
  memset(&fy_shm_g, 0, sizeof fy_shm_g);
  fy_shm_g.selective = true;
  fy_shm_g.cma_enabled = true;
  fy_shm_g.me = b->local_rank;
  fy_shm_g.n = b->local_size;
  if (b->local_size < 1 || b->local_rank < 0 || b->local_rank >= b->local_size || !b->job_id) {
    set_err("shm: bad boot parameters (local rank %d of %d)", b->local_rank, b->local_size);
    return -1;
  }
  if (b->ring_cells > 0 && (b->ring_cells & (b->ring_cells - 1))) {
    set_err("shm: ring_cells %ld is not a power of two", b->ring_cells);
    return -1;
  }
  if (seg_name(name, sizeof name, b->job_id)) {
    set_err("shm: job id '%s' too long for a segment name", b->job_id);
    return -1;
  }
  int (*barrier)(void) = b->barrier;
  bool failed = false;     /* keep calling the barriers so the peers never hang */

  if (b->local_rank == 0) {
    fy_shm_hdr_t geo;
    memset(&geo, 0, sizeof geo);
    layout(&geo, b);
    fit_cells(&geo, b, true);
    fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 && errno == EEXIST) {
      set_err("shm: stale segment /dev/shm%s exists (a job with the same id died?); "
              "remove it and retry", name);
      /* poison it so the peers, which open it by name, fail too */
      int sfd = shm_open(name, O_RDWR, 0);
      if (sfd >= 0) {
        struct stat st;
        if (!fstat(sfd, &st) && (size_t)st.st_size >= sizeof(fy_shm_hdr_t)) {
          void *p = mmap(NULL, sizeof(fy_shm_hdr_t), PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
          if (p != MAP_FAILED) {
            atomic_store(&((fy_shm_hdr_t *)p)->magic, FY_SHM_MAGIC_BAD);
            munmap(p, sizeof(fy_shm_hdr_t));
          }
        }
        close(sfd);
      }
      failed = true;
    } else if (fd < 0) {
      set_err("shm: shm_open(/dev/shm%s): %s", name, strerror(errno));
      failed = true;
    } else {
      created = 1;
      int e = fy_shm_size_file(fd, (size_t)geo.total);
      if (e == ENOSPC) {
        set_no_room(name, (size_t)geo.total, e, b->local_size);
        failed = true;
      } else if (e) {
        set_err("shm: sizing /dev/shm%s to %zu bytes: %s", name, (size_t)geo.total, strerror(e));
        failed = true;
      } else {
        void *p = mmap(NULL, geo.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
          set_err("shm: mmap %zu bytes: %s", (size_t)geo.total, strerror(errno));
          failed = true;
        } else {
          fy_shm_g.base = p;
          fy_shm_g.size = geo.total;
          fy_shm_g.hdr = p;
          memcpy((char *)p + sizeof(uint64_t), (char *)&geo + sizeof(uint64_t),
                 sizeof geo - sizeof(uint64_t));
          format(fy_shm_g.hdr);
          atomic_store_explicit(&fy_shm_g.hdr->magic, FY_SHM_MAGIC, memory_order_release);
        }
      }
      if (failed) {        /* the peers then fail with ENOENT */
        shm_unlink(name);
        created = 0;
      }
    }
  }
  if (barrier && barrier()) {
    set_err("shm: first init barrier failed");
    failed = true;
  }
  if (b->local_rank != 0 && !failed) {
    struct stat st;
    fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
      int e = errno;
      fy_shm_hdr_t geo; /* what local rank 0 tried to create (the same boot values) */
      memset(&geo, 0, sizeof geo);
      layout(&geo, b);
      fit_cells(&geo, b, false);
      if (e == ENOENT && shm_lacks((size_t)geo.total))
        set_no_room(name, (size_t)geo.total, ENOSPC, b->local_size);
      else
        set_err("shm: open /dev/shm%s: %s (local rank 0 failed to create it?)", name, strerror(e));
      failed = true;
    } else if (fstat(fd, &st) || (size_t)st.st_size < sizeof(fy_shm_hdr_t)) {
      set_err("shm: segment /dev/shm%s is too small", name);
      failed = true;
    } else {
      void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (p == MAP_FAILED) {
        set_err("shm: mmap %zu bytes: %s", (size_t)st.st_size, strerror(errno));
        failed = true;
      } else {
        fy_shm_g.base = p;
        fy_shm_g.size = (size_t)st.st_size;
        fy_shm_g.hdr = p;
        fy_shm_hdr_t *h = p;
        if (atomic_load_explicit(&h->magic, memory_order_acquire) != FY_SHM_MAGIC ||
            h->version != FY_SHM_VERSION || h->local_size != (uint32_t)b->local_size ||
            h->total != (uint64_t)st.st_size) {
          set_err("shm: segment /dev/shm%s is stale or does not match this job "
                  "(local size %d)", name, b->local_size);
          failed = true;
        }
      }
    }
  }
  if (!failed && (!(fy_shm_g.cached_head = calloc((size_t)b->local_size, sizeof(uint64_t))) ||
                  !(fy_shm_g.pipe_full = calloc((fy_shm_g.hdr->pipe_slots + 63) / 64, sizeof(uint64_t))))) {
    set_err("shm: out of memory");
    failed = true;
  }
  if (!failed) {
    view();
    fy_shm_prefault(fy_shm_g.base, fy_shm_g.size, b->prefault_max);
    fy_shm_rank_t *rk = fy_shm_rank(fy_shm_g.me);
    rk->pid = (int32_t)getpid();
    rk->base = (uint64_t)(uintptr_t)fy_shm_g.base;
    rk->probe_word = FY_SHM_MAGIC ^ (uint64_t)getpid();
  }
  if (barrier && barrier()) {
    set_err("shm: second init barrier failed");
    failed = true;
  }
  /* Everyone is attached: whoever gets here first removes the name, so no
   * process returns from init with the segment still in /dev/shm. */
  if (created || (!failed && b->local_rank != 0))
    if (shm_unlink(name) && errno != ENOENT && !failed) {
      set_err("shm: shm_unlink(/dev/shm%s): %s", name, strerror(errno));
      failed = true;
    }
  if (fd >= 0) close(fd);
  if (failed) goto out;
  fy_shm_cma_probe();
  rc = 0;
out:
  if (rc) {
    free(fy_shm_g.cached_head);
    fy_shm_g.cached_head = NULL;
    free(fy_shm_g.pipe_full);
    fy_shm_g.pipe_full = NULL;
    fy_shm_g.pipe_nfull = 0;
    if (fy_shm_g.base) munmap(fy_shm_g.base, fy_shm_g.size);
    fy_shm_g.base = NULL;
    fy_shm_g.hdr = NULL;
  }
  return rc;
}

int fy_shm_size_file(int fd, size_t len) {
  if (ftruncate(fd, (off_t)len) != 0) return errno;
  if (len && fallocate(fd, 0, 0, (off_t)len) != 0 && errno != EOPNOTSUPP && errno != ENOSYS) return errno;
  return 0;
}

void fy_shm_prefault(void *p, size_t len, size_t max) {
  if (!max || len > max) return;
#ifdef MADV_POPULATE_WRITE
  (void)madvise(p, len, MADV_POPULATE_WRITE); /* EINVAL on old kernels: fault in lazily */
#else
  (void)p;
#endif
}

void fy_shm_finalize(void) {
  free(fy_shm_g.cached_head);
  fy_shm_g.cached_head = NULL;
  free(fy_shm_g.pipe_full);
  fy_shm_g.pipe_full = NULL;
  fy_shm_g.pipe_nfull = 0;
  if (fy_shm_g.base) munmap(fy_shm_g.base, fy_shm_g.size);
  fy_shm_g.base = NULL;
  fy_shm_g.hdr = NULL;
}

pid_t fy_shm_pid(int local) { return (pid_t)fy_shm_rank(local)->pid; }
_Atomic uint32_t *fy_shm_in_mpi_word(int local) { return &fy_shm_rank(local)->in_mpi; }
void fy_shm_set_in_mpi(uint32_t v) {
  /* seq_cst: clearing it pairs with the kick's fence (fy_shm.h) */
  atomic_store_explicit(&fy_shm_rank(fy_shm_g.me)->in_mpi, v, memory_order_seq_cst);
}
void *fy_shm_rank_area(int local) {
  return (char *)fy_shm_rank(local) + sizeof(fy_shm_rank_t);
}
