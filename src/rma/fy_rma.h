/* One-sided communication (MPI 4.1 ch. 12) with fully nonblocking
 * synchronization (seed 002 ch. 5, the MPIX_Win_i* calls).
 *
 * Contract
 * - Windows live on one node: every window has its own shared segment
 *   (control words, and for Win_allocate / Win_allocate_shared the window
 *   memory itself), created by the window's rank 0 and mapped by all. Put,
 *   Get and accumulates are done by the origin alone: memcpy / the accumulate lock
 *   on mapped memory, cross-memory attach (process_vm_readv/writev) for
 *   Win_create and dynamic windows. The target never takes part and no
 *   message goes through the point-to-point matching queues; the only
 *   messages RMA sends are the few internal ones of window creation (tags
 *   FY_RMA_TAG_*, 16..31 on the communicator's ctx+1).
 * - Synchronization is one engine of epochs per window (sync.c): opening
 *   calls append an epoch to the window's FIFO queue, which activates it at
 *   once or defers it (rules 8, 12-19 of the seed); RMA calls bind to the
 *   most recently opened access epoch (rule 3) and run at once when that
 *   epoch holds its grant toward the target, else are recorded and replayed
 *   at the grant. Every opening/closing/flush call has a request-returning
 *   form (MPIX_Win_i*); the blocking MPI calls are those plus a wait.
 * - Grants are counters in the segment (the seed's C_e): exposure k of
 *   target t toward origin o is C_e[t][o] >= k, access k of o toward t is
 *   done when D[t][o] >= k; fence call c is passed when every rank's fence
 *   word is >= c (no barrier); locks are one word per target taken by CAS
 *   from the origin. All are one-sided, so a target computing outside MPI
 *   still grants locks and completes epochs.
 * - Everything runs under the progress lock; fy_rma_progress() is the hook
 *   the progress engine (and the agents) call on every pass. */
#ifndef FY_RMA_H
#define FY_RMA_H
#include <mpi.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stddef.h>
#include "core/fy_request.h"
#include "core/fy_group.h"
#include "datatype/fy_datatype.h"

#define FY_RMA_TAG_INFO 16  /* window creation: each rank -> rank 0 */
#define FY_RMA_TAG_SEG 17   /* window creation: rank 0 -> each rank */
#define FY_REQ_RMA 10       /* request kind of RMA requests */
#define FY_RMA_DYN_MAX 1024 /* attached regions per process (dynamic windows): 16 KiB of each rank block */

enum { FY_WIN_CREATE = 1, FY_WIN_ALLOCATE, FY_WIN_SHARED, FY_WIN_DYNAMIC };

/* Reorder info keys (seed 002 §5.6): bit flags of fy_win_t.reorder. */
enum { FY_RO_AAA = 1, FY_RO_AAE = 2, FY_RO_EAE = 4, FY_RO_EAA = 8 };

/* The per-rank block of the window segment (two 128-byte lines per group of
 * words written by different processes). */
typedef struct fy_win_rankblk {
  _Atomic uint64_t lock;      /* bit 63: exclusive holder; low bits: shared holders */
  _Atomic uint32_t waiters;   /* processes waiting for this lock (unlock rings only then) */
  char pad0[116];
  _Atomic uint64_t fence;     /* fence calls of this rank whose earlier epochs are done */
  char pad1[120];
  _Atomic uint32_t acc;       /* accumulate spinlock (cross-memory windows, wide types) */
  char pad2[124];
  uint64_t base;              /* window base in the owner's address space */
  uint64_t size;
  int64_t disp_unit;
  int32_t pid, local;
  uint64_t data_off;          /* allocate/shared: offset of the memory in the segment */
  _Atomic uint32_t dyn_seq;   /* dynamic: seqlock of the region table */
  uint32_t ndyn;
  struct { uint64_t base, size; } dyn[FY_RMA_DYN_MAX];
  char pad3[64];
} fy_win_rankblk_t;

