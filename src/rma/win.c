/* Windows: creation (the four flavors), the window segment, free, attach/
 * detach, shared query, names, info, group. See fy_rma.h. */
#include "rma/fy_rma.h"
#include "core/fy_comm.h"
#include "core/fy_error.h"
#include "core/fy_handle.h"
#include "core/fy_init.h"
#include "core/fy_attr.h"
#include "core/fy_errhandler.h"
#include "pt2pt/fy_pt2pt.h"
#include "progress/fy_progress.h"
#include "runtime/fy_config.h"
#include "runtime/fy_pmi.h"
#include "transport/shm/fy_shm.h"
#include "binding/fy_impl.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SEG_MAGIC 0x46595257494e3031ull /* "FYRWIN01" */

static fy_htab_t win_tab = {.obj = FY_OK_WIN};
fy_win_t *fy_win_list;

fy_win_t *fy_win_get(MPI_Win h) { return fy_htab_get(&win_tab, h); }

/* Hooks other layers call (strong versions of their weak defaults). */
int fy_win_exists(MPI_Win win) { return fy_win_get(win) != NULL; }
fy_attr_t **fy_win_attrs(MPI_Win win) {
  fy_win_t *w = fy_win_get(win);
  return w ? (fy_attr_t **)&w->attrs : NULL;
}
MPI_Errhandler *fy_win_errhandler_slot(MPI_Win win) {
  fy_win_t *w = fy_win_get(win);
  return w ? &w->errhandler : NULL;
}
/* The attribute layer's setter for predefined attributes (helper branch);
 * absent until it is merged, then MPI_WIN_BASE & co. appear. */
extern int fy_attr_set_predefined(fy_attr_t **list, int keyval, void *value) __attribute__((weak));

typedef struct {
  int64_t size, disp_unit;
  uint64_t base;
  int32_t pid, local;
} win_info_t;

typedef struct {
  char name[128];
  uint64_t len;
  int32_t err;
  int32_t sys_errno;  /* why rank 0 could not create it */
} seg_info_t;

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static int info_flag(MPI_Info info, const char *key) {
  if (info == MPI_INFO_NULL) return 0;
  char v[32];
  int flag = 0;
  if (fy_mpi_info_get(info, key, (int)sizeof v - 1, v, &flag) != MPI_SUCCESS || !flag) return 0;
  return strcmp(v, "true") == 0 || strcmp(v, "1") == 0;
}

/* The four reorder info keys (seed 002 ch. 5) and their bits in w->reorder. */
static const struct { const char *key; unsigned bit; } reorder_keys[] = {
  {"mpi_win_access_after_access_reorder", FY_RO_AAA},
  {"mpi_win_access_after_exposure_reorder", FY_RO_AAE},
  {"mpi_win_exposure_after_exposure_reorder", FY_RO_EAE},
  {"mpi_win_exposure_after_access_reorder", FY_RO_EAA},
};
#define NREORDER_KEYS (sizeof reorder_keys / sizeof reorder_keys[0])

static void apply_info(fy_win_t *w, MPI_Info info) {
  for (size_t i = 0; i < NREORDER_KEYS; i++)
    if (info_flag(info, reorder_keys[i].key)) w->reorder |= reorder_keys[i].bit;
  if (info_flag(info, "no_locks")) w->no_locks = 1;
}

static int local_of(const fy_win_t *w, int r) {
  return fy_state.local_of_world[w->world_of[r]];
}

static void win_destroy(fy_win_t *w) {
  if (!w) return;
  fy_rma_am_destroy(w);
  if (w->seg) munmap(w->seg, w->seg_len);
  if (w->group) fy_group_release(w->group);
  free(w->world_of);
  free(w->peer);
  free(w->acc_issued);
  free(w->exp_issued);
  free(w->scratch);
  free(w);
}

/* Exchange the creation information and map the segment. Rank 0 of comm
 * gathers every rank's size/base, lays out and creates the segment, writes
 * every rank block, and sends back the name; the others map it. */
