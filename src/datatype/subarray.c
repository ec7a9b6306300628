/* Subarray and distributed-array constructors (MPI 4.1 §5.1.3, §5.1.4):
 * composed from unregistered vector/indexed/resized steps, one per
 * dimension (the fastest first), then registered with their own
 * combiner and arguments. */
#include "datatype/dt_impl.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>

static int oom(void) { return fy_err(MPI_ERR_NO_MEM, "out of memory creating a datatype"); }

/* replace *cur by next (intermediates are never registered) */
static void step(fy_datatype_t **cur, fy_datatype_t *next, fy_datatype_t *keep) {
  if (*cur != keep) fy_dt_destroy(*cur);
  *cur = next;
}

static int subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subs, const MPI_Count *starts,
                    int order, fy_datatype_t *old, fy_datatype_t **out) {
  if (ndims <= 0) return fy_err(MPI_ERR_ARG, "ndims = %d must be positive", ndims);
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return fy_err(MPI_ERR_ARG, "order = %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  for (int i = 0; i < ndims; i++) {
    if (sizes[i] <= 0) return fy_err(MPI_ERR_ARG, "array_of_sizes[%d] = %lld must be positive", i, (long long)sizes[i]);
    if (subs[i] < 0 || subs[i] > sizes[i])
      return fy_err(MPI_ERR_ARG, "array_of_subsizes[%d] = %lld is outside [0, %lld]", i, (long long)subs[i], (long long)sizes[i]);
    if (starts[i] < 0 || starts[i] > sizes[i] - subs[i])
      return fy_err(MPI_ERR_ARG, "array_of_starts[%d] = %lld is outside [0, %lld]", i, (long long)starts[i],
                    (long long)(sizes[i] - subs[i]));
  }
  fy_datatype_t *cur = old;
  MPI_Aint stride = old->extent, disp = 0;
  for (int k = 0; k < ndims; k++) {
    int i = order == MPI_ORDER_C ? ndims - 1 - k : k; /* fastest dimension first */
    fy_blocks_t bk = {.count = subs[i], .uniform = 1, .bl = 1, .stride = stride, .child = cur};
    fy_datatype_t *n = fy_dt_build(&bk, 0);
    if (!n) { step(&cur, NULL, old); return oom(); }
    step(&cur, n, old);
    disp += starts[i] * stride;
    stride *= sizes[i];
  }
  fy_blocks_t bk = {.count = 1, .bl = 1, .displs = &disp, .child = cur};
  fy_datatype_t *n = fy_dt_build(&bk, 0);
  if (!n) { step(&cur, NULL, old); return oom(); }
  step(&cur, n, old);
  n = fy_dt_resized(cur, 0, stride);
  step(&cur, n, old);
  if (!cur) return oom();
  *out = cur;
  return MPI_SUCCESS;
}

int fy_mpi_type_create_subarray(int ndims, const int sizes[], const int subs[], const int starts[], int order,
                                MPI_Datatype oldtype, MPI_Datatype *newtype) {
  if (ndims <= 0) return fy_err(MPI_ERR_ARG, "ndims = %d must be positive", ndims);
  MPI_Count *c = malloc(3 * (size_t)ndims * sizeof *c);
  int *ints = malloc((3 * (size_t)ndims + 2) * sizeof *ints);
  int err;
  if (!c || !ints) { err = oom(); goto done; }
  for (int i = 0; i < ndims; i++) {
    c[i] = sizes[i];
    c[ndims + i] = subs[i];
    c[2 * ndims + i] = starts[i];
  }
  fy_datatype_t *o = fy_type_get(oldtype), *t;
  if ((err = subarray(ndims, c, c + ndims, c + 2 * ndims, order, o, &t))) goto done;
  ints[0] = ndims;
  memcpy(ints + 1, sizes, (size_t)ndims * sizeof *ints);
  memcpy(ints + 1 + ndims, subs, (size_t)ndims * sizeof *ints);
  memcpy(ints + 1 + 2 * ndims, starts, (size_t)ndims * sizeof *ints);
  ints[1 + 3 * ndims] = order;
  if (fy_dt_register(t, MPI_COMBINER_SUBARRAY, 0, 3 * ndims + 2, ints, 0, NULL, 0, NULL, 1, &o, newtype))
    err = oom();
done:
  free(c);
  free(ints);
  return err;
}

int fy_mpi_type_create_subarray_c(int ndims, const MPI_Count sizes[], const MPI_Count subs[],
                                  const MPI_Count starts[], int order, MPI_Datatype oldtype,
                                  MPI_Datatype *newtype) {
  if (ndims <= 0) return fy_err(MPI_ERR_ARG, "ndims = %d must be positive", ndims);
  fy_datatype_t *o = fy_type_get(oldtype), *t;
  int err = subarray(ndims, sizes, subs, starts, order, o, &t);
  if (err) return err;
  MPI_Count *l = malloc(3 * (size_t)ndims * sizeof *l);
  if (!l) { fy_dt_destroy(t); return oom(); }
  memcpy(l, sizes, (size_t)ndims * sizeof *l);
  memcpy(l + ndims, subs, (size_t)ndims * sizeof *l);
  memcpy(l + 2 * ndims, starts, (size_t)ndims * sizeof *l);
  int ints[2] = {ndims, order};
  if (fy_dt_register(t, MPI_COMBINER_SUBARRAY, 1, 2, ints, 0, NULL, 3 * ndims, l, 1, &o, newtype)) err = oom();
  free(l);
  return err;
}

/* ---- darray ---- */

