/* Internal structures of the matching layer, shared by the dispatcher
 * (mq.c) and the back ends (list.c, array.c, fourd.c). Nothing here is
 * visible outside src/pt2pt/mq/.
 *
 * Lists: every queue is a doubly linked list addressed by its head pointer
 * alone: link[0] is next (NULL at the tail), link[1] is prev, and the head's
 * prev points to the tail, so append and unlink are O(1) with one word per
 * list instead of two. An item is queued iff link[1] != NULL.
 *
 * Object sizes (64-bit): lead 48 B, RankHead 16 B, Cube 16 + 8*span B,
 * JumpPoint 40 B; all are at most the thesis's table 4.4 sizes (56, 32,
 * 16 + 8*span, 48), so Ferry's real overhead stays within the model. */
#ifndef FY_MQ_INTERNAL_H
#define FY_MQ_INTERNAL_H
#include "pt2pt/mq/fy_mq.h"
#include "pt2pt/mq/fy_mq_model.h"
#include "pt2pt/mq/mq_pool.h"

#define FY_MQ_NBUCKETS 256 /* context-id hash; fixed per process, same for all kinds */
#define FY_MQ_MAX_BITS 8   /* ranks are int32: ceil(31/4) = 8 bits per coordinate */

#define FY_MQ_NEXT(x) ((x)->link[0])
#define FY_MQ_PREV(x) ((x)->link[1])

typedef enum { FY_MQ_MODE_LIST = 0, FY_MQ_MODE_ARRAY, FY_MQ_MODE_4D } fy_mq_mode_t;

typedef struct fy_mq_rankhead { /* array back end: one per rank */
  fy_mq_item_t *prq, *umq;
} fy_mq_rankhead_t;

typedef struct fy_mq_jp { /* JumpPoint (c3, c2, c1): short FIFO lists */
  struct fy_mq_jp *next;   /* sorted by c1 under one c2 slot */
  fy_mq_item_t *prq, *umq;
  uint32_t c1;
  uint32_t np, nu;         /* items in prq / umq (for items_skipped) */
} fy_mq_jp_t;

typedef struct fy_mq_cube { /* one per c3 value, sorted list under the lead */
  struct fy_mq_cube *next;
  uint32_t c3;
  uint32_t njp;            /* JumpPoints below; the Cube is freed at 0 */
  fy_mq_jp_t *slot[];      /* span slots, indexed by c2 */
} fy_mq_cube_t;

typedef struct fy_mq_lead { /* ContextIdLead */
  struct fy_mq_lead *next; /* hash chain */
  uint32_t ctx;
  int32_t size;            /* communicator size; 0 = context not opened */
  uint32_t n_prq, n_umq;   /* queued items of this context (n_prq includes ANY) */
  uint32_t n_any;          /* ANY_SOURCE posted items (array / 4d modes) */
  uint8_t mode, bits;
  uint16_t pad_;
  union {
    struct { fy_mq_item_t *prq, *umq; } list;
    struct { fy_mq_rankhead_t *heads; fy_mq_item_t *any; } array;
    struct { fy_mq_cube_t *cubes; fy_mq_item_t *any; } fourd;
  } u;
} fy_mq_lead_t;

struct fy_mq {
  fy_mq_kind_t kind;
  double adjustment;
  unsigned flags;
  uint64_t seq;                 /* stamps every insertion; per context it is monotonic */
  fy_mq_item_t *prq, *umq;      /* FY_MQ_LIST: one list each across contexts */
  size_t n_prq, n_umq;
  size_t n_leads, n_cubes, n_jps;
  fy_mq_lead_t *bucket[FY_MQ_NBUCKETS];
  fy_mq_lead_t *last;           /* the lead lead_get returned last (NULL once freed) */
  fy_mq_stats_t st;
  uint64_t nodes_visited;       /* leads, cubes, c2 slots, JumpPoints, rank heads */
  fy_mq_pool_t lead_pool, jp_pool;
  fy_mq_pool_t cube_pool[FY_MQ_MAX_BITS + 1];
  bool no_free;                 /* in a signal handler: keep what would be freed */
};

/* ---- lists ---- */
static inline void fy_mq_list_append(fy_mq_item_t **head, fy_mq_item_t *x)
{
  fy_mq_item_t *h = *head;
  FY_MQ_NEXT(x) = NULL;
  if (!h) {
    FY_MQ_PREV(x) = x;
    *head = x;
  } else {
    fy_mq_item_t *t = FY_MQ_PREV(h);
    FY_MQ_NEXT(t) = x;
    FY_MQ_PREV(x) = t;
    FY_MQ_PREV(h) = x;
  }
}