static int win_build(int flavor, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                     void *user_base, fy_win_t **out) {
  fy_comm_t *c = fy_comm_get(comm);
  if (!c || c->is_inter) return fy_err(MPI_ERR_COMM, "comm = %#x: windows need an intracommunicator", (unsigned)comm);
  if (size < 0) return fy_err(MPI_ERR_SIZE, "size = %ld is negative", (long)size);
  if (disp_unit <= 0) return fy_err(MPI_ERR_DISP, "disp_unit = %ld must be positive", (long)disp_unit);
  int n = c->size, me = c->rank, err = MPI_SUCCESS;
  fy_datatype_t *byte = fy_type_get(MPI_BYTE);
  fy_win_t *w = calloc(1, sizeof *w);
  if (!w) return fy_err(MPI_ERR_NO_MEM, "out of memory creating a window");
  w->flavor = flavor;
  w->model = MPI_WIN_UNIFIED;
  w->rank = me;
  w->size = n;
  w->disp_unit = disp_unit;
  w->errhandler = MPI_ERRORS_ARE_FATAL;
  w->mapped = flavor == FY_WIN_ALLOCATE || flavor == FY_WIN_SHARED;
  w->world_of = calloc((size_t)n, sizeof(int));
  w->peer = calloc((size_t)n, sizeof *w->peer);
  w->acc_issued = calloc((size_t)n, sizeof(uint64_t));
  w->exp_issued = calloc((size_t)n, sizeof(uint64_t));
  w->scratch = calloc((size_t)n, 1);
  if (!w->world_of || !w->peer || !w->acc_issued || !w->exp_issued || !w->scratch) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory creating a window");
    goto fail_local;
  }
  for (int r = 0; r < n; r++) w->world_of[r] = fy_comm_world_rank(c, r);
  int remote = fy_comm_remote_rank(c); /* a rank on another node: the window goes through am.c */
  w->group = fy_group_new(n, w->world_of);
  if (!w->group) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory creating a window");
    goto fail_local;
  }
  apply_info(w, info);
  w->reorder |= (unsigned)fy_config.rma_reorder & 15u;
  if (remote >= 0) {
    /* every rank sees a rank on another node alike, so all take this path */
    if (flavor == FY_WIN_SHARED) {
      err = fy_err(MPI_ERR_RMA_SHARED, "MPI_Win_allocate_shared: rank %d of comm is on another node; "
                   "shared memory spans one node", remote);
      goto fail_local;
    }
    w->mapped = 0;
    if ((err = fy_rma_am_setup(w, c, size, user_base))) goto fail_local;
    goto publish;
  }
  if (!w->mapped && flavor != FY_WIN_DYNAMIC && size > 0 && n > 1 && !fy_shm_cma_available()) {
    /* Without cross-memory attach a Win_create window could only be reached
     * through the target's CPU, which this design never uses. */
    err = fy_err(MPI_ERR_UNSUPPORTED_OPERATION,
                 "MPI_Win_create: cross-memory attach is not available (use MPI_Win_allocate)");
    /* still take part in the exchange so that nobody hangs */
  }

  win_info_t mine = {.size = size, .disp_unit = disp_unit, .base = (uint64_t)(uintptr_t)user_base,
                     .pid = (int32_t)getpid(), .local = fy_state.local_rank};
  seg_info_t si;
  memset(&si, 0, sizeof si);
  if (me != 0) {
    fy_request_t *sr, *rr;
    int e = fy_isend_internal(&mine, sizeof mine, byte, 0, FY_RMA_TAG_INFO, c, &sr);
    if (e) return e;
    e = fy_irecv_internal(&si, sizeof si, byte, 0, FY_RMA_TAG_SEG, c, &rr);
    if (e) return e;
    fy_req_wait_done(sr);
    fy_req_wait_done(rr);
    fy_req_release(sr);
    fy_req_release(rr);
  } else {
    win_info_t *all = calloc((size_t)n, sizeof *all);
    if (!all) return fy_err(MPI_ERR_NO_MEM, "out of memory creating a window");
    all[0] = mine;
    for (int r = 1; r < n; r++) {
      fy_request_t *rr;
      int e = fy_irecv_internal(&all[r], sizeof all[r], byte, r, FY_RMA_TAG_INFO, c, &rr);
      if (e) return e;
      fy_req_wait_done(rr);
      fy_req_release(rr);
    }
    /* layout */
    size_t off = sizeof(fy_win_seg_t);
    off = round_up(off + (size_t)n * sizeof(fy_win_rankblk_t), 128);
    off += 2 * (size_t)n * (size_t)n * sizeof(fy_rma_ctr_t);
    off += (size_t)n * (size_t)n * sizeof(fy_rma_dpair_t);
    off = round_up(off, 4096);
    uint64_t *doff = calloc((size_t)n, sizeof *doff);
    if (!doff) return fy_err(MPI_ERR_NO_MEM, "out of memory creating a window");
    if (w->mapped) {
      for (int r = 0; r < n; r++) {
        doff[r] = off;
        /* Win_allocate_shared is contiguous across ranks (the standard's
         * default); Win_allocate aligns each rank to a cache line. */
        off += flavor == FY_WIN_SHARED ? (size_t)all[r].size : round_up((size_t)all[r].size, 64);
      }
    }
    size_t len = round_up(off + 64, 4096);
    /* Named after the job (fy-<kvsname>-...), so mpiexec removes it with
     * the job's other segments if a rank dies before it is unlinked; a
     * name left by an earlier job whose pid came back is skipped. */
    static unsigned counter;
    si.len = len;
    void *seg = MAP_FAILED;
    int fd = -1, serr = 0;
    for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
      snprintf(si.name, sizeof si.name, "/fy-%s-rma-%d-%u", fy_pmi_kvsname(), (int)getpid(), counter++);
      fd = shm_open(si.name, O_CREAT | O_EXCL | O_RDWR, 0600);
      if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) serr = errno;
    if (fd >= 0 && !serr) serr = fy_shm_size_file(fd, len);
    if (fd < 0 || serr || (seg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
      if (!serr) serr = errno;
      si.err = MPI_ERR_NO_MEM;
      si.sys_errno = serr;
      if (fd >= 0) shm_unlink(si.name);
    } else {
      fy_win_seg_t *h = seg;
      h->n = (uint32_t)n;
      fy_win_rankblk_t *blk = (fy_win_rankblk_t *)((char *)seg + sizeof(fy_win_seg_t));
      for (int r = 0; r < n; r++) {
        blk[r].base = all[r].base;
        blk[r].size = (uint64_t)all[r].size;
        blk[r].disp_unit = all[r].disp_unit;
        blk[r].pid = all[r].pid;
        blk[r].local = all[r].local;
        blk[r].data_off = doff[r];
      }
      atomic_store_explicit((_Atomic uint64_t *)&h->magic, SEG_MAGIC, memory_order_release);
      w->seg = seg;
    }
    if (fd >= 0) close(fd);
    free(doff);
    free(all);
    fy_request_t **sr = calloc((size_t)n, sizeof *sr);
    if (!sr) return fy_err(MPI_ERR_NO_MEM, "out of memory creating a window");
    for (int r = 1; r < n; r++) {
      int e = fy_isend_internal(&si, sizeof si, byte, r, FY_RMA_TAG_SEG, c, &sr[r]);
      if (e) return e;
    }
    for (int r = 1; r < n; r++) {
      fy_req_wait_done(sr[r]);
      fy_req_release(sr[r]);
    }
    free(sr);
  }
  if (si.err) {
    err = fy_err(MPI_ERR_NO_MEM, "could not create the window's shared segment /dev/shm%s: %s", si.name,
                 strerror(si.sys_errno));
    goto fail_local;
  }
  w->seg_len = si.len;
  if (me != 0) {
    int fd = shm_open(si.name, O_RDWR, 0600);
    void *seg = fd < 0 ? MAP_FAILED : mmap(NULL, si.len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0) close(fd);
    if (seg == MAP_FAILED) {
      err = fy_err(MPI_ERR_NO_MEM, "could not map the window's shared segment %s", si.name);
      goto fail_local;
    }
    w->seg = seg;
  }
  w->hdr = w->seg;
  w->blk = (fy_win_rankblk_t *)((char *)w->seg + sizeof(fy_win_seg_t));
  {
    size_t off = round_up(sizeof(fy_win_seg_t) + (size_t)n * sizeof(fy_win_rankblk_t), 128);
    w->ce = (fy_rma_ctr_t *)((char *)w->seg + off);
    w->dn = w->ce + (size_t)n * (size_t)n;
    w->dp = (fy_rma_dpair_t *)(w->dn + (size_t)n * (size_t)n);
  }
  for (int r = 0; r < n; r++) {
    fy_win_peer_t *p = &w->peer[r];
    p->size = w->blk[r].size;
    p->disp_unit = (MPI_Aint)w->blk[r].disp_unit;
    p->local = local_of(w, r);
    p->raddr = w->blk[r].base;
    if (w->mapped) p->addr = (char *)w->seg + w->blk[r].data_off;
    else if (r == me) p->addr = user_base;
  }
  w->base = w->mapped ? w->peer[me].addr : user_base;
  if (w->mapped && size == 0) w->base = NULL;
  w->bytes = size;
  /* creation barrier: rank 0 unlinks the name once everybody mapped it */
  atomic_fetch_add_explicit(&w->hdr->attached, 1, memory_order_acq_rel);
  if (me == 0) {
    while (atomic_load_explicit(&w->hdr->attached, memory_order_acquire) < (uint32_t)n) {
      fy_progress_poll();
      sched_yield();
    }
    shm_unlink(si.name);
  }
  if (err) goto fail_local;
