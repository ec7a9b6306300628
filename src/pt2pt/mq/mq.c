/* Dispatcher of the matching layer: context leads, structure choice per
 * context, the five operations, counters. The structures live in list.c,
 * array.c and fourd.c. */
#include "pt2pt/mq/mq_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fy_mq_oom(const char *what)
{
  /* The five operations cannot fail by contract (the caller's item is
   * always placed); the only failure is allocating a back-end object. */
  fprintf(stderr, "ferry: message queue: out of memory allocating %s\n", what);
  abort();
}

static const char *const kind_names[] = {"list", "array", "4d", "auto"};

const char *fy_mq_kind_name(fy_mq_kind_t k)
{
  return (unsigned)k < 4 ? kind_names[k] : "?";
}

int fy_mq_kind_parse(const char *s, fy_mq_kind_t *out)
{
  if (!s)
    return -1;
  for (int i = 0; i < 4; i++)
    if (!strcmp(s, kind_names[i])) {
      *out = (fy_mq_kind_t)i;
      return 0;
    }
  if (!strcmp(s, "4D")) {
    *out = FY_MQ_4D;
    return 0;
  }
  return -1;
}

fy_mq_t *fy_mq_create_ex(fy_mq_kind_t kind, double adjustment, unsigned flags)
{
  if ((unsigned)kind > FY_MQ_AUTO)
    return NULL;
  fy_mq_t *q = calloc(1, sizeof *q);
  if (!q)
    return NULL;
  q->kind = kind;
  q->adjustment = adjustment < 1.0 ? 1.0 : adjustment; /* the thesis's minimum */
  q->flags = flags;
  fy_mq_pool_init(&q->lead_pool, sizeof(fy_mq_lead_t));
  fy_mq_pool_init(&q->jp_pool, sizeof(fy_mq_jp_t));
  for (unsigned b = 2; b <= FY_MQ_MAX_BITS; b++)
    fy_mq_pool_init(&q->cube_pool[b], sizeof(fy_mq_cube_t) + sizeof(fy_mq_jp_t *) * (1u << b));
  return q;
}

fy_mq_t *fy_mq_create(fy_mq_kind_t kind, double adjustment)
{
  return fy_mq_create_ex(kind, adjustment, 0);
}

void fy_mq_destroy(fy_mq_t *q)
{
  if (!q)
    return;
  /* items belong to the caller; only the array heads live outside the pools */
  for (int i = 0; i < FY_MQ_NBUCKETS; i++)
    for (fy_mq_lead_t *l = q->bucket[i]; l; l = l->next)
      if (l->mode == FY_MQ_MODE_ARRAY)
        free(l->u.array.heads);
  fy_mq_pool_fini(&q->lead_pool);
  fy_mq_pool_fini(&q->jp_pool);
  for (unsigned b = 2; b <= FY_MQ_MAX_BITS; b++)
    fy_mq_pool_fini(&q->cube_pool[b]);
  free(q);
}

/* ---- leads ---- */
static inline unsigned bucket_of(uint32_t ctx)
{
  return (ctx * 2654435761u) >> 24; /* 256 buckets */
}

static fy_mq_lead_t *lead_find(fy_mq_t *q, uint32_t ctx)
{
  fy_mq_lead_t **pp = &q->bucket[bucket_of(ctx)], *l;
  for (; (l = *pp); pp = &l->next) {
    q->nodes_visited++;
    if (l->ctx == ctx) {
      if (pp != &q->bucket[bucket_of(ctx)]) { /* move to front */
        *pp = l->next;
        l->next = q->bucket[bucket_of(ctx)];
        q->bucket[bucket_of(ctx)] = l;
      }
      return l;
    }
  }
  return NULL;
}

static fy_mq_lead_t *lead_new(fy_mq_t *q, uint32_t ctx)
{
  fy_mq_lead_t *l = fy_mq_pool_get(&q->lead_pool);
  if (!l)
    fy_mq_oom("a context lead");
  memset(l, 0, sizeof *l);
  l->ctx = ctx;
  l->mode = FY_MQ_MODE_LIST;
  l->bits = 2;
  unsigned b = bucket_of(ctx);
  l->next = q->bucket[b];
  q->bucket[b] = l;
  q->n_leads++;
  fy_mq_mem_add(q, sizeof *l);
  return l;
}

static void lead_free(fy_mq_t *q, fy_mq_lead_t *l)
{
  fy_mq_lead_t **pp = &q->bucket[bucket_of(l->ctx)];
  while (*pp != l)
    pp = &(*pp)->next;
  *pp = l->next;
  if (q->last == l)
    q->last = NULL;
  q->n_leads--;
  fy_mq_mem_sub(q, sizeof *l);
  fy_mq_pool_put(&q->lead_pool, l);
}

