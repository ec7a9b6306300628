/* Accumulate arithmetic: the predefined operations applied to arrays of one
 * predefined basic type (target = target op origin), and which (op, type)
 * pairs are allowed. User-defined operations are not allowed in RMA. */
#include "rma/fy_rma.h"
#include "core/fy_error.h"
#include <complex.h>
#include <stdbool.h>
#include <string.h>

enum { K_SINT = 1, K_UINT, K_FLOAT, K_COMPLEX, K_BYTE, K_BOOL, K_PAIR };


static int kind_of(const fy_datatype_t *b) {
  MPI_Datatype h = b->handle;
  if (h == MPI_FLOAT_INT || h == MPI_DOUBLE_INT || h == MPI_LONG_INT || h == MPI_2INT ||
      h == MPI_SHORT_INT || h == MPI_LONG_DOUBLE_INT)
    return K_PAIR;
  if (h == MPI_FLOAT || h == MPI_DOUBLE || h == MPI_LONG_DOUBLE || h == MPI_REAL || h == MPI_DOUBLE_PRECISION)
    return K_FLOAT;
  if (h == MPI_C_FLOAT_COMPLEX || h == MPI_CXX_FLOAT_COMPLEX || h == MPI_C_DOUBLE_COMPLEX || h == MPI_C_LONG_DOUBLE_COMPLEX ||
      h == MPI_CXX_DOUBLE_COMPLEX || h == MPI_CXX_LONG_DOUBLE_COMPLEX || h == MPI_COMPLEX ||
      h == MPI_DOUBLE_COMPLEX)
    return K_COMPLEX;
  if (h == MPI_BYTE || h == MPI_PACKED) return K_BYTE;
  if (h == MPI_C_BOOL || h == MPI_CXX_BOOL || h == MPI_LOGICAL) return K_BOOL;
  if (h == MPI_UNSIGNED_CHAR || h == MPI_UNSIGNED_SHORT || h == MPI_UNSIGNED || h == MPI_UNSIGNED_LONG ||
      h == MPI_UNSIGNED_LONG_LONG || h == MPI_UINT8_T || h == MPI_UINT16_T || h == MPI_UINT32_T ||
      h == MPI_UINT64_T || h == MPI_WCHAR || h == MPI_AINT || h == MPI_COUNT || h == MPI_OFFSET)
    return K_UINT;
  if (b->builtin) return K_SINT;
  return 0;
}

/* An element the CPU can update with one atomic instruction. */
int fy_rma_atomic_kind(const fy_datatype_t *b) {
  int k = kind_of(b);
  if (k == K_PAIR || k == K_COMPLEX || k == 0) return 0;
  if (k == K_FLOAT && b->size > 8) return 0;
  return b->size == 1 || b->size == 2 || b->size == 4 || b->size == 8;
}

int fy_rma_op_check(MPI_Op op, fy_datatype_t *t, int allow_noop) {
  fy_datatype_t *b;
  MPI_Count per;
  fy_type_reduce_basic(t, &b, &per);
  if (op == MPI_REPLACE) return MPI_SUCCESS;
  if (op == MPI_NO_OP) {
    if (allow_noop) return MPI_SUCCESS;
    return fy_err(MPI_ERR_OP, "op = MPI_NO_OP is only allowed in MPI_Get_accumulate and MPI_Fetch_and_op");
  }
  int k = kind_of(b);
  int ok = 0;
  if (op == MPI_MAXLOC || op == MPI_MINLOC) ok = k == K_PAIR;
  else if (op == MPI_SUM || op == MPI_PROD) ok = k == K_SINT || k == K_UINT || k == K_FLOAT || k == K_COMPLEX;
  else if (op == MPI_MAX || op == MPI_MIN) ok = k == K_SINT || k == K_UINT || k == K_FLOAT;
  else if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) ok = k == K_SINT || k == K_UINT || k == K_BOOL;
  else if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) ok = k == K_SINT || k == K_UINT || k == K_BYTE;
  else return fy_err(MPI_ERR_OP, "op = %#x: RMA accumulates take predefined operations only", (unsigned)op);
  if (!ok) return fy_err(MPI_ERR_OP, "op = %#x is not defined for datatype %s", (unsigned)op, b->name);
  return MPI_SUCCESS;
}

#define ARITH(T)                                                                  \
  do {                                                                            \
    T *a = (T *)inout;                                                            \
    const T *x = (const T *)in;                                                   \
    if (op == MPI_SUM) for (MPI_Count i = 0; i < n; i++) a[i] = a[i] + x[i];     \
    else if (op == MPI_PROD) for (MPI_Count i = 0; i < n; i++) a[i] = a[i] * x[i]; \
    else return 0;                                                                \
    return 1;                                                                     \
  } while (0)
