/* The list back end (MPICH/MVAPICH design): one posted and one unexpected
 * list, in insertion order. Used across all contexts for FY_MQ_LIST, and per
 * context ("list mode" of a lead) for small communicators and for contexts
 * not yet opened. ANY_SOURCE receives stay inline: insertion order is seq
 * order, so the first match is the oldest. */
#include "pt2pt/mq/mq_internal.h"

fy_mq_item_t *fy_mq_list_find_posted(fy_mq_t *q, fy_mq_item_t *head, uint32_t ctx,
                                     int rank, int tag)
{
  uint64_t v = 0;
  fy_mq_item_t *p;
  for (p = head; p; p = FY_MQ_NEXT(p)) {
    v++;
    if (p->ctx == ctx && fy_mq_posted_accepts(p, rank, tag))
      break;
  }
  q->st.items_visited += v;
  return p;
}

fy_mq_item_t *fy_mq_list_find_msg(fy_mq_t *q, fy_mq_item_t *head, uint32_t ctx,
                                  int rank, int tag)
{
  uint64_t v = 0;
  fy_mq_item_t *m;
  for (m = head; m; m = FY_MQ_NEXT(m)) {
    v++;
    if (m->ctx == ctx && fy_mq_msg_fits(m, rank, tag))
      break;
  }
  q->st.items_visited += v;
  return m;
}

fy_mq_item_t *fy_mq_llist_arrive(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *msg)
{
  fy_mq_item_t *r = fy_mq_list_find_posted(q, l->u.list.prq, msg->ctx, msg->rank, msg->tag);
  if (r)
    fy_mq_list_unlink(&l->u.list.prq, r);
  else
    fy_mq_list_append(&l->u.list.umq, msg);
  return r;
}

fy_mq_item_t *fy_mq_llist_post(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv)
{
  fy_mq_item_t *r = fy_mq_list_find_msg(q, l->u.list.umq, recv->ctx, recv->rank, recv->tag);
  if (r)
    fy_mq_list_unlink(&l->u.list.umq, r);
  else
    fy_mq_list_append(&l->u.list.prq, recv);
  return r;
}

fy_mq_item_t *fy_mq_llist_find_msg(fy_mq_t *q, fy_mq_lead_t *l, int rank, int tag, bool remove)
{
  fy_mq_item_t *r = fy_mq_list_find_msg(q, l->u.list.umq, l->ctx, rank, tag);
  if (r && remove)
    fy_mq_list_unlink(&l->u.list.umq, r);
  return r;
}

void fy_mq_llist_cancel(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *recv)
{
  q->st.items_visited++;
  fy_mq_list_unlink(&l->u.list.prq, recv);
}

void fy_mq_llist_insert(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t *x, bool posted)
{
  fy_mq_list_append(posted ? &l->u.list.prq : &l->u.list.umq, x);
}

static fy_mq_item_t **drain(fy_mq_item_t **head, fy_mq_item_t **out)
{
  fy_mq_item_t *x = *head;
  while (x) {
    fy_mq_item_t *n = FY_MQ_NEXT(x);
    FY_MQ_NEXT(x) = FY_MQ_PREV(x) = NULL;
    *out++ = x;
    x = n;
  }
  *head = NULL;
  return out;
}

void fy_mq_llist_collect(fy_mq_t *q, fy_mq_lead_t *l, fy_mq_item_t **prq, fy_mq_item_t **umq)
{
  drain(&l->u.list.prq, prq);
  drain(&l->u.list.umq, umq);
}

/* shared with array.c and fourd.c: drain one list into out */
fy_mq_item_t **fy_mq_list_drain(fy_mq_item_t **head, fy_mq_item_t **out)
{
  return drain(head, out);
}
