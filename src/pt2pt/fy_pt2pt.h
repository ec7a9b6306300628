/* Point-to-point: send modes, receives, probes, and the protocols under
 * them (eager; rendezvous by cross-memory attach or pipelined copy).
 *
 * Contract
 * - fy_send_start()/fy_recv_start() start the operation described by an
 *   (already filled) request; they are used by the nonblocking calls, the
 *   blocking ones (start + wait) and MPI_Start for persistent requests.
 * - All functions take the progress lock themselves.
 * - fy_pt2pt_progress() is the point-to-point part of a progress pass
 *   (called by the engine with the lock held); returns events handled.
 * - Messages travel on a context id: a communicator's ctx for user
 *   traffic, ctx+1 for collectives (fy_request_t.ctx). */
#ifndef FY_PT2PT_H
#define FY_PT2PT_H
#include <mpi.h>
#include "core/fy_request.h"
#include "core/fy_comm.h"
#include "datatype/fy_datatype.h"

int fy_pt2pt_init(void);
void fy_pt2pt_finalize(void);
/* Before a process leaves without MPI_Finalize (it used sessions only):
 * what it still holds for its peers goes out, and over the fabric a barrier
 * of the job keeps every endpoint open until all are done (collective). */
void fy_pt2pt_quiesce(void);
void fy_pt2pt_ctx_open(fy_comm_t *c);
void fy_pt2pt_ctx_close(fy_comm_t *c);
int fy_pt2pt_progress(void);
/* One PEF turn (signal context, progress lock held): match rendezvous
 * starts for watched receives without allocating; returns the hits. */
int fy_pt2pt_signal_poll(void);
/* Set by fy_pt2pt_signal_poll when it left a packet it will be able to take
 * in a moment (an eager message whose sender is still filling the pipe
 * slots): the PEF looks again by timer. Cleared by the next signal poll. */
extern int fy_pt2pt_sig_retry;
extern int fy_pt2pt_in_signal;
/* A transfer is streaming through the pipe: waits keep polling. */
int fy_rndv_busy(void);
/* The fabric (net.c): whether it is up, and a sleep that covers both
 * transports for a blocking wait or an agent: v from
 * fy_shm_doorbell_arm(); returns 0 if woken, -1 on timeout or when the
 * caller should simply poll again. */
int fy_pt2pt_net_active(void);
int fy_pt2pt_sleep(uint32_t v, long us);
/* The fabric alone (its agent): -1 without a wait fd; sleep returns 0 when
 * something may have happened, -1 on timeout. */
int fy_pt2pt_net_wait_fd(void);
int fy_pt2pt_net_busy(void);   /* fabric transfers in progress */
int fy_pt2pt_net_busy_in(void); /* ... of which receives */
int fy_pt2pt_net_paced(void);  /* unattended bulk fabric transfers moving (FERRY_OFI_PACE_*) */
int fy_pt2pt_net_queued_only(void); /* the last fabric pass counted as work only for sends the provider refused */
/* Ranks of the job on this machine (same kernel), counted over the fabric's
 * address exchange; 0 without the fabric. */
int fy_pt2pt_net_machine_ranks(void);
/* A receive of this capacity may be a fabric rendezvous (the fabric is up
 * and it exceeds the fabric's eager limit). */
int fy_pt2pt_net_may_rndv(size_t bytes);
/* A nonblocking receive r (not yet matched) that the fabric agent alone
 * should watch: its source is a fabric peer and it is larger than what
 * fy_pt2pt_net_watch_above set (by default the fabric's eager limit: a
 * possible rendezvous), but not large enough for every agent to watch it
 * (recv.c). The fabric agent lowers the bound when it also takes in large
 * eager messages (FERRY_OFI_AGENT_EAGER); 0, or a bound at or above the
 * eager limit, leaves it unchanged. */
int fy_pt2pt_net_watch(const fy_request_t *r);
void fy_pt2pt_net_watch_above(size_t bytes);
int fy_pt2pt_net_sleep(long us);
/* The fabric agent's start opens an eventfd that blocking waits asleep on
 * the fabric's fd poll too; after a turn that did work while a thread of
 * the process waits, the agent writes it (wake_waiters): the turn may have
 * taken what that wait's poll was waiting for. */
void fy_pt2pt_net_wake_init(void);
void fy_pt2pt_net_wake_waiters(void);
/* Bytes a ring cell must carry for this eager threshold. */
size_t fy_pt2pt_cell_bytes(size_t eager);
/* Bytes of the shm rank area point-to-point uses (rendezvous slots, board). */
size_t fy_pt2pt_area_bytes(int local_size);

/* Fill a request for a send/receive (does not start it). */
void fy_req_setup(fy_request_t *r, int kind, int mode, const void *buf, MPI_Count count,
                  fy_datatype_t *t, int peer, int tag, fy_comm_t *c, int coll);
/* Reset r for a (re)start. A PROC_NULL peer completes it at once with the
 * standard's empty status; returns 1 then. */
int fy_req_begin(fy_request_t *r);
int fy_send_start(fy_request_t *r);
/* A standard or ready send that fits one eager packet, sent at once with no
 * request (the blocking call's fast path; coll: on the communicator's
 * collective context): 0 if sent, -1 to take the normal path (nothing was
 * done). */
