/* Collective schedules: every collective (blocking, nonblocking and
 * persistent) is built as a schedule that the progress engine advances.
 *
 * Contract
 * - A schedule is a list of steps grouped in stages by fences. When a
 *   stage begins, all its sends and receives are started at once; when
 *   they have all completed, its local steps (reduce, copy) run in the
 *   order they were added; then the next stage begins. A stage without
 *   communication runs its local steps at once.
 * - Every message of a schedule travels on the communicator's ctx+1 with
 *   the schedule's own tag (16 + the communicator's collective sequence
 *   number), so schedules of one communicator never match each other's
 *   messages; every rank builds its schedules in the same order (MPI's
 *   rule for collectives), so the tags agree.
 * - Buffers: user buffers are referenced; fy_sched_tmp() gives temporaries
 *   owned by the schedule. All memory (steps, requests, temporaries,
 *   scratch) is allocated while building, so advancing never allocates
 *   for contiguous data (a PEF turn may advance a schedule).
 * - fy_sched_finish(): runs a built schedule blocking (FY_SCHED_BLOCKING),
 *   starts it under a new request (FY_SCHED_NONBLOCKING) or makes it a
 *   persistent request started by MPI_Start (FY_SCHED_PERSISTENT).
 * - fy_sched_progress() advances every active schedule (a progress hook,
 *   progress lock held); fy_sched_pending() says whether an active
 *   schedule nobody waits on exists (the async agents poll for it). */
#ifndef FY_SCHED_H
#define FY_SCHED_H
#include <mpi.h>
#include "core/fy_comm.h"
#include "core/fy_op.h"
#include "core/fy_request.h"
#include "datatype/fy_datatype.h"

typedef struct fy_sched fy_sched_t;

enum { FY_SCHED_BLOCKING = 0, FY_SCHED_NONBLOCKING, FY_SCHED_PERSISTENT };

/* A schedule on communicator c (takes the next collective tag of c). */
int fy_sched_create(fy_comm_t *c, fy_sched_t **out);
/* Take c's next collective tag (offsets 0..15 above it are the taker's)
 * for an operation that runs its own messages (src/comm's MPI_Comm_idup). */
int fy_sched_next_tag(fy_comm_t *c);
/* The communicator new steps use (rank/size come from it); at first the
 * one the schedule was created on. fy_sched_use_comm() switches (e.g. to
 * an intercommunicator's local_comm) and returns the previous one; every
 * communicator of a schedule carries its messages with the schedule's tag
 * on its own ctx+1. */
fy_comm_t *fy_sched_comm(fy_sched_t *s);
fy_comm_t *fy_sched_use_comm(fy_sched_t *s, fy_comm_t *c);

int fy_sched_send(fy_sched_t *s, const void *buf, MPI_Count count, fy_datatype_t *t, int peer);
int fy_sched_recv(fy_sched_t *s, void *buf, MPI_Count count, fy_datatype_t *t, int peer);
/* Same as above with a tag offset (0..15) added to the schedule's tag. */
int fy_sched_send_tag(fy_sched_t *s, const void *buf, MPI_Count count, fy_datatype_t *t,
                      int peer, int tagoff);
int fy_sched_recv_tag(fy_sched_t *s, void *buf, MPI_Count count, fy_datatype_t *t, int peer,
                      int tagoff);
/* inout = in op inout (count items of t, user layout). */
int fy_sched_reduce(fy_sched_t *s, const void *in, void *inout, MPI_Count count,
                    fy_datatype_t *t, fy_op_t *op);
/* MPI_ERR_TRUNCATE (with its message) if scount items of st do not fit
 * rcount items of rt, else MPI_SUCCESS: the check of a collective's local
 * copy, here and in rooted.c. */
int fy_sched_copy_fits(MPI_Count scount, const fy_datatype_t *st, MPI_Count rcount, const fy_datatype_t *rt);
/* Copy scount items of st at src into dst as rcount items of rt. If they
 * do not fit, no copy: the schedule still runs its transfers and completes
 * with MPI_ERR_TRUNCATE (a process that returned at once would leave the
 * others waiting for its messages). */
int fy_sched_copy(fy_sched_t *s, const void *src, MPI_Count scount, fy_datatype_t *st,
                  void *dst, MPI_Count rcount, fy_datatype_t *rt);
/* The same, run as soon as the stage's transfers have started (outside a
 * signal turn) rather than after them: a root's own block while the
 * others' move. The stage's sends then ask their receivers to copy alone
 * (FY_PKF_SOLO), as this process is busy first. */
int fy_sched_copy_early(fy_sched_t *s, const void *src, MPI_Count scount, fy_datatype_t *st,
                        void *dst, MPI_Count rcount, fy_datatype_t *rt);
/* End the current stage. */
int fy_sched_fence(fy_sched_t *s);
/* A temporary buffer for count items of t, laid out as a user buffer
 * (the pointer to pass is already shifted by -true_lb); NULL on no memory. */
void *fy_sched_tmp(fy_sched_t *s, MPI_Count count, fy_datatype_t *t);
void *fy_sched_tmp_bytes(fy_sched_t *s, size_t bytes);

/* Build error err (or MPI_SUCCESS): run, start or make persistent.
 * Frees the schedule on error and in the blocking case. */
int fy_sched_finish(fy_sched_t *s, int err, int how, MPI_Request *request);

int fy_sched_progress(void);
/* Free the cached schedule objects (MPI_Finalize). */
void fy_sched_finalize(void);
int fy_sched_pending(void);
/* A PEF turn (signal context, progress lock held): advance what needs no
 * allocation; returns events handled. */
int fy_sched_signal_progress(void);

/* Hooks for the request layer (fy_request.c): MPI_Start of a persistent
 * collective, and release of a request that owns a schedule. */
int fy_sched_req_start(fy_request_t *r);
void fy_sched_req_free(fy_request_t *r);
/* A blocking wait on r has begun: its point-to-point steps count as waited
 * on (fy_req_set_waited) until the schedule completes, so their
 * rendezvous take the paths of a receiver blocked on its message, as a
 * blocking collective's do. Takes the progress lock. */
void fy_sched_req_waited(fy_request_t *r, int how);

/* Counters for FERRY_STATS */
typedef struct fy_sched_stats {
  uint64_t built, started, completed, agent_steps;
} fy_sched_stats_t;
extern fy_sched_stats_t fy_sched_stats;
#endif
