/* Datatypes: see fy_datatype.h. */
#include "datatype/fy_datatype.h"
#include "core/fy_handle.h"
#include "core/fy_error.h"
#include "core/fy_check.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <stddef.h>

static fy_htab_t type_tab = {.obj = FY_OK_DATATYPE};
/* Builtins: handle 0x4c00SSII, indexed by II. */
static fy_datatype_t builtin[0x80];
/* ABI pair types are "direct" handles 0x8c000000..4 */
static fy_datatype_t pairs[5];

typedef struct { MPI_Datatype h; const char *name; } named_t;
static const named_t builtin_names[] = {
  {MPI_CHAR, "MPI_CHAR"}, {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"},
  {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"}, {MPI_BYTE, "MPI_BYTE"},
  {MPI_WCHAR, "MPI_WCHAR"}, {MPI_SHORT, "MPI_SHORT"},
  {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT"}, {MPI_INT, "MPI_INT"},
  {MPI_UNSIGNED, "MPI_UNSIGNED"}, {MPI_LONG, "MPI_LONG"},
  {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"}, {MPI_FLOAT, "MPI_FLOAT"},
  {MPI_DOUBLE, "MPI_DOUBLE"}, {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"},
  {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT"}, {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG"},
  {MPI_PACKED, "MPI_PACKED"}, {MPI_2INT, "MPI_2INT"},
  {MPI_COMPLEX, "MPI_COMPLEX"}, {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX"},
  {MPI_LOGICAL, "MPI_LOGICAL"}, {MPI_REAL, "MPI_REAL"},
  {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION"}, {MPI_INTEGER, "MPI_INTEGER"},
  {MPI_2INTEGER, "MPI_2INTEGER"}, {MPI_2REAL, "MPI_2REAL"},
  {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION"}, {MPI_CHARACTER, "MPI_CHARACTER"},
  {MPI_REAL4, "MPI_REAL4"}, {MPI_REAL8, "MPI_REAL8"}, {MPI_REAL16, "MPI_REAL16"},
  {MPI_COMPLEX8, "MPI_COMPLEX8"}, {MPI_COMPLEX16, "MPI_COMPLEX16"},
  {MPI_COMPLEX32, "MPI_COMPLEX32"}, {MPI_INTEGER1, "MPI_INTEGER1"},
  {MPI_INTEGER2, "MPI_INTEGER2"}, {MPI_INTEGER4, "MPI_INTEGER4"},
  {MPI_INTEGER8, "MPI_INTEGER8"}, {MPI_INT8_T, "MPI_INT8_T"},
  {MPI_INT16_T, "MPI_INT16_T"}, {MPI_INT32_T, "MPI_INT32_T"},
  {MPI_INT64_T, "MPI_INT64_T"}, {MPI_UINT8_T, "MPI_UINT8_T"},
  {MPI_UINT16_T, "MPI_UINT16_T"}, {MPI_UINT32_T, "MPI_UINT32_T"},
  {MPI_UINT64_T, "MPI_UINT64_T"}, {MPI_C_BOOL, "MPI_C_BOOL"},
  {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX"}, {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
  {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX"}, {MPI_AINT, "MPI_AINT"},
  {MPI_OFFSET, "MPI_OFFSET"}, {MPI_COUNT, "MPI_COUNT"}, {MPI_CXX_BOOL, "MPI_CXX_BOOL"},
  {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX"}, {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX"},
  {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX"},
#ifdef MPIX_C_FLOAT16
  {MPIX_C_FLOAT16, "MPIX_C_FLOAT16"},
#endif
};

static void init_leaf(fy_datatype_t *t, int h, const char *name, int n,
                      MPI_Aint off0, int sz0, MPI_Aint off1, int sz1, MPI_Aint extent) {
  memset(t, 0, sizeof *t);
  t->handle = h;
  t->builtin = 1;
  t->committed = 1;
  t->refcount = 1;
  t->nelem = n;
  t->elem_off[0] = off0; t->elem_size[0] = sz0;
  t->elem_off[1] = off1; t->elem_size[1] = sz1;
  t->size = sz0 + (n > 1 ? sz1 : 0);
  t->extent = extent;
  t->true_extent = (n > 1) ? off1 + sz1 : sz0;
  t->is_contig = (t->size == t->extent);
  t->combiner = MPI_COMBINER_NAMED;
  snprintf(t->name, sizeof t->name, "%s", name);
}

int fy_type_init(void) {
  for (size_t i = 0; i < sizeof builtin_names / sizeof builtin_names[0]; i++) {
    int h = builtin_names[i].h;
    int sz = (h >> 8) & 0xff, idx = h & 0xff;
    if (h == MPI_2INT || h == MPI_2INTEGER || h == MPI_2REAL)
      init_leaf(&builtin[idx], h, builtin_names[i].name, 2, 0, sz / 2, sz / 2, sz / 2, sz);
    else if (h == MPI_2DOUBLE_PRECISION)
      init_leaf(&builtin[idx], h, builtin_names[i].name, 2, 0, 8, 8, 8, 16);
    else if (h == MPI_C_FLOAT_COMPLEX || h == MPI_C_DOUBLE_COMPLEX || h == MPI_COMPLEX ||
             h == MPI_DOUBLE_COMPLEX || h == MPI_COMPLEX8 || h == MPI_COMPLEX16 ||
             h == MPI_CXX_FLOAT_COMPLEX || h == MPI_CXX_DOUBLE_COMPLEX)
      init_leaf(&builtin[idx], h, builtin_names[i].name, 1, 0, sz, 0, 0, sz);
    else
      init_leaf(&builtin[idx], h, builtin_names[i].name, 1, 0, sz, 0, 0, sz);
  }
  /* long double is 10 significant bytes padded to 16 on x86-64: still one
   * 16-byte element so it moves whole. */
  struct fi { float a; int b; };
  struct di { double a; int b; };
  struct li { long a; int b; };
  struct si { short a; int b; };
  struct ldi { long double a; int b; };
  init_leaf(&pairs[0], MPI_FLOAT_INT, "MPI_FLOAT_INT", 2, 0, 4, offsetof(struct fi, b), 4, sizeof(struct fi));
  init_leaf(&pairs[1], MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 2, 0, 8, offsetof(struct di, b), 4, sizeof(struct di));
  init_leaf(&pairs[2], MPI_LONG_INT, "MPI_LONG_INT", 2, 0, 8, offsetof(struct li, b), 4, sizeof(struct li));
  init_leaf(&pairs[3], MPI_SHORT_INT, "MPI_SHORT_INT", 2, 0, 2, offsetof(struct si, b), 4, sizeof(struct si));
  init_leaf(&pairs[4], MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", 2, 0, 16, offsetof(struct ldi, b), 4, sizeof(struct ldi));
  return MPI_SUCCESS;
}

void fy_type_finalize(void) {
  for (int i = FY_HTAB_FIRST; i < type_tab.next; i++)
    free(type_tab.slots[i]);
  fy_htab_destroy(&type_tab);
}

fy_datatype_t *fy_type_get(MPI_Datatype h) {
  int kind = fy_h_kind(h);
  if (fy_h_obj(h) != FY_OK_DATATYPE) return NULL;
  if (kind == FY_HK_BUILTIN) {
    fy_datatype_t *t = &builtin[h & 0xff];
    return (t->handle == h && (h & 0x03ff0000) == 0) ? t : NULL;
  }
  if (kind == FY_HK_DIRECT) {
    int i = fy_h_index(h);
    if (i < 5) return &pairs[i];
    return fy_htab_get(&type_tab, h);
  }
  return NULL;
}

void fy_type_release(fy_datatype_t *t) {
  if (!t || t->builtin) return;
  if (--t->refcount > 0) return;
  fy_datatype_t *base = t->base;
  fy_htab_remove(&type_tab, t->handle);
  free(t);
  fy_type_release(base);
}

MPI_Count fy_type_nbasic(const fy_datatype_t *t) {
  if (t->base) return t->rep * fy_type_nbasic(t->base);
  return t->nelem;
}

int fy_type_reduce_basic(const fy_datatype_t *t, fy_datatype_t **basic, MPI_Count *per_item) {
  MPI_Count n = 1;
  while (t->base) {
    n *= t->rep;
    t = t->base;
  }
  *basic = (fy_datatype_t *)t;
  *per_item = n;
  return 1;
}

/* Walk items: the generic path for non-contiguous types. */
static size_t pack_one(const fy_datatype_t *t, const char *src, char *out) {
  if (t->base) {
    size_t n = 0;
    for (MPI_Count i = 0; i < t->rep; i++)
      n += pack_one(t->base, src + i * t->base->extent, out + n);
    return n;
  }
  size_t n = 0;
  for (int e = 0; e < t->nelem; e++) {
    memcpy(out + n, src + t->elem_off[e], (size_t)t->elem_size[e]);
    n += (size_t)t->elem_size[e];
  }
  return n;
}

void fy_type_pack(const fy_datatype_t *t, MPI_Count count, const void *buf, void *out) {
  if (t->is_contig) {
    memcpy(out, (const char *)buf + t->true_lb, (size_t)(count * t->size));
    return;
  }
  size_t n = 0;
  for (MPI_Count i = 0; i < count; i++)
    n += pack_one(t, (const char *)buf + i * t->extent, (char *)out + n);
}

/* Unpack one item, at most *left bytes; returns false once exhausted. */
static int unpack_one(const fy_datatype_t *t, const char **in, size_t *left, char *dst) {
  if (t->base) {
    for (MPI_Count i = 0; i < t->rep; i++)
      if (!unpack_one(t->base, in, left, dst + i * t->base->extent)) return 0;
    return 1;
  }
  for (int e = 0; e < t->nelem; e++) {
    size_t sz = (size_t)t->elem_size[e];
    if (*left < sz) {
      memcpy(dst + t->elem_off[e], *in, *left);
      *left = 0;
      return 0;
    }
    memcpy(dst + t->elem_off[e], *in, sz);
    *in += sz;
    *left -= sz;
  }
  return 1;
}

void fy_type_unpack(const fy_datatype_t *t, MPI_Count count, const void *in, size_t bytes, void *buf) {
  if (t->is_contig) {
    size_t max = (size_t)(count * t->size);
    memcpy((char *)buf + t->true_lb, in, bytes < max ? bytes : max);
    return;
  }
  const char *p = in;
  size_t left = bytes;
  for (MPI_Count i = 0; i < count && left > 0; i++)
    if (!unpack_one(t, &p, &left, (char *)buf + i * t->extent)) break;
}

/* Elements in `bytes` of one item's packed stream (bytes < t->size). */
static MPI_Count elems_partial(const fy_datatype_t *t, MPI_Count bytes, int *exact) {
  if (t->base) {
    MPI_Count per = t->base->size, full = per ? bytes / per : 0;
    MPI_Count n = full * fy_type_nbasic(t->base);
    return n + elems_partial(t->base, bytes - full * per, exact);
  }
  MPI_Count n = 0;
  for (int e = 0; e < t->nelem && bytes > 0; e++) {
    if (bytes < t->elem_size[e]) { *exact = 0; return n; }
    bytes -= t->elem_size[e];
    n++;
  }
  return n;
}

MPI_Count fy_type_elements(const fy_datatype_t *t, MPI_Count bytes) {
  if (t->size == 0) return 0;
  MPI_Count full = bytes / t->size, rest = bytes % t->size;
  int exact = 1;
  MPI_Count n = full * fy_type_nbasic(t) + elems_partial(t, rest, &exact);
  return exact ? n : MPI_UNDEFINED;
}

/* ---- MPI functions ---- */

int fy_mpi_type_size(MPI_Datatype datatype, int *size) {
  fy_datatype_t *t = fy_type_get(datatype);
  if (t->size > INT32_MAX) { *size = MPI_UNDEFINED; return MPI_SUCCESS; }
  *size = (int)t->size;
  return MPI_SUCCESS;
}

int fy_mpi_type_size_c(MPI_Datatype datatype, MPI_Count *size) {
  *size = fy_type_get(datatype)->size;
  return MPI_SUCCESS;
}

int fy_mpi_type_size_x(MPI_Datatype datatype, MPI_Count *size) {
  return fy_mpi_type_size_c(datatype, size);
}

int fy_mpi_type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
  fy_datatype_t *t = fy_type_get(datatype);
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

int fy_mpi_type_get_true_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
  fy_datatype_t *t = fy_type_get(datatype);
  *lb = t->true_lb;
  *extent = t->true_extent;
  return MPI_SUCCESS;
}

int fy_mpi_type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  fy_datatype_t *old = fy_type_get(oldtype);
  fy_datatype_t *t = calloc(1, sizeof *t);
  if (!t) return fy_err(MPI_ERR_NO_MEM, "out of memory creating a contiguous datatype");
  t->refcount = 1;
  t->base = old;
  t->rep = count;
  t->size = count * old->size;
  t->extent = count * old->extent;
  t->lb = old->lb;
  t->true_lb = old->true_lb;
  t->true_extent = count > 0 ? (count - 1) * old->extent + old->true_extent : 0;
  t->is_contig = old->is_contig || count <= 1;
  if (count == 1 && !old->is_contig) t->is_contig = 0;
  t->combiner = MPI_COMBINER_CONTIGUOUS;
  int h = fy_htab_add(&type_tab, t);
  if (!h) {
    free(t);
    return fy_err(MPI_ERR_NO_MEM, "out of datatype handles");
  }
  t->handle = h;
  fy_type_retain(old);
  *newtype = h;
  return MPI_SUCCESS;
}

int fy_mpi_type_commit(MPI_Datatype *datatype) {
  fy_type_get(*datatype)->committed = 1;
  return MPI_SUCCESS;
}

int fy_mpi_type_free(MPI_Datatype *datatype) {
  fy_datatype_t *t = fy_type_get(*datatype);
  if (t->builtin)
    return fy_err(MPI_ERR_TYPE, "datatype %s is predefined and cannot be freed", t->name);
  fy_type_release(t);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

int fy_mpi_type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) {
  int err = fy_mpi_type_contiguous(1, oldtype, newtype);
  if (err) return err;
  fy_datatype_t *t = fy_type_get(*newtype), *old = fy_type_get(oldtype);
  t->committed = old->committed;
  t->combiner = MPI_COMBINER_DUP;
  t->is_contig = old->is_contig;
  return MPI_SUCCESS;
}

int fy_mpi_type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen) {
  fy_datatype_t *t = fy_type_get(datatype);
  snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", t->name);
  *resultlen = (int)strlen(type_name);
  return MPI_SUCCESS;
}

int fy_mpi_type_set_name(MPI_Datatype datatype, const char *type_name) {
  fy_datatype_t *t = fy_type_get(datatype);
  if (t->builtin)
    return fy_err(MPI_ERR_TYPE, "cannot rename predefined datatype %s", t->name);
  snprintf(t->name, sizeof t->name, "%s", type_name);
  return MPI_SUCCESS;
}

int fy_mpi_get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
