/* Red-black tree keyed by rank (see rbtree.h). Classic insert/delete
 * fix-ups with parent pointers and a NULL-leaf convention. */
#include "rbtree.h"
#include <stdlib.h>

typedef struct msg { struct msg *next; int tag; void *payload; } msg_t;
typedef struct node {
  struct node *l, *r, *p;
  int rank, red;
  msg_t *head, *tail;
} node_t;
struct fy_rb { node_t *root; size_t nodes; };

fy_rb_t *fy_rb_create(void) { return calloc(1, sizeof(fy_rb_t)); }

static void free_sub(node_t *n)
{
  while (n) {
    free_sub(n->l);
    node_t *r = n->r;
    for (msg_t *m = n->head, *x; m; m = x) {
      x = m->next;
      free(m);
    }
    free(n);
    n = r;
  }
}

void fy_rb_destroy(fy_rb_t *t)
{
  if (t) {
    free_sub(t->root);
    free(t);
  }
}

size_t fy_rb_bytes(const fy_rb_t *t) { return sizeof *t + t->nodes * sizeof(node_t); }

static void rot_left(fy_rb_t *t, node_t *x)
{
  node_t *y = x->r;
  x->r = y->l;
  if (y->l)
    y->l->p = x;
  y->p = x->p;
  if (!x->p)
    t->root = y;
  else if (x == x->p->l)
    x->p->l = y;
  else
    x->p->r = y;
  y->l = x;
  x->p = y;
}

static void rot_right(fy_rb_t *t, node_t *x)
{
  node_t *y = x->l;
  x->l = y->r;
  if (y->r)
    y->r->p = x;
  y->p = x->p;
  if (!x->p)
    t->root = y;
  else if (x == x->p->r)
    x->p->r = y;
  else
    x->p->l = y;
  y->r = x;
  x->p = y;
}

static bool red(const node_t *n) { return n && n->red; }

void fy_rb_insert_msg(fy_rb_t *t, int rank, int tag, void *payload)
{
  msg_t *m = malloc(sizeof *m);
  if (!m)
    abort();
  m->next = NULL;
  m->tag = tag;
  m->payload = payload;
  node_t *p = NULL, **link = &t->root;
  while (*link) {
    p = *link;
    if (rank == p->rank) {
      p->tail->next = m;
      p->tail = m;
      return;
    }
    link = rank < p->rank ? &p->l : &p->r;
  }
  node_t *z = calloc(1, sizeof *z);
  if (!z)
    abort();
  z->rank = rank;
  z->red = 1;
  z->p = p;
  z->head = z->tail = m;
  *link = z;
  t->nodes++;
  while (red(z->p)) {
    node_t *g = z->p->p;
    if (z->p == g->l) {
      node_t *u = g->r;
      if (red(u)) {
        z->p->red = 0;
        u->red = 0;
        g->red = 1;
        z = g;
      } else {
        if (z == z->p->r) {
          z = z->p;
          rot_left(t, z);
        }
        z->p->red = 0;
        g->red = 1;
        rot_right(t, g);
      }
    } else {
      node_t *u = g->l;
      if (red(u)) {
        z->p->red = 0;
        u->red = 0;
        g->red = 1;
        z = g;
      } else {
        if (z == z->p->l) {
          z = z->p;
          rot_right(t, z);
        }
        z->p->red = 0;
        g->red = 1;
        rot_left(t, g);
      }
    }
  }
  t->root->red = 0;
}

static void transplant(fy_rb_t *t, node_t *u, node_t *v)
{
  if (!u->p)
    t->root = v;
  else if (u == u->p->l)
    u->p->l = v;
  else
    u->p->r = v;
  if (v)
    v->p = u->p;
}

/* delete fix-up with x possibly NULL: xp is x's parent */
static void del_fix(fy_rb_t *t, node_t *x, node_t *xp)
{
  while (x != t->root && !red(x)) {
    if (x == xp->l) {
      node_t *w = xp->r;
      if (red(w)) {
        w->red = 0;
        xp->red = 1;
        rot_left(t, xp);
        w = xp->r;
      }
      if (!red(w->l) && !red(w->r)) {
        w->red = 1;
        x = xp;
        xp = x->p;
      } else {
        if (!red(w->r)) {
          w->l->red = 0;
          w->red = 1;
          rot_right(t, w);
          w = xp->r;
        }
        w->red = xp->red;
        xp->red = 0;
        if (w->r)
          w->r->red = 0;
        rot_left(t, xp);
        x = t->root;
      }
    } else {
      node_t *w = xp->l;
      if (red(w)) {
        w->red = 0;
        xp->red = 1;
        rot_right(t, xp);
        w = xp->l;
      }
      if (!red(w->l) && !red(w->r)) {
        w->red = 1;
        x = xp;
        xp = x->p;
      } else {
        if (!red(w->l)) {
          w->r->red = 0;
          w->red = 1;
          rot_left(t, w);
          w = xp->l;
        }
        w->red = xp->red;
        xp->red = 0;
        if (w->l)
          w->l->red = 0;
        rot_right(t, xp);
        x = t->root;
      }
    }
  }
  if (x)
    x->red = 0;
}

static void del_node(fy_rb_t *t, node_t *z)
{
  node_t *y = z, *x, *xp;
  int yred = y->red;
  if (!z->l) {
    x = z->r;
    xp = z->p;
    transplant(t, z, z->r);
  } else if (!z->r) {
    x = z->l;
    xp = z->p;
    transplant(t, z, z->l);
  } else {
    y = z->r;
    while (y->l)
      y = y->l;
    yred = y->red;
    x = y->r;
    if (y->p == z)
      xp = y;
    else {
      xp = y->p;
      transplant(t, y, y->r);
      y->r = z->r;
      y->r->p = y;
    }
    transplant(t, z, y);
    y->l = z->l;
    y->l->p = y;
    y->red = z->red;
  }
  if (!yred)
    del_fix(t, x, xp);
  free(z);
  t->nodes--;
}

void *fy_rb_find_msg(fy_rb_t *t, int rank, int tag, bool remove)
{
  node_t *n = t->root;
  while (n && n->rank != rank)
    n = rank < n->rank ? n->l : n->r;
  if (!n)
    return NULL;
  msg_t *prev = NULL, *m = n->head;
  while (m && m->tag != tag) {
    prev = m;
    m = m->next;
  }
  if (!m)
    return NULL;
  void *pl = m->payload;
  if (remove) {
    if (prev)
      prev->next = m->next;
    else
      n->head = m->next;
    if (n->tail == m)
      n->tail = prev;
    free(m);
    if (!n->head)
      del_node(t, n);
  }
  return pl;
}
