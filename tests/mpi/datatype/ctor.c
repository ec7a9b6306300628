/* Every constructor: size, extent, true extent, and the packed order
 * checked against the typemap written out by hand (a buffer of ints whose
 * values are their indices shows which elements a pack picked); struct
 * padding, resized bounds, MPI_LB/MPI_UB markers, negative displacements,
 * nesting, Pack/Unpack positions and truncation, Get_elements on partial
 * data, large-count constructors. */
#include "fytest.h"

static int src[4096];

/* pack count items of t from src and compare with the expected indices */
static void expect(MPI_Datatype t, int count, const int *idx, int n, const char *what) {
    int sz, pos = 0;
    MPI_Pack_size(count, t, MPI_COMM_WORLD, &sz);
    CHECK(sz == n * (int)sizeof(int), "%s: pack size %d, expected %d", what, sz, n * (int)sizeof(int));
    int *out = calloc((size_t)n + 1, sizeof(int));
    CHECK_OK(MPI_Pack(src + 1024, count, t, out, sz, &pos, MPI_COMM_WORLD));
    CHECK(pos == sz, "%s: position %d", what, pos);
    for (int i = 0; i < n; i++)
        if (out[i] != idx[i] + 1024) {
            CHECK(0, "%s: packed[%d] = %d, expected %d", what, i, out[i] - 1024, idx[i]);
            break;
        }
    /* unpack into a zeroed buffer: exactly the typemap's elements come back */
    int *dst = calloc(4096, sizeof(int));
    pos = 0;
    CHECK_OK(MPI_Unpack(out, sz, &pos, dst + 1024, count, t, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(dst[1024 + idx[i]] == idx[i] + 1024, "%s: unpacked element %d", what, idx[i]);
    free(out);
    free(dst);
}

static void extent_is(MPI_Datatype t, MPI_Aint lb, MPI_Aint ext, MPI_Aint tlb, MPI_Aint text, const char *what) {
    MPI_Aint a, b, c, d;
    MPI_Type_get_extent(t, &a, &b);
    MPI_Type_get_true_extent(t, &c, &d);
    CHECK(a == lb && b == ext && c == tlb && d == text, "%s: lb %ld ext %ld true %ld %ld, expected %ld %ld %ld %ld",
          what, (long)a, (long)b, (long)c, (long)d, (long)lb, (long)ext, (long)tlb, (long)text);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("datatype_ctor");
    for (int i = 0; i < 4096; i++) src[i] = i;
    const MPI_Aint I = sizeof(int);
    MPI_Datatype t, u, v;

    /* vector: 3 blocks of 2, stride 4 */
    CHECK_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19}; expect(t, 2, e, 12, "vector"); }
    extent_is(t, 0, 10 * I, 0, 10 * I, "vector");
    /* negative stride */
    CHECK_OK(MPI_Type_vector(3, 1, -2, MPI_INT, &u));
    CHECK_OK(MPI_Type_commit(&u));
    { int e[] = {0, -2, -4}; expect(u, 1, e, 3, "vector -2"); }
    extent_is(u, -4 * I, 5 * I, -4 * I, 5 * I, "vector -2");
    MPI_Type_free(&u);
    /* hvector of the vector (nesting) */
    CHECK_OK(MPI_Type_create_hvector(2, 1, 32 * I, t, &u));
    CHECK_OK(MPI_Type_commit(&u));
    { int e[] = {0, 1, 4, 5, 8, 9, 32, 33, 36, 37, 40, 41}; expect(u, 1, e, 12, "hvector(vector)"); }
    MPI_Type_free(&u);
    MPI_Type_free(&t);

    /* indexed with a negative displacement and an empty block */
    { int bl[] = {2, 0, 1, 3}, d[] = {5, 100, -3, 10};
      CHECK_OK(MPI_Type_indexed(4, bl, d, MPI_INT, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {5, 6, -3, 10, 11, 12, 13 - 3 + 5, 14 - 3 + 5 - 0}; (void)e; }
    { int e[] = {5, 6, -3, 10, 11, 12}; expect(t, 1, e, 6, "indexed"); }
    extent_is(t, -3 * I, 16 * I, -3 * I, 16 * I, "indexed");
    { int e[] = {5, 6, -3, 10, 11, 12, 21, 22, 13, 26, 27, 28}; expect(t, 2, e, 12, "indexed x2"); }
    MPI_Type_free(&t);
    /* hindexed, indexed_block, hindexed_block */
    { int bl[] = {1, 2}; MPI_Aint d[] = {8 * I, 0};
      CHECK_OK(MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {8, 0, 1}; expect(t, 1, e, 3, "hindexed"); }
    MPI_Type_free(&t);
    { int d[] = {7, 1, 3}; CHECK_OK(MPI_Type_create_indexed_block(3, 2, d, MPI_INT, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {7, 8, 1, 2, 3, 4}; expect(t, 1, e, 6, "indexed_block"); }
    MPI_Type_free(&t);
    { MPI_Aint d[] = {0, 3 * I, 6 * I, 9 * I}; CHECK_OK(MPI_Type_create_hindexed_block(4, 1, d, MPI_INT, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {0, 3, 6, 9}; expect(t, 1, e, 4, "hindexed_block"); }
    MPI_Type_free(&t);

    /* struct {char; double} padded to 16; {int at 0, int at 8} x2 */
    { int bl[] = {1, 1}; MPI_Aint d[] = {0, 8}; MPI_Datatype ty[] = {MPI_CHAR, MPI_DOUBLE};
      CHECK_OK(MPI_Type_create_struct(2, bl, d, ty, &t)); }
    extent_is(t, 0, 16, 0, 16, "struct char,double");
    MPI_Type_free(&t);
    { int bl[] = {1, 1}; MPI_Aint d[] = {0, 8}; MPI_Datatype ty[] = {MPI_DOUBLE, MPI_CHAR};
      CHECK_OK(MPI_Type_create_struct(2, bl, d, ty, &t)); }
    extent_is(t, 0, 16, 0, 9, "struct double,char");
    MPI_Type_free(&t);
    { int bl[] = {1, 2}; MPI_Aint d[] = {3 * I, 0}; MPI_Datatype ty[] = {MPI_INT, MPI_INT};
      CHECK_OK(MPI_Type_create_struct(2, bl, d, ty, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {3, 0, 1, 7, 4, 5, 11, 8, 9}; expect(t, 3, e, 9, "struct ints"); }
    /* contiguous of a struct (a repeated multi-run layout) inside a vector */
    CHECK_OK(MPI_Type_contiguous(2, t, &u));
    CHECK_OK(MPI_Type_vector(2, 1, 3, u, &v));
    CHECK_OK(MPI_Type_commit(&v));
    { int e[] = {3, 0, 1, 7, 4, 5, 27, 24, 25, 31, 28, 29}; expect(v, 1, e, 12, "vector(contig(struct))"); }
    MPI_Type_free(&v);
    MPI_Type_free(&u);
    /* Get_elements on a partial stream */
    { MPI_Status st; int n;
      MPI_Status_set_elements(&st, MPI_BYTE, 5 * (int)I);
      MPI_Get_elements(&st, t, &n);
      CHECK(n == 5, "elements of 5 ints of struct: %d", n);
      MPI_Get_count(&st, t, &n);
      CHECK(n == MPI_UNDEFINED, "count of 5 ints of a 3-int struct: %d", n);
      MPI_Status_set_elements(&st, MPI_BYTE, 5 * (int)I + 1);
      MPI_Get_elements(&st, t, &n);
      CHECK(n == MPI_UNDEFINED, "elements of a partial int: %d", n); }
    MPI_Type_free(&t);

    /* resized and MPI_LB/MPI_UB markers */
    CHECK_OK(MPI_Type_create_resized(MPI_INT, -I, 3 * I, &t));
    CHECK_OK(MPI_Type_commit(&t));
    extent_is(t, -I, 3 * I, 0, I, "resized");
    { int e[] = {0, 3, 6}; expect(t, 3, e, 3, "resized x3"); }
    { int bl[] = {1, 1}; MPI_Aint d[] = {0, 8 * I}; MPI_Datatype ty[] = {t, MPI_CHAR};
      CHECK_OK(MPI_Type_create_struct(2, bl, d, ty, &u)); }
    extent_is(u, -I, 9 * I + 1, 0, 8 * I + 1, "struct with resized: no padding");
    MPI_Type_free(&u);
    MPI_Type_free(&t);
    { int bl[] = {1, 1, 1}; MPI_Aint d[] = {-2 * I, 0, 5 * I}; MPI_Datatype ty[] = {MPI_LB, MPI_INT, MPI_UB};
      CHECK_OK(MPI_Type_create_struct(3, bl, d, ty, &t)); }
    extent_is(t, -2 * I, 7 * I, 0, I, "MPI_LB/MPI_UB");
    MPI_Type_free(&t);

    /* subarray 2-D C order: rows 1..2, cols 2..4 of 4x6 */
    { int s[] = {4, 6}, ss[] = {2, 3}, st[] = {1, 2};
      CHECK_OK(MPI_Type_create_subarray(2, s, ss, st, MPI_ORDER_C, MPI_INT, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {8, 9, 10, 14, 15, 16}; expect(t, 1, e, 6, "subarray C"); }
    extent_is(t, 0, 24 * I, 8 * I, 9 * I, "subarray C");
    MPI_Type_free(&t);
    { int s[] = {4, 6}, ss[] = {2, 3}, st[] = {1, 2};
      CHECK_OK(MPI_Type_create_subarray(2, s, ss, st, MPI_ORDER_FORTRAN, MPI_INT, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {9, 10, 13, 14, 17, 18}; expect(t, 1, e, 6, "subarray Fortran"); }
    MPI_Type_free(&t);
    /* 3-D subarray */
    { int s[] = {3, 4, 5}, ss[] = {2, 2, 2}, st[] = {1, 1, 3};
      CHECK_OK(MPI_Type_create_subarray(3, s, ss, st, MPI_ORDER_C, MPI_INT, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {28, 29, 33, 34, 48, 49, 53, 54}; expect(t, 1, e, 8, "subarray 3-D"); }
    MPI_Type_free(&t);

    /* darray: 1-D cyclic(2) of 10 over 3 processes, rank 1: 2,3,8,9 */
    { int g[] = {10}, di[] = {MPI_DISTRIBUTE_CYCLIC}, da[] = {2}, p[] = {3};
      CHECK_OK(MPI_Type_create_darray(3, 1, 1, g, di, da, p, MPI_ORDER_C, MPI_INT, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {2, 3, 8, 9}; expect(t, 1, e, 4, "darray cyclic"); }
    extent_is(t, 0, 10 * I, 2 * I, 8 * I, "darray cyclic");
    MPI_Type_free(&t);
    /* 2-D block x block, 4x6 over 2x2, rank 3 (coords 1,1): rows 2-3, cols 3-5 */
    { int g[] = {4, 6}, di[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
          da[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p[] = {2, 2};
      CHECK_OK(MPI_Type_create_darray(4, 3, 2, g, di, da, p, MPI_ORDER_C, MPI_INT, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {15, 16, 17, 21, 22, 23}; expect(t, 1, e, 6, "darray block"); }
    MPI_Type_free(&t);
    /* block x none, Fortran order, 4x3 over 2x1, rank 0: rows 0-1 of every column */
    { int g[] = {4, 3}, di[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE},
          da[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p[] = {2, 1};
      CHECK_OK(MPI_Type_create_darray(2, 0, 2, g, di, da, p, MPI_ORDER_FORTRAN, MPI_INT, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {0, 1, 4, 5, 8, 9}; expect(t, 1, e, 6, "darray fortran"); }
    MPI_Type_free(&t);

    /* large-count constructors */
    { MPI_Count bl[] = {2, 1}, d[] = {4, 0};
      CHECK_OK(MPI_Type_indexed_c(2, bl, d, MPI_INT, &t)); }
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {4, 5, 0}; expect(t, 1, e, 3, "indexed_c"); }
    MPI_Type_free(&t);
    CHECK_OK(MPI_Type_vector_c(2, 1, 3, MPI_INT, &t));
    CHECK_OK(MPI_Type_commit(&t));
    { int e[] = {0, 3}; expect(t, 1, e, 2, "vector_c"); }
    { MPI_Count lb, ext, sz; MPI_Type_get_extent_c(t, &lb, &ext); MPI_Type_size_c(t, &sz);
      CHECK(lb == 0 && ext == 4 * I && sz == 2 * I, "vector_c extent"); }
    MPI_Type_free(&t);

    /* Pack position and truncation; Unpack of too little data */
    { char buf[16]; int pos = 12, rc;
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      rc = MPI_Pack(src, 2, MPI_INT, buf, 16, &pos, MPI_COMM_WORLD);
      CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
      pos = 8;
      CHECK_OK(MPI_Pack(src + 5, 2, MPI_INT, buf, 16, &pos, MPI_COMM_WORLD));
      CHECK(pos == 16, "position %d", pos);
      int out[3]; pos = 8;
      rc = MPI_Unpack(buf, 16, &pos, out, 3, MPI_INT, MPI_COMM_WORLD);
      CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
      CHECK_OK(MPI_Unpack(buf, 16, &pos, out, 2, MPI_INT, MPI_COMM_WORLD));
      CHECK(out[0] == 5 && out[1] == 6 && pos == 16, "unpack"); }

    /* Get_address, MPI_Aint_add/diff */
    { MPI_Aint a, b; MPI_Get_address(&src[0], &a); MPI_Get_address(&src[10], &b);
      CHECK(MPI_Aint_diff(b, a) == 10 * I && MPI_Aint_add(a, 10 * I) == b, "addresses"); }
    return fy_finish();
}
