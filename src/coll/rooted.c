/* Blocking Gather and Scatter on an intracommunicator without a schedule.
 * Small blocks go through the communicator's shared segment when it takes
 * them (fy_coll_shm_rooted); otherwise as messages:
 *
 * The messages are exactly those of the linear schedules in gather.c: the
 * tag of the communicator's next schedule (fy_sched_next_tag, taken here
 * as a schedule would take it), offset 0, the collective context, the root
 * posting every transfer at once and copying its own block before it
 * waits, while the others copy theirs: its rendezvous sends ask the
 * receivers to copy alone (FY_PKF_SOLO) and its receives are offered to
 * their senders (not waited on yet), so no transfer waits for the root in a
 * pipe or shared copy (that had made the root copy its own block after
 * the transfers; paired at -n 2, 7 rounds: Scatter 128 KiB-1 MiB 0.53-0.62x,
 * Gather 0.67-0.91x; -n 4 0.58-0.81x and 0.66-1.01x). So
 * a process that builds the schedule instead still matches, and so do
 * truncation and zero counts. What goes is the schedule itself: its
 * object, its steps, starting and freeing them, about 40 % of a 8-byte
 * Gather at -n 2 (0.22 us against 0.13 for the same messages sent by
 * hand). The other processes' requests are blocking and waited on before
 * they start, as a blocking schedule's are; the root's are waited on once
 * its own block is copied, and a transfer it joins then is split between
 * both sides (rndv.c's joinable copies). */
#include "coll/fy_coll_impl.h"
#include "coll/fy_coll_shm.h"
#include "pt2pt/fy_pt2pt.h"
#include "progress/fy_progress.h"
#include "core/fy_error.h"
#include <stdlib.h>

/* The root's requests live on the stack up to this many processes. */
#define ROOTED_MAXP 64

typedef struct {
  fy_request_t **r;
  int n, first;
} reqs_t;

static int all_done(void *arg) {
  reqs_t *q = arg;
  while (q->first < q->n && fy_req_done(q->r[q->first])) q->first++;
  return q->first == q->n;
}

/* Start one transfer; *out stays NULL for a small send that the ring took
 * at once (it needs no request, as in MPI_Send). */
/* busy: the root, which copies its own block before it waits: its
 * receivers copy alone (FY_PKF_SOLO), and its receives are not waited on
 * yet, so they are published for their senders to write into (recv.c,
 * direct.c) and a sender whose announcement came first is offered the
 * copy. */
static int start_one(fy_comm_t *c, int kind, const void *buf, MPI_Count n, fy_datatype_t *t, int peer, int tag,
                     int busy, fy_request_t **out) {
  if (kind == FY_REQ_SEND && fy_send_eager_now(buf, n, t, peer, tag, c, 1) == 0) return MPI_SUCCESS;
  fy_request_t *r = fy_req_alloc(kind, 0);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests in a collective");
  fy_req_setup(r, kind, FY_MODE_STD, buf, n, t, peer, tag, c, 1);
  r->blocking = 1; /* never watched by the agents */
  r->solo = busy && kind == FY_REQ_SEND;
  if (!busy) fy_req_set_waited(r, FY_WAITED_ALL);
  *out = r;
  return kind == FY_REQ_SEND ? fy_send_start(r) : fy_recv_start(r);
}

/* Wait for q's requests, release them, return the first error. */
static int finish(reqs_t *q, int err) {
  q->first = 0;
  for (int i = 0; i < q->n; i++) fy_req_set_waited(q->r[i], FY_WAITED_ALL);
  if (!all_done(q)) fy_progress_wait(all_done, q);
  for (int i = 0; i < q->n; i++) {
    if (!err) err = q->r[i]->status.MPI_ERROR;
    fy_req_release(q->r[i]);
  }
  return err;
}

/* The root's own block: checked before anything starts (fy_sched_copy_fits,
 * as a schedule's build does), copied after the transfers; one that does
 * not fit is reported after them, as a schedule reports it. */
static int own_copy(const void *src, MPI_Count sn, fy_datatype_t *st, void *dst, MPI_Count rn,
                    fy_datatype_t *rt) {
  if (sn * st->size == 0) return MPI_SUCCESS;
  void *tmp = NULL;
  if (!st->is_contig && !rt->is_contig && !(tmp = malloc((size_t)(sn * st->size))))
    return fy_err(MPI_ERR_NO_MEM, "out of memory in a collective");
  fy_type_copy(src, sn, st, dst, rn, rt, tmp);
  free(tmp);
  return MPI_SUCCESS;
}

/* The linear schedule's messages: the root exchanges with every other
 * process (receives for a gather, sends for a scatter) its blocks b of
 * type t, and copies its own block (own: 1) after starting them, before
 * it waits, while the others copy theirs; the others make the one
 * matching transfer. Empty blocks (by size, as the schedules skip them)
 * travel on neither side. */
