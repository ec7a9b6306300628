/* A red-black tree message queue for ferry-mqbench's fourth column (the
 * thesis's offline comparison, section 4.5): one node per source rank, each
 * holding a FIFO of (tag, payload) messages. Benchmark-only. */
#ifndef FY_RBTREE_H
#define FY_RBTREE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fy_rb fy_rb_t;
fy_rb_t *fy_rb_create(void);
void fy_rb_destroy(fy_rb_t *t);
void fy_rb_insert_msg(fy_rb_t *t, int rank, int tag, void *payload);
/* first message of `rank` with `tag`; removed if remove (node freed when empty) */
void *fy_rb_find_msg(fy_rb_t *t, int rank, int tag, bool remove);
size_t fy_rb_bytes(const fy_rb_t *t); /* tree object + nodes (not the messages) */
#endif
