/* mpi_f08: array sections in nonblocking and persistent collectives.
 *
 * A collective's buffers share one count and datatype (MPI_Iallreduce) or
 * count per process (MPI_Igather: block k starts k * count items on), so no
 * datatype of the section can stand in for it, as it does for a buffer
 * with a count of its own (fy_f08_buf.c). The wrapper copies the section
 * to a contiguous buffer instead (fy_f08_tmp) and hands that to the C
 * call; the operation outlives the call, so the copy is kept with the
 * request, and copied back into the section when the request completes,
 * exactly as if the section had been copied to a contiguous buffer (MPI
 * 4.1 19.1.12). A persistent collective's copy is refreshed from the
 * section at each MPI_Start, which is when the operation reads its input.
 *
 * Contract
 * - fy_f08_track(req, persistent, first, d, tmp, out, ierror): after the
 *   call that made request req, once per choice buffer (first: the call's
 *   first one), keeps the copy *tmp of section d (none: nothing kept) with
 *   req; out: copy it back on completion. When the call failed (ierror) the
 *   copy is freed instead. A request handle made again drops what an
 *   earlier request of that handle left (completed outside mpi_f08).
 * - fy_f08_req_before(reqs, n, kind) / fy_f08_req_after(mark, reqs): around
 *   every mpi_f08 call that completes, tests, starts or frees requests
 *   (kind 0, 1, 2), reqs the call's request or array of n requests.
 *   before: the kept requests among them (NULL when none: the common case
 *   costs one load); starting ones get their input copied from the section
 *   first. after: a request the call completed (its handle now
 *   MPI_REQUEST_NULL, or a persistent one now inactive) has its copies
 *   copied back, once, and a freed request's are freed; MPI_Request_get_status
 *   and MPI_Test* that only see completion copy back too, since the
 *   program may read the buffer from then on.
 * - Requests completed other than through mpi_f08 (MPI_Wait of C or of
 *   `use mpi`) never copy back. Freeing an active nonblocking collective
 *   is erroneous (MPI 4.1 6.12); its copy is then left allocated, since the
 *   operation may still write it.
 * - Thread-safe: the table has a lock; a request's copies are touched only
 *   by the one thread that waits on, starts or frees it (two threads doing
 *   that to one request is erroneous). */
#include "fy_fort.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "fy_f08_sec.h"

enum { MAX_BUF = 2 }; /* choice buffers of one collective call */

typedef struct pend {
  struct pend *next;
  MPI_Fint req;
  int persistent, nbuf;
  int done; /* the current activation's output copied back (or none started) */
  struct {
    void *tmp;
    int out;
    CFI_CDESC_T(CFI_MAX_RANK) d; /* (the caller's descriptor is gone after the call) */
  } b[MAX_BUF];
} pend_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pend_t *table;
static int ntable; /* (read unlocked: the fast path) */

/* req's entry, or NULL; under the lock. */
static pend_t *find_req(MPI_Fint req) {
  pend_t *p = table;
  while (p && p->req != req) p = p->next;
  return p;
}

/* Unlinks req's entry, if any; under the lock. */
static pend_t *unlink_req(MPI_Fint req) {
  for (pend_t **pp = &table; *pp; pp = &(*pp)->next)
    if ((*pp)->req == req) {
      pend_t *p = *pp;
      *pp = p->next;
      __atomic_store_n(&ntable, ntable - 1, __ATOMIC_RELAXED);
      return p;
    }
  return NULL;
}

static void drop(pend_t *p, int free_copies) {
  if (!p) return;
  for (int i = 0; free_copies && i < p->nbuf; i++) free(p->b[i].tmp);
  free(p);
}

static void copy_back(pend_t *p) {
  if (p->done) return;
  for (int i = 0; i < p->nbuf; i++)
    if (p->b[i].out) fy_f08_copy_sec((CFI_cdesc_t *)&p->b[i].d, p->b[i].tmp, 1);
  p->done = 1;
}

FY_F_API void fy_f08_track(const MPI_Fint *req, const MPI_Fint *persistent, const MPI_Fint *first,
                           CFI_cdesc_t *d, void **tmp, const MPI_Fint *out,
                           const MPI_Fint *ierror);