#define ORDERED(T)                                                                         \
  do {                                                                                     \
    T *a = (T *)inout;                                                                     \
    const T *x = (const T *)in;                                                            \
    if (op == MPI_MAX) for (MPI_Count i = 0; i < n; i++) a[i] = a[i] > x[i] ? a[i] : x[i]; \
    else if (op == MPI_MIN) for (MPI_Count i = 0; i < n; i++) a[i] = a[i] < x[i] ? a[i] : x[i]; \
    else ARITH(T);                                                                         \
    return 1;                                                                              \
  } while (0)
#define INTEGER(T)                                                                              \
  do {                                                                                          \
    T *a = (T *)inout;                                                                          \
    const T *x = (const T *)in;                                                                 \
    if (op == MPI_LAND) for (MPI_Count i = 0; i < n; i++) a[i] = (T)(a[i] && x[i]);            \
    else if (op == MPI_LOR) for (MPI_Count i = 0; i < n; i++) a[i] = (T)(a[i] || x[i]);        \
    else if (op == MPI_LXOR) for (MPI_Count i = 0; i < n; i++) a[i] = (T)(!a[i] != !x[i]);     \
    else if (op == MPI_BAND) for (MPI_Count i = 0; i < n; i++) a[i] = (T)(a[i] & x[i]);        \
    else if (op == MPI_BOR) for (MPI_Count i = 0; i < n; i++) a[i] = (T)(a[i] | x[i]);         \
    else if (op == MPI_BXOR) for (MPI_Count i = 0; i < n; i++) a[i] = (T)(a[i] ^ x[i]);        \
    else ORDERED(T);                                                                            \
    return 1;                                                                                   \
  } while (0)
/* Pair types travel packed (value then int, no padding: 12 bytes for
 * MPI_DOUBLE_INT), so elements are read and written by memcpy. */
#define LOC(V)                                                                            \
  do {                                                                                    \
    size_t es = sizeof(V) + sizeof(int);                                                  \
    for (MPI_Count i = 0; i < n; i++) {                                                   \
      char *pa = (char *)inout + i * es;                                                  \
      const char *px = (const char *)in + i * es;                                         \
      V av, xv;                                                                           \
      int ai, xi;                                                                         \
      memcpy(&av, pa, sizeof av);                                                         \
      memcpy(&ai, pa + sizeof av, sizeof ai);                                             \
      memcpy(&xv, px, sizeof xv);                                                         \
      memcpy(&xi, px + sizeof xv, sizeof xi);                                             \
      int better = op == MPI_MAXLOC ? xv > av : xv < av;                                  \
      if (better) memcpy(pa, px, es);                                                     \
      else if (xv == av && xi < ai) memcpy(pa + sizeof av, &xi, sizeof xi);               \
    }                                                                                     \
    return 1;                                                                             \
  } while (0)

int fy_rma_apply(MPI_Op op, fy_datatype_t *b, const void *in, void *inout, MPI_Count n) {
  if (op == MPI_NO_OP) return 1;
  if (op == MPI_REPLACE) {
    memcpy(inout, in, (size_t)(n * b->size));
    return 1;
  }
  int k = kind_of(b);
  size_t s = (size_t)b->size;
  MPI_Datatype h = b->handle;
  switch (k) {
    case K_SINT:
      if (s == 1) INTEGER(int8_t);
      if (s == 2) INTEGER(int16_t);
      if (s == 4) INTEGER(int32_t);
      if (s == 8) INTEGER(int64_t);
      return 0;
    case K_UINT:
    case K_BYTE:
    case K_BOOL:
      if (s == 1) INTEGER(uint8_t);
      if (s == 2) INTEGER(uint16_t);
      if (s == 4) INTEGER(uint32_t);
      if (s == 8) INTEGER(uint64_t);
      return 0;
    case K_FLOAT:
      if (s == sizeof(float)) ORDERED(float);
      if (s == sizeof(double)) ORDERED(double);
      ORDERED(long double);
    case K_COMPLEX:
      if (s == sizeof(float complex)) ARITH(float complex);
      if (s == sizeof(double complex)) ARITH(double complex);
      ARITH(long double complex);
    case K_PAIR:
      if (h == MPI_FLOAT_INT) LOC(float);
      if (h == MPI_DOUBLE_INT) LOC(double);
      if (h == MPI_LONG_INT) LOC(long);
      if (h == MPI_2INT) LOC(int);
      if (h == MPI_SHORT_INT) LOC(short);
      LOC(long double);
  }
  return 0;
}