static int messages(fy_comm_t *c, int gather, const void *sbuf, MPI_Count sn, fy_datatype_t *st, void *rbuf,
                    MPI_Count rn, fy_datatype_t *rt, int root, const fy_blocks_t *b, int own) {
  int p = c->size, me = c->rank, err = MPI_SUCCESS;
  int tag = fy_sched_next_tag(c);
  fy_request_t *rs[ROOTED_MAXP];
  reqs_t q = {rs, 0, 0};
  if (me != root) {
    rs[0] = NULL;
    if (gather ? fy_has_data(sn, st) : fy_has_data(rn, rt))
      err = start_one(c, gather ? FY_REQ_SEND : FY_REQ_RECV, gather ? sbuf : rbuf, gather ? sn : rn,
                      gather ? st : rt, root, tag, 0, &rs[q.n]);
    q.n += rs[q.n] != NULL;
    return finish(&q, err);
  }
  const void *blocks = gather ? rbuf : sbuf;
  fy_datatype_t *t = gather ? rt : st;
  for (int i = 0; i < p && !err; i++)
    if (i != me && fy_has_data(fy_blk_n(b, i), t)) {
      rs[q.n] = NULL;
      err = start_one(c, gather ? FY_REQ_RECV : FY_REQ_SEND, fy_at(blocks, fy_blk_at(b, i), t), fy_blk_n(b, i), t, i,
                      tag, own, &rs[q.n]);
      q.n += rs[q.n] != NULL;
    }
  if (!err && own)
    err = gather ? own_copy(sbuf, sn, st, fy_at(rbuf, fy_blk_at(b, me), rt), fy_blk_n(b, me), rt)
                 : own_copy(fy_at(sbuf, fy_blk_at(b, me), st), fy_blk_n(b, me), st, rbuf, rn, rt);
  return finish(&q, err);
}

/* The others' blocks through the shared segment when it takes them (not
 * the v forms), else as messages; the root's own block
 * meanwhile. */
static int rooted(fy_comm_t *c, int gather, const void *sbuf, MPI_Count sn, fy_datatype_t *st, void *rbuf,
                  MPI_Count rn, fy_datatype_t *rt, int root, const fy_blocks_t *b) {
  int me = c->rank;
  if (c->is_inter || c->size > ROOTED_MAXP) return FY_COLL_SHM_DECLINED;
  int sends = gather != (me == root); /* this rank's block leaves it */
  if (!b->v && fy_coll_rooted_binomial(c, sends ? sn * st->size : rn * rt->size)) return FY_COLL_SHM_DECLINED;
  int in_place = gather ? sbuf == MPI_IN_PLACE : rbuf == MPI_IN_PLACE;
  /* A root whose own block does not fit still takes part (the others'
   * transfers complete, nobody hangs), copies nothing of its own and
   * reports it. */
  int own_err = MPI_SUCCESS;
  if (me == root && !in_place)
    own_err = gather ? fy_sched_copy_fits(sn, st, fy_blk_n(b, me), rt) : fy_sched_copy_fits(fy_blk_n(b, me), st, rn, rt);
  int err = b->v ? FY_COLL_SHM_DECLINED : fy_coll_shm_rooted(c, gather, sbuf, sn, st, rbuf, rn, rt, root);
  if (err == FY_COLL_SHM_DECLINED) {
    /* (the own copy inside, while the others copy theirs) */
    err = messages(c, gather, sbuf, sn, st, rbuf, rn, rt, root, b, me == root && !in_place && !own_err);
    return err ? err : own_err;
  }
  if (err || me != root || in_place) return err;
  if (own_err) return own_err;
  return gather ? own_copy(sbuf, sn, st, fy_at(rbuf, (MPI_Aint)(me * rn), rt), rn, rt)
                : own_copy(fy_at(sbuf, (MPI_Aint)(me * sn), st), sn, st, rbuf, rn, rt);
}

int fy_coll_gather_now(fy_comm_t *c, const void *sbuf, MPI_Count sn, fy_datatype_t *st, void *rbuf,
                       MPI_Count rn, fy_datatype_t *rt, int root) {
  fy_blocks_t b = {0, NULL, NULL, 0, rn};
  return rooted(c, 1, sbuf, sn, st, rbuf, rn, rt, root, &b);
}

int fy_coll_scatter_now(fy_comm_t *c, const void *sbuf, MPI_Count sn, fy_datatype_t *st, void *rbuf,
                        MPI_Count rn, fy_datatype_t *rt, int root) {
  fy_blocks_t b = {0, NULL, NULL, 0, sn};
  return rooted(c, 0, sbuf, sn, st, rbuf, rn, rt, root, &b);
}

int fy_coll_gatherv_now(fy_comm_t *c, const void *sbuf, MPI_Count sn, fy_datatype_t *st, void *rbuf,
                        const void *rcnts, const void *displs, int w, fy_datatype_t *rt, int root) {
  fy_blocks_t b = {1, rcnts, displs, w, 0};
  return rooted(c, 1, sbuf, sn, st, rbuf, 0, rt, root, &b);
}

int fy_coll_scatterv_now(fy_comm_t *c, const void *sbuf, const void *scnts, const void *displs, int w,
                         fy_datatype_t *st, void *rbuf, MPI_Count rn, fy_datatype_t *rt, int root) {
  fy_blocks_t b = {1, scnts, displs, w, 0};
  return rooted(c, 0, sbuf, 0, st, rbuf, rn, rt, root, &b);
}