typedef struct fy_win_seg {
  uint64_t magic;
  uint32_t n;
  _Atomic uint32_t attached;  /* ranks that mapped the segment (creation barrier) */
  _Atomic uint32_t freeing;   /* ranks that entered Win_free (free barrier) */
  char pad[128 - 20];
  /* then n rank blocks, then C_e[n][n], then D[n][n] (one line each), then data */
} fy_win_seg_t;

typedef struct { _Atomic uint64_t v; char pad[56]; } fy_rma_ctr_t;

/* Delegated puts (PSCW): an origin that records a contiguous put toward a
 * mapped window while it waits for the grant also publishes it here, so
 * that the target, once it has granted, can copy it itself (cross-memory
 * read of the origin's buffer) while the origin computes. Either side
 * claims a slot by CAS (POSTED -> CLAIMED); the origin frees it. Per pair
 * (t, o): FY_RMA_DSLOTS slots and `closed`, the access number of the
 * origin's last closed epoch whose operations toward t were all published
 * here: then the target may also count that epoch as done. */
#define FY_RMA_DSLOTS 8
enum { FY_DS_FREE = 0, FY_DS_POSTED, FY_DS_CLAIMED, FY_DS_DONE };
typedef struct fy_rma_dslot {
  _Atomic uint32_t state;
  uint32_t seq;
  uint64_t id, oaddr, len, toff;
  char pad[24];
} fy_rma_dslot_t;
typedef struct fy_rma_dpair {
  _Atomic uint64_t closed;
  uint32_t next_seq;          /* origin-private: next slot sequence */
  char pad[52];
  fy_rma_dslot_t slot[FY_RMA_DSLOTS];
} fy_rma_dpair_t;

enum { FY_EP_FENCE = 1, FY_EP_START, FY_EP_POST, FY_EP_LOCK, FY_EP_LOCK_ALL };
enum { FY_EPS_DEFERRED = 0, FY_EPS_ACTIVE, FY_EPS_DONE };
enum { FY_OP_PUT = 1, FY_OP_GET, FY_OP_ACC, FY_OP_GACC, FY_OP_FOP, FY_OP_CAS, FY_OP_FLUSH };

typedef struct fy_rmaop fy_rmaop_t;
struct fy_rmaop {
  int kind, target, flush_all;
  const void *oaddr; MPI_Count ocount; fy_datatype_t *otype;
  void *raddr; MPI_Count rcount; fy_datatype_t *rtype;
  const void *caddr;               /* compare-and-swap: compare value */
  MPI_Aint tdisp; MPI_Count tcount; fy_datatype_t *ttype;
  MPI_Op op;
  fy_rma_dslot_t *ds;              /* published for the target to run (delegated put) */
  fy_request_t *req;               /* request-based operations and flushes */
  fy_rmaop_t *next;
};

typedef struct fy_epoch fy_epoch_t;
struct fy_epoch {
  int kind, state, closed, assert_;
  int lock_type, target;           /* LOCK */
  int fence_no;                    /* FENCE: this rank's fence call number */
  int no_access;                   /* FENCE opened with MPI_MODE_NOSUCCEED */
  int n;                           /* members (START/POST: group; LOCK_ALL: window) */
  int *ranks;                      /* window ranks of the members */
  uint64_t *ids;                   /* START/POST: access/exposure number per member */
  uint8_t *granted;                /* access epochs: grant seen per member */
  uint8_t *held;                   /* LOCK/LOCK_ALL: lock word taken per member */
  uint8_t *waiting;                /* LOCK/LOCK_ALL: counted in the target's waiters */
  uint8_t one[3];                  /* LOCK: inline granted/held/waiting */
  /* START/POST over up to FY_EP_INLINE members: ranks/ids/granted point
   * here (no allocation per epoch) */
#define FY_EP_INLINE 4
  int ranks_in[FY_EP_INLINE];
  uint64_t ids_in[FY_EP_INLINE];
  uint8_t granted_in[FY_EP_INLINE];
  int all_granted;
  uint64_t open_seq, close_seq;    /* application order of the open/close calls */
  fy_rmaop_t *ops, *ops_tail;      /* recorded operations (and flushes) */
  int err;                         /* first error of a replayed operation */
  fy_request_t *open_req, *close_req;
  fy_epoch_t *next;
};

