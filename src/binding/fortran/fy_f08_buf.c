/* mpi_f08 choice buffers: what the generated wrappers (mpi_f08_wrappers.f90)
 * pass to C for a TYPE(*), DIMENSION(..) dummy, an assumed-rank descriptor.
 *
 * Contract
 * - fy_f08_buf(d, ierror): the address of the data when it is contiguous
 *   (scalars, MPI_BOTTOM and MPI_IN_PLACE included). A strided section is
 *   refused (ierror = MPI_ERR_BUFFER with a message for fy_f08_fail): the
 *   buffers that get here are the ones MPI keeps using after the request
 *   that involves them completes or without a datatype of their own
 *   (MPI_Buffer_attach, MPI_Win_create, MPI_Win_attach), and partitioned
 *   ones (MPI_Psend_init: the program fills partitions after MPI_Start, so
 *   neither a copy at the start nor one datatype per partition can stand
 *   in).
 * - fy_f08_one(d, datatype, ierror): a buffer of one datatype item
 *   (MPI_Fetch_and_op, MPI_Compare_and_swap): the first element of a
 *   section is the first element of its copy, so its address serves when
 *   the item fits in one element; a wider datatype is refused.
 * - fy_f08_tmp(d, &tmp, ierror) / fy_f08_tmp_done(d, &tmp, out): for a
 *   collective's buffer that no datatype can describe (count and datatype
 *   shared or counted per process) and the packed bytes of MPI_Pack and
 *   MPI_Unpack, a strided section is copied to a contiguous buffer before
 *   the call and, in a blocking call, back after it when out: exactly the
 *   standard's "as if copied" (MPI 4.1 19.1.12), and safe since nothing
 *   touches the buffers once the call returns. A nonblocking or persistent
 *   collective keeps its copy with the request instead (fy_f08_req.c).
 * - fy_f08_addr(d): the address of the first element, for the calls that
 *   take nothing else (MPI_Get_address, a split collective's end whose
 *   begin described the buffer, MPI_Win_detach, MPI_Free_mem).
 * - fy_f08_sec(d, count, datatype, ...) / fy_f08_sec_l (MPI_Count): a buffer
 *   with its own count and datatype, the number of items in it (MPI_Send's,
 *   MPI_Bcast's, an RMA origin, a file buffer, MPI_Pack's input). A strided
 *   section (a(1:n:2), b(i,:)) becomes one element of a datatype that lists
 *   the `count`
 *   datatype items of the section in array element order, as if the section
 *   had been copied to a contiguous buffer (MPI 4.1 19.1.12), so the C call
 *   accesses the section itself, also while a nonblocking operation is
 *   pending. The datatype must describe one array element (its extent the
 *   element's size, as MPI_REAL for a REAL array or a struct type for a
 *   derived TYPE) or, if it is contiguous, a whole fraction of one (MPI_REAL
 *   over a COMPLEX array); anything else, or a count beyond the section's
 *   elements, is refused with a message. A blocking call (the wrapper says
 *   which) copies a section of at most FY_F08_COPY_MAX bytes instead, as
 *   fy_f08_tmp. fy_f08_sec_done, after the call, frees the datatype (an
 *   operation still pending holds its own reference) or copies back and
 *   frees the copy.
 * - fy_f08_fail(ierror, kind, handle, fname): raises the refusal through the
 *   error handler of the call's object (libmpi's fy_f08_raise), as a C
 *   call raises its errors, so it is never lost when ierror is absent.
 * - Handles are cast, not converted: under the MPICH ABI a Fortran handle is
 *   the C one (and MPICH's MPI_Type_f2c is a macro, no PMPI_ symbol). */
#include "fy_fort.h"
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "fy_f08_sec.h"

/* libmpi's (src/binding/fy_fort_err.c); weak: the layer also runs over
 * MPICH's libmpi (tests/fortran/on_mpich.sh), where the standard's
 * MPI_*_call_errhandler raise the class without the message. */
int fy_f08_raise(int cls, int kind, int handle, const char *fname, const char *msg)
    __attribute__((weak));