publish:
  w->handle = fy_htab_add(&win_tab, w);
  if (!w->handle) {
    err = fy_err(MPI_ERR_NO_MEM, "out of window handles");
    goto fail_local;
  }
  fy_plock();
  w->next = fy_win_list;
  fy_win_list = w;
  fy_punlock();
  fy_rma_hook_ensure();
  if (fy_attr_set_predefined) {
    static int flavors[] = {0, MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_SHARED,
                            MPI_WIN_FLAVOR_DYNAMIC};
    static int model = MPI_WIN_UNIFIED;
    fy_attr_t **l = (fy_attr_t **)&w->attrs;
    fy_attr_set_predefined(l, MPI_WIN_BASE, w->base);
    fy_attr_set_predefined(l, MPI_WIN_SIZE, &w->bytes);
    fy_attr_set_predefined(l, MPI_WIN_DISP_UNIT, &w->disp_unit);
    fy_attr_set_predefined(l, MPI_WIN_CREATE_FLAVOR, &flavors[flavor]);
    fy_attr_set_predefined(l, MPI_WIN_MODEL, &model);
  }
  *out = w;
  return MPI_SUCCESS;
fail_local:
  win_destroy(w);
  return err;
}

int fy_mpi_win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        MPI_Win *win) {
  fy_win_t *w;
  int err = win_build(FY_WIN_CREATE, size, disp_unit, info, comm, base, &w);
  if (err) return err;
  *win = w->handle;
  return MPI_SUCCESS;
}
int fy_mpi_win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  return fy_mpi_win_create_c(base, size, disp_unit, info, comm, win);
}

