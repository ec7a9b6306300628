/* The four-dimensional queue (seed 002 ch. 4.3) for one context:
 *   lead -> Cubes (one per c3, sorted list)
 *        -> c2 slot array of `span` entries inside the Cube
 *        -> JumpPoints (one per c1, sorted list under a slot)
 *        -> short FIFO posted / unexpected lists (c0 not indexed)
 * plus a FIFO ANY_SOURCE posted list on the lead. rank = c3*s^3 + c2*s^2 +
 * c1*s + c0 with s = 2^bits. A search stops as soon as the sorted Cube or
 * JumpPoint list passes the wanted coordinate; the place where it stopped is
 * the cursor at which the following insertion links (creating the Cube and
 * JumpPoint there if needed) in O(1). Cubes and JumpPoints come from pools
 * and go back as soon as they are empty. */
#include "pt2pt/mq/mq_internal.h"
#include <string.h>

typedef struct cursor {
  fy_mq_cube_t **clink; /* where the Cube for c3 is, or would be linked */
  fy_mq_cube_t *cube;
  fy_mq_jp_t **jlink;   /* where the JumpPoint for c1 is, or would be (NULL without cube) */
  fy_mq_jp_t *jp;
  uint32_t c3, c2, c1;
} cursor_t;

static inline size_t cube_bytes(unsigned bits)
{
  return sizeof(fy_mq_cube_t) + sizeof(fy_mq_jp_t *) * ((size_t)1 << bits);
}

static void locate(fy_mq_t *q, fy_mq_lead_t *l, int rank, cursor_t *c)
{
  unsigned b = l->bits;
  uint32_t r = (uint32_t)rank, m = (1u << b) - 1;
  uint64_t nv = 0;
  c->c3 = r >> (3 * b);
  c->c2 = (r >> (2 * b)) & m;
  c->c1 = (r >> b) & m;
  fy_mq_cube_t **cl = &l->u.fourd.cubes, *cu;
  while ((cu = *cl) && cu->c3 < c->c3) {
    nv++;
    cl = &cu->next;
  }
  c->clink = cl;
  c->cube = NULL;
  c->jlink = NULL;
  c->jp = NULL;
  if (cu) {
    nv++;
    if (cu->c3 == c->c3) {
      c->cube = cu;
      nv++; /* the c2 slot */
      fy_mq_jp_t **jl = &cu->slot[c->c2], *j;
      while ((j = *jl) && j->c1 < c->c1) {
        nv++;
        jl = &j->next;
      }
      if (j) {
        nv++;
        if (j->c1 == c->c1)
          c->jp = j;
      }
      c->jlink = jl;
    }
  }
  q->nodes_visited += nv;
}

/* The JumpPoint at the cursor, created (with its Cube) if absent. */
static fy_mq_jp_t *cursor_jp(fy_mq_t *q, fy_mq_lead_t *l, cursor_t *c)
{
  if (c->jp)
    return c->jp;
  if (!c->cube) {
    fy_mq_cube_t *cu = fy_mq_pool_get(&q->cube_pool[l->bits]);
    if (!cu)
      fy_mq_oom("a Cube");
    memset(cu, 0, cube_bytes(l->bits));
    cu->c3 = c->c3;
    cu->next = *c->clink;
    *c->clink = cu;
    c->cube = cu;
    c->jlink = &cu->slot[c->c2];
    q->n_cubes++;
    fy_mq_mem_add(q, cube_bytes(l->bits));
  }
  fy_mq_jp_t *j = fy_mq_pool_get(&q->jp_pool);
  if (!j)
    fy_mq_oom("a JumpPoint");
  memset(j, 0, sizeof *j);
  j->c1 = c->c1;
  j->next = *c->jlink;
  *c->jlink = j;
  c->cube->njp++;
  c->jp = j;
  q->n_jps++;
  fy_mq_mem_add(q, sizeof *j);
  return j;
}

/* Free the cursor's JumpPoint if it emptied, and its Cube after it. */
static void release(fy_mq_t *q, fy_mq_lead_t *l, cursor_t *c)
{
  fy_mq_jp_t *j = c->jp;
  if (j->prq || j->umq)
    return;
  *c->jlink = j->next;
  fy_mq_pool_put(&q->jp_pool, j);
  q->n_jps--;
  fy_mq_mem_sub(q, sizeof *j);
  fy_mq_cube_t *cu = c->cube;
  if (--cu->njp == 0) {
    *c->clink = cu->next;
    fy_mq_pool_put(&q->cube_pool[l->bits], cu);
    q->n_cubes--;
    fy_mq_mem_sub(q, cube_bytes(l->bits));
  }
}

fy_mq_item_t *fy_mq_4d_find_posted(fy_mq_t *q, fy_mq_lead_t *l, int rank, int tag)
{
  cursor_t c;
  fy_mq_item_t *a = NULL, *b = NULL;
  locate(q, l, rank, &c);
  if (c.jp)
    a = fy_mq_list_find_posted(q, c.jp->prq, l->ctx, rank, tag);
  if (l->n_any)
    b = fy_mq_list_find_posted(q, l->u.fourd.any, l->ctx, rank, tag);
  return (a && (!b || a->seq < b->seq)) ? a : b;
}

