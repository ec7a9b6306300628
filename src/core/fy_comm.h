/* Communicators: the objects (src/core); construction that needs
 * communication lives in src/comm.
 *
 * Contract
 * - fy_comm_get() maps MPI_COMM_WORLD, MPI_COMM_SELF and created handles to
 *   objects, NULL for anything else (including MPI_COMM_NULL).
 * - Each communicator owns two context ids: ctx (point-to-point) and ctx+1
 *   (collectives and internal traffic), so internal messages never match
 *   user receives. On ctx+1, tags 0..15 belong to communicator construction
 *   and barrier, 16..FY_TAG_TAGGED-1 to collectives (fy_sched_next_tag),
 *   FY_TAG_TAGGED..INT_MAX to constructions the user tells apart by a tag
 *   (src/comm/fy_cx.h).
 * - Context ids come in pairs named by a slot: ctx = 2 * slot. A process
 *   keeps a bitmap of its free slots (fy_ctx_mask_*); src/comm agrees on a
 *   slot free in every member, fy_comm_destroy() gives it back. WORLD has
 *   slot 0, SELF slot 1.
 * - world_of[rank] gives the world rank of a member; fy_comm_world_rank()
 *   hides the identity map of MPI_COMM_WORLD. For an intercommunicator
 *   world_of (and remote_size) describe the REMOTE group, the one
 *   point-to-point addresses; rank/size are the local group's, and
 *   local_comm is an intracommunicator over the local group.
 *   fy_comm_peer_size() is the number of valid destination ranks.
 * - fy_comm_new() returns an unpublished object (handle 0) that owns the
 *   world_of array given to it; fy_comm_publish() gives it a handle;
 *   fy_comm_destroy() frees the object, its attributes are NOT run (the
 *   caller did that), its context slot is released.
 * - A communicator holds the error handler invoked for errors raised on it,
 *   its attributes, its info hints and its topology. */
#ifndef FY_COMM_H
#define FY_COMM_H
#include <mpi.h>
#include <stdint.h>
#include "core/fy_handle.h"

#define FY_TAG_TAGGED 0x40000020 /* past the last collective tag, 16 + 0x3ffffff * 16 + 15 */

struct fy_attr;
struct fy_topo;
/* Partitioned communication (src/pt2pt/part.c): how many partitioned
 * sends/receives this process has initialised per (peer, tag); the n-th
 * send pairs with the peer's n-th receive. Freed with the communicator. */
typedef struct fy_part_seq {
  struct fy_part_seq *next;
  int peer, tag, recv;
  uint32_t n;
} fy_part_seq_t;

typedef struct fy_comm {
  int handle;
  int refcount;
  uint32_t ctx;
  int rank, size;
  int *world_of;          /* NULL: identity (MPI_COMM_WORLD); for an
                             intercommunicator, the REMOTE group's world
                             ranks (point-to-point addresses the remote group) */
  int is_inter;           /* intercommunicator */
  int remote_size;        /* intercommunicator: size of the remote group */
  struct fy_comm *local_comm; /* intercommunicator: an intracommunicator over
                             the local group (for collectives); NULL otherwise */
  MPI_Errhandler errhandler;
  uint32_t coll_seq;      /* tags of internal collectives */
  char name[MPI_MAX_OBJECT_NAME];
  /* added by the communicator work */
  struct fy_attr *attrs;  /* cached attributes (core/fy_attr.h) */
  struct fy_bpool *bpool; /* MPI_Comm_attach_buffer (pt2pt/bsend.c); NULL: none */
  struct fy_topo *topo;   /* Cartesian/graph/dist-graph topology, or NULL */
  MPI_Info info;          /* hints set by the user (a private copy), or MPI_INFO_NULL */
  int session;            /* the session it derives from (its buffered sends use the
                             session's buffer); 0: the world model */
  fy_part_seq_t *part_seq; /* partitioned init counters (pt2pt/part.c) */
} fy_comm_t;

extern fy_comm_t fy_comm_world, fy_comm_self;

/* Objects only: no point-to-point. src/comm/fy_comm_init() sets up the
 * predefined ones with this and opens their contexts. */
void fy_comm_predefined_init(int world_rank, int world_size);
int fy_comm_init(int world_rank, int world_size);   /* defined in src/comm/create.c */
/* MPI_Finalize calls it first: deletes MPI_COMM_SELF's then MPI_COMM_WORLD's
 * attributes (callbacks newest first); returns the first callback error. */
int fy_comm_finalize_attrs(void);                   /* defined in src/comm/create.c */
extern fy_htab_t fy_comm_tab; /* created communicators */
/* Inline: every communication call looks its communicator up, some twice. */
static inline fy_comm_t *fy_comm_get(MPI_Comm h) {
  if (h == MPI_COMM_WORLD) return &fy_comm_world;
  if (h == MPI_COMM_SELF) return &fy_comm_self;
  return (fy_comm_t *)fy_htab_get(&fy_comm_tab, h);
}
static inline int fy_comm_world_rank(const fy_comm_t *c, int rank) {
  return c->world_of ? c->world_of[rank] : rank;
}
/* World rank of member i of the LOCAL group (intercommunicators too). */
static inline int fy_comm_local_world(const fy_comm_t *c, int i) {
  return c->is_inter ? fy_comm_world_rank(c->local_comm, i) : fy_comm_world_rank(c, i);
}
static inline int fy_comm_peer_size(const fy_comm_t *c) {
  return c->is_inter ? c->remote_size : c->size;
}

/* The lowest rank of intracommunicator c on another node than this
 * process, -1 when all are on this one. Every member finds the same
 * answer, so it may decide a collective path without communicating. */
int fy_comm_remote_rank(const fy_comm_t *c);

fy_comm_t *fy_comm_new(uint32_t ctx, int rank, int size, int *world_of);
int fy_comm_publish(fy_comm_t *c);   /* MPI_SUCCESS or MPI_ERR_NO_MEM */
void fy_comm_unpublish(fy_comm_t *c); /* handle back to 0 (an internal object) */
void fy_comm_destroy(fy_comm_t *c);
/* References held by pending operations (the user's is the first): a
 * communicator freed by the user while operations on it are pending lives
 * (and keeps its context ids out of reuse) until the last is released. */
static inline void fy_comm_retain(fy_comm_t *c) {
  if (c && c != &fy_comm_world && c != &fy_comm_self) __atomic_add_fetch(&c->refcount, 1, __ATOMIC_RELAXED);
}
static inline void fy_comm_release(fy_comm_t *c) {
  if (!c || c == &fy_comm_world || c == &fy_comm_self) return;
  if (__atomic_sub_fetch(&c->refcount, 1, __ATOMIC_ACQ_REL) == 0) fy_comm_destroy(c);
}
int fy_comm_live(void);              /* user communicators alive (tests, leaks) */

/* Context slots. A slot is free in this process when its bit is set. */
#define FY_CTX_WORDS 256             /* 8192 slots */
void fy_ctx_mask_snapshot(uint32_t *words);  /* FY_CTX_WORDS words */
int fy_ctx_mask_claim(const uint32_t *agreed, uint32_t *ctx); /* lowest agreed slot; 0 or -1 if none */
void fy_ctx_release(uint32_t ctx);
int fy_ctx_free_slots(void);

/* Predefined-attribute values (pointers stay valid for the job). */
int fy_comm_predef_attr(int keyval, void *attribute_val, int *flag);
#endif
