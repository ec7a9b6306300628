/* Requests: the state of one nonblocking operation (or persistent request,
 * or matched message of MPI_Mprobe).
 *
 * Contract
 * - Requests are allocated from a free list over slabs and named by direct
 *   handles of kind FY_OK_REQUEST whose index is the slot in the slabs.
 *   fy_req_get() maps a handle to the object (NULL for a released one).
 * - `done` is written with release by whoever completes the request (the
 *   progress engine, possibly on an agent thread) and read with acquire.
 * - A completed non-persistent request is released by Wait/Test (or at
 *   completion if the user called MPI_Request_free). A persistent request
 *   goes back to inactive (done = 1, active = 0) and is reused by Start.
 * - Protocol fields belong to pt2pt; core only reads status/done/kind.
 * - FY_REQ_SENT is the handle of every nonblocking standard or ready send
 *   whose message left at once (a small eager one): one shared object,
 *   always complete, with an empty status, never released. It saves the
 *   request's allocation and handle both at the send and at its wait (as
 *   MPICH's "complete" builtin requests do). Completion calls set the
 *   user's handle to MPI_REQUEST_NULL as for any request; MPI_Cancel and
 *   MPI_Request_free on it do nothing; nothing may write to it. */
#ifndef FY_REQUEST_H
#define FY_REQUEST_H
#include <mpi.h>
#include <stdint.h>
#include <stdatomic.h>
#include "pt2pt/mq/fy_mq.h"
#include "transport/shm/fy_shm.h"

struct fy_comm;
struct fy_datatype;
struct fy_unexp;
struct fy_sched;

enum { FY_REQ_SEND = 1, FY_REQ_RECV, FY_REQ_MSG, FY_REQ_BSEND, FY_REQ_COLL,
       FY_REQ_MULTI, /* completes when its internal child requests have (MPI_Isendrecv) */
       FY_REQ_GREQ,  /* a generalized request (MPI_Grequest_start): the user completes it */
       FY_REQ_PART   /* a partitioned send/receive (pt2pt/part.c); cb_arg: its state */ };
enum { FY_MODE_STD = 0, FY_MODE_SYNC, FY_MODE_BUF, FY_MODE_READY };
enum { /* protocol state of an active request */
  FY_PS_IDLE = 0, FY_PS_QUEUED, FY_PS_EAGER_ACK, FY_PS_RNDV_WAIT_SLOT,
  FY_PS_RNDV_SENT, FY_PS_RNDV_MATCHED, FY_PS_RNDV_PIPE,
  FY_PS_RNDV_CTS,  /* sender: a CTS seen in a PEF turn, acted on by progress */
  FY_PS_RNDV_SHARE, /* both sides copy chunks (SHARE) */
  FY_PS_RNDV_JOIN,  /* took a joinable copy, copied its pieces: waits for the other side's */
  FY_PS_SEND_HELD   /* a send queued behind one that waits for a rendezvous slot (rndv.c) */
};

