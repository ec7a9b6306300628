/* Requests and their completion calls (Wait/Test families, Start,
 * Request_free, Request_get_status, Cancel): see fy_request.h. */
#include "core/fy_request.h"
#include "core/fy_handle.h"
#include "core/fy_error.h"
#include "core/fy_errhandler.h"
#include "datatype/fy_datatype.h"
#include "core/fy_comm.h"
#include "pt2pt/fy_pt2pt.h"
#include "progress/fy_progress.h"
#include "binding/fy_impl.h"
#include "progress/async/fy_async.h"
#include "coll/sched/fy_sched.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static fy_request_t *free_reqs;

/* Requests live in slabs that stay until MPI is finalized: a request's
 * handle is its slot (a direct handle), found without a table. The slab
 * directory never moves, so fy_req_get reads it without the progress lock
 * while an agent allocates (a schedule's step). */
#define REQ_SLAB 256
#define REQ_FIRST FY_HTAB_FIRST
#define REQ_MAX_SLABS (((1 << 26) - REQ_FIRST) / REQ_SLAB)
static fy_request_t *slabs[REQ_MAX_SLABS];
static int nslabs;

static int slab_grow(void) {
  if (nslabs == REQ_MAX_SLABS) return -1;
  fy_request_t *s = calloc(REQ_SLAB, sizeof *s);
  if (!s) return -1;
  for (int i = REQ_SLAB - 1; i >= 0; i--) {
    s[i].hidx = REQ_FIRST + nslabs * REQ_SLAB + i;
    s[i].free_next = free_reqs;
    free_reqs = &s[i];
  }
  slabs[nslabs] = s;
  __atomic_store_n(&nslabs, nslabs + 1, __ATOMIC_RELEASE);
  return 0;
}

fy_request_t fy_req_sent = {
  .handle = FY_REQ_SENT, .kind = FY_REQ_SEND, .mode = FY_MODE_STD, .active = 1, .done = 1,
  .status = {.MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG, .MPI_ERROR = MPI_SUCCESS},
  .peer_local = -1,
};

/* The free list and the slabs are shared with progress agents (which
 * release user-freed requests on completion, and allocate a schedule's
 * requests): both under the progress lock. */
/* Requests are zeroed through the C library's memset: inlined, gcc
 * clears the 392 bytes with `rep stosq`, whose start-up cost made it 64 %
 * of fy_req_alloc and an eighth of a small Isend (perf, 8-byte streams);
 * the library's vector stores take a fraction of that. */
static void *(*volatile req_zero)(void *, int, size_t) = memset;

fy_request_t *fy_req_alloc(int kind, int with_handle) {
  fy_plock();
  if (!free_reqs && slab_grow() != 0) {
    fy_punlock();
    return NULL;
  }
  fy_request_t *r = free_reqs;
  free_reqs = r->free_next;
  int hidx = r->hidx;
  req_zero(r, 0, sizeof *r);
  r->hidx = hidx;
  r->kind = (uint8_t)kind;
  r->handle = with_handle ? fy_h_make(FY_HK_DIRECT, FY_OK_REQUEST, hidx) : MPI_REQUEST_NULL;
  fy_punlock();
  return r;
}

fy_request_t *fy_req_get(MPI_Request h) {
  if (h == FY_REQ_SENT) return &fy_req_sent;
  if (fy_h_kind(h) != FY_HK_DIRECT || fy_h_obj(h) != FY_OK_REQUEST) return NULL;
  unsigned i = (unsigned)(fy_h_index(h) - REQ_FIRST);
  if (i >= (unsigned)__atomic_load_n(&nslabs, __ATOMIC_ACQUIRE) * REQ_SLAB) return NULL;
  fy_request_t *r = &slabs[i / REQ_SLAB][i % REQ_SLAB];
  /* a released request (or an internal one) has no handle: stale handles miss */
  return __atomic_load_n(&r->handle, __ATOMIC_RELAXED) == h ? r : NULL;
}

