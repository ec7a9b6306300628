/* Predefined datatypes: the MPICH ABI builtins and pair types, handle
 * lookup, references and the per-basic-type facts (alignment, external32).
 * See fy_datatype.h. */
#include "datatype/dt_impl.h"
#include "datatype/fy_copy.h"
#include "core/fy_handle.h"
#include "core/fy_error.h"
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <stddef.h>

fy_htab_t fy_type_tab = {.obj = FY_OK_DATATYPE};
/* Builtins: handle 0x4c00SSII, indexed by II (fy_type_get, inline). */
fy_datatype_t fy_type_builtin[FY_TYPE_NBUILTIN];
static fy_seg_t builtin_segs[FY_TYPE_NBUILTIN][2];
static MPI_Count builtin_pre[FY_TYPE_NBUILTIN][3];
/* ABI pair types are "direct" handles 0x8c000000..4 */
static fy_datatype_t pairs[5];
static fy_seg_t pair_segs[5][2];
static MPI_Count pair_pre[5][3];

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
  /* (one handle, MPI_C_COMPLEX an alias: named as MPICH names it) */
  {MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX"}, {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
  {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX"}, {MPI_AINT, "MPI_AINT"},
  {MPI_OFFSET, "MPI_OFFSET"}, {MPI_COUNT, "MPI_COUNT"}, {MPI_CXX_BOOL, "MPI_CXX_BOOL"},
  {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX"}, {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX"},
  {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX"},
  {MPI_LB, "MPI_LB"}, {MPI_UB, "MPI_UB"},
#ifdef MPIX_C_FLOAT16
  {MPIX_C_FLOAT16, "MPIX_C_FLOAT16"},
#endif
};

static int is_complex(int h) {
  return h == MPI_C_FLOAT_COMPLEX || h == MPI_C_DOUBLE_COMPLEX || h == MPI_C_LONG_DOUBLE_COMPLEX ||
         h == MPI_COMPLEX || h == MPI_DOUBLE_COMPLEX || h == MPI_COMPLEX8 || h == MPI_COMPLEX16 ||
         h == MPI_COMPLEX32 || h == MPI_CXX_FLOAT_COMPLEX || h == MPI_CXX_DOUBLE_COMPLEX ||
         h == MPI_CXX_LONG_DOUBLE_COMPLEX;
}

int fy_dt_basic_align(int h) {
  int sz = (h >> 8) & 0xff;
  if (h == MPI_LONG_DOUBLE || h == MPI_C_LONG_DOUBLE_COMPLEX || h == MPI_CXX_LONG_DOUBLE_COMPLEX)
    return (int)_Alignof(long double);
  if (is_complex(h)) sz /= 2;
  if (sz > 8) sz = 8;
  return sz > 0 ? sz : 1;
}

int fy_dt_ext32(int h, int *unit) {
  int sz = (h >> 8) & 0xff;
  if (h == MPI_LONG || h == MPI_UNSIGNED_LONG) sz = 4;       /* external32: 4-byte long */
  else if (h == MPI_WCHAR) sz = 2;
  else if (h == MPI_LB || h == MPI_UB) sz = 0;
  *unit = is_complex(h) ? sz / 2 : sz;
  if (h == MPI_PACKED || h == MPI_BYTE) *unit = 1;
  return sz;
}

/* One predefined type of n runs (each one basic kind). */
static void init_type(fy_datatype_t *t, fy_seg_t *segs, MPI_Count *pre, int h, const char *name, int n,
                      const fy_seg_t *s, MPI_Aint extent, int align) {
  memset(t, 0, sizeof *t);
  t->handle = h;
  t->builtin = 1;
  t->committed = 1;
  t->refcount = 1;
  for (int i = 0; i < n; i++) segs[i] = s[i];
  t->flat.segs = segs;
  t->flat.nsegs = n;
  t->flat.pre = pre;
  t->flat.rep = 1;
  t->flat.extent = extent;
  fy_flat_prefix(&t->flat);
  t->extent = extent;
  t->lb = 0;
  fy_dt_finish(t);
  t->nbasic = 0;
  for (int i = 0; i < n; i++) t->nbasic += s[i].len / s[i].esize;
  t->red_basic = t;
  t->red_n = 1;
  t->align = align;
  t->combiner = MPI_COMBINER_NAMED;
  snprintf(t->name, sizeof t->name, "%s", name);
}

int fy_type_init(void) {
  fy_copy_init();
  for (size_t i = 0; i < sizeof builtin_names / sizeof builtin_names[0]; i++) {
    int h = builtin_names[i].h;
    int sz = (h >> 8) & 0xff, idx = h & 0xff;
    fy_seg_t s[1] = {{0, sz, 1, 0, sz, h}};
    if (h == MPI_2INT || h == MPI_2INTEGER || h == MPI_2REAL || h == MPI_2DOUBLE_PRECISION) {
      int base = h == MPI_2INT ? MPI_INT : h == MPI_2INTEGER ? MPI_INTEGER
               : h == MPI_2REAL ? MPI_REAL : MPI_DOUBLE_PRECISION;
      s[0].esize = sz / 2;
      s[0].ebasic = base;
    }
    init_type(&fy_type_builtin[idx], builtin_segs[idx], builtin_pre[idx], h, builtin_names[i].name,
              sz ? 1 : 0, s, sz, fy_dt_basic_align(h));
    if (h == MPI_2INT || h == MPI_2INTEGER || h == MPI_2REAL || h == MPI_2DOUBLE_PRECISION)
      fy_type_builtin[idx].align = sz / 2 > 8 ? 8 : sz / 2;
  }
  struct fi { float a; int b; };
  struct di { double a; int b; };
  struct li { long a; int b; };
  struct si { short a; int b; };
  struct ldi { long double a; int b; };
#define PAIR(i, H, NAME, A, AT, ST)                                                            \
  do {                                                                                         \
    fy_seg_t s[2] = {{0, sizeof(A), 1, 0, sizeof(A), AT},                                     \
                     {offsetof(ST, b), 4, 1, 0, 4, MPI_INT}};                                 \
    init_type(&pairs[i], pair_segs[i], pair_pre[i], H, NAME, 2, s, sizeof(ST), _Alignof(ST)); \
  } while (0)
  PAIR(0, MPI_FLOAT_INT, "MPI_FLOAT_INT", float, MPI_FLOAT, struct fi);
  PAIR(1, MPI_DOUBLE_INT, "MPI_DOUBLE_INT", double, MPI_DOUBLE, struct di);
  PAIR(2, MPI_LONG_INT, "MPI_LONG_INT", long, MPI_LONG, struct li);
  PAIR(3, MPI_SHORT_INT, "MPI_SHORT_INT", short, MPI_SHORT, struct si);
  PAIR(4, MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", long double, MPI_LONG_DOUBLE, struct ldi);
#undef PAIR
  return MPI_SUCCESS;
}

void fy_type_finalize(void) {
  /* Types the user never freed: memory only (no callbacks after Finalize). */
  for (int i = FY_HTAB_FIRST; i < fy_type_tab.next; i++) {
    fy_datatype_t *t = fy_type_tab.slots[i];
    if (!t) continue;
    free(t->flat.segs);
    free(t->flat.pre);
    fy_dt_pk_free(t);
    free(t->ints);
    free(t->addrs);
    free(t->larges);
    free(t->types);
    free(t);
  }
  fy_htab_destroy(&fy_type_tab);
  /* merged packing layouts of predefined types (the pair types) */
  for (int i = 0; i < FY_TYPE_NBUILTIN + 5; i++) {
    fy_datatype_t *t = i < FY_TYPE_NBUILTIN ? &fy_type_builtin[i] : &pairs[i - FY_TYPE_NBUILTIN];
    fy_dt_pk_free(t);
  }
  fy_dt_f90_reset();
}

fy_datatype_t *fy_type_get_other(MPI_Datatype h) {
  if (fy_h_kind(h) != FY_HK_DIRECT || fy_h_obj(h) != FY_OK_DATATYPE) return NULL;
  int i = fy_h_index(h);
  if (i < 5) return &pairs[i];
  return fy_htab_get(&fy_type_tab, h);
}

/* A pending operation's request holds a reference on its datatype, and
 * a progress agent thread may release it (the last one, when the user has
 * freed the type) while the application creates or frees types: hence an
 * atomic count, and the table's additions and removals under a lock. */
pthread_mutex_t fy_type_tab_lock = PTHREAD_MUTEX_INITIALIZER;

void fy_type_release(fy_datatype_t *t) {
  if (!t || t->builtin) return;
  if (__atomic_sub_fetch(&t->refcount, 1, __ATOMIC_ACQ_REL) > 0) return;
  if (t->handle) {
    pthread_mutex_lock(&fy_type_tab_lock);
    fy_htab_remove(&fy_type_tab, t->handle);
    pthread_mutex_unlock(&fy_type_tab_lock);
  }
  fy_dt_destroy(t);
}

fy_attr_t **fy_type_attrs(MPI_Datatype h) {
  fy_datatype_t *t = fy_type_get(h);
  return t ? &t->attrs : NULL;
}

MPI_Count fy_type_nbasic(const fy_datatype_t *t) { return t->nbasic; }

int fy_type_reduce_basic(const fy_datatype_t *t, fy_datatype_t **basic, MPI_Count *per_item) {
  if (!t->red_basic) return 0;
  *basic = t->red_basic;
  *per_item = t->red_n;
  return 1;
}
