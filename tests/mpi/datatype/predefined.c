/* Every predefined datatype: Type_size equals the C type's size, N elements
 * sent and received bit-exactly (padding zeroed on both sides), Get_count and
 * Get_elements give N. Pair types compared field by field. Rank 0 sends to
 * rank 1 (with 1 process, to itself through Isend/Recv). */
#include "fytest.h"
#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

#define N 37

typedef struct { float v; int i; } float_int;
typedef struct { double v; int i; } double_int;
typedef struct { long v; int i; } long_int;
typedef struct { short v; int i; } short_int;
typedef struct { int v; int i; } two_int;
typedef struct { long double v; int i; } ldouble_int;

#define FILL(T, expr) do { T *p_ = (T *)buf; for (int i = 0; i < N; i++) p_[i] = (T)(expr); } while (0)
#define FILLPAIR(T, VT) do { T *p_ = (T *)buf; for (int i = 0; i < N; i++) { p_[i].v = (VT)(i * 3 - 40); p_[i].i = 1000 - i; } } while (0)

typedef struct {
    MPI_Datatype t;
    const char *name;
    int csize;  /* MPI type size (sum of parts for pairs) */
    int extent; /* element stride in memory */
    int id;
} tinfo;

/* Fill buf (zeroed first) with N values of type id. */
static void fill(int id, void *buf, size_t bytes)
{
    memset(buf, 0, bytes);
    switch (id) {
    case 0: FILL(char, 'a' + i % 26); break;
    case 1: FILL(signed char, i - 18); break;
    case 2: FILL(unsigned char, 200 + i); break;
    case 3: FILL(unsigned char, i * 7); break;
    case 4: FILL(wchar_t, 0x3b1 + i); break;
    case 5: FILL(short, -i * 300); break;
    case 6: FILL(unsigned short, 60000 + i); break;
    case 7: FILL(int, -i * 100000); break;
    case 8: FILL(unsigned, 4000000000u + i); break;
    case 9: FILL(long, -i * 10000000000L); break;
    case 10: FILL(unsigned long, 18000000000000000000UL + i); break;
    case 11: FILL(long long, -i * 12345678901LL); break;
    case 12: FILL(unsigned long long, 17000000000000000000ULL + i); break;
    case 13: FILL(float, i * 0.5f - 3); break;
    case 14: FILL(double, i * 1e100); break;
    case 15: FILL(long double, i * 1.0e300L * 1.0e100L); break;
    case 16: FILL(bool, i % 3 == 0); break;
    case 17: FILL(int8_t, -i); break;
    case 18: FILL(int16_t, -i * 1000); break;
    case 19: FILL(int32_t, -i * 100000); break;
    case 20: FILL(int64_t, -i * 10000000000LL); break;
    case 21: FILL(uint8_t, 255 - i); break;
    case 22: FILL(uint16_t, 65535 - i); break;
    case 23: FILL(uint32_t, 4294967295u - i); break;
    case 24: FILL(uint64_t, 18446744073709551615ULL - i); break;
    case 25: FILL(float _Complex, i + I * (-i)); break;
    case 26: FILL(double _Complex, i * 1e10 + I * i); break;
    case 27: FILL(long double _Complex, i + I * (i * 2.0L)); break;
    case 28: FILL(MPI_Aint, -i * 4096); break;
    case 29: FILL(MPI_Offset, i * 10000000000LL); break;
    case 30: FILL(MPI_Count, -i * 10000000000LL); break;
    case 31: FILL(unsigned char, 255 - i); break; /* MPI_PACKED as raw bytes */
    case 32: FILLPAIR(float_int, float); break;
    case 33: FILLPAIR(double_int, double); break;
    case 34: FILLPAIR(long_int, long); break;
    case 35: FILLPAIR(short_int, short); break;
    case 36: FILLPAIR(two_int, int); break;
    case 37: FILLPAIR(ldouble_int, long double); break;
    case 38: FILL(float _Complex, 1 + I * i); break; /* MPI_C_COMPLEX */
    case 40: FILL(long long, i * 3); break;          /* MPI_LONG_LONG_INT */
    }
}