static fy_mq_lead_t *lead_get(fy_mq_t *q, uint32_t ctx)
{
  fy_mq_lead_t *l = q->last;
  if (l && l->ctx == ctx) { /* most calls name the context of the last one */
    q->nodes_visited++;
    return l;
  }
  l = lead_find(q, ctx);
  return q->last = l ? l : lead_new(q, ctx);
}

static fy_mq_mode_t mode_for(const fy_mq_t *q, int size)
{
  if (size <= 0)
    return FY_MQ_MODE_LIST; /* not opened: size unknown */
  if (q->kind == FY_MQ_ARRAY)
    return FY_MQ_MODE_ARRAY;
  if (q->flags & FY_MQ_FLAG_FORCE_4D)
    return FY_MQ_MODE_4D;
  long s = 1L << fy_mq_span_bits(size);
  /* the thesis: a list below the threshold, the 4D container otherwise */
  return (double)size >= (double)(3 * s + 1) * q->adjustment ? FY_MQ_MODE_4D
                                                              : FY_MQ_MODE_LIST;
}

static int by_seq(const void *a, const void *b)
{
  uint64_t x = (*(fy_mq_item_t *const *)a)->seq, y = (*(fy_mq_item_t *const *)b)->seq;
  return x < y ? -1 : x > y;
}

static void lead_insert(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *x, bool posted)
{
  switch (l->mode) {
  case FY_MQ_MODE_ARRAY: fy_mq_array_insert(q, l, x, posted); break;
  case FY_MQ_MODE_4D: fy_mq_4d_insert(q, l, x, posted); break;
  default: fy_mq_llist_insert(q, l, x, posted); break;
  }
}

/* Move every item of l into structure `mode`, keeping seqnos, so per-list
 * FIFO order (= seq order) is preserved. Rare: contexts opened after early
 * arrivals, closed non-empty, or an array context given a rank out of range. */
static void restructure(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_mode_t mode, unsigned bits)
{
  size_t np = l->n_prq, nu = l->n_umq;
  if (l->mode == mode && (mode == FY_MQ_MODE_LIST || l->bits == bits)) {
    l->bits = (uint8_t)bits;
    return;
  }
  if (np + nu == 0) {
    if (l->mode == FY_MQ_MODE_ARRAY)
      fy_mq_array_release(q, l);
    memset(&l->u, 0, sizeof l->u);
    l->mode = (uint8_t)mode;
    l->bits = (uint8_t)bits;
    return;
  }
  fy_mq_item_t **v = malloc((np + nu + 1) * sizeof *v);
  if (!v)
    fy_mq_oom("a restructuring buffer");
  switch (l->mode) {
  case FY_MQ_MODE_ARRAY: fy_mq_array_collect(q, l, v, v + np); break;
  case FY_MQ_MODE_4D: fy_mq_4d_collect(q, l, v, v + np); break;
  default: fy_mq_llist_collect(q, l, v, v + np); break;
  }
  memset(&l->u, 0, sizeof l->u);
  l->mode = (uint8_t)mode;
  l->bits = (uint8_t)bits;
  qsort(v, np, sizeof *v, by_seq);
  qsort(v + np, nu, sizeof *v, by_seq);
  for (size_t i = 0; i < np + nu; i++)
    lead_insert(q, l, v[i], i < np);
  free(v);
}

void fy_mq_ctx_open(fy_mq_t *q, uint32_t ctx, int comm_size)
{
  if (q->kind == FY_MQ_LIST || comm_size <= 0)
    return;
  fy_mq_lead_t *l = lead_get(q, ctx);
  if (l->size != comm_size) /* an array sized for another size must move out first */
    restructure(q, l, FY_MQ_MODE_LIST, 2);
  l->size = comm_size;
  restructure(q, l, mode_for(q, comm_size), fy_mq_span_bits(comm_size));
}

void fy_mq_ctx_close(fy_mq_t *q, uint32_t ctx)
{
  if (q->kind == FY_MQ_LIST)
    return;
  fy_mq_lead_t *l = lead_find(q, ctx);
  if (!l)
    return;
  /* contract: empty. If not, keep the items as a not-opened context. */
  restructure(q, l, FY_MQ_MODE_LIST, 2);
  l->size = 0;
  if (l->n_prq + l->n_umq == 0)
    lead_free(q, l);
}

/* ---- counters ---- */
static inline void count_search(fy_mq_t *q)
{
  q->st.searches++;
  q->st.sum_prq += q->n_prq;
  q->st.sum_umq += q->n_umq;
  q->st.mem_sum += q->st.mem_bytes;
}

static inline void added(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *x, bool posted)
{
  if (posted) {
    if (l) {
      l->n_prq++;
      if (x->rank == FY_MQ_ANY_SOURCE)
        l->n_any++;
    }
    if (++q->n_prq > q->st.max_prq)
      q->st.max_prq = q->n_prq;
  } else {
    if (l)
      l->n_umq++;
    if (++q->n_umq > q->st.max_umq)
      q->st.max_umq = q->n_umq;
  }
}

