/* Partitioned communication (MPI 4.1 chapter 4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready{,_range,_list}, MPI_Parrived; MPI_Start, the
 * Wait/Test family, MPI_Request_free and MPI_Request_get_status reach these
 * requests through src/core/fy_request.c (kind FY_REQ_PART).
 *
 * Design (docs/partitioned.md): ready partitions leave early, in chunks the
 * receiver chooses.
 * - receive: the buffer is cut into chunks of whole receive partitions (at
 *   least FERRY_PART_CHUNK bytes each, at most PART_MAX_CHUNKS chunks).
 *   MPI_Start posts one internal receive per chunk straight into the user's
 *   buffer; the first one also sends the sender the cut (RTR: chunk size,
 *   total, number of chunks), which holds for every epoch. MPI_Parrived(i)
 *   is true once the chunk holding partition i has arrived.
 * - send: the first MPI_Start posts the receive for the RTR. Once the RTR
 *   is in, each chunk leaves as soon as every send partition under it is
 *   ready, in chunk order (chunks share a tag and match the receives in
 *   order; a chunk of the next epoch that comes before the receiver's
 *   MPI_Start waits as an unexpected message), as one internal send (eager
 *   or rendezvous like any other). The
 *   sender follows the receiver's cut whatever its own partitioning, so the
 *   two sides may partition the same bytes differently; a sender with more
 *   bytes than the receiver puts the excess in the last chunk, whose receive
 *   then reports MPI_ERR_TRUNCATE, and one with fewer sends short or empty
 *   chunks: every posted receive is matched, nothing stays behind.
 * - In the first epoch a message no larger than FERRY_PART_CHUNK does not
 *   wait for the RTR: once all its partitions are ready it leaves whole, as
 *   chunk 0 (see send_chunks). A send completes only once the RTR is in
 *   and every chunk of the cut has left, so epochs never mix.
 * - Chunks start from MPI_Pready* (application thread) or, when the RTR comes
 *   after the partitions were marked, from a progress hook outside signal
 *   turns.
 * - Pairing: the n-th MPI_Psend_init of a process to (comm, dest, tag) pairs
 *   with the n-th MPI_Precv_init of dest from (comm, source, tag), as the
 *   standard orders them. Chunks and the RTR travel on the collective
 *   context ctx+1 with tags above every collective tag (sched.c uses
 *   16 .. 2^30 + 15), built from the user tag and the pair number (data on
 *   even tags, RTRs on odd ones), so they never match a user receive or a
 *   collective, and two pairs of one (peer, tag) that are active at once do
 *   not take each other's messages. */
#include "pt2pt/pt2pt_impl.h"
#include "progress/fy_progress.h"
#include "core/fy_error.h"
#include "runtime/fy_config.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>

#define PART_TAG_BASE 0x40000100
#define PART_TAG_SPAN 0x3ffffe00u /* PART_TAG_BASE + span - 1 <= INT_MAX (even) */
#define PART_MAX_CHUNKS 256       /* receives posted per epoch at most */

typedef struct fy_part {
  int recv;               /* 0: Psend_init, 1: Precv_init */
  int partitions;
  MPI_Count count;        /* elements per partition */
  size_t pbytes;          /* packed bytes per partition */
  int tag_data, tag_rtr;  /* internal tags of the pair */
  /* the epoch (under the progress lock) */
  int pending;            /* internal requests started and not complete */
  int err;                /* the first error of a chunk */
  int nchunks;            /* receive: by our cut; send: from the RTR */
  size_t chunk;           /* bytes per chunk */
  uint64_t rtr[3];        /* chunk bytes, total bytes, chunks */
  /* send side */
  int nready, prefix;     /* partitions marked; leading partitions all marked */
  unsigned char *ready;   /* per partition, marked in this epoch */
  int rtr_in;             /* the RTR has arrived (the first epoch's; the cut holds for all) */
  int early;              /* all data left as chunk 0 before the RTR */
  int next;               /* next chunk to start */
  void *packed;           /* non-contiguous data cut at other points: packed copy */
  fy_request_t **reqs;    /* per chunk: its persistent internal request (made at first use) */
  struct fy_part *next_wait; /* on `waiting`: RTR in, chunks left to start */
  int listed;
  fy_request_t *self;
  /* receive side */
  int group;              /* receive partitions per chunk */
  unsigned char *arrived; /* per chunk */
  size_t got;             /* bytes received in this epoch */
  int rtr_sent;           /* the RTR went out (first epoch) */
} fy_part_t;

