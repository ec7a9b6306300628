/* Accumulate arithmetic for RMA: which (op, type) pairs an accumulate
 * takes, and the element operation, both from the reduction module
 * (core/fy_op.h: its type classes and kernels); what is RMA's own is the
 * rule that only predefined operations are allowed and that MPI_NO_OP is
 * for the fetching calls only. Atomicity: ops.c (the accumulate lock). */
#include "rma/fy_rma.h"
#include "core/fy_error.h"
#include "core/fy_op.h"

/* The last (op, predefined type) pair checked and its kernel, per thread:
 * a stream of small accumulates skips the classification (the answer for
 * a predefined type never changes). */
static __thread struct {
  MPI_Op op;
  const fy_datatype_t *t;
  fy_op_kernel_t k;
} last;

int fy_rma_op_check(MPI_Op op, fy_datatype_t *t, int allow_noop) {
  if (op == MPI_NO_OP && !allow_noop)
    return fy_err(MPI_ERR_OP, "op = MPI_NO_OP is only allowed in MPI_Get_accumulate and MPI_Fetch_and_op");
  if (t == last.t && op == last.op) return MPI_SUCCESS;
  fy_op_t *o = fy_op_get(op);
  if (!o || !o->builtin)
    return fy_err(MPI_ERR_OP, "op = %#x: RMA accumulates take predefined operations only", (unsigned)op);
  fy_datatype_t *b;
  MPI_Count per;
  if (!fy_type_reduce_basic(t, &b, &per) || !b)
    return fy_err(MPI_ERR_TYPE, "datatype %s: an accumulate's data must be of one predefined type",
                  t->name[0] ? t->name : "(derived)");
  return fy_op_check(o, t);
}

int fy_rma_kernel(MPI_Op op, fy_datatype_t *basic, fy_op_kernel_t *k) {
  if (basic == last.t && op == last.op) {
    *k = last.k;
    return MPI_SUCCESS;
  }
  if (!fy_op_kernel_get(fy_op_get(op), basic, k))
    return fy_err(MPI_ERR_OP, "op = %#x is not defined for datatype %s", (unsigned)op, basic->name);
  if (basic->builtin) {
    last.op = op;
    last.t = basic;
    last.k = *k;
  }
  return MPI_SUCCESS;
}