typedef struct fy_win_peer {
  char *addr;           /* mapped base (allocate/shared; own memory) or NULL */
  uint64_t raddr;       /* base in the owner's address space (cross-memory) */
  uint64_t size;
  MPI_Aint disp_unit;
  int local;            /* node-local rank */
} fy_win_peer_t;

typedef struct fy_win fy_win_t;
struct fy_win {
  int handle;
  int flavor, model;
  int rank, size;
  int *world_of;        /* window rank -> world rank */
  fy_group_t *group;
  void *base;
  MPI_Aint bytes;
  MPI_Aint disp_unit;
  int mapped;           /* peers' memory is mapped: direct copies, in-place accumulates */
  fy_win_peer_t *peer;
  void *seg; size_t seg_len;
  fy_win_seg_t *hdr;
  fy_win_rankblk_t *blk;   /* [n] */
  fy_rma_ctr_t *ce;        /* [t*n + o]: exposures t granted o (written by t) */
  fy_rma_ctr_t *dn;        /* [t*n + o]: accesses o completed toward t (written by o) */
  fy_rma_dpair_t *dp;      /* [t*n + o]: delegated puts from o to t */
  uint64_t *acc_issued;    /* per target */
  uint64_t *exp_issued;    /* per origin */
  int fence_calls;
  uint64_t seq;            /* application-order counter for open/close */
  fy_epoch_t *q, *q_tail;  /* FIFO of epochs not yet completed */
  unsigned reorder;        /* FY_RO_* */
  int no_locks, same_op_no_op;
  char *acc_ordering;
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Errhandler errhandler;
  void *attrs;
  fy_win_t *next;          /* list of live windows (progress) */
  uint8_t *scratch;        /* [n] replay bookkeeping */
  int freeing;
  int bg;                  /* counted in fy_progress_background (epochs pending) */
  struct fy_rma_am *am;    /* the group spans nodes: operations are messages (am.c) */
  int own_base;            /* base was allocated here (Win_allocate over am.c) */
};

extern fy_win_t *fy_win_list;
fy_win_t *fy_win_get(MPI_Win h);
/* Progress hook: advance every window's epochs; returns events. */
int fy_rma_progress(void);
void fy_rma_hook_ensure(void);

/* ---- ops (ops.c, acc.c) ---- */
/* Run one operation now (the grant is held). Returns an MPI error code. */
int fy_rma_exec(fy_win_t *w, fy_rmaop_t *op);
/* Dynamic windows: 1 if an attached region of target t (its rank block's
 * table) holds [lo, lo+len). */
int fy_rma_dyn_lookup(fy_win_t *w, int t, uint64_t lo, uint64_t len);
/* Target address check: [disp*unit + true_lb, + span) inside the target's
 * window (or an attached region for dynamic windows). */
int fy_rma_target_range(fy_win_t *w, int t, MPI_Aint disp, MPI_Count count, fy_datatype_t *tt,
                        uint64_t *addr_out);
/* acc.c: op allowed in an accumulate on t (predefined, defined for t's one
 * basic type; MPI_NO_OP only if allow_noop); the kernel of op on basic. */
int fy_rma_op_check(MPI_Op op, fy_datatype_t *t, int allow_noop);
struct fy_op_kernel;
int fy_rma_kernel(MPI_Op op, fy_datatype_t *basic, struct fy_op_kernel *k);

/* ---- sync (sync.c) ---- */
/* The access epoch an operation toward t binds to (rule 3), or NULL with
 * *err = MPI_ERR_RMA_SYNC. passive_only: request-based operations. */
