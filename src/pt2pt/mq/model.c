/* The thesis's analytic model (seed 002 ch. 4, eqs. 4.2, 4.5, 4.17-4.21,
 * tables 4.2-4.5, 4.7): see fy_mq_model.h. */
#include "pt2pt/mq/fy_mq_model.h"

unsigned fy_mq_span_bits(long comm_size)
{
  unsigned lg = 0; /* ceil(log2(size)) */
  while (lg < 62 && (1L << lg) < comm_size)
    lg++;
  unsigned b = (lg + 3) / 4;
  return b < 2 ? 2 : b;
}

long fy_mq_threshold(long comm_size, double adjustment)
{
  long span = 1L << fy_mq_span_bits(comm_size);
  return (long)((double)(3 * span + 1) * adjustment + 0.5);
}

void fy_mq_coords(long comm_size, long rank, unsigned *c3, unsigned *c2,
                  unsigned *c1, unsigned *c0)
{
  unsigned b = fy_mq_span_bits(comm_size);
  unsigned long m = (1UL << b) - 1, r = (unsigned long)rank;
  *c0 = (unsigned)(r & m);
  *c1 = (unsigned)((r >> b) & m);
  *c2 = (unsigned)((r >> 2 * b) & m);
  *c3 = (unsigned)(r >> 3 * b);
}

unsigned long long fy_mq_model_skipped(long comm_size)
{
  unsigned long long s = 1ULL << fy_mq_span_bits(comm_size);
  return s * s * s * s - s;
}

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

size_t fy_mq_model_cubes(long comm_size, long n)
{
  size_t s = (size_t)1 << fy_mq_span_bits(comm_size);
  return ceil_div((size_t)n, s * s * s);
}

size_t fy_mq_model_jps(long comm_size, long n)
{
  size_t s = (size_t)1 << fy_mq_span_bits(comm_size);
  return ceil_div((size_t)n, s);
}

size_t fy_mq_model_4d_bytes(long comm_size, long n)
{
  size_t s = (size_t)1 << fy_mq_span_bits(comm_size);
  return FY_MQ_MODEL_CIL + fy_mq_model_cubes(comm_size, n) * FY_MQ_MODEL_CUBE(s) +
         fy_mq_model_jps(comm_size, n) * FY_MQ_MODEL_JP;
}

size_t fy_mq_model_array_bytes(long comm_size)
{
  return FY_MQ_MODEL_CIL + (size_t)comm_size * FY_MQ_MODEL_RANKHEAD;
}

void fy_mq_model_4d_peak_mean(long comm_size, long n, double *peak, double *mean)
{
  double sum = 0;
  for (long k = 1; k <= n; k++)
    sum += (double)fy_mq_model_4d_bytes(comm_size, k);
  *peak = (double)fy_mq_model_4d_bytes(comm_size, n);
  *mean = n > 0 ? sum / (double)n : 0;
}

void fy_mq_model_tree_peak_mean(long n, double *peak, double *mean)
{
  /* EmptyTree + k TreeNodes after the k-th insertion; mean over k = 1..n */
  *peak = FY_MQ_MODEL_EMPTYTREE + (double)n * FY_MQ_MODEL_TREENODE;
  *mean = FY_MQ_MODEL_EMPTYTREE + (double)(n + 1) / 2.0 * FY_MQ_MODEL_TREENODE;
}

unsigned long long fy_mq_model_pointers(fy_mq_kind_t kind, long comm_size, int comms)
{
  unsigned long long s = 1ULL << fy_mq_span_bits(comm_size);
  unsigned long long other = (unsigned long long)(comms - 1);
  switch (kind) {
  case FY_MQ_LIST: /* every item of every communicator queued before it */
    return (other + 1) * (unsigned long long)(comm_size - 1);
  case FY_MQ_ARRAY: /* leads walked, lead, index, item */
    return other + 3;
  default: /* leads walked, lead, Cubes, c2 slot, JumpPoints, items */
    return other + 1 + s + 1 + s + s;
  }
}
