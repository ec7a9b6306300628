/* The derived-type constructors (MPI 4.1 §5.1.2-5.1.7 and their _c
 * variants), resized, dup, commit and free, and the size/extent queries.
 * Each constructor describes its blocks (dt_impl.h) and records its
 * arguments exactly as given, for Type_get_contents. */
#include "datatype/dt_impl.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include "core/fy_handle.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

static int oom(void) { return fy_err(MPI_ERR_NO_MEM, "out of memory creating a datatype"); }

static int bad_count(MPI_Count c, const char *what) {
  return fy_err(MPI_ERR_COUNT, "%s = %lld is negative", what, (long long)c);
}

/* Build from blocks and register with the given contents. */
static int make(const fy_blocks_t *bk, int is_struct, int combiner, int large, int ni, const int *ints,
                int na, const MPI_Aint *addrs, int nl, const MPI_Count *larges, int nd,
                fy_datatype_t *const *types, MPI_Datatype *out) {
  fy_datatype_t *t = fy_dt_build(bk, is_struct);
  if (!t) return oom();
  if (fy_dt_register(t, combiner, large, ni, ints, na, addrs, nl, larges, nd, types, out)) return oom();
  return MPI_SUCCESS;
}

/* ---- contiguous, vector, hvector ---- */

static int vec(MPI_Count count, MPI_Count bl, MPI_Aint stride_bytes, fy_datatype_t *old, int combiner,
               int large, int ni, const int *ints, int na, const MPI_Aint *addrs, int nl,
               const MPI_Count *larges, MPI_Datatype *out) {
  if (count < 0) return bad_count(count, "count");
  if (bl < 0) return fy_err(MPI_ERR_ARG, "blocklength = %lld is negative", (long long)bl);
  fy_blocks_t bk = {.count = count, .uniform = 1, .bl = bl, .stride = stride_bytes, .child = old};
  return make(&bk, 0, combiner, large, ni, ints, na, addrs, nl, larges, 1, &old, out);
}

int fy_mpi_type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  fy_datatype_t *o = fy_type_get(oldtype);
  int ints[1] = {count};
  return vec(count, 1, o->extent, o, MPI_COMBINER_CONTIGUOUS, 0, 1, ints, 0, NULL, 0, NULL, newtype);
}

int fy_mpi_type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  fy_datatype_t *o = fy_type_get(oldtype);
  MPI_Count l[1] = {count};
  return vec(count, 1, o->extent, o, MPI_COMBINER_CONTIGUOUS, 1, 0, NULL, 0, NULL, 1, l, newtype);
}

int fy_mpi_type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  fy_datatype_t *o = fy_type_get(oldtype);
  int ints[3] = {count, blocklength, stride};
  return vec(count, blocklength, (MPI_Aint)stride * o->extent, o, MPI_COMBINER_VECTOR, 0, 3, ints, 0,
             NULL, 0, NULL, newtype);
}

int fy_mpi_type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                         MPI_Datatype *newtype) {
  fy_datatype_t *o = fy_type_get(oldtype);
  MPI_Count l[3] = {count, blocklength, stride};
  return vec(count, blocklength, stride * o->extent, o, MPI_COMBINER_VECTOR, 1, 0, NULL, 0, NULL, 3, l,
             newtype);
}

int fy_mpi_type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                               MPI_Datatype *newtype) {
  int ints[2] = {count, blocklength};
  return vec(count, blocklength, stride, fy_type_get(oldtype), MPI_COMBINER_HVECTOR, 0, 2, ints, 1,
             &stride, 0, NULL, newtype);
}

int fy_mpi_type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                 MPI_Datatype oldtype, MPI_Datatype *newtype) {
  MPI_Count l[3] = {count, blocklength, stride};
  return vec(count, blocklength, stride, fy_type_get(oldtype), MPI_COMBINER_HVECTOR, 1, 0, NULL, 0, NULL,
             3, l, newtype);
}

/* ---- indexed family: blocks from arrays (converted to counts and bytes) ---- */

static int idx(MPI_Count count, const MPI_Count *bls, MPI_Count bl, const MPI_Aint *displs,
               fy_datatype_t *const *children, fy_datatype_t *old, int is_struct, int combiner, int large,
               int ni, const int *ints, int na, const MPI_Aint *addrs, int nl, const MPI_Count *larges,
               MPI_Datatype *out) {
  if (count < 0) return bad_count(count, "count");
  for (MPI_Count i = 0; bls && i < count; i++)
    if (bls[i] < 0)
      return fy_err(MPI_ERR_ARG, "array_of_blocklengths[%lld] = %lld is negative", (long long)i,
                    (long long)bls[i]);
  if (!bls && bl < 0) return fy_err(MPI_ERR_ARG, "blocklength = %lld is negative", (long long)bl);
  fy_blocks_t bk = {.count = count, .bl = bl, .bls = bls, .displs = displs, .children = children, .child = old};
  return make(&bk, is_struct, combiner, large, ni, ints, na, addrs, nl, larges,
              children ? (int)count : 1, children ? children : &old, out);
}

