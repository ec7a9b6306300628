/* The array back end (Open MPI style, the thesis's baseline): per context a
 * RankHead[size] (posted and unexpected FIFO per source rank), allocated on
 * the first ranked item and freed when the context's ranked queues empty,
 * plus an ANY_SOURCE posted list. An arrival compares the oldest matching
 * ranked receive with the oldest matching ANY_SOURCE one by seq. */
#include "pt2pt/mq/mq_internal.h"
#include <stdlib.h>

static fy_mq_rankhead_t *heads_get(fy_mq_t *q, fy_mq_lead_t *l)
{
  if (!l->u.array.heads) {
    l->u.array.heads = calloc((size_t)l->size, sizeof(fy_mq_rankhead_t));
    if (!l->u.array.heads)
      fy_mq_oom("the RankHead array");
    fy_mq_mem_add(q, (size_t)l->size * sizeof(fy_mq_rankhead_t));
  }
  return l->u.array.heads;
}

void fy_mq_array_release(fy_mq_t *q, fy_mq_lead_t *l)
{
  if (l->u.array.heads) {
    free(l->u.array.heads);
    l->u.array.heads = NULL;
    fy_mq_mem_sub(q, (size_t)l->size * sizeof(fy_mq_rankhead_t));
  }
}

fy_mq_item_t *fy_mq_array_find_posted(fy_mq_t *q, fy_mq_lead_t *l, int rank, int tag)
{
  fy_mq_item_t *a = NULL, *b = NULL;
  if (l->u.array.heads) {
    q->nodes_visited++;
    a = fy_mq_list_find_posted(q, l->u.array.heads[rank].prq, l->ctx, rank, tag);
  }
  if (l->n_any)
    b = fy_mq_list_find_posted(q, l->u.array.any, l->ctx, rank, tag);
  return (a && (!b || a->seq < b->seq)) ? a : b;
}

fy_mq_item_t *fy_mq_array_arrive(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *msg)
{
  fy_mq_item_t *a = NULL, *b = NULL;
  fy_mq_rankhead_t *h = NULL;
  if (l->u.array.heads) {
    h = &l->u.array.heads[msg->rank];
    q->nodes_visited++;
    a = fy_mq_list_find_posted(q, h->prq, l->ctx, msg->rank, msg->tag);
  }
  if (l->n_any)
    b = fy_mq_list_find_posted(q, l->u.array.any, l->ctx, msg->rank, msg->tag);
  if (a && (!b || a->seq < b->seq)) {
    fy_mq_list_unlink(&h->prq, a);
    return a;
  }
  if (b) {
    fy_mq_list_unlink(&l->u.array.any, b);
    return b;
  }
  fy_mq_list_append(&heads_get(q, l)[msg->rank].umq, msg);
  return NULL;
}

fy_mq_item_t *fy_mq_array_find_msg(fy_mq_t *q, fy_mq_lead_t *l, int rank, int tag, bool remove)
{
  fy_mq_rankhead_t *hs = l->u.array.heads, *best_h = NULL;
  fy_mq_item_t *best = NULL;
  if (!hs)
    return NULL;
  if (rank != FY_MQ_ANY_SOURCE) {
    q->nodes_visited++;
    best_h = &hs[rank];
    best = fy_mq_list_find_msg(q, best_h->umq, l->ctx, rank, tag);
  } else {
    /* every rank's oldest fit; the oldest of those wins (MPI allows any, but
     * all back ends must agree) */
    for (int i = 0; i < l->size; i++) {
      q->nodes_visited++;
      if (!hs[i].umq)
        continue;
      fy_mq_item_t *m = fy_mq_list_find_msg(q, hs[i].umq, l->ctx, i, tag);
      if (m && (!best || m->seq < best->seq)) {
        best = m;
        best_h = &hs[i];
      }
    }
  }
  if (best && remove)
    fy_mq_list_unlink(&best_h->umq, best);
  return best;
}

fy_mq_item_t *fy_mq_array_post(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv)
{
  fy_mq_item_t *r = fy_mq_array_find_msg(q, l, recv->rank, recv->tag, true);
  if (!r)
    fy_mq_array_insert(q, l, recv, true);
  return r;
}

void fy_mq_array_cancel(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv)
{
  q->st.items_visited++;
  if (recv->rank == FY_MQ_ANY_SOURCE)
    fy_mq_list_unlink(&l->u.array.any, recv);
  else
    fy_mq_list_unlink(&l->u.array.heads[recv->rank].prq, recv);
}

void fy_mq_array_insert(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *x, bool posted)
{
  if (posted && x->rank == FY_MQ_ANY_SOURCE)
    fy_mq_list_append(&l->u.array.any, x);
  else {
    fy_mq_rankhead_t *h = &heads_get(q, l)[x->rank];
    fy_mq_list_append(posted ? &h->prq : &h->umq, x);
  }
}

void fy_mq_array_collect(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t **prq, fy_mq_item_t **umq)
{
  prq = fy_mq_list_drain(&l->u.array.any, prq);
  if (l->u.array.heads)
    for (int i = 0; i < l->size; i++) {
      prq = fy_mq_list_drain(&l->u.array.heads[i].prq, prq);
      umq = fy_mq_list_drain(&l->u.array.heads[i].umq, umq);
    }
  fy_mq_array_release(q, l);
}
