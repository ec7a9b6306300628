/* Partitioned communication (MPI 4.1 chapter 4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready{,_range,_list}, MPI_Parrived; MPI_Start, the
 * Wait/Test family, MPI_Request_free and MPI_Request_get_status reach these
 * requests through src/core/fy_request.c (kind FY_REQ_PART).
 *
 * Design (docs/partitioned.md): a partitioned request owns one internal
 * persistent point-to-point request (the "child") for the whole buffer.
 * - send: MPI_Start arms the epoch; the child is started when the last
 *   partition is marked ready, so the whole buffer travels as one message
 *   (eager or rendezvous like any other send of that size).
 * - receive: MPI_Start starts the child receive; MPI_Parrived(i) is true for
 *   every partition once the message has arrived (the receive side may
 *   partition the same bytes differently: only the totals must agree).
 * - Pairing: the n-th MPI_Psend_init of a process to (comm, dest, tag) pairs
 *   with the n-th MPI_Precv_init of dest from (comm, source, tag), as the
 *   standard orders them. The child travels on the collective context ctx+1
 *   with a tag above every collective tag (sched.c uses 16 .. 2^30 + 15),
 *   built from the user tag and the pair number, so it never matches a user
 *   receive or a collective, and two pairs of one (peer, tag) that are
 *   active at once do not take each other's message. */
#include "pt2pt/pt2pt_impl.h"
#include "progress/fy_progress.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>

#define PART_TAG_BASE 0x40000100
#define PART_TAG_SPAN 0x3ffffe00u /* PART_TAG_BASE + span - 1 <= INT_MAX */

typedef struct fy_part {
  int recv;               /* 0: Psend_init, 1: Precv_init */
  int partitions;
  fy_request_t *child;    /* the whole-buffer internal request */
  int nready;             /* send: partitions marked ready in this epoch */
  unsigned char *ready;   /* send: per partition, marked in this epoch */
} fy_part_t;

static fy_part_t *part_of(fy_request_t *r) { return r->cb_arg; }

/* Pair number of this init on (comm, peer, tag, direction). */
static uint32_t next_seq(fy_comm_t *c, int peer, int tag, int recv, int *err) {
  *err = 0;
  for (fy_part_seq_t *s = c->part_seq; s; s = s->next)
    if (s->peer == peer && s->tag == tag && s->recv == recv) return s->n++;
  fy_part_seq_t *s = calloc(1, sizeof *s);
  if (!s) {
    *err = 1;
    return 0;
  }
  s->peer = peer;
  s->tag = tag;
  s->recv = recv;
  s->n = 1;
  s->next = c->part_seq;
  c->part_seq = s;
  return 0;
}

static int internal_tag(int tag, uint32_t seq) {
  /* Exact for user tags below 2^20 and fewer than 1024 pairs of one
   * (peer, tag) alive at once; beyond that two pairs may share a tag,
   * and are then matched in the order their messages leave. */
  uint64_t key = ((uint64_t)(uint32_t)tag << 10) | (seq & 1023u);
  return PART_TAG_BASE + (int)(key % PART_TAG_SPAN);
}

/* The child completed (progress engine, lock held): so does the parent. */
static void child_done(fy_request_t *child) {
  fy_request_t *r = child->cb_arg;
  r->status = child->status;
  r->status.MPI_TAG = r->tag;
  if (child->peer != MPI_PROC_NULL) r->status.MPI_SOURCE = r->peer;
  if (part_of(r)->recv && child->peer != MPI_PROC_NULL && !r->status.MPI_ERROR &&
      !fy_status_cancelled(&r->status)) {
    MPI_Count got = fy_status_get_count(&r->status);
    if ((size_t)got != child->bytes)
      r->status.MPI_ERROR = fy_err(MPI_ERR_TRUNCATE,
          "partitioned receive of %zu bytes from rank %d (tag %d) matched a partitioned send of "
          "%lld bytes: the totals must agree", child->bytes, r->peer, r->tag, (long long)got);
  }
  /* A parent the user freed while active is released here, child and all;
   * fy_req_complete() then only marks the (free-listed) child done. */
  fy_req_complete(r);
}

