/* Reduction operations: every predefined op on every predefined type it
 * is defined for (and MPI_ERR_OP where it is not), MAXLOC/MINLOC on every
 * pair type, user ops (commutative and not: the non-commutative one is
 * "append digits", so any reordering shows), MPI_Op_commutative,
 * MPI_Op_create_c, MPI_Op_free while a nonblocking reduction uses the op,
 * MPI_Reduce_local (also on buffers that are not aligned for their type),
 * reductions over a derived type. */
#include "../common/fytest.h"
#include <complex.h>
#include <limits.h>
#include <stdbool.h>

static int rank, size;
#define NE 5
enum { CI = 1, CF = 2, CX = 4, CL = 8, CB = 16 }; /* int, float, complex, logical, byte */
static const MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND,
                             MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC};
static const char *opn[] = {"MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR", "LXOR", "BXOR", "MAXLOC"};
/* Classes each op takes (C integers take all but MAXLOC). */
static const int op_cls[] = {CI | CF, CI | CF, CI | CF | CX, CI | CF | CX, CI | CL, CI | CB,
                             CI | CL, CI | CB, CI | CL, CI | CB, 0};

static int v(int r, int i, int cls) { return cls & (CL) ? (r + i) % 2 : (r + i) % 3 + 1; }

#define COMB_INT(T)                                                   \
  switch (k) {                                                        \
    case 0: return a > b ? a : b;                                     \
    case 1: return a < b ? a : b;                                     \
    case 2: return (T)(a + b);                                        \
    case 3: return (T)(a * b);                                        \
    case 4: return (T)(a && b);                                       \
    case 5: return (T)(a & b);                                        \
    case 6: return (T)(a || b);                                       \
    case 7: return (T)(a | b);                                        \
    case 8: return (T)(!a != !b);                                     \
    case 9: return (T)(a ^ b);                                        \
  }                                                                   \
  return 0;
#define COMB_FLT(T)                                                   \
  switch (k) {                                                        \
    case 0: return a > b ? a : b;                                     \
    case 1: return a < b ? a : b;                                     \
    case 2: return a + b;                                             \
    case 3: return a * b;                                             \
  }                                                                   \
  return 0;
#define COMB_CPX(T)                                                   \
  switch (k) {                                                        \
    case 2: return a + b;                                             \
    case 3: return a * b;                                             \
  }                                                                   \
  return 0;
#define COMB_LOG(T)                                                   \
  switch (k) {                                                        \
    case 4: return a && b;                                            \
    case 6: return a || b;                                            \
    case 8: return !a != !b;                                          \
  }                                                                   \
  return 0;