static fy_part_t *part_of(fy_request_t *r) { return r->cb_arg; }

/* Active sends whose RTR came in with chunks still to start. */
static fy_part_t *waiting;
static int hooked;

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
  /* Exact for user tags below 2^19 and fewer than 1024 pairs of one
   * (peer, tag) alive at once; beyond that two pairs may share a tag,
   * and are then matched in the order their messages leave. */
  uint64_t key = ((uint64_t)(uint32_t)tag << 10) | (seq & 1023u);
  return PART_TAG_BASE + 2 * (int)(key % (PART_TAG_SPAN / 2));
}

static void complete(fy_request_t *r) {
  fy_part_t *p = part_of(r);
  r->status.MPI_TAG = r->tag;
  r->status.MPI_SOURCE = r->peer;
  r->status.MPI_ERROR = p->err;
  if (p->recv) {
    size_t want = (size_t)p->partitions * p->pbytes;
    fy_status_set_count(&r->status, (MPI_Count)p->got);
    if (p->err && fy_err_class_of(p->err) == MPI_ERR_TRUNCATE)
      r->status.MPI_ERROR = fy_err(MPI_ERR_TRUNCATE,
          "partitioned receive of %zu bytes from rank %d (tag %d) matched a larger partitioned send: "
          "the totals must agree", want, r->peer, r->tag);
    else if (!p->err && p->got != want)
      r->status.MPI_ERROR = fy_err(MPI_ERR_TRUNCATE,
          "partitioned receive of %zu bytes from rank %d (tag %d) matched a partitioned send of "
          "%zu bytes: the totals must agree", want, r->peer, r->tag, p->got);
  }
  /* A parent the user freed while active is released here. */
  fy_req_complete(r);
}

/* Nothing in flight: is the epoch over? (a send also needs its RTR and
 * every chunk started) */
static int over(const fy_part_t *p) {
  return p->pending == 0 && (p->recv || p->err || (p->rtr_in && p->next == p->nchunks));
}

static void child_done(fy_request_t *ch) {
  fy_request_t *r = ch->parent;
  fy_part_t *p = part_of(r);
  int e = ch->status.MPI_ERROR;
  if (e && !p->err) p->err = e;
  if (ch->kind == FY_REQ_RECV && ch->tag == p->tag_data) {
    int j = (int)(intptr_t)ch->cb_arg;
    p->got += (size_t)fy_status_get_count(&ch->status);
    p->arrived[j] = 1;
  } else if (ch->kind == FY_REQ_RECV) { /* the RTR */
    if (!e && ((size_t)fy_status_get_count(&ch->status) != sizeof p->rtr || p->rtr[2] == 0 ||
               p->rtr[2] > PART_MAX_CHUNKS)) {
      if (!p->err) p->err = MPI_ERR_INTERN;
    } else if (!e) {
      p->chunk = (size_t)p->rtr[0];
      p->nchunks = (int)p->rtr[2];
      p->rtr_in = 1;
      if (!p->listed) {
        p->listed = 1;
        p->next_wait = waiting;
        waiting = p;
      }
    }
  }
  p->pending--;
  if (over(p)) complete(r);
}

/* Start an internal request of the epoch: chunk j's (keep: a persistent
 * request made at its first start and started again every epoch, since a
 * chunk's buffer and size never change) or a one-off one (the RTR, the
 * first epoch's early chunk), released as it completes. */
static int child_start(fy_request_t *r, int kind, const void *buf, MPI_Count count, fy_datatype_t *t,
                       int tag, int j, int keep) {
  fy_part_t *p = part_of(r);
  fy_request_t *ch = keep ? p->reqs[j] : NULL;
  if (!ch) {
    if (!(ch = fy_req_alloc(kind, 0))) return fy_err(MPI_ERR_NO_MEM, "out of requests for a partitioned transfer");
    fy_req_setup(ch, kind, FY_MODE_STD, buf, count, t, r->peer, tag, r->comm, 1);
    ch->parent = r;
    ch->cb_arg = (void *)(intptr_t)j;
    ch->on_complete = child_done;
    if (keep) {
      ch->persistent = 1;
      p->reqs[j] = ch;
    } else {
      ch->user_freed = 1; /* released as soon as it completes */
    }
  }
  p->pending++;
  return kind == FY_REQ_SEND ? fy_send_start(ch) : fy_recv_start(ch);
}

