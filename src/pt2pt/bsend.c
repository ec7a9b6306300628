/* Buffered mode: MPI_Buffer_attach/detach/flush (the process's buffer),
 * MPI_Comm_attach/detach/flush_buffer and MPI_Session_* (MPI 4.1: a
 * communicator's own buffer is used in preference, then the buffer of the
 * session the communicator derives from, then the process's), and the copy
 * of each buffered message into a buffer, from which an internal standard
 * send moves it. Space is managed first-fit over the blocks in use, each
 * block charged MPI_BSEND_OVERHEAD bytes as the standard describes.
 * MPI_BUFFER_AUTOMATIC (the null pointer, as in MPICH) attaches no user
 * memory: each buffered message then gets its own allocation, freed once
 * sent, so a buffered send never fails for lack of buffer space. */
#include "pt2pt/pt2pt_impl.h"
#include "progress/fy_progress.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include "core/fy_session.h"
#include <stdlib.h>
#include <string.h>

typedef struct block {
  struct block *next;  /* sorted by offset */
  size_t off, size;
  fy_request_t *req;
  char *data;          /* the message's bytes (in the buffer, or after the block when automatic) */
} block_t;

typedef struct fy_bpool {
  char *base;        /* NULL: nothing attached, or automatic */
  int automatic;     /* MPI_BUFFER_AUTOMATIC attached */
  size_t size;
  block_t *blocks;
  int pending;       /* internal sends not yet complete */
  fy_request_t *flushers[8]; /* MPI_*_iflush_buffer requests waiting for pending == 0 */
  int nflush;
} fy_bpool_t;

static fy_bpool_t proc_pool;

static void on_sent(fy_request_t *r) {
  fy_bpool_t *pool = r->cb_arg;
  block_t **pp = &pool->blocks;
  while (*pp && (*pp)->req != r) pp = &(*pp)->next;
  if (*pp) {
    block_t *b = *pp;
    *pp = b->next;
    free(b);
  }
  /* release: detach, which reads it without the lock, may reuse the
   * buffer once it sees 0 */
  __atomic_store_n(&pool->pending, pool->pending - 1, __ATOMIC_RELEASE);
  r->user_freed = 1; /* internal: released at completion */
  if (pool->pending == 0) {
    for (int i = 0; i < pool->nflush; i++) fy_req_complete(pool->flushers[i]);
    pool->nflush = 0;
  }
}

static int attached(const fy_bpool_t *pool) { return pool && (pool->base || pool->automatic); }

/* First fit (automatic: an allocation of its own, kept in the list so that
 * flush and detach see it): returns the block or NULL. */
static block_t *alloc_block(fy_bpool_t *pool, size_t need) {
  if (pool->automatic) {
    block_t *b = malloc(sizeof *b + need);
    if (!b) return NULL;
    b->off = 0;
    b->size = need;
    b->data = (char *)(b + 1);
    b->next = pool->blocks;
    pool->blocks = b;
    return b;
  }
  if (!pool->base) return NULL;
  size_t at = 0;
  block_t **pp = &pool->blocks;
  while (1) {
    size_t end = *pp ? (*pp)->off : pool->size;
    if (end >= at && end - at >= need) break;
    if (!*pp) return NULL;
    at = (*pp)->off + (*pp)->size;
    pp = &(*pp)->next;
  }
  block_t *b = malloc(sizeof *b);
  if (!b) return NULL;
  b->off = at;
  b->size = need;
  b->data = pool->base + at;
  b->next = *pp;
  *pp = b;
  return b;
}