void fy_req_release(fy_request_t *r) {
  if (r == &fy_req_sent) return; /* shared, never released */
  fy_plock();
  fy_async_unwatch(r);
  if (r->kind == FY_REQ_COLL) fy_sched_req_free(r);
  if (r->kind == FY_REQ_GREQ && r->gfree) r->gfree(r->cb_arg);
  if (r->kind == FY_REQ_PART) fy_part_free(r);
  __atomic_store_n(&r->handle, MPI_REQUEST_NULL, __ATOMIC_RELAXED);
  if (r->tmp && r->tmp_owned) free(r->tmp);
  fy_type_release(r->type); /* taken by fy_req_setup */
  fy_comm_release(r->comm); /* taken by fy_req_setup */
  r->free_next = free_reqs;
  free_reqs = r;
  fy_punlock();
}

void fy_req_complete(fy_request_t *r) {
  if (r->tmp && r->tmp_owned && r->kind == FY_REQ_SEND && !r->persistent) {
    free(r->tmp);
    r->tmp = NULL;
    r->tmp_owned = 0;
  }
  if (r->on_complete) r->on_complete(r);
  atomic_store_explicit(&r->done, 1, memory_order_release);
  if (r->user_freed && !r->persistent) fy_req_release(r);
}

void fy_req_finalize(void) {
  for (int i = 0; i < nslabs; i++) {
    free(slabs[i]);
    slabs[i] = NULL;
  }
  nslabs = 0;
  free_reqs = NULL;
}

/* ---- status ---- */

void fy_status_set_count(MPI_Status *s, MPI_Count bytes) {
  s->count_lo = (int)(bytes & 0xffffffff);
  s->count_hi_and_cancelled = (s->count_hi_and_cancelled & 1) | (int)((bytes >> 32) << 1);
}

MPI_Count fy_status_get_count(const MPI_Status *s) {
  /* the high 31 bits unsigned: a count from 2^62 on sets the int's sign */
  return (MPI_Count)(unsigned)s->count_lo | ((MPI_Count)((unsigned)s->count_hi_and_cancelled >> 1) << 32);
}

