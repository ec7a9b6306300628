/* The small internal exchanges communicator construction needs, over
 * point-to-point on a communicator's second context (ctx+1) with the tags
 * 0..15 reserved for construction (fy_comm.h).
 *
 * Contract
 * - A domain is an ordered set of n members of a transport communicator c
 *   (members[i] is a rank of c; NULL: ranks 0..n-1), the caller being
 *   member `me`. Messages are addressed by ranks of c, so consecutive
 *   exchanges between the same processes match in the order they were
 *   sent even when their domains differ (Comm_create_group).
 * - Every member calls the same exchanges in the same order (they are
 *   collective over the domain); all block until their part is done.
 *   Concurrent calls on one transport communicator need distinct d.tag
 *   (below); calls without one are ordered by MPI's collective rule.
 * - fy_cx_agree_ctx(): a context slot free in every member of the domain
 *   and, when bridge is not NULL, also in every member of the group at the
 *   other end of the bridge (the domain's root swaps with rank `bridge_peer`
 *   of `bridge`, whose own domain does the same). On success the slot is
 *   taken in this process (fy_comm.h); MPI_ERR_OTHER when none is left. */
#ifndef FY_CX_H
#define FY_CX_H
#include "core/fy_comm.h"
#include <stddef.h>
#include <stdint.h>

typedef struct fy_cx {
  fy_comm_t *c;
  int n, me, root;
  const int *members;
  int tag;        /* 0: the construction tags; else every exchange's one tag */
  int bridge_tag; /* the same for the exchanges over a bridge (the root's) */
} fy_cx_t;

/* Calls MPI lets threads make at once on one parent, told apart by the
 * user (MPI_Comm_create_group's tag, the stringtag of the MPI 4
 * constructors from groups), set d.tag from these; MPI_Intercomm_create's
 * tag, which only its leaders need to give alike, sets d.bridge_tag. The
 * user's tag is folded into the range above the collectives' (fy_comm.h),
 * so distinct tags give distinct internal tags unless they differ by a
 * multiple of that range's size (about 2^30). One tag is enough for all
 * of a call's exchanges: every receive names its source, and messages
 * between two processes on one tag match in order. Such an agreement's
 * priority (cx.c) comes from the tag too, so every member orders
 * concurrent ones alike. */
int fy_cx_user_tag(int tag);
int fy_cx_string_tag(const char *s);
static inline int fy_cx_tag(const fy_cx_t *d, int construction_tag) {
  return d->tag ? d->tag : construction_tag;
}
static inline int fy_cx_bridge_tag(const fy_cx_t *d, int construction_tag) {
  return d->bridge_tag ? d->bridge_tag : construction_tag;
}

static inline fy_cx_t fy_cx_of(fy_comm_t *c) {
  fy_cx_t d = {.c = c, .n = c->size, .me = c->rank, .root = 0, .members = NULL};
  return d;
}

int fy_cx_send(fy_comm_t *c, int dest, int tag, const void *buf, size_t n);
int fy_cx_recv(fy_comm_t *c, int src, int tag, void *buf, size_t n);
/* The same, src may be MPI_ANY_SOURCE: *from is the sender's rank in c. */
int fy_cx_recv_from(fy_comm_t *c, int src, int tag, void *buf, size_t n, int *from);
int fy_cx_swap(fy_comm_t *c, int peer, int tag, const void *out, size_t nout, void *in, size_t nin);

int fy_cx_bcast(const fy_cx_t *d, void *buf, size_t n);
int fy_cx_reduce_band(const fy_cx_t *d, uint32_t *words, int nwords);  /* result at root */
int fy_cx_allreduce_band(const fy_cx_t *d, uint32_t *words, int nwords);
/* all[i*n..] = member i's `mine` (n bytes each) on every member. */
int fy_cx_allgather(const fy_cx_t *d, const void *mine, size_t n, void *all);
int fy_cx_agree_ctx(const fy_cx_t *d, fy_comm_t *bridge, int bridge_peer, uint32_t *ctx);

/* The same agreement over all ranks of an intracommunicator c, nonblocking
 * (MPI_Comm_idup): started in program order with a collective tag the
 * caller took then (fy_sched_next_tag, so its messages never meet another
 * operation's), then advanced by fy_cx_nb_step() from progress passes of
 * the application thread (it starts point-to-point requests, so never
 * from a signal turn or an agent). Each round is a binomial AND-reduce to
 * rank 0 and a broadcast; with a bridge (an intercommunicator whose local
 * group is c's), rank 0 swaps the round's result with the remote group's
 * rank 0 before the broadcast, so both groups agree. The blocking
 * agreement's rule for the bitmap holds: only one agreement of a process
 * offers a part of it in a round (the others offer nothing there and
 * retry). Its first round offers a part of the bitmap only nonblocking
 * first rounds offer, later ones the part only later rounds offer (cx.c).
 * fy_cx_nb_step() returns 1 once finished: then err, or ctx (taken in
 * this process). fy_cx_nb_free() after that. */
typedef struct fy_cx_nb fy_cx_nb_t;
int fy_cx_nb_start(fy_comm_t *c, fy_comm_t *bridge, int tag, fy_cx_nb_t **out);
int fy_cx_nb_step(fy_cx_nb_t *a, int *err, uint32_t *ctx);
void fy_cx_nb_free(fy_cx_nb_t *a);
#endif
