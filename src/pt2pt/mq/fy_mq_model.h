/* The thesis's analytic model of the 4D queue (seed 002 ch. 4) and
 * introspection of a live queue, for the unit tests and ferry-mqbench.
 * Not used by point-to-point.
 *
 * Model object sizes are table 4.4: ContextIdLead 56, RankHead 32,
 * Cube(span) = 16 + 8*span, JumpPoint 48, red-black TreeNode 56 (with an
 * EmptyTree of 56), all in bytes. */
#ifndef FY_MQ_MODEL_H
#define FY_MQ_MODEL_H
#include "pt2pt/mq/fy_mq.h"

#define FY_MQ_MODEL_CIL 56
#define FY_MQ_MODEL_RANKHEAD 32
#define FY_MQ_MODEL_JP 48
#define FY_MQ_MODEL_TREENODE 56
#define FY_MQ_MODEL_EMPTYTREE 56
#define FY_MQ_MODEL_CUBE(span) (16 + 8 * (size_t)(span))

/* bits per coordinate: 2 up to 256 ranks, +1 per further x16 (eq. 4.2) */
unsigned fy_mq_span_bits(long comm_size);
/* (3*span + 1) * adjustment, rounded to the nearest integer: 26/50/98/194 at 2.0 */
long fy_mq_threshold(long comm_size, double adjustment);
/* rank = c3*span^3 + c2*span^2 + c1*span + c0 */
void fy_mq_coords(long comm_size, long rank, unsigned *c3, unsigned *c2,
                  unsigned *c1, unsigned *c0);
/* Items a 4D search skips by jumping, one item per rank, full communicator:
 * span^4 - span (31*32^3 + 31*32^2 + 31*32 = 1048544 at 2^20). */
unsigned long long fy_mq_model_skipped(long comm_size);

/* eq. 4.17, 4.18: objects for n contiguous ranks */
size_t fy_mq_model_cubes(long comm_size, long n);
size_t fy_mq_model_jps(long comm_size, long n);
/* eq. 4.20 (4D overhead over the list, contiguous ranks) and 4.19 (array) */
size_t fy_mq_model_4d_bytes(long comm_size, long n);
size_t fy_mq_model_array_bytes(long comm_size);
/* table 4.7: peak and mean (sampled after each of n contiguous insertions)
 * 4D overhead in bytes; the same for the red-black tree (eq. 4.21) */
void fy_mq_model_4d_peak_mean(long comm_size, long n, double *peak, double *mean);
void fy_mq_model_tree_peak_mean(long n, double *peak, double *mean);
/* tables 4.2 / 4.3: pointer operations to reach the last item of one
 * communicator when `comms` equal communicators of `comm_size` ranks each
 * queue one item per peer (comm_size - 1 items), the target last. */
unsigned long long fy_mq_model_pointers(fy_mq_kind_t kind, long comm_size, int comms);

/* ---- introspection and test hooks of a live queue ---- */
#define FY_MQ_FLAG_FORCE_4D 1u /* 4d/auto: 4D container for every opened context */
fy_mq_t *fy_mq_create_ex(fy_mq_kind_t kind, double adjustment, unsigned flags);
typedef struct fy_mq_counts {
  size_t leads, cubes, jumppoints;
  uint64_t nodes_visited;   /* leads, Cubes, c2 slots, JumpPoints, RankHeads */
  size_t pool_reserved;     /* bytes held by the object pools */
} fy_mq_counts_t;
void fy_mq_get_counts(const fy_mq_t *q, fy_mq_counts_t *out);
/* structure a context uses now: "list", "array" or "4d" (NULL if no lead) */
const char *fy_mq_ctx_structure(const fy_mq_t *q, uint32_t ctx);
void fy_mq_reset_stats(fy_mq_t *q);
#endif