void fy_status_set_cancelled(MPI_Status *s, int flag) {
  s->count_hi_and_cancelled = (s->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
}

int fy_status_cancelled(const MPI_Status *s) { return s->count_hi_and_cancelled & 1; }

void fy_status_empty(MPI_Status *s) {
  s->MPI_SOURCE = MPI_ANY_SOURCE;
  s->MPI_TAG = MPI_ANY_TAG;
  s->MPI_ERROR = MPI_SUCCESS;
  s->count_lo = 0;
  s->count_hi_and_cancelled = 0;
}

void fy_status_out(MPI_Status *dst, const MPI_Status *src, int set_error) {
  if (dst == MPI_STATUS_IGNORE) return;
  int e = dst->MPI_ERROR;
  *dst = *src;
  if (!set_error) dst->MPI_ERROR = e;
}

/* ---- completion calls ---- */

/* index >= 0: the request is array_of_requests[index] (named only in the
 * error message, so the common path formats nothing). */
static int req_check_at(MPI_Request h, fy_request_t **out, int index) {
  *out = NULL;
  if (h == MPI_REQUEST_NULL) return MPI_SUCCESS;
  fy_request_t *r = fy_req_get(h);
  if (!r || r->kind == FY_REQ_MSG) {
    if (index < 0) return fy_err(MPI_ERR_REQUEST, "request = %#x is not a valid request", (unsigned)h);
    return fy_err(MPI_ERR_REQUEST, "array_of_requests[%d] = %#x is not a valid request", index,
                  (unsigned)h);
  }
  *out = r;
  return MPI_SUCCESS;
}



/* Inactive: null handle, or a persistent request not started. */
static int inactive(fy_request_t *r) { return !r || (r->persistent && !r->active); }

/* Finish a completed request: status out, free or deactivate. Returns the
 * request's error (truncation) for the caller to raise. */
/* A generalized request's status comes from its query callback. */
static void greq_query(fy_request_t *r) {
  if (r->kind != FY_REQ_GREQ || !r->gquery) return;
  int e = r->gquery(r->cb_arg, &r->status);
  if (e) r->status.MPI_ERROR = e;
}

static int finish(MPI_Request *h, fy_request_t *r, MPI_Status *st, int set_error) {
  greq_query(r);
  int err = r->status.MPI_ERROR;
  if (r->kind == FY_REQ_GREQ && r->gfree) {
    /* free_fn runs here (not at the release) so its error reaches the caller */
    int fe = r->gfree(r->cb_arg);
    r->gfree = NULL;
    if (fe && !err) err = fe;
  }
  fy_status_out(st, &r->status, set_error);
  if (err) fy_err_set_obj(r->comm ? r->comm->handle : MPI_COMM_WORLD);
  if (r->persistent) {
    r->active = 0;
  } else {
    fy_req_release(r);
    *h = MPI_REQUEST_NULL;
  }
  return err;
}

static void empty_status(MPI_Status *st) {
  if (st == MPI_STATUS_IGNORE) return;
  int e = st->MPI_ERROR;
  fy_status_empty(st);
  st->MPI_ERROR = e;
}

int fy_mpi_wait(MPI_Request *request, MPI_Status *status) {
  fy_request_t *r = NULL;
  int err = req_check_at(*request, &r, -1);
  if (err) return err;
  if (inactive(r)) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (r->kind == FY_REQ_COLL) fy_sched_req_waited(r, FY_WAITED_ALL);
  fy_req_wait_done(r);
  return finish(request, r, status, 0);
}

int fy_mpi_test(MPI_Request *request, int *flag, MPI_Status *status) {
  fy_request_t *r = NULL;
  int err = req_check_at(*request, &r, -1);
  if (err) return err;
  if (inactive(r)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (!fy_req_done(r)) fy_progress_poll();
  *flag = fy_req_done(r);
  if (!*flag) return MPI_SUCCESS;
  return finish(request, r, status, 0);
}

int fy_mpi_request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  fy_request_t *r = NULL;
  int err = req_check_at(request, &r, -1);
  if (err) return err;
  if (inactive(r)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (!fy_req_done(r)) fy_progress_poll();
  *flag = fy_req_done(r);
  if (*flag) {
    greq_query(r);
    fy_status_out(status, &r->status, 0);
  }
  return MPI_SUCCESS;
}

/* first: mode 0 skips the requests seen done (they stay done while the
 * call waits), so a wait on a window of n that complete one by one checks
 * each once, not n/2 times. */
typedef struct { int n; MPI_Request *reqs; fy_request_t **objs; int mode; int first; } multi_t;

/* mode 0: all done; 1: any done (or none active) */
static int multi_done(void *arg) {
  multi_t *m = arg;
  if (m->mode == 0) {
    for (; m->first < m->n; m->first++) {
      fy_request_t *r = m->objs[m->first];
      if (!inactive(r) && !fy_req_done(r)) return 0;
    }
    return 1;
  }
  int active = 0;
  for (int i = 0; i < m->n; i++) {
    fy_request_t *r = m->objs[i];
    if (inactive(r)) continue;
    active++;
    if (fy_req_done(r)) return 1;
  }
  return active == 0;
}

/* wait: the caller is about to block on them (FY_WAITED_ALL or _ANY; 0: a
 * test). */
static int gather(int n, MPI_Request reqs[], fy_request_t **objs, int wait) {
  for (int i = 0; i < n; i++) {
    int err = req_check_at(reqs[i], &objs[i], i);
    if (err) return err;
    if (objs[i] && wait) {
      fy_req_set_waited(objs[i], wait);
      if (objs[i]->kind == FY_REQ_COLL) fy_sched_req_waited(objs[i], wait);
      fy_async_unwatch_locked(objs[i]);
    }
  }
  return MPI_SUCCESS;
}

#define OBJS_ON_STACK 64
#define WITH_OBJS(n)                                                             \
  fy_request_t *objs_stack[OBJS_ON_STACK];                                       \
  fy_request_t **objs = (n) <= OBJS_ON_STACK ? objs_stack : malloc((size_t)(n) * sizeof *objs); \
  if (!objs) return fy_err(MPI_ERR_NO_MEM, "out of memory for %d requests", (n))
#define FREE_OBJS(n) do { if ((n) > OBJS_ON_STACK) free(objs); } while (0)

/* Complete every done request of the array into statuses; returns
 * MPI_ERR_IN_STATUS if one failed (statuses given) or its error. */
static int finish_all(int n, MPI_Request reqs[], fy_request_t **objs, MPI_Status st[]) {
  int any_err = 0, first = MPI_SUCCESS;
  for (int i = 0; i < n; i++) {
    MPI_Status *s = st == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &st[i];
    if (inactive(objs[i])) {
      if (s != MPI_STATUS_IGNORE) { fy_status_empty(s); }
      continue;
    }
    if (s != MPI_STATUS_IGNORE) s->MPI_ERROR = MPI_SUCCESS;
    int e = finish(&reqs[i], objs[i], s, 1);
    if (e) {
      any_err = 1;
      if (!first) first = e;
    }
  }
  if (!any_err) return MPI_SUCCESS;
  return st == MPI_STATUSES_IGNORE ? first : MPI_ERR_IN_STATUS;
}

/* Waitall on nothing but sends that completed in their call (FY_REQ_SENT:
 * the window of small Isends) and null handles: no request object to
 * look at or release. The same statuses as finish_all gives. */
static int all_sent(int n, MPI_Request reqs[], MPI_Status st[]) {
  for (int i = 0; i < n; i++)
    if (reqs[i] != FY_REQ_SENT && reqs[i] != MPI_REQUEST_NULL) return 0;
  for (int i = 0; i < n; i++) {
    if (st != MPI_STATUSES_IGNORE) {
      if (reqs[i] == FY_REQ_SENT) st[i] = fy_req_sent.status;
      else fy_status_empty(&st[i]);
    }
    reqs[i] = MPI_REQUEST_NULL;
  }
  return 1;
}

int fy_mpi_waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  if (all_sent(count, array_of_requests, array_of_statuses)) return MPI_SUCCESS;
  WITH_OBJS(count);
  int err = gather(count, array_of_requests, objs, FY_WAITED_ALL);
  if (!err) {
    multi_t m = {count, array_of_requests, objs, 0, 0};
    fy_progress_wait(multi_done, &m);
    err = finish_all(count, array_of_requests, objs, array_of_statuses);
  }
  FREE_OBJS(count);
  return err;
}

int fy_mpi_testall(int count, MPI_Request array_of_requests[], int *flag,
                   MPI_Status array_of_statuses[]) {
  WITH_OBJS(count);
  int err = gather(count, array_of_requests, objs, 0);
  if (!err) {
    multi_t m = {count, array_of_requests, objs, 0, 0};
    if (!multi_done(&m)) fy_progress_poll();
    *flag = multi_done(&m);
    if (*flag) err = finish_all(count, array_of_requests, objs, array_of_statuses);
  }
  FREE_OBJS(count);
  return err;
}

static int pick_any(int count, MPI_Request reqs[], fy_request_t **objs, int *index,
                    MPI_Status *status, int *flag) {
  *index = MPI_UNDEFINED;
  int active = 0;
  for (int i = 0; i < count; i++) {
    if (inactive(objs[i])) continue;
    active++;
    if (fy_req_done(objs[i])) {
      *index = i;
      *flag = 1;
      return finish(&reqs[i], objs[i], status, 0);
    }
  }
  *flag = active == 0;
  if (*flag) empty_status(status);
  return MPI_SUCCESS;
}

int fy_mpi_waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status) {
  WITH_OBJS(count);
  int err = gather(count, array_of_requests, objs, FY_WAITED_ANY), flag;
  if (!err) {
    multi_t m = {count, array_of_requests, objs, 1, 0};
    fy_progress_wait(multi_done, &m);
    err = pick_any(count, array_of_requests, objs, index, status, &flag);
  }
  FREE_OBJS(count);
  return err;
}