void fy_f08_track(const MPI_Fint *req, const MPI_Fint *persistent, const MPI_Fint *first,
                  CFI_cdesc_t *d, void **tmp, const MPI_Fint *out, const MPI_Fint *ierror) {
  pend_t *stale = NULL, *p = NULL;
  int ok = *ierror == MPI_SUCCESS;
  if (ok && *first) { /* a handle made again: its old entry is history */
    pthread_mutex_lock(&lock);
    stale = unlink_req(*req);
    pthread_mutex_unlock(&lock);
  }
  drop(stale, 1);
  if (!*tmp) return;
  if (!ok) goto free_copy;
  pthread_mutex_lock(&lock);
  p = find_req(*req);
  if (!p && (p = calloc(1, sizeof *p))) {
    p->req = *req;
    p->persistent = *persistent;
    p->done = *persistent; /* inactive until MPI_Start */
    p->next = table;
    table = p;
    __atomic_store_n(&ntable, ntable + 1, __ATOMIC_RELAXED);
  }
  if (p && p->nbuf < MAX_BUF) {
    int i = p->nbuf++;
    p->b[i].tmp = *tmp;
    p->b[i].out = *out;
    memcpy(&p->b[i].d, d, sizeof(CFI_cdesc_t) + (size_t)d->rank * sizeof(CFI_dim_t));
    *tmp = NULL;
  }
  pthread_mutex_unlock(&lock);
  /* (no memory for an entry: the copy stays with the operation, never
   * copied back, never freed) */
  return;
free_copy:
  free(*tmp);
  *tmp = NULL;
}

/* What fy_f08_req_before hands to fy_f08_req_after. */
typedef struct {
  int kind, n;
  struct {
    pend_t *p;
    int idx;
  } e[];
} mark_t;

static MPI_Fint *req_array(CFI_cdesc_t *reqs) { return (MPI_Fint *)reqs->base_addr; }

FY_F_API void *fy_f08_req_before(CFI_cdesc_t *reqs, const MPI_Fint *n, const MPI_Fint *kind);
void *fy_f08_req_before(CFI_cdesc_t *reqs, const MPI_Fint *n, const MPI_Fint *kind) {
  if (!__atomic_load_n(&ntable, __ATOMIC_RELAXED) || *n <= 0) return NULL;
  MPI_Fint *r = req_array(reqs);
  mark_t *m = NULL;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < *n; i++) {
    pend_t *p = r[i] == (MPI_Fint)MPI_REQUEST_NULL ? NULL : find_req(r[i]);
    if (!p) continue;
    if (!m) {
      if (!(m = malloc(sizeof *m + (size_t)*n * sizeof m->e[0]))) break;
      m->kind = *kind;
      m->n = 0;
    }
    m->e[m->n].p = p;
    m->e[m->n++].idx = i;
  }
  pthread_mutex_unlock(&lock);
  if (m && m->kind == 1) /* MPI_Start: the operation reads its input now */
    for (int i = 0; i < m->n; i++) {
      pend_t *p = m->e[i].p;
      if (!p->persistent || !p->done) continue; /* (starting an active one fails) */
      for (int k = 0; k < p->nbuf; k++) fy_f08_copy_sec((CFI_cdesc_t *)&p->b[k].d, p->b[k].tmp, 0);
      p->done = 0;
    }
  return m;
}

FY_F_API void fy_f08_req_after(void **mark, CFI_cdesc_t *reqs);
void fy_f08_req_after(void **mark, CFI_cdesc_t *reqs) {
  mark_t *m = *mark;
  if (!m) return;
  MPI_Fint *r = req_array(reqs);
  for (int i = 0; i < m->n; i++) {
    pend_t *p = m->e[i].p;
    if (r[m->e[i].idx] == (MPI_Fint)MPI_REQUEST_NULL) { /* completed or freed: gone */
      int active = !p->done;
      if (m->kind != 2) copy_back(p);
      pthread_mutex_lock(&lock);
      unlink_req(p->req);
      pthread_mutex_unlock(&lock);
      drop(p, m->kind != 2 || !active); /* (an active one freed may still write) */
    } else if (m->kind == 0 && !p->done) {
      /* still a handle: a persistent request the call completed is now
       * inactive, and MPI_Request_get_status or a test may have seen it
       * complete; either way the data is final and the program may read */
      int flag = 0;
      if (PMPI_Request_get_status((MPI_Request)p->req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
          flag)
        copy_back(p);
    }
  }
  free(m);
  *mark = NULL;
}