/* Compare element values (pairs: both fields, padding ignored). */
static int same(int id, const void *a, const void *b, int extent)
{
    if (id >= 32 && id <= 37) {
        for (int i = 0; i < N; i++) {
            const char *x = (const char *)a + (size_t)i * extent, *y = (const char *)b + (size_t)i * extent;
            int ix, iy;
            switch (id) {
            case 32: if (((float_int *)x)->v != ((float_int *)y)->v) return 0; ix = ((float_int *)x)->i; iy = ((float_int *)y)->i; break;
            case 33: if (((double_int *)x)->v != ((double_int *)y)->v) return 0; ix = ((double_int *)x)->i; iy = ((double_int *)y)->i; break;
            case 34: if (((long_int *)x)->v != ((long_int *)y)->v) return 0; ix = ((long_int *)x)->i; iy = ((long_int *)y)->i; break;
            case 35: if (((short_int *)x)->v != ((short_int *)y)->v) return 0; ix = ((short_int *)x)->i; iy = ((short_int *)y)->i; break;
            case 36: if (((two_int *)x)->v != ((two_int *)y)->v) return 0; ix = ((two_int *)x)->i; iy = ((two_int *)y)->i; break;
            default: if (((ldouble_int *)x)->v != ((ldouble_int *)y)->v) return 0; ix = ((ldouble_int *)x)->i; iy = ((ldouble_int *)y)->i; break;
            }
            if (ix != iy) return 0;
        }
        return 1;
    }
    if (id == 15 || id == 27) { /* long double: 10 significant bytes of 16 */
        for (int i = 0; i < N * (id == 27 ? 2 : 1); i++)
            if (((const long double *)a)[i] != ((const long double *)b)[i]) return 0;
        return 1;
    }
    return memcmp(a, b, (size_t)N * extent) == 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("datatype_predefined");
    int rank = fy_rank_, size = fy_size_;
    tinfo T[] = {
        {MPI_CHAR, "MPI_CHAR", sizeof(char), sizeof(char), 0},
        {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, 1, 1},
        {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, 1, 2},
        {MPI_BYTE, "MPI_BYTE", 1, 1, 3},
        {MPI_WCHAR, "MPI_WCHAR", sizeof(wchar_t), sizeof(wchar_t), 4},
        {MPI_SHORT, "MPI_SHORT", sizeof(short), sizeof(short), 5},
        {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", sizeof(short), sizeof(short), 6},
        {MPI_INT, "MPI_INT", sizeof(int), sizeof(int), 7},
        {MPI_UNSIGNED, "MPI_UNSIGNED", sizeof(int), sizeof(int), 8},
        {MPI_LONG, "MPI_LONG", sizeof(long), sizeof(long), 9},
        {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(long), sizeof(long), 10},
        {MPI_LONG_LONG, "MPI_LONG_LONG", sizeof(long long), sizeof(long long), 11},
        {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", sizeof(long long), sizeof(long long), 12},
        {MPI_FLOAT, "MPI_FLOAT", sizeof(float), sizeof(float), 13},
        {MPI_DOUBLE, "MPI_DOUBLE", sizeof(double), sizeof(double), 14},
        {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), sizeof(long double), 15},
        {MPI_C_BOOL, "MPI_C_BOOL", sizeof(bool), sizeof(bool), 16},
        {MPI_INT8_T, "MPI_INT8_T", 1, 1, 17},
        {MPI_INT16_T, "MPI_INT16_T", 2, 2, 18},
        {MPI_INT32_T, "MPI_INT32_T", 4, 4, 19},
        {MPI_INT64_T, "MPI_INT64_T", 8, 8, 20},
        {MPI_UINT8_T, "MPI_UINT8_T", 1, 1, 21},
        {MPI_UINT16_T, "MPI_UINT16_T", 2, 2, 22},
        {MPI_UINT32_T, "MPI_UINT32_T", 4, 4, 23},
        {MPI_UINT64_T, "MPI_UINT64_T", 8, 8, 24},
        {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", sizeof(float _Complex), sizeof(float _Complex), 25},
        {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", sizeof(double _Complex), sizeof(double _Complex), 26},
        {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", sizeof(long double _Complex), sizeof(long double _Complex), 27},
        {MPI_AINT, "MPI_AINT", sizeof(MPI_Aint), sizeof(MPI_Aint), 28},
        {MPI_OFFSET, "MPI_OFFSET", sizeof(MPI_Offset), sizeof(MPI_Offset), 29},
        {MPI_COUNT, "MPI_COUNT", sizeof(MPI_Count), sizeof(MPI_Count), 30},
        {MPI_PACKED, "MPI_PACKED", 1, 1, 31},
        {MPI_FLOAT_INT, "MPI_FLOAT_INT", sizeof(float) + sizeof(int), sizeof(float_int), 32},
        {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", sizeof(double) + sizeof(int), sizeof(double_int), 33},
        {MPI_LONG_INT, "MPI_LONG_INT", sizeof(long) + sizeof(int), sizeof(long_int), 34},
        {MPI_SHORT_INT, "MPI_SHORT_INT", sizeof(short) + sizeof(int), sizeof(short_int), 35},
        {MPI_2INT, "MPI_2INT", 2 * sizeof(int), sizeof(two_int), 36},
        {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(long double) + sizeof(int), sizeof(ldouble_int), 37},
        {MPI_C_COMPLEX, "MPI_C_COMPLEX", sizeof(float _Complex), sizeof(float _Complex), 38},
        {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", sizeof(long long), sizeof(long long), 40},
    };
    int nt = (int)(sizeof T / sizeof T[0]);
    size_t maxb = (size_t)N * 64;
    char *buf = malloc(maxb), *exp = malloc(maxb);
    int dst = size > 1 ? 1 : 0;

    for (int k = 0; k < nt; k++) {
        int sz = -1;
        CHECK_OK(MPI_Type_size(T[k].t, &sz));
        CHECK(sz == T[k].csize, "%s: Type_size %d, expected %d", T[k].name, sz, T[k].csize);
        MPI_Aint lb = -1, ext = -1;
        CHECK_OK(MPI_Type_get_extent(T[k].t, &lb, &ext));
        CHECK(lb == 0 && ext == T[k].extent, "%s: lb %ld extent %ld, expected 0/%d", T[k].name, (long)lb, (long)ext, T[k].extent);
        if (rank == 0) {
            MPI_Request r;
            fill(T[k].id, buf, maxb);
            CHECK_OK(MPI_Isend(buf, N, T[k].t, dst, k, MPI_COMM_WORLD, &r));
            if (dst == 0) {
                char *rb = malloc(maxb);
                memset(rb, 0, maxb);
                CHECK_OK(MPI_Recv(rb, N, T[k].t, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK(same(T[k].id, rb, buf, T[k].extent), "%s: self data differs", T[k].name);
                free(rb);
            }
            CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else if (rank == 1) {
            MPI_Status st;
            memset(buf, 0, maxb);
            CHECK_OK(MPI_Recv(buf, N, T[k].t, 0, k, MPI_COMM_WORLD, &st));
            fill(T[k].id, exp, maxb);
            CHECK(same(T[k].id, buf, exp, T[k].extent), "%s: received data differs", T[k].name);
            int cnt = -1, el = -1;
            MPI_Get_count(&st, T[k].t, &cnt);
            MPI_Get_elements(&st, T[k].t, &el);
            CHECK(cnt == N, "%s: Get_count %d, expected %d", T[k].name, cnt, N);
            /* pair types count two basic elements each */
            int epe = (T[k].id >= 32 && T[k].id <= 37) ? 2 : 1;
            CHECK(el == N * epe, "%s: Get_elements %d, expected %d", T[k].name, el, N * epe);
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(cnt == N * T[k].csize, "%s: %d bytes, expected %d", T[k].name, cnt, N * T[k].csize);
        }
    }
    /* Type names exist for the predefined types */
    char nm[MPI_MAX_OBJECT_NAME];
    int len = 0;
    CHECK_OK(MPI_Type_get_name(MPI_INT, nm, &len));
    CHECK(strcmp(nm, "MPI_INT") == 0 && len == 7, "Type_get_name(MPI_INT) = \"%s\"", nm);
    /* one handle for both names: MPICH calls it MPI_C_COMPLEX */
    CHECK_OK(MPI_Type_get_name(MPI_C_FLOAT_COMPLEX, nm, &len));
    CHECK(strcmp(nm, "MPI_C_COMPLEX") == 0, "Type_get_name(MPI_C_FLOAT_COMPLEX) = \"%s\"", nm);
    free(buf); free(exp);
    return fy_finish();
}