int fy_mpi_win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                          MPI_Win *win) {
  fy_win_t *w;
  int err = win_build(FY_WIN_ALLOCATE, size, disp_unit, info, comm, NULL, &w);
  if (err) return err;
  *(void **)baseptr = w->base;
  *win = w->handle;
  return MPI_SUCCESS;
}
int fy_mpi_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) {
  return fy_mpi_win_allocate_c(size, disp_unit, info, comm, baseptr, win);
}

int fy_mpi_win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                 void *baseptr, MPI_Win *win) {
  fy_win_t *w;
  int err = win_build(FY_WIN_SHARED, size, disp_unit, info, comm, NULL, &w);
  if (err) return err;
  *(void **)baseptr = w->base;
  *win = w->handle;
  return MPI_SUCCESS;
}
int fy_mpi_win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                               MPI_Win *win) {
  return fy_mpi_win_allocate_shared_c(size, disp_unit, info, comm, baseptr, win);
}

int fy_mpi_win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  fy_win_t *w;
  int err = win_build(FY_WIN_DYNAMIC, 0, 1, info, comm, NULL, &w);
  if (err) return err;
  *win = w->handle;
  return MPI_SUCCESS;
}

int fy_mpi_win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr) {
  fy_win_t *w = fy_win_get(win);
  /* MPI 4.1 allows the query on MPI_Win_create's windows too: a process's
   * own memory is there, a peer's is not mapped (size 0, NULL). */
  if (w->flavor == FY_WIN_DYNAMIC)
    return fy_err(MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query: the window is dynamic (its memory is attached "
                  "region by region)");
  if (rank == MPI_PROC_NULL) {
    for (int r = 0; r < w->size; r++)
      if (w->peer[r].size > 0 && (w->peer[r].addr || w->flavor == FY_WIN_SHARED)) {
        rank = r;
        break;
      }
    if (rank == MPI_PROC_NULL) {
      *size = 0;
      *disp_unit = w->peer[0].disp_unit;
      *(void **)baseptr = NULL;
      return MPI_SUCCESS;
    }
  }
  if (rank < 0 || rank >= w->size)
    return fy_err(MPI_ERR_RANK, "rank = %d is not a rank of the window (size %d)", rank, w->size);
  if ((w->am && rank != w->rank) || !w->peer[rank].addr) {
    /* on another node, reached by messages, or not mapped: no memory to share */
    *size = 0;
    *disp_unit = w->peer[rank].disp_unit;
    *(void **)baseptr = NULL;
    return MPI_SUCCESS;
  }
  *size = (MPI_Aint)w->peer[rank].size;
  *disp_unit = w->peer[rank].disp_unit;
  *(void **)baseptr = w->peer[rank].size ? w->peer[rank].addr : NULL;
  return MPI_SUCCESS;
}
int fy_mpi_win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr) {
  MPI_Aint du;
  int err = fy_mpi_win_shared_query_c(win, rank, size, &du, baseptr);
  if (!err) *disp_unit = (int)du;
  return err;
}

