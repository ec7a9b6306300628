/* Reduction operations (MPI 4.1 ch. 6.9): the predefined operations on
 * every type they are defined for, user operations, MPI_Reduce_local.
 *
 * Contract
 * - fy_op_get() maps a predefined operation (builtin handle) or a created
 *   one to its object, NULL otherwise (MPI_OP_NULL, freed, not an op).
 * - fy_op_check(op, type): MPI_SUCCESS if op may be applied to type (a
 *   predefined op needs every basic element of the type to be one
 *   predefined type it is defined for, MAXLOC/MINLOC a pair type); else an
 *   MPI_ERR_OP code whose message names both. User ops accept any type.
 * - fy_op_apply(op, in, inout, count, type): inout[i] = in[i] op inout[i]
 *   for count items of type laid out as in a user buffer (extent stride).
 *   Non-contiguous types go through `scratch` (2 * count * size bytes,
 *   allocated by the caller) so the call never allocates: the schedule
 *   engine may run it in a PEF signal turn. Call fy_op_check() first.
 * - A created op holds a reference while a schedule uses it (retain /
 *   release), so MPI_Op_free during a nonblocking reduction is safe. */
#ifndef FY_OP_H
#define FY_OP_H
#include <mpi.h>
#include "datatype/fy_datatype.h"

typedef struct fy_op {
  int handle;
  int refcount;
  int builtin;          /* 1..14: index of the predefined op */
  int commute;
  MPI_User_function *fn;
  MPI_User_function_c *fn_c;
} fy_op_t;

fy_op_t *fy_op_get(MPI_Op h);
void fy_op_retain(fy_op_t *op);
void fy_op_release(fy_op_t *op);
int fy_op_check(const fy_op_t *op, const fy_datatype_t *t);
/* Whether MPI_Compare_and_swap takes t: a predefined C or Fortran integer,
 * logical, multi-language or byte type (MPI 4.1 12.3.4). */
int fy_op_cas_type(const fy_datatype_t *t);
void fy_op_apply(const fy_op_t *op, const void *in, void *inout, MPI_Count count,
                 fy_datatype_t *t, void *scratch);
/* Scratch bytes fy_op_apply needs for count items of t (0 if none). */
size_t fy_op_scratch(const fy_op_t *op, const fy_datatype_t *t, MPI_Count count);

/* A predefined operation bound to one predefined basic type, resolved once,
 * for callers that apply it to packed streams or contiguous arrays of
 * that type (RMA accumulates, in place in the target's memory).
 * - fy_op_kernel_get(op, basic, k): 1 and fills k if op is predefined and
 *   defined for basic (MPI_REPLACE and MPI_NO_OP: for every type), else 0
 *   (fy_op_check gives the error message).
 * - fy_op_kernel_run(k, in, inout, n): inout[i] = in[i] op inout[i] for n
 *   packed elements (pair types: value then index, basic->size apart).
 */
typedef struct fy_op_kernel {
  int op, ct;
  MPI_Aint ioff;
  size_t esize;
} fy_op_kernel_t;
int fy_op_kernel_get(const fy_op_t *op, const fy_datatype_t *basic, fy_op_kernel_t *k);
void fy_op_kernel_run(const fy_op_kernel_t *k, const void *in, void *inout, MPI_Count n);
#endif