#define DEF_TEST(NAME, T, CLS, COMB)                                                   \
  static T comb_##NAME(int k, T a, T b) { COMB(T) }                                    \
  static void test_##NAME(MPI_Datatype dt, const char *tn) {                           \
    for (int k = 0; k < (int)(sizeof ops / sizeof ops[0]); k++) {                      \
      T x[NE], y[NE], e[NE];                                                           \
      for (int i = 0; i < NE; i++) { x[i] = (T)v(rank, i, CLS); y[i] = (T)0; }         \
      int allowed = (op_cls[k] & (CLS)) != 0;                                          \
      int rc = MPI_Allreduce(x, y, NE, dt, ops[k], MPI_COMM_WORLD);                    \
      if (!allowed) { CHECK_CLASS(rc, MPI_ERR_OP); continue; }                         \
      CHECK(rc == MPI_SUCCESS, "%s on %s: rc %d", opn[k], tn, rc);                     \
      for (int i = 0; i < NE; i++) {                                                   \
        e[i] = (T)v(0, i, CLS);                                                        \
        for (int r = 1; r < size; r++) e[i] = comb_##NAME(k, e[i], (T)v(r, i, CLS));   \
        if (y[i] != e[i]) { CHECK(0, "MPI_%s on %s: [%d] wrong", opn[k], tn, i); break; } \
      }                                                                                \
      /* Reduce_local: inout = in op inout */                                          \
      T in[NE], io[NE];                                                                \
      for (int i = 0; i < NE; i++) { in[i] = (T)v(1, i, CLS); io[i] = (T)v(2, i, CLS); } \
      CHECK_OK(MPI_Reduce_local(in, io, NE, dt, ops[k]));                              \
      for (int i = 0; i < NE; i++)                                                     \
        if (io[i] != comb_##NAME(k, (T)v(1, i, CLS), (T)v(2, i, CLS))) {               \
          CHECK(0, "Reduce_local MPI_%s on %s: [%d] wrong", opn[k], tn, i); break; }   \
      /* the same on buffers one byte off the type's alignment */                      \
      unsigned char bi[sizeof in + 1], bo[sizeof io + 1];                              \
      for (int i = 0; i < NE; i++) { in[i] = (T)v(1, i, CLS); io[i] = (T)v(2, i, CLS); } \
      memcpy(bi + 1, in, sizeof in);                                                   \
      memcpy(bo + 1, io, sizeof io);                                                   \
      CHECK_OK(MPI_Reduce_local(bi + 1, bo + 1, NE, dt, ops[k]));                      \
      memcpy(io, bo + 1, sizeof io);                                                   \
      for (int i = 0; i < NE; i++)                                                     \
        if (io[i] != comb_##NAME(k, (T)v(1, i, CLS), (T)v(2, i, CLS))) {               \
          CHECK(0, "misaligned Reduce_local MPI_%s on %s: [%d] wrong", opn[k], tn, i); break; } \
    }                                                                                  \
  }

DEF_TEST(int, int, CI, COMB_INT)
DEF_TEST(uchar, unsigned char, CI, COMB_INT)
DEF_TEST(schar, signed char, CI, COMB_INT)
DEF_TEST(short, short, CI, COMB_INT)
DEF_TEST(ushort, unsigned short, CI, COMB_INT)
DEF_TEST(unsigned, unsigned, CI, COMB_INT)
DEF_TEST(long, long, CI, COMB_INT)
DEF_TEST(ulong, unsigned long, CI, COMB_INT)
DEF_TEST(llong, long long, CI, COMB_INT)
DEF_TEST(ullong, unsigned long long, CI, COMB_INT)
DEF_TEST(i8, int8_t, CI, COMB_INT)
DEF_TEST(u8, uint8_t, CI, COMB_INT)
DEF_TEST(i16, int16_t, CI, COMB_INT)
DEF_TEST(u16, uint16_t, CI, COMB_INT)
DEF_TEST(i32, int32_t, CI, COMB_INT)
DEF_TEST(u32, uint32_t, CI, COMB_INT)
DEF_TEST(i64, int64_t, CI, COMB_INT)
DEF_TEST(u64, uint64_t, CI, COMB_INT)
DEF_TEST(aint, MPI_Aint, CI, COMB_INT)
DEF_TEST(count, MPI_Count, CI, COMB_INT)
DEF_TEST(offset, MPI_Offset, CI, COMB_INT)
DEF_TEST(flt, float, CF, COMB_FLT)
DEF_TEST(dbl, double, CF, COMB_FLT)
DEF_TEST(ldbl, long double, CF, COMB_FLT)
DEF_TEST(cflt, float _Complex, CX, COMB_CPX)
DEF_TEST(cdbl, double _Complex, CX, COMB_CPX)
DEF_TEST(cldbl, long double _Complex, CX, COMB_CPX)
DEF_TEST(cbool, bool, CL, COMB_LOG)
DEF_TEST(flog, int, CL, COMB_LOG)
DEF_TEST(byte, unsigned char, CB, COMB_INT)

