/* Matching layer: the posted-receive queue (PRQ) and unexpected-message
 * queue (UMQ) of one process, behind the five operations of seed 002 ch. 4.
 *
 * Contract
 * - Items are allocated and owned by the caller (embedded in a request or an
 *   unexpected-message descriptor); the queue only links them. An item is in
 *   at most one queue at a time. The back end may use the `link` words.
 * - Keys: ctx (context id), rank (source rank in that context; posted items
 *   may hold FY_MQ_ANY_SOURCE), tag (posted items may hold FY_MQ_ANY_TAG).
 *   Unexpected items always carry a concrete rank and tag >= 0.
 * - Matching obeys MPI order: an arriving message takes the oldest posted
 *   receive that matches it (ranked or ANY_SOURCE, decided by the sequence
 *   numbers the queue stamps on insertion); a posted receive takes the oldest
 *   matching unexpected message from any one sender (per-sender FIFO; across
 *   senders the oldest by sequence number).
 * - A failed search leaves a cursor so that the insert that follows in the
 *   same operation is O(1). Isolated inserts and deletes do not exist.
 * - Not thread-safe: the caller holds the progress lock.
 * - Contexts: fy_mq_ctx_open() tells the queue a context's communicator size
 *   (so `auto` and `4d` can pick the structure); messages may arrive for a
 *   context before it is opened (the queue then uses a list for it until it
 *   is opened and empty). */
#ifndef FY_MQ_H
#define FY_MQ_H
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define FY_MQ_ANY_SOURCE (-2) /* equal to MPI_ANY_SOURCE in the MPICH ABI */
#define FY_MQ_ANY_TAG (-1)    /* equal to MPI_ANY_TAG */

typedef enum { FY_MQ_LIST, FY_MQ_ARRAY, FY_MQ_4D, FY_MQ_AUTO } fy_mq_kind_t;

typedef struct fy_mq_item {
  struct fy_mq_item *link[2]; /* owned by the back end */
  uint64_t seq;               /* stamped by the queue on insertion */
  uint32_t ctx;
  int32_t rank;
  int32_t tag;
  int32_t pad_;
  void *owner;                /* the caller's object (request, message) */
} fy_mq_item_t;

typedef struct fy_mq fy_mq_t;

typedef struct fy_mq_stats {
  uint64_t searches;        /* search operations */
  uint64_t items_visited;   /* items compared across all searches */
  uint64_t items_skipped;   /* items a jump skipped without visiting (4d) */
  uint64_t max_prq, max_umq;/* MQL/AQL inputs: longest queues seen */
  uint64_t sum_prq, sum_umq;/* queue lengths summed at each search (for the mean) */
  size_t   mem_bytes;       /* current bytes of back-end objects (not items) */
  size_t   mem_peak;        /* peak of mem_bytes */
  uint64_t mem_sum;         /* mem_bytes summed at each search (for the mean; integer
                               sums: a double's add per search cost as much as the
                               list search of a short queue) */
} fy_mq_stats_t;

/* kind FY_MQ_AUTO picks per context: list below the 4d threshold, 4d above.
 * adjustment: the 4d threshold factor (FERRY_MQ_ADJUSTMENT, >= 1.0). */
fy_mq_t *fy_mq_create(fy_mq_kind_t kind, double adjustment);
void fy_mq_destroy(fy_mq_t *q);
int  fy_mq_kind_parse(const char *s, fy_mq_kind_t *out); /* 0 ok, -1 unknown */
const char *fy_mq_kind_name(fy_mq_kind_t k);

void fy_mq_ctx_open(fy_mq_t *q, uint32_t ctx, int comm_size);
void fy_mq_ctx_close(fy_mq_t *q, uint32_t ctx); /* queues of ctx must be empty */

/* 1. Arrival: search the PRQ for the oldest receive matching msg's
 *    (ctx, rank, tag); if found, unlink and return it; else append msg to
 *    the UMQ and return NULL. */
fy_mq_item_t *fy_mq_arrive(fy_mq_t *q, fy_mq_item_t *msg);
/* 2. Receive post: search the UMQ for a message matching recv (wildcards
 *    allowed); if found, unlink and return it; else append recv to the PRQ
 *    and return NULL. */
fy_mq_item_t *fy_mq_post(fy_mq_t *q, fy_mq_item_t *recv);
/* 3. Search UMQ and delete (Mprobe/Improbe): like post without insertion. */
fy_mq_item_t *fy_mq_take_unexpected(fy_mq_t *q, uint32_t ctx, int rank, int tag);
/* 4. Search PRQ and delete (receive cancel): unlink this posted item.
 *    Returns true if it was still queued. */
bool fy_mq_cancel_posted(fy_mq_t *q, fy_mq_item_t *recv);
/* 5. Peek UMQ (Probe/Iprobe): the message post() would match, not unlinked. */
fy_mq_item_t *fy_mq_peek_unexpected(fy_mq_t *q, uint32_t ctx, int rank, int tag);

/* Peek PRQ: the posted receive an arrival (ctx, rank, tag) would take,
 *    not unlinked (a receive publishing itself checks it is that one). */
fy_mq_item_t *fy_mq_peek_posted(fy_mq_t *q, uint32_t ctx, int rank, int tag);
/* While on, removals never free memory (a signal handler is matching);
 *    what they would free is freed by a later removal. */
void fy_mq_set_no_free(fy_mq_t *q, bool on);

/* True if fy_mq_arrive() for this context cannot allocate memory (the
 * context is open and a miss would insert into existing structures or
 * pooled objects). The PEF signal handler asks before it matches. */
bool fy_mq_arrive_alloc_free(const fy_mq_t *q, uint32_t ctx);

/* Current lengths and counters. */
size_t fy_mq_posted_len(const fy_mq_t *q);
size_t fy_mq_unexpected_len(const fy_mq_t *q);
void fy_mq_get_stats(const fy_mq_t *q, fy_mq_stats_t *out);
#endif