int fy_mpi_testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                   MPI_Status *status) {
  WITH_OBJS(count);
  int err = gather(count, array_of_requests, objs, 0);
  if (!err) {
    multi_t m = {count, array_of_requests, objs, 1, 0};
    if (!multi_done(&m)) fy_progress_poll();
    err = pick_any(count, array_of_requests, objs, index, status, flag);
  }
  FREE_OBJS(count);
  return err;
}

static int pick_some(int count, MPI_Request reqs[], fy_request_t **objs, int *outcount,
                     int indices[], MPI_Status st[]) {
  int active = 0, n = 0, any_err = 0, first = 0;
  for (int i = 0; i < count; i++) {
    if (inactive(objs[i])) continue;
    active++;
    if (!fy_req_done(objs[i])) continue;
    MPI_Status *s = st == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &st[n];
    if (s != MPI_STATUS_IGNORE) s->MPI_ERROR = MPI_SUCCESS;
    int e = finish(&reqs[i], objs[i], s, 1);
    if (e) {
      any_err = 1;
      if (!first) first = e;
    }
    indices[n++] = i;
  }
  *outcount = active ? n : MPI_UNDEFINED;
  if (!any_err) return MPI_SUCCESS;
  return st == MPI_STATUSES_IGNORE ? first : MPI_ERR_IN_STATUS;
}