/* int arrays -> MPI_Count / bytes; the caller frees */
static MPI_Count *counts_of(const int *a, MPI_Count n) {
  MPI_Count *c = malloc((size_t)(n ? n : 1) * sizeof *c);
  if (c) for (MPI_Count i = 0; i < n; i++) c[i] = a[i];
  return c;
}
static MPI_Aint *bytes_of_int(const int *a, MPI_Count n, MPI_Aint unit) {
  MPI_Aint *c = malloc((size_t)(n ? n : 1) * sizeof *c);
  if (c) for (MPI_Count i = 0; i < n; i++) c[i] = (MPI_Aint)a[i] * unit;
  return c;
}
static MPI_Aint *bytes_of_count(const MPI_Count *a, MPI_Count n, MPI_Aint unit) {
  MPI_Aint *c = malloc((size_t)(n ? n : 1) * sizeof *c);
  if (c) for (MPI_Count i = 0; i < n; i++) c[i] = (MPI_Aint)a[i] * unit;
  return c;
}
/* concatenate int arrays into one contents array */
static int *ints_cat(int n0, const int *head, MPI_Count n1, const int *a, MPI_Count n2, const int *b) {
  int *r = malloc((size_t)(n0 + n1 + n2 + 1) * sizeof *r);
  if (!r) return NULL;
  memcpy(r, head, (size_t)n0 * sizeof *r);
  if (n1) memcpy(r + n0, a, (size_t)n1 * sizeof *r);
  if (n2) memcpy(r + n0 + n1, b, (size_t)n2 * sizeof *r);
  return r;
}
static MPI_Count *counts_cat(int n0, const MPI_Count *head, MPI_Count n1, const MPI_Count *a, MPI_Count n2,
                             const MPI_Count *b) {
  MPI_Count *r = malloc((size_t)(n0 + n1 + n2 + 1) * sizeof *r);
  if (!r) return NULL;
  memcpy(r, head, (size_t)n0 * sizeof *r);
  if (n1) memcpy(r + n0, a, (size_t)n1 * sizeof *r);
  if (n2) memcpy(r + n0 + n1, b, (size_t)n2 * sizeof *r);
  return r;
}

#define CHECK_CNT(c) do { if ((c) < 0) return bad_count((c), "count"); } while (0)

