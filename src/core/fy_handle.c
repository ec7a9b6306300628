/* Handle tables: see fy_handle.h. */
#include "core/fy_handle.h"
#include <stdlib.h>

int fy_htab_add(fy_htab_t *t, void *obj) {
  int idx;
  if (t->nfree > 0) {
    idx = t->freelist[--t->nfree];
  } else {
    if (t->next < FY_HTAB_FIRST) t->next = FY_HTAB_FIRST;
    if (t->next >= t->cap) {
      int ncap = t->cap ? t->cap * 2 : 256;
      if (ncap > 0x3ffffff) return 0;
      void **ns = realloc(t->slots, (size_t)ncap * sizeof *ns);
      if (!ns) return 0;
      for (int i = t->cap; i < ncap; i++) ns[i] = NULL;
      t->slots = ns;
      t->cap = ncap;
    }
    idx = t->next++;
  }
  t->slots[idx] = obj;
  t->live++;
  return fy_h_make(FY_HK_DIRECT, t->obj, idx);
}

void fy_htab_remove(fy_htab_t *t, int h) {
  int i = fy_h_index(h);
  if (i >= t->next || !t->slots[i]) return;
  __atomic_store_n(&t->slots[i], NULL, __ATOMIC_RELAXED); /* (fy_htab_get) */
  t->live--;
  if (t->nfree == t->freecap) {
    int ncap = t->freecap ? t->freecap * 2 : 256;
    int *nf = realloc(t->freelist, (size_t)ncap * sizeof *nf);
    if (!nf) return; /* the slot is leaked, never reused: still correct */
    t->freelist = nf;
    t->freecap = ncap;
  }
  t->freelist[t->nfree++] = i;
}

void fy_htab_destroy(fy_htab_t *t) {
  free(t->slots);
  free(t->freelist);
  t->slots = NULL;
  t->freelist = NULL;
  t->cap = t->next = t->nfree = t->freecap = t->live = 0;
}