int fy_mpi_waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                    int array_of_indices[], MPI_Status array_of_statuses[]) {
  WITH_OBJS(incount);
  int err = gather(incount, array_of_requests, objs, FY_WAITED_ANY);
  if (!err) {
    multi_t m = {incount, array_of_requests, objs, 1, 0};
    fy_progress_wait(multi_done, &m);
    err = pick_some(incount, array_of_requests, objs, outcount, array_of_indices, array_of_statuses);
  }
  FREE_OBJS(incount);
  return err;
}

int fy_mpi_testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                    int array_of_indices[], MPI_Status array_of_statuses[]) {
  WITH_OBJS(incount);
  int err = gather(incount, array_of_requests, objs, 0);
  if (!err) {
    fy_progress_poll();
    err = pick_some(incount, array_of_requests, objs, outcount, array_of_indices, array_of_statuses);
  }
  FREE_OBJS(incount);
  return err;
}

int fy_mpi_request_free(MPI_Request *request) {
  fy_request_t *r = NULL;
  int err = req_check_at(*request, &r, -1);
  if (err) return err;
  if (!r) return fy_err(MPI_ERR_REQUEST, "request = MPI_REQUEST_NULL");
  /* Under the progress lock: an agent may be completing it right now, and
   * completion reads user_freed to decide who releases it. */
  fy_plock();
  if (r->persistent && r->active && !fy_req_done(r)) {
    /* An active persistent request is released once it completes. */
    r->persistent = 0;
    r->user_freed = 1;
  } else if (fy_req_done(r) || inactive(r)) {
    fy_req_release(r);
  } else {
    r->user_freed = 1;
  }
  fy_punlock();
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int fy_mpi_cancel(MPI_Request *request) {
  fy_request_t *r = NULL;
  int err = req_check_at(*request, &r, -1);
  if (err) return err;
  if (!r) return fy_err(MPI_ERR_REQUEST, "request = MPI_REQUEST_NULL");
  if (r->kind == FY_REQ_RECV && !inactive(r)) fy_recv_cancel(r);
  if (r->kind == FY_REQ_GREQ && r->gcancel) return r->gcancel(r->cb_arg, fy_req_done(r));
  /* A send that has left cannot be recalled: the cancel does not succeed,
   * which the standard allows; MPI_Test_cancelled reports false. */
  return MPI_SUCCESS;
}

int fy_mpi_test_cancelled(const MPI_Status *status, int *flag) {
  *flag = fy_status_cancelled(status);
  return MPI_SUCCESS;
}

int fy_mpi_start(MPI_Request *request) {
  fy_request_t *r = NULL;
  int err = req_check_at(*request, &r, -1);
  if (err) return err;
  if (!r || !r->persistent)
    return fy_err(MPI_ERR_REQUEST, "request = %#x is not a persistent request", (unsigned)*request);
  if (r->active)
    return fy_err(MPI_ERR_REQUEST, "request = %#x is already active", (unsigned)*request);
  if (r->kind == FY_REQ_COLL) return fy_sched_req_start(r);
  if (r->kind == FY_REQ_PART) return fy_part_start(r);
  if (r->kind == FY_REQ_RECV) return fy_recv_start(r);
  extern int fy_bsend_start(fy_request_t *r);
  if (r->mode == FY_MODE_BUF) return fy_bsend_start(r);
  return fy_send_start(r);
}

int fy_mpi_startall(int count, MPI_Request array_of_requests[]) {
  for (int i = 0; i < count; i++) {
    int err = fy_mpi_start(&array_of_requests[i]);
    if (err) return err;
  }
  return MPI_SUCCESS;
}

/* ---- status queries ---- */

int fy_mpi_get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) {
  fy_datatype_t *t = fy_type_get(datatype);
  MPI_Count bytes = fy_status_get_count(status);
  if (t->size == 0) {
    *count = 0;
    return MPI_SUCCESS;
  }
  if (bytes % t->size || bytes / t->size > INT32_MAX)
    *count = MPI_UNDEFINED;
  else
    *count = (int)(bytes / t->size);
  return MPI_SUCCESS;
}