/* Dynamic windows: the region table in my rank block is read by origins
 * under a seqlock (odd while I change it). */
int fy_mpi_win_attach(MPI_Win win, void *base, MPI_Aint size) {
  fy_win_t *w = fy_win_get(win);
  if (w->flavor != FY_WIN_DYNAMIC)
    return fy_err(MPI_ERR_RMA_FLAVOR, "MPI_Win_attach: the window is not dynamic");
  if (size < 0) return fy_err(MPI_ERR_SIZE, "size = %ld is negative", (long)size);
  if (size > 0 && !base) return fy_err(MPI_ERR_ARG, "base = NULL with size %ld", (long)size);
  if (size > 0 && !w->am && !fy_shm_cma_available() && w->size > 1)
    return fy_err(MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Win_attach: cross-memory attach is not available");
  fy_win_rankblk_t *b = &w->blk[w->rank];
  uintptr_t lo = (uintptr_t)base, hi = lo + (uintptr_t)size;
  for (uint32_t i = 0; i < b->ndyn; i++) {
    uintptr_t l2 = (uintptr_t)b->dyn[i].base, h2 = l2 + (uintptr_t)b->dyn[i].size;
    if (lo < h2 && l2 < hi)
      return fy_err(MPI_ERR_RMA_ATTACH, "MPI_Win_attach: [%p, +%ld) overlaps an attached region", base,
                    (long)size);
  }
  if (b->ndyn == FY_RMA_DYN_MAX)
    return fy_err(MPI_ERR_RMA_ATTACH, "MPI_Win_attach: at most %d regions may be attached", FY_RMA_DYN_MAX);
  atomic_fetch_add_explicit(&b->dyn_seq, 1, memory_order_acq_rel);
  b->dyn[b->ndyn].base = lo;
  b->dyn[b->ndyn].size = (uint64_t)size;
  b->ndyn++;
  atomic_fetch_add_explicit(&b->dyn_seq, 1, memory_order_acq_rel);
  return MPI_SUCCESS;
}

int fy_mpi_win_detach(MPI_Win win, const void *base) {
  fy_win_t *w = fy_win_get(win);
  if (w->flavor != FY_WIN_DYNAMIC)
    return fy_err(MPI_ERR_RMA_FLAVOR, "MPI_Win_detach: the window is not dynamic");
  fy_win_rankblk_t *b = &w->blk[w->rank];
  for (uint32_t i = 0; i < b->ndyn; i++)
    if (b->dyn[i].base == (uint64_t)(uintptr_t)base) {
      atomic_fetch_add_explicit(&b->dyn_seq, 1, memory_order_acq_rel);
      b->dyn[i] = b->dyn[b->ndyn - 1];
      b->ndyn--;
      atomic_fetch_add_explicit(&b->dyn_seq, 1, memory_order_acq_rel);
      return MPI_SUCCESS;
    }
  return fy_err(MPI_ERR_RMA_ATTACH, "MPI_Win_detach: base = %p is not an attached region", base);
}

/* ---- free, blocking or not (MPIX_Win_ifree, seed 002 ch. 6) ----
 * The call checks the window's epochs and deletes its attributes; its
 * handle dies then. What follows waits for the other members and runs as
 * steps of a progress hook until the request completes: the window's
 * epochs drain, every member gets here (nobody may still be reading or
 * writing my memory), then the object goes. Until then the window stays
 * in fy_win_list: it goes on serving the accesses of members that have
 * not got here yet. MPI_Win_free is the same request waited for at once. */
typedef struct win_free {
  struct win_free *next;
  fy_win_t *w;
  fy_request_t *req;
  int checked;         /* a window across nodes: its checks passed */
  int counted;         /* a window in shared memory: entered the free barrier */
  fy_rma_free_t am;
} win_free_t;

static win_free_t *frees;
static int frees_hooked, frees_running;

/* One free's steps; 1 when it has ended (r->status.MPI_ERROR says how). */
static int free_step(win_free_t *f) {
  fy_win_t *w = f->w;
  if (w->am) {
    if (!f->checked) {
      int ready, err = fy_rma_am_free_check(w, &ready, f->am.fname);
      if (!ready) return 0;
      if (err) {
        f->req->status.MPI_ERROR = err;
        return 1;
      }
      f->checked = 1;
    }
    if (!fy_rma_am_free_step(w, &f->am)) return 0;
    f->req->status.MPI_ERROR = f->am.err;
    return 1;
  }
  if (!f->counted) {
    if (!fy_rma_win_quiet(w)) return 0;
    /* every rank's own epochs are complete once it gets here, so a
     * counter barrier suffices */
    atomic_fetch_add_explicit(&w->hdr->freeing, 1, memory_order_acq_rel);
    for (int r = 0; r < w->size; r++) fy_rma_wake(w, r);
    f->counted = 1;
  }
  return atomic_load_explicit(&w->hdr->freeing, memory_order_acquire) >= (uint32_t)w->size;
}

static int frees_progress(void) {
  /* Frees memory and starts collectives: never in a signal turn or on an
   * agent thread, nor from a pass a step of its own started. */
  if (!frees || frees_running || fy_progress_agent || fy_pt2pt_in_signal) return 0;
  frees_running = 1;
  int n = 0;
  for (win_free_t **pp = &frees; *pp;) {
    win_free_t *f = *pp;
    if (!free_step(f)) {
      pp = &f->next;
      continue;
    }
    *pp = f->next;
    fy_win_t *w = f->w;
    if (!f->req->status.MPI_ERROR || f->checked || !w->am) { /* (a failed check leaves the window up) */
      for (fy_win_t **p = &fy_win_list; *p; p = &(*p)->next)
        if (*p == w) {
          *p = w->next;
          break;
        }
      fy_htab_remove(&win_tab, w->handle);
      win_destroy(w);
    }
    fy_req_complete(f->req);
    free(f);
    n++;
  }
  frees_running = 0;
  return n;
}

static int win_ifree(MPI_Win *win, MPI_Request *request, const char *fname) {
  fy_win_t *w = fy_win_get(*win);
  int err, ready = 1;
  win_free_t *f = calloc(1, sizeof *f);
  fy_request_t *r = fy_req_alloc(FY_REQ_RMA, request != NULL);
  if (!f || !r) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory in %s", fname);
    goto fail;
  }
  if (!frees_hooked) {
    if (fy_progress_hook_add(frees_progress) != 0) {
      err = fy_err(MPI_ERR_INTERN, "no progress hook left for %s", fname);
      goto fail;
    }
    frees_hooked = 1;
  }
  /* The errors the standard lets the call return while the window is
   * still the user's: an open epoch. On a window across nodes with
   * nonblocking synchronization calls still pending, the blocking call
   * waits for them first; the nonblocking one checks when they end and
   * reports through its request. */
  if (w->am) {
    if (!request) fy_progress_wait(fy_rma_am_free_ready, w);
    if ((err = fy_rma_am_free_check(w, &ready, fname))) goto fail;
  } else if ((err = fy_rma_win_quiesce(w, fname))) {
    goto fail;
  }
  if (w->attrs && (err = fy_attr_delete_all(FY_OK_WIN, w->handle, (fy_attr_t **)&w->attrs))) goto fail;
  fy_errhandler_release(w->errhandler);
  w->errhandler = MPI_ERRHANDLER_NULL;
  fy_status_empty(&r->status);
  r->status.MPI_ERROR = MPI_SUCCESS;
  f->w = w;
  f->req = r;
  f->checked = ready;
  f->am.fname = fname;
  fy_plock();
  f->next = frees;
  frees = f;
  *win = MPI_WIN_NULL;
  frees_progress(); /* (under the lock, as from a pass: the lists are shared with other threads) */
  fy_punlock();
  return fy_req_give_or_wait(r, request);
fail:
  if (r) fy_req_release(r);
  free(f);
  return err;
}