int fy_bsend_start(fy_request_t *r) {
  if (fy_req_begin(r)) return MPI_SUCCESS;
  size_t bytes = r->bytes;
  size_t need = bytes + MPI_BSEND_OVERHEAD; /* exactly what the standard tells users to reserve */
  fy_plock();
  /* The communicator's buffer if it has one, else its session's, else the
   * process's. */
  fy_bpool_t *pool = r->comm->bpool;
  if (!attached(pool)) {
    fy_bpool_t **ss = r->comm->session ? fy_session_bpool_slot(r->comm->session) : NULL;
    pool = ss && attached(*ss) ? *ss : &proc_pool;
  }
  block_t *b = alloc_block(pool, need);
  if (!b && pool->pending) {
    /* Let earlier buffered sends drain, then try again. */
    fy_progress_poll_locked();
    b = alloc_block(pool, need);
  }
  if (!b) {
    fy_punlock();
    if (pool->automatic) return fy_err(MPI_ERR_NO_MEM, "out of memory buffering a send of %zu bytes", bytes);
    if (!pool->base)
      return fy_err(MPI_ERR_BUFFER, "buffered send of %zu bytes to rank %d with no buffer attached (MPI_Buffer_attach)",
                    bytes, r->peer);
    return fy_err(MPI_ERR_BUFFER,
                  "buffered send of %zu bytes (+%d overhead) to rank %d does not fit in the attached buffer of %zu bytes",
                  bytes, MPI_BSEND_OVERHEAD, r->peer, pool->size);
  }
  char *data = b->data;
  fy_type_pack(r->type, r->count, r->sbuf, data);
  fy_request_t *s = fy_req_alloc(FY_REQ_SEND, 0);
  if (!s) fy_abort(MPI_ERR_NO_MEM, "out of request objects");
  fy_req_setup(s, FY_REQ_SEND, FY_MODE_STD, data, (MPI_Count)bytes, fy_type_get(MPI_BYTE), r->peer,
               r->tag, r->comm, 0);
  s->ctx = r->ctx;
  s->on_complete = on_sent;
  s->cb_arg = pool;
  b->req = s;
  __atomic_store_n(&pool->pending, pool->pending + 1, __ATOMIC_RELAXED);
  fy_punlock();
  fy_send_start(s);
  fy_req_complete(r);
  return MPI_SUCCESS;
}

static int attach(fy_bpool_t *pool, void *buffer, MPI_Count size, const char *what) {
  if (pool->automatic) return fy_err(MPI_ERR_BUFFER, "MPI_BUFFER_AUTOMATIC is already attached to %s", what);
  if (pool->base)
    return fy_err(MPI_ERR_BUFFER, "a buffer of %zu bytes is already attached to %s", pool->size, what);
  if (!buffer) { /* MPI_BUFFER_AUTOMATIC: size is ignored */
    pool->automatic = 1;
    pool->size = 0;
    return MPI_SUCCESS;
  }
  if (size < 0) return fy_err(MPI_ERR_ARG, "size = %lld is negative", (long long)size);
  pool->base = buffer;
  pool->size = (size_t)size;
  return MPI_SUCCESS;
}

static int no_pending(void *arg) {
  fy_bpool_t *pool = arg;
  return __atomic_load_n(&pool->pending, __ATOMIC_ACQUIRE) == 0;
}

/* Every buffered send from the pool has been moved out of it. */
static int flush(fy_bpool_t *pool) {
  if (__atomic_load_n(&pool->pending, __ATOMIC_ACQUIRE)) fy_progress_wait(no_pending, pool);
  return MPI_SUCCESS;
}

/* A request that completes once every buffered send from the pool has left
 * it (at once if none is pending). */
static int iflush(fy_bpool_t *pool, MPI_Request *request) {
  fy_request_t *r = fy_req_alloc(FY_REQ_MULTI, 1);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of request objects");
  fy_status_empty(&r->status);
  r->status.MPI_ERROR = MPI_SUCCESS;
  int err = MPI_SUCCESS;
  fy_plock();
  if (!pool || pool->pending == 0) {
    fy_req_complete(r);
  } else if (pool->nflush == (int)(sizeof pool->flushers / sizeof pool->flushers[0])) {
    err = fy_err(MPI_ERR_OTHER, "too many nonblocking buffer flushes pending at once (%d)", pool->nflush);
  } else {
    pool->flushers[pool->nflush++] = r;
  }
  fy_punlock();
  if (err) {
    fy_req_release(r);
    return err;
  }
  *request = r->handle;
  return MPI_SUCCESS;
}

/* Nothing attached gives NULL and 0, as MPICH does; MPI_BUFFER_AUTOMATIC
 * gives itself (also NULL) and 0. */
static int detach(fy_bpool_t *pool, void *buffer_addr, MPI_Count *size) {
  if (!attached(pool)) {
    *(void **)buffer_addr = NULL;
    *size = 0;
    return MPI_SUCCESS;
  }
  flush(pool);
  *(void **)buffer_addr = pool->base;
  *size = (MPI_Count)pool->size;
  pool->base = NULL;
  pool->automatic = 0;
  pool->size = 0;
  return MPI_SUCCESS;
}

/* A communicator's pool is made at its first attach and kept with it (a
 * send still in flight may point at it). */