/* Fortran INTEGER: MAX, MIN, SUM, PROD, BAND, BOR, BXOR (no logical ops). */
static void test_fint(void) {
  for (int k = 0; k < 10; k++) {
    int x[NE], y[NE];
    for (int i = 0; i < NE; i++) x[i] = v(rank, i, CI);
    int allowed = k <= 3 || k == 5 || k == 7 || k == 9;
    int rc = MPI_Allreduce(x, y, NE, MPI_INTEGER, ops[k], MPI_COMM_WORLD);
    if (!allowed) { CHECK_CLASS(rc, MPI_ERR_OP); continue; }
    CHECK(rc == MPI_SUCCESS, "MPI_%s on MPI_INTEGER", opn[k]);
    for (int i = 0; i < NE; i++) {
      int e = v(0, i, CI);
      for (int r = 1; r < size; r++) e = comb_int(k, e, v(r, i, CI));
      if (y[i] != e) { CHECK(0, "MPI_%s on MPI_INTEGER [%d] = %d, expected %d", opn[k], i, y[i], e); break; }
    }
  }
}

/* MAXLOC/MINLOC on the pair types. */
#define PAIR_TEST(NAME, VT, IT, DT)                                                     \
  static void pair_##NAME(void) {                                                       \
    struct { VT v; IT i; } x[NE], y[NE], z[NE];                                         \
    for (int i = 0; i < NE; i++) { x[i].v = (VT)((rank * 7 + i * 3) % 5); x[i].i = (IT)rank; } \
    CHECK_OK(MPI_Allreduce(x, y, NE, DT, MPI_MAXLOC, MPI_COMM_WORLD));                  \
    CHECK_OK(MPI_Allreduce(x, z, NE, DT, MPI_MINLOC, MPI_COMM_WORLD));                  \
    for (int i = 0; i < NE; i++) {                                                      \
      VT mx = -1, mn = 100; int imx = -1, imn = -1;                                     \
      for (int r = 0; r < size; r++) {                                                  \
        VT w = (VT)((r * 7 + i * 3) % 5);                                               \
        if (w > mx) { mx = w; imx = r; }                                                \
        if (w < mn) { mn = w; imn = r; }                                                \
      }                                                                                 \
      if (y[i].v != mx || (int)y[i].i != imx) { CHECK(0, "MAXLOC " #DT " [%d] = (%g,%d), expected (%g,%d)", i, (double)y[i].v, (int)y[i].i, (double)mx, imx); break; } \
      if (z[i].v != mn || (int)z[i].i != imn) { CHECK(0, "MINLOC " #DT " [%d] wrong", i); break; } \
    }                                                                                   \
    int rc = MPI_Allreduce(x, y, NE, DT, MPI_SUM, MPI_COMM_WORLD);                      \
    CHECK_CLASS(rc, MPI_ERR_OP);                                                        \
  }
PAIR_TEST(fi, float, int, MPI_FLOAT_INT)
PAIR_TEST(di, double, int, MPI_DOUBLE_INT)
PAIR_TEST(li, long, int, MPI_LONG_INT)
PAIR_TEST(ii, int, int, MPI_2INT)
PAIR_TEST(si, short, int, MPI_SHORT_INT)
PAIR_TEST(ldi, long double, int, MPI_LONG_DOUBLE_INT)
PAIR_TEST(ff, float, float, MPI_2REAL)
PAIR_TEST(dd, double, double, MPI_2DOUBLE_PRECISION)
PAIR_TEST(i2, int, int, MPI_2INTEGER)

/* Non-commutative "append": (v, len) o (w, m) = (v * 10^m + w, len + m). */
typedef struct { long v, len; } digits_t;
static void append(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  digits_t *a = in, *b = inout;
  for (int k = 0; k < *len; k++) {
    long p = 1;
    for (long j = 0; j < b[k].len; j++) p *= 10;
    b[k].v = a[k].v * p + b[k].v;
    b[k].len += a[k].len;
  }
}
static void append_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt) {
  int n = (int)*len;
  append(in, inout, &n, dt);
}
static long digits(int lo, int hi) { /* ranks lo..hi as digits r+1 */
  long v = 0;
  for (int r = lo; r <= hi; r++) v = v * 10 + r + 1;
  return v;
}

static int calls_sum;
static void mysum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  calls_sum++;
  for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void test_user_ops(void) {
  MPI_Datatype dg;
  CHECK_OK(MPI_Type_contiguous(2, MPI_LONG, &dg));
  CHECK_OK(MPI_Type_commit(&dg));
  MPI_Op app, appc, sum;
  CHECK_OK(MPI_Op_create(append, 0, &app));
  CHECK_OK(MPI_Op_create_c(append_c, 0, &appc));
  CHECK_OK(MPI_Op_create(mysum, 1, &sum));
  int commute = -1;
  CHECK_OK(MPI_Op_commutative(app, &commute));
  CHECK(commute == 0, "append is not commutative");
  CHECK_OK(MPI_Op_commutative(sum, &commute));
  CHECK(commute == 1, "sum is commutative");
  CHECK_OK(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1, "MPI_SUM is commutative");
  digits_t x[3], y[3];
  for (int i = 0; i < 3; i++) { x[i].v = rank + 1; x[i].len = 1; }
  MPI_Op both[2] = {app, appc};
  for (int o = 0; o < 2; o++) {
    for (int root = 0; root < size; root++) {
      for (int i = 0; i < 3; i++) y[i].v = y[i].len = -1;
      CHECK_OK(MPI_Reduce(x, y, 3, dg, both[o], root, MPI_COMM_WORLD));
      if (rank == root)
        CHECK(y[2].v == digits(0, size - 1) && y[2].len == size, "reduce append root %d: %ld", root, y[2].v);
    }
    CHECK_OK(MPI_Allreduce(x, y, 3, dg, both[o], MPI_COMM_WORLD));
    CHECK(y[0].v == digits(0, size - 1), "allreduce append: %ld", y[0].v);
    MPI_Request rq;
    CHECK_OK(MPI_Iallreduce(x, y, 3, dg, both[o], MPI_COMM_WORLD, &rq));
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(y[1].v == digits(0, size - 1), "iallreduce append: %ld", y[1].v);
    CHECK_OK(MPI_Scan(x, y, 3, dg, both[o], MPI_COMM_WORLD));
    CHECK(y[0].v == digits(0, rank), "scan append: %ld, expected %ld", y[0].v, digits(0, rank));
    CHECK_OK(MPI_Exscan(x, y, 3, dg, both[o], MPI_COMM_WORLD));
    if (rank > 0) CHECK(y[0].v == digits(0, rank - 1), "exscan append: %ld", y[0].v);
    digits_t big[3 * 4], part[3];
    for (int i = 0; i < 3 * size; i++) { big[i].v = rank + 1; big[i].len = 1; }
    CHECK_OK(MPI_Reduce_scatter_block(big, part, 3, dg, both[o], MPI_COMM_WORLD));
    CHECK(part[0].v == digits(0, size - 1), "reduce_scatter_block append: %ld", part[0].v);
  }
  /* Op_free while a nonblocking reduction holds the op */
  int a[4] = {1, 2, 3, 4}, b[4];
  MPI_Request rq;
  CHECK_OK(MPI_Iallreduce(a, b, 4, MPI_INT, sum, MPI_COMM_WORLD, &rq));
  CHECK_OK(MPI_Op_free(&sum));
  CHECK(sum == MPI_OP_NULL, "Op_free sets MPI_OP_NULL");
  CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  for (int i = 0; i < 4; i++) CHECK(b[i] == (i + 1) * size, "user sum [%d] = %d", i, b[i]);
  CHECK_OK(MPI_Op_free(&app));
  CHECK_OK(MPI_Op_free(&appc));
  MPI_Op pre = MPI_SUM;
  CHECK_CLASS(MPI_Op_free(&pre), MPI_ERR_OP);
  /* a derived type of a predefined op's type */
  int d[6], e[6];
  for (int i = 0; i < 6; i++) d[i] = rank + i;
  MPI_Datatype two;
  CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &two));
  CHECK_OK(MPI_Type_commit(&two));
  CHECK_OK(MPI_Allreduce(d, e, 3, two, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < 6; i++) CHECK(e[i] == size * i + size * (size - 1) / 2, "derived sum [%d] = %d", i, e[i]);
  CHECK_OK(MPI_Type_free(&two));
  CHECK_OK(MPI_Type_free(&dg));
  (void)calls_sum;
}

/* Reduce (at every root) and Allreduce of a strided type with a
 * commutative op, with and without MPI_IN_PLACE: the root receives its
 * first child's part straight into its result buffer, Allreduce its
 * partner's (reduce.c); the gaps must stay untouched. */
static void test_reduce_strided(void) {
  enum { CNT = 3, BL = 2, ST = 3 }; /* 3 vectors of 2 ints in every 3 */
  MPI_Datatype vec;
  CHECK_OK(MPI_Type_vector(BL, 1, ST, MPI_INT, &vec));
  CHECK_OK(MPI_Type_commit(&vec));
  MPI_Aint lb, ext;
  CHECK_OK(MPI_Type_get_extent(vec, &lb, &ext));
  int n = (int)(CNT * ext / (MPI_Aint)sizeof(int)) + ST;
  int x[32], y[32];
  for (int in_place = 0; in_place < 2; in_place++)
    for (int root = 0; root <= size; root++) {
      for (int i = 0; i < n; i++) {
        x[i] = rank * 100 + i;
        y[i] = in_place && rank == root ? x[i] : -7;
      }
      const void *sb = in_place && rank == root ? MPI_IN_PLACE : x;
      int all = root == size; /* one more round: Allreduce (in place on every rank) */
      if (all) {
        for (int i = 0; i < n; i++) y[i] = in_place ? x[i] : -7;
        CHECK_OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : x, y, CNT, vec, MPI_SUM, MPI_COMM_WORLD));
      } else {
        CHECK_OK(MPI_Reduce(sb, y, CNT, vec, MPI_SUM, root, MPI_COMM_WORLD));
        if (rank != root) continue;
      }
      for (int i = 0; i < n; i++) {
        int inside = i < CNT * ext / (MPI_Aint)sizeof(int) && (i % (int)(ext / sizeof(int))) % ST == 0 &&
                     (i % (int)(ext / sizeof(int))) / ST < BL;
        int want = inside ? 100 * size * (size - 1) / 2 + size * i : (in_place ? x[i] : -7);
        if (!inside && all && in_place) want = x[i];
        CHECK(y[i] == want, "strided reduce root %d%s [%d] = %d, want %d", root,
              in_place ? " in place" : "", i, y[i], want);
      }
    }
  CHECK_OK(MPI_Type_free(&vec));
}

