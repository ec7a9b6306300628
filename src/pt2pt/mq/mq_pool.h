/* Fixed-size object pool for the 4D queue's small objects (leads, Cubes,
 * JumpPoints): slabs of objects carved once, a free list, no per-object
 * malloc/free on the hot path. Slabs are returned only at destroy: the
 * thesis's amortization (Nbody-like churn never reaches malloc). */
#ifndef FY_MQ_POOL_H
#define FY_MQ_POOL_H
#include <stddef.h>

typedef struct fy_mq_pool {
  size_t obj_size;   /* bytes per object (>= sizeof(void *)) */
  size_t per_slab;   /* objects per slab */
  void *free_list;
  void *slabs;       /* singly linked through the first word of each slab */
  size_t reserved;   /* bytes held in slabs */
} fy_mq_pool_t;

void fy_mq_pool_init(fy_mq_pool_t *p, size_t obj_size);
void fy_mq_pool_fini(fy_mq_pool_t *p);
void *fy_mq_pool_get(fy_mq_pool_t *p); /* NULL on out of memory */
static inline void fy_mq_pool_put(fy_mq_pool_t *p, void *o)
{
  *(void **)o = p->free_list;
  p->free_list = o;
}
#endif