int fy_mpi_win_free(MPI_Win *win) { return win_ifree(win, NULL, "MPI_Win_free"); }
int fy_mpix_win_ifree(MPI_Win *win, MPI_Request *request) { return win_ifree(win, request, "MPIX_Win_ifree"); }

int fy_mpi_win_get_group(MPI_Win win, MPI_Group *group) {
  fy_win_t *w = fy_win_get(win);
  fy_group_t *g = fy_group_new(w->size, w->world_of);
  if (!g) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  int err = fy_group_publish(g);
  if (err) {
    fy_group_release(g);
    return err;
  }
  *group = g->handle;
  return MPI_SUCCESS;
}

int fy_mpi_win_set_name(MPI_Win win, const char *name) {
  fy_win_t *w = fy_win_get(win);
  if (!name) return fy_err(MPI_ERR_ARG, "win_name = NULL");
  snprintf(w->name, sizeof w->name, "%s", name);
  return MPI_SUCCESS;
}

int fy_mpi_win_get_name(MPI_Win win, char *name, int *len) {
  fy_win_t *w = fy_win_get(win);
  if (!name || !len) return fy_err(MPI_ERR_ARG, "win_name or resultlen is NULL");
  snprintf(name, MPI_MAX_OBJECT_NAME, "%s", w->name);
  *len = (int)strlen(name);
  return MPI_SUCCESS;
}