/* after an item left lead l: shrink what the thesis frees when empty */
static inline void removed(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *x, bool posted)
{
  if (posted) {
    q->n_prq--;
    if (!l)
      return;
    l->n_prq--;
    if (x->rank == FY_MQ_ANY_SOURCE)
      l->n_any--;
  } else {
    q->n_umq--;
    if (!l)
      return;
    l->n_umq--;
  }
  if (q->no_free)
    return; /* a later removal outside the signal handler frees it */
  if (l->mode == FY_MQ_MODE_ARRAY && l->n_prq - l->n_any + l->n_umq == 0)
    fy_mq_array_release(q, l);
  if (l->size == 0 && l->n_prq + l->n_umq == 0)
    lead_free(q, l);
}

/* an array context cannot index a rank outside [0, size): list it instead */
static inline void check_rank(fy_mq_t *q, fy_mq_lead_t *l, int rank)
{
  if (l->mode == FY_MQ_MODE_ARRAY && rank != FY_MQ_ANY_SOURCE &&
      (rank < 0 || rank >= l->size))
    restructure(q, l, FY_MQ_MODE_LIST, l->bits);
}

/* ---- the five operations ---- */
fy_mq_item_t *fy_mq_arrive(fy_mq_t *q, fy_mq_item_t *msg)
{
  fy_mq_item_t *r;
  count_search(q);
  if (q->kind == FY_MQ_LIST) {
    r = fy_mq_list_find_posted(q, q->prq, msg->ctx, msg->rank, msg->tag);
    if (r) {
      fy_mq_list_unlink(&q->prq, r);
      removed(q, NULL, r, true);
    } else {
      msg->seq = ++q->seq;
      fy_mq_list_append(&q->umq, msg);
      added(q, NULL, msg, false);
    }
    goto out;
  }
  fy_mq_lead_t *l = lead_get(q, msg->ctx);
  check_rank(q, l, msg->rank);
  msg->seq = q->seq + 1; /* stamped now: the back end inserts on a miss */
  switch (l->mode) {
  case FY_MQ_MODE_ARRAY: r = fy_mq_array_arrive(q, l, msg); break;
  case FY_MQ_MODE_4D: r = fy_mq_4d_arrive(q, l, msg); break;
  default: r = fy_mq_llist_arrive(q, l, msg); break;
  }
  if (r)
    removed(q, l, r, true);
  else {
    q->seq++;
    added(q, l, msg, false);
  }
out:
  if (r)
    FY_MQ_NEXT(msg) = FY_MQ_PREV(msg) = NULL;
  return r;
}

fy_mq_item_t *fy_mq_post(fy_mq_t *q, fy_mq_item_t *recv)
{
  fy_mq_item_t *r;
  count_search(q);
  if (q->kind == FY_MQ_LIST) {
    r = fy_mq_list_find_msg(q, q->umq, recv->ctx, recv->rank, recv->tag);
    if (r) {
      fy_mq_list_unlink(&q->umq, r);
      removed(q, NULL, r, false);
    } else {
      recv->seq = ++q->seq;
      fy_mq_list_append(&q->prq, recv);
      added(q, NULL, recv, true);
    }
    goto out;
  }
  fy_mq_lead_t *l = lead_get(q, recv->ctx);
  check_rank(q, l, recv->rank);
  recv->seq = q->seq + 1;
  switch (l->mode) {
  case FY_MQ_MODE_ARRAY: r = fy_mq_array_post(q, l, recv); break;
  case FY_MQ_MODE_4D: r = fy_mq_4d_post(q, l, recv); break;
  default: r = fy_mq_llist_post(q, l, recv); break;
  }
  if (r)
    removed(q, l, r, false);
  else {
    q->seq++;
    added(q, l, recv, true);
  }
out:
  if (r)
    FY_MQ_NEXT(recv) = FY_MQ_PREV(recv) = NULL;
  return r;
}

static fy_mq_item_t *find_msg(fy_mq_t *q, uint32_t ctx, int rank, int tag, bool remove)
{
  fy_mq_item_t *r;
  count_search(q);
  if (q->kind == FY_MQ_LIST) {
    r = fy_mq_list_find_msg(q, q->umq, ctx, rank, tag);
    if (r && remove) {
      fy_mq_list_unlink(&q->umq, r);
      removed(q, NULL, r, false);
    }
    return r;
  }
  fy_mq_lead_t *l = lead_find(q, ctx);
  if (!l)
    return NULL;
  switch (l->mode) {
  case FY_MQ_MODE_ARRAY:
    if (rank != FY_MQ_ANY_SOURCE && (rank < 0 || rank >= l->size))
      return NULL; /* such a message would have turned the context into a list */
    r = fy_mq_array_find_msg(q, l, rank, tag, remove);
    break;
  case FY_MQ_MODE_4D: r = fy_mq_4d_find_msg(q, l, rank, tag, remove); break;
  default: r = fy_mq_llist_find_msg(q, l, rank, tag, remove); break;
  }
  if (r && remove)
    removed(q, l, r, false);
  return r;
}