int fy_mpi_type_indexed(int count, const int bls[], const int displs[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype) {
  CHECK_CNT(count);
  fy_datatype_t *o = fy_type_get(oldtype);
  MPI_Count *cb = counts_of(bls, count);
  MPI_Aint *d = bytes_of_int(displs, count, o->extent);
  int h[1] = {count}, *ints = ints_cat(1, h, count, bls, count, displs);
  int err = (!cb || !d || !ints) ? oom()
          : idx(count, cb, 0, d, NULL, o, 0, MPI_COMBINER_INDEXED, 0, 2 * count + 1, ints, 0, NULL, 0,
                NULL, newtype);
  free(cb); free(d); free(ints);
  return err;
}

int fy_mpi_type_indexed_c(MPI_Count count, const MPI_Count bls[], const MPI_Count displs[],
                          MPI_Datatype oldtype, MPI_Datatype *newtype) {
  CHECK_CNT(count);
  fy_datatype_t *o = fy_type_get(oldtype);
  MPI_Aint *d = bytes_of_count(displs, count, o->extent);
  MPI_Count h[1] = {count}, *l = counts_cat(1, h, count, bls, count, displs);
  int err = (!d || !l) ? oom()
          : idx(count, bls, 0, d, NULL, o, 0, MPI_COMBINER_INDEXED, 1, 0, NULL, 0, NULL,
                (int)(2 * count + 1), l, newtype);
  free(d); free(l);
  return err;
}

int fy_mpi_type_create_hindexed(int count, const int bls[], const MPI_Aint displs[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype) {
  CHECK_CNT(count);
  MPI_Count *cb = counts_of(bls, count);
  int h[1] = {count}, *ints = ints_cat(1, h, count, bls, 0, NULL);
  int err = (!cb || !ints) ? oom()
          : idx(count, cb, 0, displs, NULL, fy_type_get(oldtype), 0, MPI_COMBINER_HINDEXED, 0, count + 1,
                ints, count, displs, 0, NULL, newtype);
  free(cb); free(ints);
  return err;
}

int fy_mpi_type_create_hindexed_c(MPI_Count count, const MPI_Count bls[], const MPI_Count displs[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype) {
  CHECK_CNT(count);
  MPI_Aint *d = bytes_of_count(displs, count, 1);
  MPI_Count h[1] = {count}, *l = counts_cat(1, h, count, bls, count, displs);
  int err = (!d || !l) ? oom()
          : idx(count, bls, 0, d, NULL, fy_type_get(oldtype), 0, MPI_COMBINER_HINDEXED, 1, 0, NULL, 0, NULL,
                (int)(2 * count + 1), l, newtype);
  free(d); free(l);
  return err;
}

int fy_mpi_type_create_indexed_block(int count, int blocklength, const int displs[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype) {
  CHECK_CNT(count);
  fy_datatype_t *o = fy_type_get(oldtype);
  MPI_Aint *d = bytes_of_int(displs, count, o->extent);
  int h[2] = {count, blocklength}, *ints = ints_cat(2, h, count, displs, 0, NULL);
  int err = (!d || !ints) ? oom()
          : idx(count, NULL, blocklength, d, NULL, o, 0, MPI_COMBINER_INDEXED_BLOCK, 0, count + 2, ints, 0,
                NULL, 0, NULL, newtype);
  free(d); free(ints);
  return err;
}

int fy_mpi_type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count displs[],
                                       MPI_Datatype oldtype, MPI_Datatype *newtype) {
  CHECK_CNT(count);
  fy_datatype_t *o = fy_type_get(oldtype);
  MPI_Aint *d = bytes_of_count(displs, count, o->extent);
  MPI_Count h[2] = {count, blocklength}, *l = counts_cat(2, h, count, displs, 0, NULL);
  int err = (!d || !l) ? oom()
          : idx(count, NULL, blocklength, d, NULL, o, 0, MPI_COMBINER_INDEXED_BLOCK, 1, 0, NULL, 0, NULL,
                (int)(count + 2), l, newtype);
  free(d); free(l);
  return err;
}

int fy_mpi_type_create_hindexed_block(int count, int blocklength, const MPI_Aint displs[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype) {
  CHECK_CNT(count);
  int ints[2] = {count, blocklength};
  return idx(count, NULL, blocklength, displs, NULL, fy_type_get(oldtype), 0, MPI_COMBINER_HINDEXED_BLOCK,
             0, 2, ints, count, displs, 0, NULL, newtype);
}

int fy_mpi_type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count displs[],
                                        MPI_Datatype oldtype, MPI_Datatype *newtype) {
  CHECK_CNT(count);
  MPI_Aint *d = bytes_of_count(displs, count, 1);
  MPI_Count h[2] = {count, blocklength}, *l = counts_cat(2, h, count, displs, 0, NULL);
  int err = (!d || !l) ? oom()
          : idx(count, NULL, blocklength, d, NULL, fy_type_get(oldtype), 0, MPI_COMBINER_HINDEXED_BLOCK, 1, 0,
                NULL, 0, NULL, (int)(count + 2), l, newtype);
  free(d); free(l);
  return err;
}

/* struct: every child checked here (arrays are not checked by the binding) */
static int struct_children(MPI_Count count, const MPI_Datatype types[], fy_datatype_t ***out) {
  fy_datatype_t **c = malloc((size_t)(count ? count : 1) * sizeof *c);
  if (!c) return oom();
  for (MPI_Count i = 0; i < count; i++) {
    c[i] = fy_type_get(types[i]);
    if (!c[i] || types[i] == MPI_DATATYPE_NULL) {
      free(c);
      return fy_err(MPI_ERR_TYPE, "array_of_types[%lld] = %#x is not a valid datatype", (long long)i,
                    (unsigned)types[i]);
    }
  }
  *out = c;
  return MPI_SUCCESS;
}

int fy_mpi_type_create_struct(int count, const int bls[], const MPI_Aint displs[], const MPI_Datatype types[],
                              MPI_Datatype *newtype) {
  CHECK_CNT(count);
  fy_datatype_t **c;
  int err = struct_children(count, types, &c);
  if (err) return err;
  MPI_Count *cb = counts_of(bls, count);
  int h[1] = {count}, *ints = ints_cat(1, h, count, bls, 0, NULL);
  err = (!cb || !ints) ? oom()
      : idx(count, cb, 0, displs, c, NULL, 1, MPI_COMBINER_STRUCT, 0, count + 1, ints, count, displs, 0, NULL,
            newtype);
  free(cb); free(ints); free(c);
  return err;
}

int fy_mpi_type_create_struct_c(MPI_Count count, const MPI_Count bls[], const MPI_Count displs[],
                                const MPI_Datatype types[], MPI_Datatype *newtype) {
  CHECK_CNT(count);
  fy_datatype_t **c;
  int err = struct_children(count, types, &c);
  if (err) return err;
  MPI_Aint *d = bytes_of_count(displs, count, 1);
  MPI_Count h[1] = {count}, *l = counts_cat(1, h, count, bls, count, displs);
  err = (!d || !l) ? oom()
      : idx(count, bls, 0, d, c, NULL, 1, MPI_COMBINER_STRUCT, 1, 0, NULL, 0, NULL, (int)(2 * count + 1), l,
            newtype);
  free(d); free(l); free(c);
  return err;
}

/* ---- resized, dup ---- */

static int resized(fy_datatype_t *o, MPI_Aint lb, MPI_Aint extent, int large, MPI_Datatype *newtype) {
  fy_datatype_t *t = fy_dt_resized(o, lb, extent);
  if (!t) return oom();
  MPI_Aint a[2] = {lb, extent};
  MPI_Count l[2] = {lb, extent};
  if (fy_dt_register(t, MPI_COMBINER_RESIZED, large, 0, NULL, large ? 0 : 2, a, large ? 2 : 0, l, 1, &o,
                     newtype))
    return oom();
  return MPI_SUCCESS;
}

int fy_mpi_type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype) {
  return resized(fy_type_get(oldtype), lb, extent, 0, newtype);
}

int fy_mpi_type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype) {
  return resized(fy_type_get(oldtype), lb, extent, 1, newtype);
}

int fy_mpi_type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) {
  fy_datatype_t *o = fy_type_get(oldtype);
  fy_datatype_t *t = fy_dt_resized(o, o->lb, o->extent);
  if (!t) return oom();
  t->sticky = o->sticky;
  t->align = o->align;
  t->committed = o->committed;
  MPI_Datatype h;
  if (fy_dt_register(t, MPI_COMBINER_DUP, 0, 0, NULL, 0, NULL, 0, NULL, 1, &o, &h)) return oom();
  int err = fy_attr_copy_all(FY_OK_DATATYPE, oldtype, &o->attrs, h, &t->attrs);
  if (err) {
    fy_attr_delete_all(FY_OK_DATATYPE, h, &t->attrs);
    fy_type_release(t);
    return err;
  }
  *newtype = h;
  return MPI_SUCCESS;
}