int fy_mpi_win_set_info(MPI_Win win, MPI_Info info) {
  fy_win_t *w = fy_win_get(win);
  apply_info(w, info);
  return MPI_SUCCESS;
}

int fy_mpi_win_get_info(MPI_Win win, MPI_Info *info_used) {
  fy_win_t *w = fy_win_get(win);
  int err = fy_mpi_info_create(info_used);
  if (err) return err;
  for (size_t i = 0; i < NREORDER_KEYS; i++)
    fy_mpi_info_set(*info_used, reorder_keys[i].key, (w->reorder & reorder_keys[i].bit) ? "true" : "false");
  fy_mpi_info_set(*info_used, "no_locks", w->no_locks ? "true" : "false");
  fy_mpi_info_set(*info_used, "accumulate_ordering", "rar,raw,war,waw");
  fy_mpi_info_set(*info_used, "accumulate_ops", "same_op_no_op");
  return MPI_SUCCESS;
}

/* MPI_Alloc_mem: plain memory (windows over it use cross-memory attach). */
int fy_mpi_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
  (void)info;
  if (size < 0) return fy_err(MPI_ERR_SIZE, "size = %ld is negative", (long)size);
  void *p = malloc(size ? (size_t)size : 1);
  if (!p) return fy_err(MPI_ERR_NO_MEM, "MPI_Alloc_mem: cannot allocate %ld bytes", (long)size);
  *(void **)baseptr = p;
  return MPI_SUCCESS;
}
int fy_mpi_free_mem(void *base) {
  free(base);
  return MPI_SUCCESS;
}
