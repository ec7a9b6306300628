/* Slab pool: see mq_pool.h. */
#include "pt2pt/mq/mq_pool.h"
#include <stdlib.h>

#define FY_MQ_SLAB_BYTES 4096

void fy_mq_pool_init(fy_mq_pool_t *p, size_t obj_size)
{
  size_t a = sizeof(void *);
  p->obj_size = (obj_size + a - 1) / a * a;
  /* the first word of a slab links the slabs; objects follow it */
  size_t n = (FY_MQ_SLAB_BYTES - a) / p->obj_size;
  p->per_slab = n < 4 ? 4 : n;
  p->free_list = NULL;
  p->slabs = NULL;
  p->reserved = 0;
}

void fy_mq_pool_fini(fy_mq_pool_t *p)
{
  void *s = p->slabs;
  while (s) {
    void *n = *(void **)s;
    free(s);
    s = n;
  }
  p->slabs = p->free_list = NULL;
  p->reserved = 0;
}

void *fy_mq_pool_get(fy_mq_pool_t *p)
{
  if (!p->free_list) {
    size_t bytes = sizeof(void *) + p->per_slab * p->obj_size;
    char *s = malloc(bytes);
    if (!s)
      return NULL;
    *(void **)s = p->slabs;
    p->slabs = s;
    p->reserved += bytes;
    /* thread the new objects onto the free list, lowest address first */
    char *o = s + sizeof(void *);
    for (size_t i = p->per_slab; i-- > 0;)
      fy_mq_pool_put(p, o + i * p->obj_size);
  }
  void *o = p->free_list;
  p->free_list = *(void **)o;
  return o;
}