fy_epoch_t *fy_rma_bind(fy_win_t *w, int t, int passive_only, int *err);
/* The epoch an operation toward t may run in at once, inside the call,
 * with nothing to record or check: the window's only queued epoch, an
 * open access epoch covering t that holds its grant toward t and has
 * nothing recorded. NULL: take fy_rma_bind + fy_rma_issue. */
fy_epoch_t *fy_rma_ready(fy_win_t *w, int t);
/* Run op now if its epoch holds the grant and nothing before it toward t
 * is pending, else record it (it is copied). Completes op->req when run. */
int fy_rma_issue(fy_win_t *w, fy_epoch_t *e, fy_rmaop_t *op);
/* Win_free's local part: no epoch but a fence one may be open (else
 * MPI_ERR_RMA_SYNC), which ends here; fy_rma_win_quiet() is true once the
 * window's epoch queue has drained. */
int fy_rma_win_quiesce(fy_win_t *w, const char *fname);
int fy_rma_win_quiet(fy_win_t *w);

/* ---- windows whose group spans nodes (am.c) ----
 * No segment: operations travel to their target as messages over a
 * private communicator and the target applies them in its progress hook;
 * synchronization is messages too. w->am is set for such windows only. */
typedef struct fy_rma_am fy_rma_am_t;
struct fy_comm;
/* Collective over c: the communicator, Win_allocate's memory, every rank's
 * size and displacement unit (w->peer). */
int fy_rma_am_setup(fy_win_t *w, struct fy_comm *c, MPI_Aint size, void *user_base);
void fy_rma_am_destroy(fy_win_t *w);
/* Win_free (and MPIX_Win_ifree), in steps a progress hook takes (win.c):
 * fy_rma_am_free_check() sets *ready once the nonblocking synchronization
 * calls have ended and then returns MPI_ERR_RMA_SYNC if an epoch is still
 * open; fy_rma_am_free_step() then flushes every target, enters a barrier
 * and waits for the replies it sent, returning 1 when done (f->err: the
 * first error). */
typedef struct fy_rma_free { int phase, err; MPI_Request inner; const char *fname; } fy_rma_free_t;
int fy_rma_am_free_check(fy_win_t *w, int *ready, const char *fname);
int fy_rma_am_free_ready(void *win);  /* the nonblocking calls have ended */
int fy_rma_am_free_step(fy_win_t *w, fy_rma_free_t *f);
int fy_rma_am_poll(fy_win_t *w);           /* the target's hook: apply what arrived */
int fy_rma_am_op(fy_win_t *w, fy_rmaop_t *op, int passive_only, MPI_Request *request);
/* Counters for MPI_T (performance variables ferry_rma_*). am_throttled:
 * operations that waited in the call for FERRY_RMA_AM_INFLIGHT. */
typedef struct fy_rma_stats { uint64_t am_throttled; } fy_rma_stats_t;
extern fy_rma_stats_t fy_rma_stats;
enum { FY_AMS_FENCE = 1, FY_AMS_LOCK, FY_AMS_LOCK_ALL, FY_AMS_UNLOCK, FY_AMS_UNLOCK_ALL, FY_AMS_FLUSH,
       FY_AMS_FLUSH_LOCAL, FY_AMS_POST, FY_AMS_START, FY_AMS_COMPLETE, FY_AMS_WAIT, FY_AMS_TEST };
/* A synchronization call (rank: lock/unlock/flush target, -1 for every
 * one; arg: assert or lock type; group: post/start; flag: test; req: the
 * request of an MPIX_Win_i* call, NULL for a blocking one). */
int fy_rma_am_sync(fy_win_t *w, int call, int rank, int arg, MPI_Group group, int *flag, MPI_Request *req,
                   const char *fname);
void fy_rma_wake(fy_win_t *w, int r);  /* ring rank r's doorbell */
#endif