static fy_bpool_t *comm_pool(MPI_Comm comm, int create) {
  fy_comm_t *c = fy_comm_get(comm);
  if (!c->bpool && create) c->bpool = calloc(1, sizeof *c->bpool);
  return c->bpool;
}

int fy_mpi_buffer_attach(void *buffer, int size) { return attach(&proc_pool, buffer, size, "the process"); }
int fy_mpi_buffer_attach_c(void *buffer, MPI_Count size) { return attach(&proc_pool, buffer, size, "the process"); }
int fy_mpi_buffer_detach(void *buffer_addr, int *size) {
  MPI_Count s;
  int err = detach(&proc_pool, buffer_addr, &s);
  *size = s > INT32_MAX ? INT32_MAX : (int)s;
  return err;
}
int fy_mpi_buffer_detach_c(void *buffer_addr, MPI_Count *size) { return detach(&proc_pool, buffer_addr, size); }
int fy_mpi_buffer_flush(void) { return flush(&proc_pool); }
int fy_mpi_buffer_iflush(MPI_Request *request) { return iflush(&proc_pool, request); }

int fy_mpi_comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size) {
  fy_bpool_t *pool = comm_pool(comm, 1);
  if (!pool) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  return attach(pool, buffer, size, fy_comm_get(comm)->name[0] ? fy_comm_get(comm)->name : "the communicator");
}
int fy_mpi_comm_attach_buffer(MPI_Comm comm, void *buffer, int size) {
  return fy_mpi_comm_attach_buffer_c(comm, buffer, size);
}
int fy_mpi_comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size) {
  fy_bpool_t *pool = comm_pool(comm, 0);
  if (!pool) {
    *(void **)buffer_addr = NULL;
    *size = 0;
    return MPI_SUCCESS;
  }
  return detach(pool, buffer_addr, size);
}
int fy_mpi_comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size) {
  MPI_Count s;
  int err = fy_mpi_comm_detach_buffer_c(comm, buffer_addr, &s);
  *size = s > INT32_MAX ? INT32_MAX : (int)s;
  return err;
}
int fy_mpi_comm_flush_buffer(MPI_Comm comm) {
  fy_bpool_t *pool = comm_pool(comm, 0);
  return pool ? flush(pool) : MPI_SUCCESS;
}
int fy_mpi_comm_iflush_buffer(MPI_Comm comm, MPI_Request *request) {
  return iflush(comm_pool(comm, 0), request);
}

/* A session's pool, made at its first attach and freed by
 * MPI_Session_finalize. */
static int session_pool(MPI_Session session, int create, fy_bpool_t **out) {
  fy_bpool_t **slot = fy_session_bpool_slot(session);
  if (!slot) return fy_err(MPI_ERR_SESSION, "session = %#x is not a valid session", (unsigned)session);
  if (!*slot && create && !(*slot = calloc(1, sizeof **slot))) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  *out = *slot;
  return MPI_SUCCESS;
}
int fy_mpi_session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size) {
  fy_bpool_t *pool = NULL;
  int err = session_pool(session, 1, &pool);
  return err ? err : attach(pool, buffer, size, "the session");
}
int fy_mpi_session_attach_buffer(MPI_Session session, void *buffer, int size) {
  return fy_mpi_session_attach_buffer_c(session, buffer, size);
}
int fy_mpi_session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size) {
  fy_bpool_t *pool = NULL;
  int err = session_pool(session, 0, &pool);
  if (err) return err;
  if (!pool) {
    *(void **)buffer_addr = NULL;
    *size = 0;
    return MPI_SUCCESS;
  }
  return detach(pool, buffer_addr, size);
}
int fy_mpi_session_detach_buffer(MPI_Session session, void *buffer_addr, int *size) {
  MPI_Count s;
  int err = fy_mpi_session_detach_buffer_c(session, buffer_addr, &s);
  if (!err) *size = s > INT32_MAX ? INT32_MAX : (int)s;
  return err;
}
int fy_mpi_session_flush_buffer(MPI_Session session) {
  fy_bpool_t *pool = NULL;
  int err = session_pool(session, 0, &pool);
  return err ? err : pool ? flush(pool) : MPI_SUCCESS;
}
int fy_mpi_session_iflush_buffer(MPI_Session session, MPI_Request *request) {
  fy_bpool_t *pool = NULL;
  int err = session_pool(session, 0, &pool);
  return err ? err : iflush(pool, request);
}