/* The reason for the last refusal on this thread, for fy_f08_fail. */
static _Thread_local char fail_msg[256];

static int refuse(int cls, const char *msg) {
  snprintf(fail_msg, sizeof fail_msg, "%s", msg);
  return cls;
}

/* A section the C call cannot take as it is (scalars, MPI_BOTTOM and
 * MPI_IN_PLACE are not). */
static int strided(const CFI_cdesc_t *d) {
  return d->rank > 0 && d->base_addr && !CFI_is_contiguous(d);
}

static size_t elems(const CFI_cdesc_t *d) {
  size_t n = 1;
  for (int k = 0; k < d->rank; k++) n *= (size_t)d->dim[k].extent;
  return n;
}

FY_F_API void *fy_f08_buf(CFI_cdesc_t *d, MPI_Fint *ierror);
void *fy_f08_buf(CFI_cdesc_t *d, MPI_Fint *ierror) {
  if (strided(d)) {
    *ierror = refuse(MPI_ERR_BUFFER, "a non-contiguous array section where only a contiguous buffer "
                                     "is accepted (memory MPI keeps using: an attached buffer, window "
                                     "memory, a partitioned buffer): pass a contiguous array");
    return NULL;
  }
  return d->base_addr;
}

FY_F_API void *fy_f08_one(CFI_cdesc_t *d, const MPI_Fint *dt, MPI_Fint *ierror);
void *fy_f08_one(CFI_cdesc_t *d, const MPI_Fint *dt, MPI_Fint *ierror) {
  MPI_Aint lb, ext;
  if (!strided(d)) return d->base_addr;
  if (PMPI_Type_get_extent((MPI_Datatype)*dt, &lb, &ext) != MPI_SUCCESS || lb < 0 ||
      lb + ext > (MPI_Aint)d->elem_len) {
    *ierror = refuse(MPI_ERR_TYPE, "the datatype does not fit in one element of the array section "
                                   "(this call accesses one datatype item): pass a contiguous array");
    return NULL;
  }
  return d->base_addr;
}

FY_F_API void *fy_f08_addr(CFI_cdesc_t *d);
void *fy_f08_addr(CFI_cdesc_t *d) { return d->base_addr; }

/* Copies between section d and the contiguous tmp (to tmp, or from it when
 * back), in array element order: a loop over the first dimension inside
 * one over the others' multi-index. The element copy has a constant size
 * where it can, so it is a load and a store, not a call. */
#define COPY_ROW(T)                                                            \
  if (back)                                                                    \
    for (CFI_index_t i = 0; i < n0; i++) memcpy(e + i * sm0, t + i * sizeof(T), sizeof(T)); \
  else                                                                         \
    for (CFI_index_t i = 0; i < n0; i++) memcpy(t + i * sizeof(T), e + i * sm0, sizeof(T)); \
  t += n0 * sizeof(T);
void fy_f08_copy_sec(const CFI_cdesc_t *d, char *t, int back) {
  CFI_index_t idx[CFI_MAX_RANK] = {0}, n0 = d->dim[0].extent, sm0 = d->dim[0].sm;
  size_t len = d->elem_len, rows = 1;
  for (int k = 1; k < d->rank; k++) rows *= (size_t)d->dim[k].extent;
  char *row = d->base_addr;
  for (size_t r = 0; r < rows; r++) {
    char *e = row;
    switch (len) {
    case 1: COPY_ROW(uint8_t) break;
    case 2: COPY_ROW(uint16_t) break;
    case 4: COPY_ROW(uint32_t) break;
    case 8: COPY_ROW(uint64_t) break;
    case 16: { typedef struct { uint64_t a, b; } u128; COPY_ROW(u128) } break;
    default:
      for (CFI_index_t i = 0; i < n0; i++, t += len, e += sm0) {
        if (back) memcpy(e, t, len);
        else memcpy(t, e, len);
      }
    }
    for (int k = 1; k < d->rank; k++) {   /* the next row's multi-index */
      row += d->dim[k].sm;
      if (++idx[k] < d->dim[k].extent) break;
      row -= d->dim[k].sm * d->dim[k].extent;
      idx[k] = 0;
    }
  }
}