static int darray(int size, int rank, int ndims, const MPI_Count *gs, const int *dist, const int *dargs,
                  const int *ps, int order, fy_datatype_t *old, fy_datatype_t **out) {
  if (ndims <= 0) return fy_err(MPI_ERR_ARG, "ndims = %d must be positive", ndims);
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return fy_err(MPI_ERR_ARG, "order = %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  MPI_Count nprocs = 1;
  for (int i = 0; i < ndims; i++) {
    if (gs[i] <= 0 || ps[i] <= 0)
      return fy_err(MPI_ERR_ARG, "array_of_gsizes[%d] and array_of_psizes[%d] must be positive", i, i);
    if (dist[i] != MPI_DISTRIBUTE_BLOCK && dist[i] != MPI_DISTRIBUTE_CYCLIC && dist[i] != MPI_DISTRIBUTE_NONE)
      return fy_err(MPI_ERR_ARG, "array_of_distribs[%d] = %d is not a distribution", i, dist[i]);
    if (dist[i] == MPI_DISTRIBUTE_NONE && ps[i] != 1)
      return fy_err(MPI_ERR_ARG, "array_of_psizes[%d] must be 1 for MPI_DISTRIBUTE_NONE", i);
    if (dargs[i] != MPI_DISTRIBUTE_DFLT_DARG && dargs[i] <= 0)
      return fy_err(MPI_ERR_ARG, "array_of_dargs[%d] = %d must be positive", i, dargs[i]);
    if (dist[i] == MPI_DISTRIBUTE_BLOCK && dargs[i] != MPI_DISTRIBUTE_DFLT_DARG &&
        (MPI_Count)dargs[i] * ps[i] < gs[i])
      return fy_err(MPI_ERR_ARG, "array_of_dargs[%d] * array_of_psizes[%d] < array_of_gsizes[%d]", i, i, i);
    nprocs *= ps[i];
  }
  if (nprocs != size) return fy_err(MPI_ERR_ARG, "the product of array_of_psizes is not size = %d", size);
  if (rank < 0 || rank >= size) return fy_err(MPI_ERR_ARG, "rank = %d is not in [0, %d)", rank, size);
  int coord[64];
  if (ndims > 64) return fy_err(MPI_ERR_ARG, "ndims = %d is too large", ndims);
  for (int i = ndims - 1, r = rank; i >= 0; i--) { /* the process grid is row-major */
    coord[i] = r % ps[i];
    r /= ps[i];
  }
  fy_datatype_t *cur = old;
  MPI_Aint ext = old->extent;
  for (int k = 0; k < ndims; k++) {
    int i = order == MPI_ORDER_C ? ndims - 1 - k : k;
    MPI_Count g = gs[i], p = ps[i], r = coord[i], d;
    if (dist[i] == MPI_DISTRIBUTE_NONE) { d = g; p = 1; r = 0; }
    else if (dist[i] == MPI_DISTRIBUTE_BLOCK) d = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : dargs[i];
    else d = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[i];
    MPI_Count nb = 0;
    for (MPI_Count s = r * d; s < g; s += p * d) nb++;
    MPI_Count *bl = malloc((size_t)(nb ? nb : 1) * sizeof *bl);
    MPI_Aint *ds = malloc((size_t)(nb ? nb : 1) * sizeof *ds);
    fy_datatype_t *n = NULL;
    if (bl && ds) {
      MPI_Count j = 0;
      for (MPI_Count s = r * d; s < g; s += p * d, j++) {
        bl[j] = g - s < d ? g - s : d;
        ds[j] = s * ext;
      }
      fy_blocks_t bk = {.count = nb, .bls = bl, .displs = ds, .child = cur};
      n = fy_dt_build(&bk, 0);
    }
    free(bl);
    free(ds);
    if (!n) { step(&cur, NULL, old); return oom(); }
    step(&cur, n, old);
    n = fy_dt_resized(cur, 0, g * ext);
    step(&cur, n, old);
    if (!cur) return oom();
    ext *= g;
  }
  *out = cur;
  return MPI_SUCCESS;
}

static int darray_api(int size, int rank, int ndims, const MPI_Count *gc, const int gi[], const int dist[],
                      const int dargs[], const int ps[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  if (ndims <= 0) return fy_err(MPI_ERR_ARG, "ndims = %d must be positive", ndims);
  fy_datatype_t *o = fy_type_get(oldtype), *t;
  int n = ndims, err;
  MPI_Count *g = malloc((size_t)n * sizeof *g);
  int *ints = malloc((4 * (size_t)n + 4) * sizeof *ints);
  if (!g || !ints) { err = oom(); goto done; }
  for (int i = 0; i < n; i++) g[i] = gc ? gc[i] : gi[i];
  if ((err = darray(size, rank, n, g, dist, dargs, ps, order, o, &t))) goto done;
  int k = 0;
  ints[k++] = size;
  ints[k++] = rank;
  ints[k++] = n;
  if (!gc) for (int i = 0; i < n; i++) ints[k++] = gi[i];
  for (int i = 0; i < n; i++) ints[k++] = dist[i];
  for (int i = 0; i < n; i++) ints[k++] = dargs[i];
  for (int i = 0; i < n; i++) ints[k++] = ps[i];
  ints[k++] = order;
  if (fy_dt_register(t, MPI_COMBINER_DARRAY, gc != NULL, k, ints, 0, NULL, gc ? n : 0, gc, 1, &o, newtype))
    err = oom();
done:
  free(g);
  free(ints);
  return err;
}

int fy_mpi_type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                              const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype) {
  return darray_api(size, rank, ndims, NULL, gsizes, distribs, dargs, psizes, order, oldtype, newtype);
}

int fy_mpi_type_create_darray_c(int size, int rank, int ndims, const MPI_Count gsizes[], const int distribs[],
                                const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype) {
  return darray_api(size, rank, ndims, gsizes, NULL, distribs, dargs, psizes, order, oldtype, newtype);
}