/* ---- commit, free ---- */

int fy_mpi_type_commit(MPI_Datatype *datatype) {
  fy_type_get(*datatype)->committed = 1;
  return MPI_SUCCESS;
}

int fy_mpi_type_free(MPI_Datatype *datatype) {
  fy_datatype_t *t = fy_type_get(*datatype);
  if (t->builtin)
    return fy_err(MPI_ERR_TYPE, "datatype %s is predefined and cannot be freed", t->name);
  int err = fy_attr_delete_all(FY_OK_DATATYPE, t->handle, &t->attrs);
  if (err) return err;
  fy_type_release(t);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

/* ---- size and extent queries ---- */

int fy_mpi_type_size(MPI_Datatype datatype, int *size) {
  fy_datatype_t *t = fy_type_get(datatype);
  *size = t->size > INT32_MAX ? MPI_UNDEFINED : (int)t->size;
  return MPI_SUCCESS;
}

int fy_mpi_type_size_c(MPI_Datatype datatype, MPI_Count *size) {
  *size = fy_type_get(datatype)->size;
  return MPI_SUCCESS;
}

int fy_mpi_type_size_x(MPI_Datatype datatype, MPI_Count *size) { return fy_mpi_type_size_c(datatype, size); }

int fy_mpi_type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
  fy_datatype_t *t = fy_type_get(datatype);
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

int fy_mpi_type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
  fy_datatype_t *t = fy_type_get(datatype);
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

int fy_mpi_type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
  return fy_mpi_type_get_extent_c(datatype, lb, extent);
}

int fy_mpi_type_get_true_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
  fy_datatype_t *t = fy_type_get(datatype);
  *lb = t->true_lb;
  *extent = t->true_extent;
  return MPI_SUCCESS;
}

int fy_mpi_type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
  fy_datatype_t *t = fy_type_get(datatype);
  *lb = t->true_lb;
  *extent = t->true_extent;
  return MPI_SUCCESS;
}

int fy_mpi_type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
  return fy_mpi_type_get_true_extent_c(datatype, lb, extent);
}

/* ---- names ---- */

int fy_mpi_type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen) {
  fy_datatype_t *t = fy_type_get(datatype);
  snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", t->name);
  *resultlen = (int)strlen(type_name);
  return MPI_SUCCESS;
}

int fy_mpi_type_set_name(MPI_Datatype datatype, const char *type_name) {
  if (!type_name) return fy_err(MPI_ERR_ARG, "type_name = NULL");
  fy_datatype_t *t = fy_type_get(datatype);
  snprintf(t->name, sizeof t->name, "%s", type_name);
  return MPI_SUCCESS;
}