/* The contiguous copy of strided section d (bytes long) in *tmp. */
static void *copy_in(CFI_cdesc_t *d, size_t bytes, void **tmp, MPI_Fint *ierror) {
  if (!(*tmp = malloc(bytes ? bytes : 1))) {
    *ierror = refuse(MPI_ERR_NO_MEM, "no memory for a contiguous copy of the array section");
    return NULL;
  }
  fy_f08_copy_sec(d, *tmp, 0);
  return *tmp;
}

FY_F_API void *fy_f08_tmp(CFI_cdesc_t *d, void **tmp, MPI_Fint *ierror);
void *fy_f08_tmp(CFI_cdesc_t *d, void **tmp, MPI_Fint *ierror) {
  *tmp = NULL;
  if (!strided(d)) return d->base_addr;
  return copy_in(d, elems(d) * d->elem_len, tmp, ierror);
}

FY_F_API void fy_f08_tmp_done(CFI_cdesc_t *d, void **tmp, const MPI_Fint *out);
void fy_f08_tmp_done(CFI_cdesc_t *d, void **tmp, const MPI_Fint *out) {
  if (!*tmp) return;
  if (*out) fy_f08_copy_sec(d, *tmp, 1);
  free(*tmp);
  *tmp = NULL;
}

/* type_of_prefix: the first q elements (array element order, 0 < q) of the
 * sub-array made of dimensions 0..lev-1 of d (lev >= 1). full[k] is the
 * datatype of one whole sub-array of dimensions 0..k-1 (full[0]: one
 * element), size[k] its number of elements. */