fy_mq_item_t *fy_mq_4d_arrive(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *msg)
{
  cursor_t c;
  fy_mq_item_t *a = NULL, *b = NULL;
  locate(q, l, msg->rank, &c);
  uint32_t ranked = l->n_prq - l->n_any;
  if (c.jp) {
    a = fy_mq_list_find_posted(q, c.jp->prq, l->ctx, msg->rank, msg->tag);
    ranked -= c.jp->np;
  }
  q->st.items_skipped += ranked;
  if (l->n_any)
    b = fy_mq_list_find_posted(q, l->u.fourd.any, l->ctx, msg->rank, msg->tag);
  if (a && (!b || a->seq < b->seq)) {
    fy_mq_list_unlink(&c.jp->prq, a);
    c.jp->np--;
    release(q, l, &c);
    return a;
  }
  if (b) {
    fy_mq_list_unlink(&l->u.fourd.any, b);
    return b;
  }
  fy_mq_jp_t *j = cursor_jp(q, l, &c);
  fy_mq_list_append(&j->umq, msg);
  j->nu++;
  return NULL;
}

/* Oldest unexpected message fitting (rank, tag); its position in *c. */
static fy_mq_item_t *search_msg(fy_mq_t *q, fy_mq_lead_t *l, int rank, int tag, cursor_t *c)
{
  if (rank != FY_MQ_ANY_SOURCE) {
    locate(q, l, rank, c);
    q->st.items_skipped += l->n_umq - (c->jp ? c->jp->nu : 0);
    return c->jp ? fy_mq_list_find_msg(q, c->jp->umq, l->ctx, rank, tag) : NULL;
  }
  /* ANY_SOURCE: every JumpPoint's oldest fit; the oldest of those wins */
  fy_mq_item_t *best = NULL;
  uint64_t nv = 0;
  unsigned span = 1u << l->bits;
  for (fy_mq_cube_t **cl = &l->u.fourd.cubes, *cu; (cu = *cl); cl = &cu->next) {
    nv++;
    for (unsigned s = 0; s < span; s++) {
      nv++;
      fy_mq_jp_t **jl = &cu->slot[s], *j;
      for (; (j = *jl); jl = &j->next) {
        nv++;
        if (!j->umq)
          continue;
        fy_mq_item_t *m = fy_mq_list_find_msg(q, j->umq, l->ctx, rank, tag);
        if (m && (!best || m->seq < best->seq)) {
          best = m;
          c->clink = cl;
          c->cube = cu;
          c->jlink = jl;
          c->jp = j;
        }
      }
    }
  }
  q->nodes_visited += nv;
  return best;
}

fy_mq_item_t *fy_mq_4d_find_msg(fy_mq_t *q, fy_mq_lead_t *l, int rank, int tag, bool remove)
{
  cursor_t c;
  fy_mq_item_t *m = search_msg(q, l, rank, tag, &c);
  if (m && remove) {
    fy_mq_list_unlink(&c.jp->umq, m);
    c.jp->nu--;
    release(q, l, &c);
  }
  return m;
}

fy_mq_item_t *fy_mq_4d_post(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv)
{
  cursor_t c;
  fy_mq_item_t *m = search_msg(q, l, recv->rank, recv->tag, &c);
  if (m) {
    fy_mq_list_unlink(&c.jp->umq, m);
    c.jp->nu--;
    release(q, l, &c);
    return m;
  }
  if (recv->rank == FY_MQ_ANY_SOURCE) {
    fy_mq_list_append(&l->u.fourd.any, recv);
  } else { /* the failed search left the cursor at the insertion point */
    fy_mq_jp_t *j = cursor_jp(q, l, &c);
    fy_mq_list_append(&j->prq, recv);
    j->np++;
  }
  return NULL;
}

void fy_mq_4d_cancel(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv)
{
  q->st.items_visited++;
  if (recv->rank == FY_MQ_ANY_SOURCE) {
    fy_mq_list_unlink(&l->u.fourd.any, recv);
    return;
  }
  cursor_t c;
  locate(q, l, recv->rank, &c);
  fy_mq_list_unlink(&c.jp->prq, recv);
  c.jp->np--;
  release(q, l, &c);
}

void fy_mq_4d_insert(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *x, bool posted)
{
  if (posted && x->rank == FY_MQ_ANY_SOURCE) {
    fy_mq_list_append(&l->u.fourd.any, x);
    return;
  }
  cursor_t c;
  locate(q, l, x->rank, &c);
  fy_mq_jp_t *j = cursor_jp(q, l, &c);
  if (posted) {
    fy_mq_list_append(&j->prq, x);
    j->np++;
  } else {
    fy_mq_list_append(&j->umq, x);
    j->nu++;
  }
}

void fy_mq_4d_collect(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t **prq, fy_mq_item_t **umq)
{
  unsigned span = 1u << l->bits;
  prq = fy_mq_list_drain(&l->u.fourd.any, prq);
  fy_mq_cube_t *cu = l->u.fourd.cubes;
  while (cu) {
    for (unsigned s = 0; s < span; s++) {
      fy_mq_jp_t *j = cu->slot[s];
      while (j) {
        fy_mq_jp_t *n = j->next;
        prq = fy_mq_list_drain(&j->prq, prq);
        umq = fy_mq_list_drain(&j->umq, umq);
        fy_mq_pool_put(&q->jp_pool, j);
        q->n_jps--;
        fy_mq_mem_sub(q, sizeof *j);
        j = n;
      }
    }
    fy_mq_cube_t *n = cu->next;
    fy_mq_pool_put(&q->cube_pool[l->bits], cu);
    q->n_cubes--;
    fy_mq_mem_sub(q, cube_bytes(l->bits));
    cu = n;
  }
  l->u.fourd.cubes = NULL;
}