static int part_init(int recv, const void *buf, int partitions, MPI_Count count,
                     MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, MPI_Request *request) {
  const char *fn = recv ? "MPI_Precv_init" : "MPI_Psend_init";
  if (partitions < 0)
    return fy_err(MPI_ERR_ARG, "partitions = %d must not be negative (%s)", partitions, fn);
  fy_comm_t *c = fy_comm_get(comm);
  fy_datatype_t *t = fy_type_get(datatype);
  if (!recv && tag < 0) /* the binding checked it as a receive tag */
    return fy_err(MPI_ERR_TAG, "tag = %d is not a valid tag for %s", tag, fn);
  if (tag == MPI_ANY_TAG)
    return fy_err(MPI_ERR_TAG, "tag = MPI_ANY_TAG is not allowed in %s", fn);
  if (peer == MPI_ANY_SOURCE)
    return fy_err(MPI_ERR_RANK, "source = MPI_ANY_SOURCE is not allowed in %s", fn);
  if (count > 0 && partitions > 0 && count > INT64_MAX / partitions)
    return fy_err(MPI_ERR_COUNT, "partitions = %d times count = %lld overflows (%s)", partitions,
                  (long long)count, fn);
  fy_part_t *p = calloc(1, sizeof *p);
  unsigned char *ready = recv ? NULL : calloc((size_t)partitions + 1, 1);
  fy_request_t *r = fy_req_alloc(FY_REQ_PART, 1);
  fy_request_t *ch = fy_req_alloc(recv ? FY_REQ_RECV : FY_REQ_SEND, 0);
  int err = MPI_SUCCESS;
  if (!p || (!recv && !ready) || !r || !ch) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory for a partitioned request (%s)", fn);
    goto fail;
  }
  int seq_err;
  uint32_t seq = peer == MPI_PROC_NULL ? 0 : next_seq(c, peer, tag, recv, &seq_err);
  if (peer != MPI_PROC_NULL && seq_err) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory for a partitioned request (%s)", fn);
    goto fail;
  }
  p->recv = recv;
  p->partitions = partitions;
  p->ready = ready;
  p->child = ch;
  fy_req_setup(r, FY_REQ_PART, FY_MODE_STD, buf, (MPI_Count)partitions * count, t, peer, tag, c, 0);
  r->kind = FY_REQ_PART;
  r->persistent = 1;
  r->cb_arg = p;
  atomic_store(&r->done, 1);
  fy_status_empty(&r->status);
  fy_req_setup(ch, recv ? FY_REQ_RECV : FY_REQ_SEND, FY_MODE_STD, buf, (MPI_Count)partitions * count,
               t, peer, internal_tag(tag, seq), c, 1);
  ch->persistent = 1;
  ch->on_complete = child_done;
  ch->cb_arg = r;
  atomic_store(&ch->done, 1);
  *request = r->handle;
  return MPI_SUCCESS;
fail:
  if (ch) fy_req_release(ch);
  if (r) fy_req_release(r);
  free(ready);
  free(p);
  return err;
}

void fy_part_free(fy_request_t *r) {
  fy_part_t *p = part_of(r);
  if (!p) return;
  r->cb_arg = NULL;
  if (p->child) fy_req_release(p->child);
  free(p->ready);
  free(p);
}

int fy_part_start(fy_request_t *r) {
  fy_part_t *p = part_of(r);
  fy_plock();
  atomic_store_explicit(&r->done, 0, memory_order_relaxed);
  r->active = 1;
  fy_status_empty(&r->status);
  p->nready = 0;
  if (p->ready) memset(p->ready, 0, (size_t)p->partitions);
  int err = MPI_SUCCESS;
  if (p->recv)
    err = fy_recv_start(p->child);
  else if (p->partitions == 0)
    err = fy_send_start(p->child); /* no partition to wait for: it leaves now */
  fy_punlock();
  return err;
}

static int get_part(MPI_Request h, fy_request_t **out, int want_recv, const char *fn) {
  fy_request_t *r = h == MPI_REQUEST_NULL ? NULL : fy_req_get(h);
  if (!r || r->kind != FY_REQ_PART || part_of(r)->recv != want_recv)
    return fy_err(MPI_ERR_REQUEST, "request = %#x is not a partitioned %s request (%s)", (unsigned)h,
                  want_recv ? "receive" : "send", fn);
  *out = r;
  return MPI_SUCCESS;
}

/* Mark one partition; the caller holds the progress lock and has checked
 * that the request is active. */
static int mark(fy_request_t *r, int partition, const char *fn) {
  fy_part_t *p = part_of(r);
  if (partition < 0 || partition >= p->partitions)
    return fy_err(MPI_ERR_ARG, "partition = %d is out of range [0, %d) (%s)", partition,
                  p->partitions, fn);
  if (p->ready[partition])
    return fy_err(MPI_ERR_ARG, "partition = %d was already marked ready in this epoch (%s)",
                  partition, fn);
  p->ready[partition] = 1;
  if (++p->nready < p->partitions) return MPI_SUCCESS;
  /* The last partition: the whole buffer leaves (PROC_NULL: the child
   * completes at once and with it the request). */
  return fy_send_start(p->child);
}