int fy_mpi_get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
  fy_datatype_t *t = fy_type_get(datatype);
  MPI_Count bytes = fy_status_get_count(status);
  *count = t->size == 0 ? 0 : (bytes % t->size ? MPI_UNDEFINED : bytes / t->size);
  return MPI_SUCCESS;
}

int fy_mpi_get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
  *count = fy_type_elements(fy_type_get(datatype), fy_status_get_count(status));
  return MPI_SUCCESS;
}

int fy_mpi_get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
  return fy_mpi_get_elements_c(status, datatype, count);
}

int fy_mpi_get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count) {
  MPI_Count c;
  fy_mpi_get_elements_c(status, datatype, &c);
  *count = c > INT32_MAX ? MPI_UNDEFINED : (int)c;
  return MPI_SUCCESS;
}

/* count basic elements of datatype: the bytes they take packed (for a
 * derived type, not count * size), so Get_elements gives count back. */
int fy_mpi_status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count) {
  if (status == MPI_STATUS_IGNORE) return fy_err(MPI_ERR_ARG, "status = MPI_STATUS_IGNORE is not a status");
  if (count < 0) return fy_err(MPI_ERR_COUNT, "count = %lld is negative", (long long)count);
  fy_datatype_t *t = fy_type_get(datatype);
  if (!t) return fy_err(MPI_ERR_TYPE, "datatype = %#x is not a valid datatype", (unsigned)datatype);
  MPI_Count bytes = fy_type_elements_bytes(t, count);
  if (bytes < 0) return fy_err(MPI_ERR_TYPE, "count = %lld elements of a datatype that has none", (long long)count);
  fy_status_set_count(status, bytes);
  return MPI_SUCCESS;
}

int fy_mpi_status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count) {
  return fy_mpi_status_set_elements_c(status, datatype, count);
}

int fy_mpi_status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count) {
  return fy_mpi_status_set_elements_c(status, datatype, count);
}

int fy_mpi_status_set_cancelled(MPI_Status *status, int flag) {
  fy_status_set_cancelled(status, flag);
  return MPI_SUCCESS;
}

/* MPI 4.1 status accessors: the fields are public in C, but the functions
 * exist for the other languages and for tools; MPI_STATUS_IGNORE is not a
 * status to read or write. */
#define FY_STATUS_ARG(s)                                                        \
  do {                                                                          \
    if ((s) == MPI_STATUS_IGNORE || (s) == NULL)                                \
      return fy_err(MPI_ERR_ARG, "status = MPI_STATUS_IGNORE is not a status"); \
  } while (0)

int fy_mpi_status_get_source(const MPI_Status *status, int *source) {
  FY_STATUS_ARG(status);
  *source = status->MPI_SOURCE;
  return MPI_SUCCESS;
}
int fy_mpi_status_get_tag(const MPI_Status *status, int *tag) {
  FY_STATUS_ARG(status);
  *tag = status->MPI_TAG;
  return MPI_SUCCESS;
}
int fy_mpi_status_get_error(const MPI_Status *status, int *err) {
  FY_STATUS_ARG(status);
  *err = status->MPI_ERROR;
  return MPI_SUCCESS;
}
int fy_mpi_status_set_source(MPI_Status *status, int source) {
  FY_STATUS_ARG(status);
  status->MPI_SOURCE = source;
  return MPI_SUCCESS;
}
int fy_mpi_status_set_tag(MPI_Status *status, int tag) {
  FY_STATUS_ARG(status);
  status->MPI_TAG = tag;
  return MPI_SUCCESS;
}
int fy_mpi_status_set_error(MPI_Status *status, int err) {
  FY_STATUS_ARG(status);
  status->MPI_ERROR = err;
  return MPI_SUCCESS;
}

/* MPI 4.1 Request_get_status_all/any/some: Testall/any/some that leave the
 * requests alone (nothing freed or deactivated). */
static int peek_all(int n, const MPI_Request reqs[], fy_request_t **objs) {
  for (int i = 0; i < n; i++) {
    int err = req_check_at(reqs[i], &objs[i], i);
    if (err) return err;
  }
  return MPI_SUCCESS;
}

