/* Buffered mode: MPI_Buffer_attach/detach and the copy of each buffered
 * message into the attached buffer, from which an internal standard send
 * moves it. Space is managed first-fit over the blocks in use, each block
 * charged MPI_BSEND_OVERHEAD bytes as the standard describes. */
#include "pt2pt/pt2pt_impl.h"
#include "progress/fy_progress.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>

typedef struct block {
  struct block *next;  /* sorted by offset */
  size_t off, size;
  fy_request_t *req;
} block_t;

static char *buf_base;
static size_t buf_size;
static block_t *blocks;
static int pending;

static void on_sent(fy_request_t *r) {
  block_t **pp = &blocks;
  while (*pp && (*pp)->req != r) pp = &(*pp)->next;
  if (*pp) {
    block_t *b = *pp;
    *pp = b->next;
    free(b);
  }
  /* release: detach, which reads it without the lock, may reuse the
   * buffer once it sees 0 */
  __atomic_store_n(&pending, pending - 1, __ATOMIC_RELEASE);
  r->user_freed = 1; /* internal: released at completion */
}

/* First fit: returns the block or NULL. */
static block_t *alloc_block(size_t need) {
  size_t at = 0;
  block_t **pp = &blocks;
  while (1) {
    size_t end = *pp ? (*pp)->off : buf_size;
    if (end >= at && end - at >= need) break;
    if (!*pp) return NULL;
    at = (*pp)->off + (*pp)->size;
    pp = &(*pp)->next;
  }
  block_t *b = malloc(sizeof *b);
  if (!b) return NULL;
  b->off = at;
  b->size = need;
  b->next = *pp;
  *pp = b;
  return b;
}

int fy_bsend_start(fy_request_t *r) {
  if (fy_req_begin(r)) return MPI_SUCCESS;
  size_t bytes = r->bytes;
  size_t need = bytes + MPI_BSEND_OVERHEAD; /* exactly what the standard tells users to reserve */
  fy_plock();
  block_t *b = buf_base ? alloc_block(need) : NULL;
  if (!b && pending) {
    /* Let earlier buffered sends drain, then try again. */
    fy_progress_poll_locked();
    b = buf_base ? alloc_block(need) : NULL;
  }
  if (!b) {
    fy_punlock();
    if (!buf_base)
      return fy_err(MPI_ERR_BUFFER, "buffered send of %zu bytes to rank %d with no buffer attached (MPI_Buffer_attach)",
                    bytes, r->peer);
    return fy_err(MPI_ERR_BUFFER,
                  "buffered send of %zu bytes (+%d overhead) to rank %d does not fit in the attached buffer of %zu bytes",
                  bytes, MPI_BSEND_OVERHEAD, r->peer, buf_size);
  }
  char *data = buf_base + b->off;
  fy_type_pack(r->type, r->count, r->sbuf, data);
  fy_request_t *s = fy_req_alloc(FY_REQ_SEND, 0);
  if (!s) fy_abort(MPI_ERR_NO_MEM, "out of request objects");
  fy_req_setup(s, FY_REQ_SEND, FY_MODE_STD, data, (MPI_Count)bytes, fy_type_get(MPI_BYTE), r->peer,
               r->tag, r->comm, 0);
  s->ctx = r->ctx;
  s->on_complete = on_sent;
  b->req = s;
  __atomic_store_n(&pending, pending + 1, __ATOMIC_RELAXED);
  fy_punlock();
  fy_send_start(s);
  fy_req_complete(r);
  return MPI_SUCCESS;
}

int fy_mpi_buffer_attach(void *buffer, int size) {
  if (buf_base)
    return fy_err(MPI_ERR_BUFFER, "a buffer of %zu bytes is already attached", buf_size);
  if (size < 0) return fy_err(MPI_ERR_ARG, "size = %d is negative", size);
  buf_base = buffer;
  buf_size = (size_t)size;
  return MPI_SUCCESS;
}

int fy_mpi_buffer_attach_c(void *buffer, MPI_Count size) {
  if (size > INT32_MAX) size = INT32_MAX;
  return fy_mpi_buffer_attach(buffer, (int)size);
}

static int no_pending(void *arg) { return __atomic_load_n(&pending, __ATOMIC_ACQUIRE) == 0; }

static int detach(void *buffer_addr, MPI_Count *size) {
  if (!buf_base) {
    *(void **)buffer_addr = NULL;
    *size = 0;
    return MPI_SUCCESS;
  }
  fy_progress_wait(no_pending, NULL);
  *(void **)buffer_addr = buf_base;
  *size = (MPI_Count)buf_size;
  buf_base = NULL;
  buf_size = 0;
  return MPI_SUCCESS;
}

int fy_mpi_buffer_detach(void *buffer_addr, int *size) {
  MPI_Count s;
  int err = detach(buffer_addr, &s);
  *size = (int)s;
  return err;
}

int fy_mpi_buffer_detach_c(void *buffer_addr, MPI_Count *size) { return detach(buffer_addr, size); }