/* Many elements on misaligned buffers (Ferry then works through aligned
 * chunks): every element summed once, at the chunks' edges too. */
static void test_misaligned_long(void) {
  enum { N = 3001 };
  unsigned char *bi = malloc(N * sizeof(long double) + 8), *bo = malloc(N * sizeof(long double) + 8);
  CHECK(bi && bo, "out of memory");
  if (!bi || !bo) goto out;
  for (int i = 0; i < N; i++) {
    long double a = i, b = 2 * i;
    memcpy(bi + 8 + i * sizeof a, &a, sizeof a); /* 8-byte aligned: half of long double's 16 */
    memcpy(bo + 8 + i * sizeof b, &b, sizeof b);
  }
  CHECK_OK(MPI_Reduce_local(bi + 8, bo + 8, N, MPI_LONG_DOUBLE, MPI_SUM));
  for (int i = 0; i < N; i++) {
    long double r;
    memcpy(&r, bo + 8 + i * sizeof r, sizeof r);
    if (r != 3.0L * i) { CHECK(0, "misaligned long double SUM [%d] = %Lg", i, r); break; }
  }
  for (int i = 0; i < N; i++) {
    double a = i, b = 1;
    memcpy(bi + 3 + i * sizeof a, &a, sizeof a);
    memcpy(bo + 3 + i * sizeof b, &b, sizeof b);
  }
  CHECK_OK(MPI_Reduce_local(bi + 3, bo + 3, N, MPI_DOUBLE, MPI_PROD));
  for (int i = 0; i < N; i++) {
    double r;
    memcpy(&r, bo + 3 + i * sizeof r, sizeof r);
    if (r != (double)i) { CHECK(0, "misaligned double PROD [%d] = %g", i, r); break; }
  }
out:
  free(bi);
  free(bo);
}