static int ready_check(MPI_Request request, fy_request_t **out, const char *fn) {
  int err = get_part(request, out, 0, fn);
  if (err) return err;
  if (!(*out)->active || fy_req_done(*out))
    return fy_err(MPI_ERR_REQUEST, "request = %#x is not active: call MPI_Start before %s",
                  (unsigned)request, fn);
  return MPI_SUCCESS;
}

int fy_mpi_pready(int partition, MPI_Request request) {
  fy_request_t *r;
  fy_plock();
  int err = ready_check(request, &r, "MPI_Pready");
  if (!err) err = mark(r, partition, "MPI_Pready");
  fy_punlock();
  return err;
}

int fy_mpi_pready_range(int partition_low, int partition_high, MPI_Request request) {
  fy_request_t *r;
  fy_plock();
  int err = ready_check(request, &r, "MPI_Pready_range");
  if (err) goto out;
  fy_part_t *p = part_of(r);
  if (partition_low < 0 || partition_high >= p->partitions || partition_low > partition_high) {
    err = fy_err(MPI_ERR_ARG, "partition_low = %d, partition_high = %d is not a range within [0, %d)",
                 partition_low, partition_high, p->partitions);
    goto out;
  }
  /* All or nothing: a partition already ready fails the call before any is marked. */
  for (int i = partition_low; i <= partition_high; i++)
    if (p->ready[i]) {
      err = fy_err(MPI_ERR_ARG, "partition %d was already marked ready in this epoch (MPI_Pready_range)", i);
      goto out;
    }
  for (int i = partition_low; i <= partition_high && !err; i++) err = mark(r, i, "MPI_Pready_range");
out:
  fy_punlock();
  return err;
}

int fy_mpi_pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  fy_request_t *r;
  fy_plock();
  int err = ready_check(request, &r, "MPI_Pready_list");
  if (err) goto out;
  fy_part_t *p = part_of(r);
  if (length < 0) {
    err = fy_err(MPI_ERR_ARG, "length = %d must not be negative (MPI_Pready_list)", length);
    goto out;
  }
  if (length > 0 && !array_of_partitions) {
    err = fy_err(MPI_ERR_ARG, "array_of_partitions = NULL with length = %d (MPI_Pready_list)", length);
    goto out;
  }
  /* Validate the whole list first (range, marked, repeated) so that a bad
   * entry leaves the epoch untouched. */
  for (int i = 0; i < length; i++) {
    int q = array_of_partitions[i];
    if (q < 0 || q >= p->partitions) {
      err = fy_err(MPI_ERR_ARG, "array_of_partitions[%d] = %d is out of range [0, %d)", i, q,
                   p->partitions);
      goto undo;
    }
    if (p->ready[q]) {
      err = fy_err(MPI_ERR_ARG, "array_of_partitions[%d] = %d is already marked ready in this epoch", i, q);
      goto undo;
    }
    p->ready[q] = 2; /* provisional: catches repeats within the list */
  }
  for (int i = 0; i < length; i++) p->ready[array_of_partitions[i]] = 0;
  for (int i = 0; i < length && !err; i++) err = mark(r, array_of_partitions[i], "MPI_Pready_list");
  goto out;
undo:
  for (int i = 0; i < length; i++) {
    int q = array_of_partitions[i];
    if (q >= 0 && q < p->partitions && p->ready[q] == 2) p->ready[q] = 0;
  }
out:
  fy_punlock();
  return err;
}

int fy_mpi_parrived(MPI_Request request, int partition, int *flag) {
  fy_request_t *r;
  int err = get_part(request, &r, 1, "MPI_Parrived");
  if (err) return err;
  fy_part_t *p = part_of(r);
  if (partition < 0 || partition >= p->partitions)
    return fy_err(MPI_ERR_ARG, "partition = %d is out of range [0, %d) (MPI_Parrived)", partition,
                  p->partitions);
  /* An inactive request (not started, or completed and waited for) has
   * nothing pending: every partition counts as arrived. */
  if (!r->active || fy_req_done(r)) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  fy_progress_poll();
  *flag = fy_req_done(r);
  return MPI_SUCCESS;
}

int fy_mpi_psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  (void)info; /* no partitioned hints are defined */
  return part_init(0, buf, partitions, count, datatype, dest, tag, comm, request);
}

int fy_mpi_precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                      int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  (void)info;
  return part_init(1, buf, partitions, count, datatype, source, tag, comm, request);
}