int fy_send_eager_now(const void *buf, MPI_Count count, fy_datatype_t *t, int peer, int tag, fy_comm_t *c,
                      int coll);
int fy_recv_start(fy_request_t *r);
/* Internal convenience used by Barrier and friends: start on ctx+1. */
int fy_isend_internal(const void *buf, MPI_Count count, fy_datatype_t *t, int dest, int tag,
                      fy_comm_t *c, fy_request_t **out);
int fy_irecv_internal(void *buf, MPI_Count count, fy_datatype_t *t, int src, int tag,
                      fy_comm_t *c, fy_request_t **out);
/* Block until r completes (progressing); does not release r. */
void fy_req_wait_done(fy_request_t *r);
/* A nonblocking call's request (with a handle) goes to the user; a
 * blocking call's (request NULL, r internal) is waited for and released
 * here: its error is returned. */
int fy_req_give_or_wait(fy_request_t *r, MPI_Request *request);

/* Partitioned requests (part.c): MPI_Start on one, and the release of
 * its state (called by fy_req_release with the progress lock held). */
int fy_part_start(fy_request_t *r);
void fy_part_free(fy_request_t *r);

/* Receive cancel: 1 if it was still queued (and is now cancelled). */
int fy_recv_cancel(fy_request_t *r);

/* Probes: peek/take an unexpected message. */
int fy_probe_peek(fy_comm_t *c, int src, int tag, MPI_Status *st);
fy_request_t *fy_probe_take(fy_comm_t *c, int src, int tag, MPI_Status *st);
int fy_msg_recv_start(fy_request_t *msg, void *buf, MPI_Count count, fy_datatype_t *t,
                      fy_request_t *r);
/* The next unexpected message on (c, src, tag): 0 when there is none; 1
 * when it is an eager one wholly here (not synchronous), now taken: its
 * payload in place in *data and *len (no receive, no copy), valid until
 * fy_probe_release(*handle); 2 for another kind, left queued (take it
 * with fy_probe_take). *st is its status (1 and 2). */
int fy_probe_take_eager(fy_comm_t *c, int src, int tag, MPI_Status *st, void **handle, const void **data,
                        size_t *len);
void fy_probe_release(void *handle);

/* One-sided access over the fabric (windows across nodes, src/rma/am.c).
 * fy_net_rma_world: the world rank of c's rank if it is reached through
 * the fabric, else -1. fy_net_mr_reg registers len bytes at buf for remote
 * access (the handle, or NULL: not possible), giving the address and key a
 * peer uses; fy_net_mr_dereg releases it. fy_net_mr_local registers it
 * for local access only where the provider needs that (FI_MR_LOCAL; else
 * NULL). fy_net_rma reads (write = 0) or
 * writes len bytes between buf and a peer's registered memory and
 * completes r from the progress engine once done (a write: once a message
 * sent afterwards finds the data in place); MPI_ERR_NO_MEM if it could not
 * start. Progress lock held. */
int fy_net_rma_world(fy_comm_t *c, int rank);
void *fy_net_mr_reg(void *buf, size_t len, uint64_t *raddr, uint64_t *key);
void fy_net_mr_dereg(void *mr);
void *fy_net_mr_local(void *buf, size_t len);
int fy_net_rma(int write, int world, void *buf, size_t len, uint64_t raddr, uint64_t key, fy_request_t *r);
/* 1 when a message sent from now on finds every write started so far in
 * place, without waiting for their completions (the provider orders sends
 * after writes, and none is held back here). */
int fy_net_writes_ordered(void);

/* Counters for FERRY_STATS */
typedef struct fy_pt2pt_stats {
  uint64_t eager_sent, rndv_sent, rndv_cma_recv, rndv_cma_send, rndv_pipe, unexpected, queued_pkts;
  uint64_t direct_published, direct_sent, direct_recv, rndv_share;
  uint64_t rndv_joined; /* transfers whose single copy the other side joined */
  uint64_t eager_piped; /* eager messages sent through the pipe slots (of eager_sent) */
} fy_pt2pt_stats_t;
extern fy_pt2pt_stats_t fy_pt2pt_stats;
/* The protocols over the fabric (net.c): eager messages sent (eager_ref:
 * of them, those that went out of the sender's buffer, uncopied), rendezvous
 * receives by read and by the sender's write, transfers paced by the
 * agent; and how blocking waits slept on the completion queue's fd (busy:
 * polled instead, sleeps, woken by it, timeouts, naps after futile
 * wake-ups or on the doorbell of a rank with both kinds of peer), and
 * on the doorbell while the fabric agent watched the fd for them
 * (relayed; relays: the fd fired and the agent rang). fin_rode: answers to
 * data ahead that rode on another packet to the sender instead of an
 * NFIN_S of their own. */
typedef struct fy_net_stats {
  uint64_t eager, eager_ref, rget, rput, ahead, ahead_unexp, fin_rode, paced, busy, sleeps, woken, timeouts, naps,
      relayed, relays;
} fy_net_stats_t;
extern fy_net_stats_t fy_net_stats;
/* A count made outside the progress lock (waits, the agent's relay):
 * atomic, as other threads count too (the rest count under the lock). */
#define FY_NET_STAT_ADD(field) __atomic_fetch_add(&fy_net_stats.field, 1, __ATOMIC_RELAXED)
struct fy_mq;
extern struct fy_mq *fy_mq;
#endif