/* Send: start every chunk whose partitions are all ready, in order; count
 * them in *started. An error also completes the request with it. */
static int send_chunks(fy_request_t *r, int *started) {
  fy_part_t *p = part_of(r);
  *started = 0;
  if (p->err) return MPI_SUCCESS;
  fy_datatype_t *t = r->type;
  size_t total = (size_t)p->partitions * p->pbytes;
  int nchunks = p->nchunks;
  if (!p->rtr_in) {
    /* The receiver's cut is not known yet. A message no larger than one of
     * our own chunks leaves whole once every partition is ready: it is
     * chunk 0 of any cut (the receiver reports a mismatch of totals), and
     * the cut's later chunks, sent empty when the RTR comes, close the
     * receiver's other receives. So a small message does not wait for the
     * RTR's trip. */
    if (p->next || total > (size_t)fy_config.part_chunk || p->prefix < p->partitions) return MPI_SUCCESS;
    p->early = 1;
    nchunks = 1;
  }
  int n = 0, err = MPI_SUCCESS;
  if (p->rtr_in && !p->reqs && !(p->reqs = calloc((size_t)p->nchunks, sizeof *p->reqs))) {
    *started = 0;
    return fy_err(MPI_ERR_NO_MEM, "out of memory for a partitioned send");
  }
  p->pending++; /* (no completion while chunks are being started) */
  while (p->next < nchunks && !err) {
    int j = p->next;
    size_t lo = (size_t)j * p->chunk, hi = j == nchunks - 1 ? total : lo + p->chunk;
    if (p->early) /* all of it went in chunk 0 */
      lo = j ? total : 0, hi = total;
    if (lo > total) lo = total;
    if (hi > total) hi = total;
    /* the partitions under [lo, hi) (an empty chunk, past our data: all) */
    int need = hi > lo ? (int)((hi - 1) / p->pbytes) + 1 : p->partitions;
    if (p->prefix < need) break;
    const char *base = r->sbuf;
    if (t->is_contig) {
      err = child_start(r, FY_REQ_SEND, base + t->true_lb + lo, (MPI_Count)(hi - lo), fy_type_get(MPI_BYTE),
                        p->tag_data, j, !p->early);
    } else if (lo % p->pbytes == 0 && (hi % p->pbytes == 0 || hi == total)) {
      /* whole partitions: the datatype goes as it is */
      MPI_Count first = (MPI_Count)(lo / p->pbytes), items = (MPI_Count)((hi - lo) / t->size);
      err = child_start(r, FY_REQ_SEND, base + first * p->count * t->extent, items, t, p->tag_data, j, !p->early);
    } else {
      if (!p->packed && !(p->packed = malloc(total ? total : 1))) {
        err = fy_err(MPI_ERR_NO_MEM, "out of memory packing a partitioned send");
        break;
      }
      fy_type_pack_range(t, (MPI_Count)p->partitions * p->count, r->sbuf, lo, hi - lo, (char *)p->packed + lo);
      err = child_start(r, FY_REQ_SEND, (char *)p->packed + lo, (MPI_Count)(hi - lo), fy_type_get(MPI_BYTE),
                        p->tag_data, j, !p->early);
    }
    p->next++;
    n++;
  }
  if (err && !p->err) p->err = err;
  if (err) p->next = nchunks; /* the request completes with the error */
  p->pending--;
  if (over(p)) complete(r);
  *started = n;
  return err;
}

/* Progress hook: chunks of sends whose RTR arrived after their partitions
 * were marked. Starting sends allocates: never in a signal turn. */