typedef struct fy_request fy_request_t;
struct fy_request {
  int handle;                  /* MPI_REQUEST_NULL: internal, or released */
  int hidx;                    /* its slot in the slabs: the index of its handle */
  uint8_t kind, mode, persistent, active;
  atomic_int done;
  int user_freed;
  int cancelled;
  int pstate;
  MPI_Status status;
  struct fy_comm *comm;
  uint32_t ctx;                /* context the message travels on */
  const void *sbuf;
  void *rbuf;
  MPI_Count count;
  struct fy_datatype *type;
  int peer, tag;
  size_t bytes;                /* packed length (send) or capacity (recv) */
  void *tmp;                   /* packed copy for non-contiguous data */
  int tmp_owned;
  int watch_idx;               /* index in the agents' watch list + 1; 0 = not watched */
  int watch_turns;             /* PEF turns spent on it */
  int watch_net;               /* watched for the fabric agent alone (fy_async_watch_net) */
  int blocking;                /* started by a blocking call: never watched */
  int waited;                  /* a blocking wait on it has begun (or will, at once):
                                  FY_WAITED_ALL or _ANY; set without the progress
                                  lock: fy_req_set_waited */
  /* receive side */
  fy_mq_item_t mqi;
  struct fy_unexp *msg;        /* FY_REQ_MSG: the message Mprobe took */
  /* rendezvous */
  int peer_local;
  uint32_t slot;
  uint64_t gen;
  uint64_t sreq;               /* receiver: the sender's request id */
  uint64_t saddr;              /* receiver: the sender's data address */
  size_t xfer_len;             /* receiver: bytes that will arrive */
  int board;                   /* receiver: published on the direct board (index + 1) */
  uint32_t board_gen;
  fy_shm_pipe_t pipe;
  int share_out;               /* SHARE: this side has no chunk left to claim */
  int cts_checks;              /* sender: times a CTS left to the receiver was re-checked */
  int join_no;                 /* receiver: never join the sender's copy (an exchange: rndv.c) */
  int solo;                    /* rendezvous: the receiver copies alone, never both sides at once
                                  (sender: set by the caller, sent as FY_PKF_SOLO; receiver: from it) */
  void (*on_complete)(fy_request_t *r); /* internal requests (Bsend) */
  void *cb_arg;                /* on_complete's context; a generalized request's extra_state */
  MPI_Grequest_query_function *gquery; /* FY_REQ_GREQ callbacks */
  MPI_Grequest_free_function *gfree;
  MPI_Grequest_cancel_function *gcancel;
  struct fy_sched *sched;      /* FY_REQ_COLL: the collective schedule (src/coll/sched) */
  fy_request_t *parent;        /* a child of an FY_REQ_MULTI request */
  atomic_int nchild;           /* FY_REQ_MULTI: children not yet complete */
  fy_request_t *lnext, *lprev; /* progress lists */
  fy_request_t *free_next;
};

#define FY_REQ_SENT ((MPI_Request)0x6c000001) /* builtin kind, request object, index 1 */
extern fy_request_t fy_req_sent;

fy_request_t *fy_req_alloc(int kind, int with_handle);
fy_request_t *fy_req_get(MPI_Request h);
void fy_req_release(fy_request_t *r);
/* Mark complete (release); releases user-freed and internal requests. */
void fy_req_complete(fy_request_t *r);
/* How a blocking wait waits on the request: to its end (Wait, Waitall, a
 * blocking call, a collective's steps) or possibly returning before it
 * completes (Waitany, Waitsome). */
enum { FY_WAITED_ALL = 1, FY_WAITED_ANY = 2 };
static inline void fy_req_set_waited(fy_request_t *r, int how) { __atomic_store_n(&r->waited, how, __ATOMIC_RELAXED); }
static inline int fy_req_waited(const fy_request_t *r) { return __atomic_load_n(&r->waited, __ATOMIC_RELAXED); }
/* A blocking call or a blocking wait polls for it (it need not be watched). */
static inline int fy_req_attended(const fy_request_t *r) { return r->blocking || fy_req_waited(r); }
static inline int fy_req_done(fy_request_t *r) {
  return atomic_load_explicit(&r->done, memory_order_acquire);
}
void fy_status_set_count(MPI_Status *s, MPI_Count bytes);
MPI_Count fy_status_get_count(const MPI_Status *s);
void fy_status_set_cancelled(MPI_Status *s, int flag);
int fy_status_cancelled(const MPI_Status *s);
void fy_status_empty(MPI_Status *s);
/* Copy a status out to the user (MPI_STATUS_IGNORE allowed), keeping the
 * user's MPI_ERROR unless set_error (multi-completion calls set it). */
void fy_status_out(MPI_Status *dst, const MPI_Status *src, int set_error);
void fy_req_finalize(void);
#endif