/* SUM and PROD of integers wrap around (two's complement), as C's
 * unsigned arithmetic does: no signed overflow inside the library. */
static void test_wrap(void) {
  int a = INT_MAX, b = 1, c = 5, d = 1073741829;
  CHECK_OK(MPI_Reduce_local(&a, &b, 1, MPI_INT, MPI_SUM));
  CHECK(b == INT_MIN, "INT_MAX + 1 = %d", b);
  CHECK_OK(MPI_Reduce_local(&c, &d, 1, MPI_INT, MPI_PROD));
  CHECK(d == (int)(5u * 1073741829u), "5 * 1073741829 = %d", d);
  int64_t e = INT64_MAX, f = 2;
  CHECK_OK(MPI_Reduce_local(&e, &f, 1, MPI_INT64_T, MPI_PROD));
  CHECK(f == -2, "INT64_MAX * 2 = %lld", (long long)f);
  uint16_t g = 65535, h = 65535; /* promoted to int, the product would overflow */
  CHECK_OK(MPI_Reduce_local(&g, &h, 1, MPI_UINT16_T, MPI_PROD));
  CHECK(h == 1, "65535 * 65535 mod 2^16 = %u", (unsigned)h);
  short i = SHRT_MIN, j = -1;
  CHECK_OK(MPI_Reduce_local(&i, &j, 1, MPI_SHORT, MPI_SUM));
  CHECK(j == SHRT_MAX, "SHRT_MIN - 1 = %d", j);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("coll_ops");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  test_int(MPI_INT, "MPI_INT");
  test_uchar(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR");
  test_schar(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR");
  test_short(MPI_SHORT, "MPI_SHORT");
  test_ushort(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT");
  test_unsigned(MPI_UNSIGNED, "MPI_UNSIGNED");
  test_long(MPI_LONG, "MPI_LONG");
  test_ulong(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG");
  test_llong(MPI_LONG_LONG, "MPI_LONG_LONG");
  test_ullong(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG");
  test_i8(MPI_INT8_T, "MPI_INT8_T");
  test_u8(MPI_UINT8_T, "MPI_UINT8_T");
  test_i16(MPI_INT16_T, "MPI_INT16_T");
  test_u16(MPI_UINT16_T, "MPI_UINT16_T");
  test_i32(MPI_INT32_T, "MPI_INT32_T");
  test_u32(MPI_UINT32_T, "MPI_UINT32_T");
  test_i64(MPI_INT64_T, "MPI_INT64_T");
  test_u64(MPI_UINT64_T, "MPI_UINT64_T");
  test_aint(MPI_AINT, "MPI_AINT");
  test_count(MPI_COUNT, "MPI_COUNT");
  test_offset(MPI_OFFSET, "MPI_OFFSET");
  test_flt(MPI_FLOAT, "MPI_FLOAT");
  test_dbl(MPI_DOUBLE, "MPI_DOUBLE");
  test_ldbl(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE");
  test_flt(MPI_REAL, "MPI_REAL");
  test_dbl(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION");
  test_cflt(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX");
  test_cdbl(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX");
  test_cldbl(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX");
  test_cdbl(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX");
  test_cbool(MPI_C_BOOL, "MPI_C_BOOL");
  test_flog(MPI_LOGICAL, "MPI_LOGICAL");
  test_byte(MPI_BYTE, "MPI_BYTE");
  test_fint();
  pair_fi(); pair_di(); pair_li(); pair_ii(); pair_si(); pair_ldi(); pair_ff(); pair_dd(); pair_i2();
  test_user_ops();
  test_reduce_strided();
  test_misaligned_long();
  test_wrap();
  return fy_finish();
}