static int part_progress(void) {
  if (!waiting || fy_pt2pt_in_signal) return 0;
  int n = 0;
  for (fy_part_t **pp = &waiting; *pp;) {
    fy_part_t *p = *pp;
    int k;
    send_chunks(p->self, &k); /* (an error completes the request with it) */
    n += k;
    if (p->next == p->nchunks || p->err) {
      *pp = p->next_wait;
      p->listed = 0;
    } else {
      pp = &p->next_wait;
    }
  }
  return n;
}

static void unlist(fy_part_t *p) {
  for (fy_part_t **pp = &waiting; *pp; pp = &(*pp)->next_wait)
    if (*pp == p) {
      *pp = p->next_wait;
      break;
    }
  p->listed = 0;
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
  if (!hooked) {
    if (fy_progress_hook_add(part_progress) != 0)
      return fy_err(MPI_ERR_INTERN, "no progress hook left for partitioned communication (%s)", fn);
    hooked = 1;
  }
  fy_part_t *p = calloc(1, sizeof *p);
  fy_request_t *r = fy_req_alloc(FY_REQ_PART, 1);
  int err = MPI_SUCCESS;
  if (!p || !r) goto nomem;
  p->recv = recv;
  p->partitions = partitions;
  p->count = count;
  p->pbytes = (size_t)count * (size_t)t->size;
  p->self = r;
  if (recv) {
    /* The cut: whole partitions, at least FERRY_PART_CHUNK bytes a chunk,
     * at most PART_MAX_CHUNKS chunks. */
    size_t want = fy_config.part_chunk > 0 ? (size_t)fy_config.part_chunk : 1;
    int g = p->pbytes ? (int)((want + p->pbytes - 1) / p->pbytes) : partitions;
    if (g < 1) g = 1;
    if (g > partitions) g = partitions > 0 ? partitions : 1;
    if ((partitions + g - 1) / g > PART_MAX_CHUNKS) g = (partitions + PART_MAX_CHUNKS - 1) / PART_MAX_CHUNKS;
    p->group = g;
    p->nchunks = partitions > 0 ? (partitions + g - 1) / g : 1;
    p->chunk = (size_t)g * p->pbytes;
    p->rtr[0] = p->chunk;
    p->rtr[1] = (uint64_t)partitions * p->pbytes;
    p->rtr[2] = (uint64_t)p->nchunks;
    if (!(p->arrived = calloc((size_t)p->nchunks, 1))) goto nomem;
    if (!(p->reqs = calloc((size_t)p->nchunks, sizeof *p->reqs))) goto nomem;
  } else if (!(p->ready = calloc((size_t)partitions + 1, 1))) {
    goto nomem;
  }
  int seq_err;
  uint32_t seq = peer == MPI_PROC_NULL ? 0 : next_seq(c, peer, tag, recv, &seq_err);
  if (peer != MPI_PROC_NULL && seq_err) goto nomem;
  p->tag_data = internal_tag(tag, seq);
  p->tag_rtr = p->tag_data + 1;
  fy_req_setup(r, FY_REQ_PART, FY_MODE_STD, buf, (MPI_Count)partitions * count, t, peer, tag, c, 0);
  r->kind = FY_REQ_PART;
  r->persistent = 1;
  r->cb_arg = p;
  atomic_store(&r->done, 1);
  fy_status_empty(&r->status);
  *request = r->handle;
  return MPI_SUCCESS;
nomem:
  err = fy_err(MPI_ERR_NO_MEM, "out of memory for a partitioned request (%s)", fn);
  if (r) fy_req_release(r);
  if (p) {
    free(p->ready);
    free(p->arrived);
    free(p->reqs);
  }
  free(p);
  return err;
}

void fy_part_free(fy_request_t *r) {
  fy_part_t *p = part_of(r);
  if (!p) return;
  r->cb_arg = NULL;
  if (p->listed) unlist(p);
  for (int j = 0; p->reqs && j < p->nchunks; j++)
    if (p->reqs[j]) fy_req_release(p->reqs[j]);
  free(p->reqs);
  free(p->ready);
  free(p->arrived);
  free(p->packed);
  free(p);
}