static int type_of_prefix(const CFI_cdesc_t *d, int lev, MPI_Count q, const MPI_Datatype *full,
                          const MPI_Count *size, MPI_Datatype *out) {
  const CFI_dim_t *dim = &d->dim[lev - 1];
  MPI_Count whole = q / size[lev - 1], rest = q % size[lev - 1];
  MPI_Datatype parts[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  MPI_Aint disp[2] = {0, (MPI_Aint)whole * dim->sm};
  int blen[2] = {1, 1}, n = 0, rc = MPI_SUCCESS;
  if (whole > 0) {
    rc = PMPI_Type_create_hvector_c(whole, 1, dim->sm, full[lev - 1], &parts[0]);
    if (rc != MPI_SUCCESS) goto out;
    n = 1;
  }
  if (rest > 0) {
    rc = type_of_prefix(d, lev - 1, rest, full, size, &parts[n]);
    if (rc != MPI_SUCCESS) goto out;
    disp[n] = disp[1];
    n++;
  }
  if (n == 1 && disp[0] == 0) {
    *out = parts[0];
    parts[0] = MPI_DATATYPE_NULL;
  } else {
    rc = PMPI_Type_create_struct(n, blen, disp, parts, out);
  }
out:
  for (int i = 0; i < 2; i++)
    if (parts[i] != MPI_DATATYPE_NULL) PMPI_Type_free(&parts[i]);
  return rc;
}

/* section_type: the datatype for count items of dt over the section d
 * (d non-contiguous, rank >= 1); with build 0 (or count 0) only the checks,
 * *out = MPI_DATATYPE_NULL. */
static int section_type(const CFI_cdesc_t *d, MPI_Count count, MPI_Datatype dt, int build,
                        MPI_Datatype *out) {
  MPI_Count lb, ext, size, tlb, text;
  MPI_Count elem = (MPI_Count)d->elem_len, nelem = (MPI_Count)elems(d);
  MPI_Datatype el = MPI_DATATYPE_NULL, tail = MPI_DATATYPE_NULL, pre = MPI_DATATYPE_NULL;
  MPI_Datatype full[CFI_MAX_RANK + 1];
  MPI_Count fsize[CFI_MAX_RANK + 1];
  int nfull = 0, rc;
  char msg[200];

  if (count < 0) return refuse(MPI_ERR_COUNT, "negative count with an array section");
  if (PMPI_Type_get_extent_c(dt, &lb, &ext) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent_c(dt, &tlb, &text) != MPI_SUCCESS ||
      PMPI_Type_size_c(dt, &size) != MPI_SUCCESS)
    return refuse(MPI_ERR_TYPE, "invalid datatype with an array section");
  /* units of dt per array element: 1 when dt is one element, m when a
   * contiguous dt is 1/m of one */
  MPI_Count per = 0;
  if (lb == 0 && ext == elem) per = 1;
  else if (lb == 0 && tlb == 0 && size == ext && text == ext && ext > 0 && ext < elem &&
           elem % ext == 0)
    per = elem / ext;
  if (per == 0) {
    snprintf(msg, sizeof msg, "the datatype (extent %lld, lower bound %lld) does not describe one "
             "element of the array section (%lld bytes) or a contiguous fraction of one",
             (long long)ext, (long long)lb, (long long)elem);
    return refuse(MPI_ERR_TYPE, msg);
  }
  if (count > nelem * per) {
    snprintf(msg, sizeof msg, "count = %lld exceeds the array section's %lld items",
             (long long)count, (long long)(nelem * per));
    return refuse(MPI_ERR_COUNT, msg);
  }
  if (count == 0 || !build) {   /* the datatype and count only checked */
    *out = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
  }
  /* (a type per call costs about 0.7 us: none is made that is not needed) */
  if (per > 1 && (rc = PMPI_Type_contiguous_c(per, dt, &el)) != MPI_SUCCESS) goto out;
  /* full[k]: a whole sub-array of dimensions 0..k-1 (the last dimension's
   * whole is never needed: count stops within it) */
  full[0] = per > 1 ? el : dt;
  fsize[0] = 1;
  for (int k = 0; k < d->rank - 1; k++) {
    rc = PMPI_Type_create_hvector_c(d->dim[k].extent, 1, d->dim[k].sm, full[k], &full[k + 1]);
    if (rc != MPI_SUCCESS) goto out;
    nfull = k + 1;
    fsize[k + 1] = fsize[k] * d->dim[k].extent;
  }
  MPI_Count whole = count / per, rest = count % per;
  if (whole > 0) {
    rc = type_of_prefix(d, d->rank, whole, full, fsize, &pre);
    if (rc != MPI_SUCCESS) goto out;
  }
  if (rest > 0) {   /* part of the next element */
    MPI_Aint off = 0;
    MPI_Count q = whole;
    for (int k = 0; k < d->rank; k++) {
      off += (MPI_Aint)(q % d->dim[k].extent) * d->dim[k].sm;
      q /= d->dim[k].extent;
    }
    rc = PMPI_Type_contiguous_c(rest, dt, &tail);
    if (rc != MPI_SUCCESS) goto out;
    if (pre == MPI_DATATYPE_NULL) {
      rc = PMPI_Type_create_struct(1, (int[]){1}, (MPI_Aint[]){off}, &tail, out);
    } else {
      MPI_Datatype two[2] = {pre, tail};
      rc = PMPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, off}, two, out);
    }
  } else {
    *out = pre;
    pre = MPI_DATATYPE_NULL;
  }
  if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(out);
out:
  for (int k = 1; k <= nfull; k++) PMPI_Type_free(&full[k]);
  if (el != MPI_DATATYPE_NULL) PMPI_Type_free(&el);
  if (pre != MPI_DATATYPE_NULL) PMPI_Type_free(&pre);
  if (tail != MPI_DATATYPE_NULL) PMPI_Type_free(&tail);
  if (rc != MPI_SUCCESS) snprintf(fail_msg, sizeof fail_msg, "describing the array section failed");
  return rc;
}

/* A blocking call copies a section of at most this many bytes rather than
 * build a datatype for it: about 0.1 us against 0.4 us a call (bench/fsec). */
#define FY_F08_COPY_MAX 1024

/* Shared by both count kinds: *n and *t in, out; *tmp the copy made, if
 * any (blocking calls only: the operation ends with the call). */