static inline void fy_mq_list_unlink(fy_mq_item_t **head, fy_mq_item_t *x)
{
  fy_mq_item_t *h = *head, *n = FY_MQ_NEXT(x), *p = FY_MQ_PREV(x);
  if (x == h) {
    *head = n;
    if (n)
      FY_MQ_PREV(n) = p; /* p is the tail */
  } else {
    FY_MQ_NEXT(p) = n;
    if (n)
      FY_MQ_PREV(n) = p;
    else
      FY_MQ_PREV(h) = p; /* x was the tail */
  }
  FY_MQ_NEXT(x) = FY_MQ_PREV(x) = NULL;
}

/* Does posted item p accept a message (rank, tag)? (same context assumed) */
static inline bool fy_mq_posted_accepts(const fy_mq_item_t *p, int rank, int tag)
{
  return (p->rank == rank || p->rank == FY_MQ_ANY_SOURCE) &&
         (p->tag == tag || p->tag == FY_MQ_ANY_TAG);
}
/* Does unexpected message m satisfy a request (rank, tag), wildcards allowed? */
static inline bool fy_mq_msg_fits(const fy_mq_item_t *m, int rank, int tag)
{
  return (rank == FY_MQ_ANY_SOURCE || m->rank == rank) &&
         (tag == FY_MQ_ANY_TAG || m->tag == tag);
}

/* First posted item of list `head` in context ctx accepting (rank, tag). */
fy_mq_item_t *fy_mq_list_find_posted(fy_mq_t *q, fy_mq_item_t *head, uint32_t ctx,
                                     int rank, int tag);
/* First unexpected item of list `head` in context ctx fitting (rank, tag). */
fy_mq_item_t *fy_mq_list_find_msg(fy_mq_t *q, fy_mq_item_t *head, uint32_t ctx,
                                  int rank, int tag);

/* Move every item of *head to out[] (links cleared); returns the end of out. */
fy_mq_item_t **fy_mq_list_drain(fy_mq_item_t **head, fy_mq_item_t **out);

/* memory accounting */
static inline void fy_mq_mem_add(fy_mq_t *q, size_t b)
{
  q->st.mem_bytes += b;
  if (q->st.mem_bytes > q->st.mem_peak)
    q->st.mem_peak = q->st.mem_bytes;
}
static inline void fy_mq_mem_sub(fy_mq_t *q, size_t b) { q->st.mem_bytes -= b; }

/* Out of memory in a back-end object allocation: fatal (see README). */
void fy_mq_oom(const char *what) __attribute__((noreturn));

/* collect(): move every item of the lead into prq[0..n_prq) and
 * umq[0..n_umq) (any order) and free the back end's objects; used when a
 * context changes structure (opened after early arrivals, closed non-empty). */

/* ---- back ends on one lead (lead->mode selects) ----
 * search functions return the match already unlinked (or, with remove ==
 * false, still linked); insertion after a miss happens inside arrive/post. */
fy_mq_item_t *fy_mq_array_arrive(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *msg);
fy_mq_item_t *fy_mq_array_post(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv);
fy_mq_item_t *fy_mq_array_find_msg(fy_mq_t *q, fy_mq_lead_t *l, int rank, int tag, bool remove);
fy_mq_item_t *fy_mq_array_find_posted(fy_mq_t *q, fy_mq_lead_t *l, int rank, int tag);
void fy_mq_array_cancel(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv);
void fy_mq_array_insert(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *x, bool posted);
void fy_mq_array_collect(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t **prq, fy_mq_item_t **umq);
void fy_mq_array_release(fy_mq_t *q, fy_mq_lead_t *l);

fy_mq_item_t *fy_mq_4d_arrive(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *msg);
fy_mq_item_t *fy_mq_4d_post(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv);
fy_mq_item_t *fy_mq_4d_find_msg(fy_mq_t *q, fy_mq_lead_t *l, int rank, int tag, bool remove);
fy_mq_item_t *fy_mq_4d_find_posted(fy_mq_t *q, fy_mq_lead_t *l, int rank, int tag);
void fy_mq_4d_cancel(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv);
void fy_mq_4d_insert(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *x, bool posted);
void fy_mq_4d_collect(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t **prq, fy_mq_item_t **umq);

/* list mode of a lead (also the fallback for contexts not opened) */
fy_mq_item_t *fy_mq_llist_arrive(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *msg);
fy_mq_item_t *fy_mq_llist_post(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv);
fy_mq_item_t *fy_mq_llist_find_msg(fy_mq_t *q, fy_mq_lead_t *l, int rank, int tag, bool remove);
void fy_mq_llist_cancel(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv);
void fy_mq_llist_insert(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *x, bool posted);
void fy_mq_llist_collect(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t **prq, fy_mq_item_t **umq);
#endif