int fy_part_start(fy_request_t *r) {
  fy_part_t *p = part_of(r);
  int err = MPI_SUCCESS;
  fy_plock();
  atomic_store_explicit(&r->done, 0, memory_order_relaxed);
  r->active = 1;
  fy_status_empty(&r->status);
  p->err = 0;
  p->pending = 0;
  if (r->peer == MPI_PROC_NULL) {
    /* Nothing travels: the receive completes now (the PROC_NULL status), the
     * send once its partitions are marked (at once with none). */
    p->nready = p->prefix = 0;
    if (p->ready) memset(p->ready, 0, (size_t)p->partitions);
    if (p->recv || p->partitions == 0) {
      r->status.MPI_SOURCE = MPI_PROC_NULL;
      fy_req_complete(r);
    }
    goto out;
  }
  p->pending = 1; /* (no completion while the epoch is being set up) */
  if (p->recv) {
    p->got = 0;
    memset(p->arrived, 0, (size_t)p->nchunks);
    fy_datatype_t *t = r->type;
    for (int j = 0; j < p->nchunks && !err; j++) {
      int first = j * p->group, np = p->partitions - first < p->group ? p->partitions - first : p->group;
      if (np < 0) np = 0;
      err = child_start(r, FY_REQ_RECV, (char *)r->rbuf + (MPI_Aint)first * p->count * t->extent,
                        (MPI_Count)np * p->count, t, p->tag_data, j, 1);
    }
    /* The cut is the same every epoch: the sender hears it once. */
    if (!err && !p->rtr_sent) {
      err = child_start(r, FY_REQ_SEND, p->rtr, sizeof p->rtr, fy_type_get(MPI_BYTE), p->tag_rtr, -1, 0);
      p->rtr_sent = !err;
    }
  } else {
    p->nready = p->prefix = 0;
    memset(p->ready, 0, (size_t)p->partitions);
    p->early = 0;
    p->next = 0;
    if (p->listed) unlist(p);
    if (!p->rtr_in) err = child_start(r, FY_REQ_RECV, p->rtr, sizeof p->rtr, fy_type_get(MPI_BYTE), p->tag_rtr, -1, 0);
  }
  if (err && !p->err) p->err = err;
  p->pending--;
  int n;
  if (!p->recv && !p->err)
    send_chunks(r, &n); /* (completes it if over: with no partition, its chunks leave now) */
  else if (over(p))
    complete(r);
out:
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
  p->nready++;
  while (p->prefix < p->partitions && p->ready[p->prefix]) p->prefix++;
  if (r->peer == MPI_PROC_NULL) {
    if (p->nready == p->partitions) {
      r->status.MPI_SOURCE = MPI_PROC_NULL;
      fy_req_complete(r);
    }
    return MPI_SUCCESS;
  }
  int n;
  return send_chunks(r, &n);
}

static int ready_check(MPI_Request request, fy_request_t **out, const char *fn) {
  int err = get_part(request, out, 0, fn);
  if (err) return err;
  if (!(*out)->active || fy_req_done(*out))
    return fy_err(MPI_ERR_REQUEST, "request = %#x is not active: call MPI_Start before %s",
                  (unsigned)request, fn);
  return MPI_SUCCESS;
}

/* Before the first epoch's RTR has been seen, a Pready looks for it (one
 * progress pass), so that chunks can leave now rather than at the next
 * MPI call that progresses. (An unlocked read: a hint only.) */
static void look_for_rtr(MPI_Request request) {
  fy_request_t *r = request == MPI_REQUEST_NULL ? NULL : fy_req_get(request);
  fy_part_t *p = r && r->kind == FY_REQ_PART ? part_of(r) : NULL;
  if (p && !p->recv && !__atomic_load_n(&p->rtr_in, __ATOMIC_RELAXED) && r->peer != MPI_PROC_NULL)
    fy_progress_poll();
}

int fy_mpi_pready(int partition, MPI_Request request) {
  fy_request_t *r;
  look_for_rtr(request);
  fy_plock();
  int err = ready_check(request, &r, "MPI_Pready");
  if (!err) err = mark(r, partition, "MPI_Pready");
  fy_punlock();
  return err;
}

int fy_mpi_pready_range(int partition_low, int partition_high, MPI_Request request) {
  fy_request_t *r;
  look_for_rtr(request);
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
  look_for_rtr(request);
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
  fy_plock();
  *flag = fy_req_done(r) || (r->peer != MPI_PROC_NULL && p->arrived[partition / p->group]);
  fy_punlock();
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