static void *sec(CFI_cdesc_t *d, MPI_Count *n, MPI_Fint *t, void **tmp, int blocking,
                 MPI_Fint *ierror) {
  MPI_Datatype nt;
  *tmp = NULL;
  if (!strided(d)) return d->base_addr;
  size_t bytes = elems(d) * d->elem_len;
  /* a zero-sized section has no element to point at: nothing to access */
  if (bytes == 0) {
    if (*n > 0) {
      *ierror = refuse(MPI_ERR_COUNT, "count > 0 with an empty array section");
      return NULL;
    }
    return d->base_addr;
  }
  int copy = blocking && bytes <= FY_F08_COPY_MAX;
  int rc = section_type(d, *n, (MPI_Datatype)*t, !copy, &nt);
  if (rc != MPI_SUCCESS) {
    *ierror = rc;
    return NULL;
  }
  if (copy) return copy_in(d, bytes, tmp, ierror);
  if (nt == MPI_DATATYPE_NULL) return d->base_addr;   /* count 0 */
  *n = 1;
  *t = (MPI_Fint)nt;
  return d->base_addr;
}

FY_F_API void fy_f08_sec(CFI_cdesc_t *d, const MPI_Fint *count, const MPI_Fint *dt, void **buf_c,
                         MPI_Fint *count_c, MPI_Fint *dt_c, void **tmp, const MPI_Fint *blocking,
                         MPI_Fint *ierror);
void fy_f08_sec(CFI_cdesc_t *d, const MPI_Fint *count, const MPI_Fint *dt, void **buf_c,
                MPI_Fint *count_c, MPI_Fint *dt_c, void **tmp, const MPI_Fint *blocking,
                MPI_Fint *ierror) {
  MPI_Count n = *count;
  *dt_c = *dt;
  *buf_c = sec(d, &n, dt_c, tmp, *blocking, ierror);
  *count_c = (MPI_Fint)n;
}

FY_F_API void fy_f08_sec_l(CFI_cdesc_t *d, const MPI_Count *count, const MPI_Fint *dt, void **buf_c,
                           MPI_Count *count_c, MPI_Fint *dt_c, void **tmp, const MPI_Fint *blocking,
                           MPI_Fint *ierror);
void fy_f08_sec_l(CFI_cdesc_t *d, const MPI_Count *count, const MPI_Fint *dt, void **buf_c,
                  MPI_Count *count_c, MPI_Fint *dt_c, void **tmp, const MPI_Fint *blocking,
                  MPI_Fint *ierror) {
  *count_c = *count;
  *dt_c = *dt;
  *buf_c = sec(d, count_c, dt_c, tmp, *blocking, ierror);
}

/* After the call: the datatype made freed, the copy made copied back (out)
 * and freed. */
FY_F_API void fy_f08_sec_done(CFI_cdesc_t *d, void **tmp, const MPI_Fint *out, MPI_Fint *dt_c,
                              const MPI_Fint *dt);
void fy_f08_sec_done(CFI_cdesc_t *d, void **tmp, const MPI_Fint *out, MPI_Fint *dt_c,
                     const MPI_Fint *dt) {
  fy_f08_tmp_done(d, tmp, out);
  if (*dt_c == *dt) return;
  MPI_Datatype t = (MPI_Datatype)*dt_c;
  PMPI_Type_free(&t);
  *dt_c = *dt;
}

FY_F_API void fy_f08_fail(MPI_Fint *ierror, const MPI_Fint *kind, const MPI_Fint *handle,
                          const char *fname);
void fy_f08_fail(MPI_Fint *ierror, const MPI_Fint *kind, const MPI_Fint *handle,
                 const char *fname) {
  int cls = MPI_ERR_BUFFER;
  PMPI_Error_class(*ierror, &cls);
  const char *msg = fail_msg[0] ? fail_msg : "invalid buffer";
  if (fy_f08_raise) {
    *ierror = fy_f08_raise(cls, *kind, *handle, fname, msg);
  } else {
    *ierror = cls;
    if (*kind == 2) PMPI_Win_call_errhandler((MPI_Win)*handle, cls);
    else if (*kind == 3) MPI_File_call_errhandler(MPI_File_f2c(*handle), cls);
    else PMPI_Comm_call_errhandler(*kind == 1 ? (MPI_Comm)*handle : MPI_COMM_WORLD, cls);
  }
  fail_msg[0] = 0;
}