static int peek_setup(int n, const MPI_Request reqs[], fy_request_t ***objs) {
  if (n < 0) return fy_err(MPI_ERR_COUNT, "count = %d is negative", n);
  if (n > 0 && !reqs) return fy_err(MPI_ERR_ARG, "array_of_requests = NULL with count %d", n);
  *objs = malloc(sizeof(fy_request_t *) * (size_t)(n ? n : 1));
  if (!*objs) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  int err = peek_all(n, reqs, *objs);
  if (err) {
    free(*objs);
    return err;
  }
  fy_progress_poll();
  return MPI_SUCCESS;
}

int fy_mpi_request_get_status_all(int count, const MPI_Request reqs[], int *flag, MPI_Status st[]) {
  fy_request_t **o;
  int err = peek_setup(count, reqs, &o), in_status = 0;
  if (err) return err;
  *flag = 1;
  for (int i = 0; i < count; i++)
    if (!inactive(o[i]) && !fy_req_done(o[i])) *flag = 0;
  for (int i = 0; *flag && i < count; i++) {
    MPI_Status *s = st == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &st[i];
    if (inactive(o[i])) {
      empty_status(s);
      if (s != MPI_STATUS_IGNORE) s->MPI_ERROR = MPI_SUCCESS;
    } else {
      fy_status_out(s, &o[i]->status, 1);
      if (o[i]->status.MPI_ERROR) in_status = 1;
    }
  }
  free(o);
  return in_status ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int fy_mpi_request_get_status_any(int count, const MPI_Request reqs[], int *index, int *flag, MPI_Status *status) {
  fy_request_t **o;
  int err = peek_setup(count, reqs, &o), active = 0;
  if (err) return err;
  *flag = 0;
  *index = MPI_UNDEFINED;
  for (int i = 0; i < count; i++) {
    if (inactive(o[i])) continue;
    active++;
    if (fy_req_done(o[i])) {
      *flag = 1;
      *index = i;
      err = o[i]->status.MPI_ERROR;
      fy_status_out(status, &o[i]->status, 0);
      break;
    }
  }
  if (!active) {
    *flag = 1;
    empty_status(status);
    if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = MPI_SUCCESS;
  }
  free(o);
  return err;
}

int fy_mpi_request_get_status_some(int incount, const MPI_Request reqs[], int *outcount, int indices[],
                                   MPI_Status st[]) {
  fy_request_t **o;
  int err = peek_setup(incount, reqs, &o), active = 0, n = 0, in_status = 0;
  if (err) return err;
  for (int i = 0; i < incount; i++) {
    if (inactive(o[i])) continue;
    active++;
    if (!fy_req_done(o[i])) continue;
    MPI_Status *s = st == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &st[n];
    fy_status_out(s, &o[i]->status, 1);
    if (o[i]->status.MPI_ERROR) in_status = 1;
    indices[n++] = i;
  }
  *outcount = active ? n : MPI_UNDEFINED;
  free(o);
  return in_status ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

/* Generalized requests (MPI 4.1 13.2): the application completes them with
 * MPI_Grequest_complete; Wait/Test ask query_fn for the status, and the
 * request's release calls free_fn. */
int fy_mpi_grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                          MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request) {
  fy_request_t *r = fy_req_alloc(FY_REQ_GREQ, 1);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of request objects");
  r->gquery = query_fn;
  r->gfree = free_fn;
  r->gcancel = cancel_fn;
  r->cb_arg = extra_state;
  fy_status_empty(&r->status);
  r->status.MPI_ERROR = MPI_SUCCESS;
  *request = r->handle;
  return MPI_SUCCESS;
}

int fy_mpi_grequest_complete(MPI_Request request) {
  fy_request_t *r = fy_req_get(request);
  if (!r || r->kind != FY_REQ_GREQ)
    return fy_err(MPI_ERR_REQUEST, "request = %#x is not a generalized request", (unsigned)request);
  if (fy_req_done(r)) return fy_err(MPI_ERR_REQUEST, "request = %#x is already complete", (unsigned)request);
  fy_plock();
  fy_req_complete(r); /* releases it if the user freed it already */
  fy_punlock();
  return MPI_SUCCESS;
}