fy_mq_item_t *fy_mq_take_unexpected(fy_mq_t *q, uint32_t ctx, int rank, int tag)
{
  return find_msg(q, ctx, rank, tag, true);
}

fy_mq_item_t *fy_mq_peek_unexpected(fy_mq_t *q, uint32_t ctx, int rank, int tag)
{
  return find_msg(q, ctx, rank, tag, false);
}

fy_mq_item_t *fy_mq_peek_posted(fy_mq_t *q, uint32_t ctx, int rank, int tag)
{
  count_search(q);
  if (q->kind == FY_MQ_LIST)
    return fy_mq_list_find_posted(q, q->prq, ctx, rank, tag);
  fy_mq_lead_t *l = lead_find(q, ctx);
  if (!l)
    return NULL;
  switch (l->mode) {
  case FY_MQ_MODE_ARRAY:
    if (rank < 0 || rank >= l->size)
      return NULL;
    return fy_mq_array_find_posted(q, l, rank, tag);
  case FY_MQ_MODE_4D: return fy_mq_4d_find_posted(q, l, rank, tag);
  default: return fy_mq_list_find_posted(q, l->u.list.prq, ctx, rank, tag);
  }
}

void fy_mq_set_no_free(fy_mq_t *q, bool on) { q->no_free = on; }

bool fy_mq_cancel_posted(fy_mq_t *q, fy_mq_item_t *recv)
{
  count_search(q);
  if (!FY_MQ_PREV(recv))
    return false; /* matched or cancelled already */
  if (q->kind == FY_MQ_LIST) {
    q->st.items_visited++;
    fy_mq_list_unlink(&q->prq, recv);
    removed(q, NULL, recv, true);
    return true;
  }
  fy_mq_lead_t *l = lead_find(q, recv->ctx);
  if (!l)
    return false;
  switch (l->mode) {
  case FY_MQ_MODE_ARRAY: fy_mq_array_cancel(q, l, recv); break;
  case FY_MQ_MODE_4D: fy_mq_4d_cancel(q, l, recv); break;
  default: fy_mq_llist_cancel(q, l, recv); break;
  }
  removed(q, l, recv, true);
  return true;
}

/* ---- lengths, counters, introspection ---- */
size_t fy_mq_posted_len(const fy_mq_t *q) { return q->n_prq; }
size_t fy_mq_unexpected_len(const fy_mq_t *q) { return q->n_umq; }

void fy_mq_get_stats(const fy_mq_t *q, fy_mq_stats_t *out) { *out = q->st; }

void fy_mq_reset_stats(fy_mq_t *q)
{
  size_t cur = q->st.mem_bytes;
  memset(&q->st, 0, sizeof q->st);
  q->st.mem_bytes = q->st.mem_peak = cur;
  q->st.max_prq = q->n_prq;
  q->st.max_umq = q->n_umq;
  q->nodes_visited = 0;
}

void fy_mq_get_counts(const fy_mq_t *q, fy_mq_counts_t *out)
{
  out->leads = q->n_leads;
  out->cubes = q->n_cubes;
  out->jumppoints = q->n_jps;
  out->nodes_visited = q->nodes_visited;
  out->pool_reserved = q->lead_pool.reserved + q->jp_pool.reserved;
  for (unsigned b = 2; b <= FY_MQ_MAX_BITS; b++)
    out->pool_reserved += q->cube_pool[b].reserved;
}

const char *fy_mq_ctx_structure(const fy_mq_t *q, uint32_t ctx)
{
  if (q->kind == FY_MQ_LIST)
    return "list";
  for (fy_mq_lead_t *l = q->bucket[bucket_of(ctx)]; l; l = l->next)
    if (l->ctx == ctx)
      return l->mode == FY_MQ_MODE_ARRAY ? "array" : l->mode == FY_MQ_MODE_4D ? "4d" : "list";
  return NULL;
}

bool fy_mq_arrive_alloc_free(const fy_mq_t *q, uint32_t ctx)
{
  if (q->kind == FY_MQ_LIST)
    return true;
  fy_mq_lead_t *l = lead_find((fy_mq_t *)q, ctx);
  if (!l)
    return false;
  switch (l->mode) {
  case FY_MQ_MODE_ARRAY: return l->u.array.heads != NULL;
  case FY_MQ_MODE_4D: return q->jp_pool.free_list && q->cube_pool[l->bits].free_list;
  default: return true;
  }
}
