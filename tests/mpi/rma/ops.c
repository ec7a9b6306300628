/* Every RMA operation on every window flavor, contiguous and derived
 * datatypes, under fence and lock epochs; operations of no data. */
#include "rma_test.h"

#define N 64

static void test_flavor(int fl, int me, int np)
{
    int *base;
    MPI_Win w = make_win(fl, N * sizeof(int) * (np < 4 ? 4 : np), sizeof(int), (void **)&base);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int src[N], dst[N];

    /* Put under fence: rank r writes r*1000+i into right's slot r */
    for (int i = 0; i < N; i++) src[i] = me * 1000 + i;
    CHECK_OK(MPI_Win_fence(0, w));
    CHECK_OK(MPI_Put(src, N, MPI_INT, right, me * N, N, MPI_INT, w));
    CHECK_OK(MPI_Win_fence(0, w));
    for (int i = 0; i < N; i++)
        CHECK(base[left * N + i] == left * 1000 + i, "flavor %d put: [%d] = %d", fl, i, base[left * N + i]);

    /* Get back what left wrote into right's memory */
    memset(dst, 0, sizeof dst);
    CHECK_OK(MPI_Get(dst, N, MPI_INT, right, me * N, N, MPI_INT, w));
    CHECK_OK(MPI_Win_fence(0, w));
    for (int i = 0; i < N; i++) CHECK(dst[i] == me * 1000 + i, "flavor %d get: [%d] = %d", fl, i, dst[i]);

    /* Accumulate SUM from everybody into rank 0, slot 0 */
    int one[N];
    for (int i = 0; i < N; i++) one[i] = i;
    if (me == 0) memset(base, 0, N * sizeof(int));
    CHECK_OK(MPI_Win_fence(0, w));
    CHECK_OK(MPI_Accumulate(one, N, MPI_INT, 0, 0, N, MPI_INT, MPI_SUM, w));
    CHECK_OK(MPI_Win_fence(0, w));
    if (me == 0)
        for (int i = 0; i < N; i++) CHECK(base[i] == np * i, "flavor %d acc: [%d] = %d", fl, i, base[i]);
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));

    /* Fetch_and_op / Compare_and_swap under lock: a counter at rank 0 slot N */
    if (me == 0) base[N] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < 10; k++) {
        int inc = 1, old = -1;
        CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
        CHECK_OK(MPI_Fetch_and_op(&inc, &old, MPI_INT, 0, N, MPI_SUM, w));
        CHECK_OK(MPI_Win_unlock(0, w));
        CHECK(old >= 0 && old < 10 * np, "flavor %d fop old = %d", fl, old);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) CHECK(base[N] == 10 * np, "flavor %d fop total = %d", fl, base[N]);
    /* CAS: each rank tries to swap 0 -> me+1 at slot N+1; exactly one wins */
    if (me == 0) base[N + 1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int cmp = 0, nv = me + 1, res = -1, wins = 0, total = 0;
    CHECK_OK(MPI_Win_lock_all(0, w));
    CHECK_OK(MPI_Compare_and_swap(&nv, &cmp, &res, MPI_INT, 0, N + 1, w));
    CHECK_OK(MPI_Win_flush(0, w));
    wins = res == 0;
    /* Get_accumulate with NO_OP reads atomically */
    int rd = -1;
    CHECK_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, &rd, 1, MPI_INT, 0, N + 1, 1, MPI_INT, MPI_NO_OP, w));
    CHECK_OK(MPI_Win_flush_all(w));
    CHECK(rd >= 1 && rd <= np, "flavor %d cas result read %d", fl, rd);
    /* ...whatever the ignored origin says (MPICH's rma tests pass
     * MPI_DATATYPE_NULL), also through the request-based form */
    int rd2 = -1;
    MPI_Request rq0;
    CHECK_OK(MPI_Rget_accumulate(NULL, 0, MPI_DATATYPE_NULL, &rd2, 1, MPI_INT, 0, N + 1, 1, MPI_INT, MPI_NO_OP, w,
                                 &rq0));
    CHECK_OK(MPI_Wait(&rq0, MPI_STATUS_IGNORE));
    CHECK(rd2 == rd, "flavor %d NO_OP with a null origin type read %d, not %d", fl, rd2, rd);
    /* no bytes at all: a no-op whatever the types (MPICH's rma/badrma) */
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    CHECK_OK(MPI_Accumulate(&rd2, 1, empty, 0, N + 1, 0, MPI_DOUBLE, MPI_SUM, w));
    CHECK_OK(MPI_Accumulate(&rd2, 0, MPI_DOUBLE, 0, N + 1, 1, empty, MPI_SUM, w));
    CHECK_OK(MPI_Get_accumulate(&rd2, 1, empty, &rd2, 2, empty, 0, N + 1, 0, MPI_DOUBLE, MPI_SUM, w));
    CHECK_OK(MPI_Win_flush_all(w));
    MPI_Type_free(&empty);
    CHECK_OK(MPI_Win_unlock_all(w));
    total = sum_all(wins);
    if (me == 0) CHECK(total == 1, "flavor %d: %d CAS winners", fl, total);

    /* Request-based operations in a lock_all epoch */
    CHECK_OK(MPI_Win_lock_all(0, w));
    MPI_Request rq[3];
    int v = 7 + me, got = 0, gacc = -1;
    CHECK_OK(MPI_Rput(&v, 1, MPI_INT, right, N + 2 + me % 2, 1, MPI_INT, w, &rq[0]));
    CHECK_OK(MPI_Waitall(1, rq, MPI_STATUSES_IGNORE));
    CHECK_OK(MPI_Win_flush(right, w));
    CHECK_OK(MPI_Rget(&got, 1, MPI_INT, right, N + 2 + me % 2, 1, MPI_INT, w, &rq[1]));
    CHECK_OK(MPI_Raccumulate(&v, 1, MPI_INT, right, N + 4, 1, MPI_INT, MPI_MAX, w, &rq[0]));
    CHECK_OK(MPI_Rget_accumulate(&v, 1, MPI_INT, &gacc, 1, MPI_INT, right, N + 5, 1, MPI_INT, MPI_REPLACE, w,
                                 &rq[2]));
    CHECK_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    if (np <= 2) CHECK(got == v, "flavor %d rget %d", fl, got);
    CHECK_OK(MPI_Win_unlock_all(w));

    /* Derived types: a contiguous of 2 ints and MPI_2INT pair type */
    MPI_Datatype pair2;
    MPI_Type_contiguous(2, MPI_INT, &pair2);
    MPI_Type_commit(&pair2);
    int s4[4] = {me, me + 1, me + 2, me + 3};
    CHECK_OK(MPI_Win_fence(0, w));
    CHECK_OK(MPI_Put(s4, 2, pair2, right, 2 * N, 4, MPI_INT, w));
    CHECK_OK(MPI_Win_fence(0, w));
    for (int i = 0; i < 4; i++) CHECK(base[2 * N + i] == left + i, "flavor %d derived put [%d]=%d", fl, i, base[2 * N + i]);
    struct { int v, i; } loc = {me, me}, locres = {-1, -1};
    if (me == 0) base[2 * N + 4] = base[2 * N + 5] = -1;
    CHECK_OK(MPI_Win_fence(0, w));
    CHECK_OK(MPI_Accumulate(&loc, 1, MPI_2INT, 0, 2 * N + 4, 1, MPI_2INT, MPI_MAXLOC, w));
    CHECK_OK(MPI_Win_fence(0, w));
    CHECK_OK(MPI_Get(&locres, 1, MPI_2INT, 0, 2 * N + 4, 1, MPI_2INT, w));
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
    CHECK(locres.v == np - 1 && locres.i == np - 1, "flavor %d maxloc (%d,%d)", fl, locres.v, locres.i);
    MPI_Type_free(&pair2);

    /* non-contiguous target type (MPI_DOUBLE_INT has a gap): put, then MINLOC */
    struct di { double v; int i; } dis[3] = {{me + 0.5, me}, {me + 1.5, me}, {-me, me}}, dres[3];
    int dslot = 3 * N + 8; /* byte offset = dslot * 4, 8-aligned */
    CHECK_OK(MPI_Win_fence(0, w));
    CHECK_OK(MPI_Put(dis, 3, MPI_DOUBLE_INT, right, dslot, 3, MPI_DOUBLE_INT, w));
    CHECK_OK(MPI_Win_fence(0, w));
    CHECK_OK(MPI_Accumulate(dis, 3, MPI_DOUBLE_INT, left, dslot, 3, MPI_DOUBLE_INT, MPI_MINLOC, w));
    CHECK_OK(MPI_Win_fence(0, w));
    CHECK_OK(MPI_Get(dres, 3, MPI_DOUBLE_INT, me, dslot, 3, MPI_DOUBLE_INT, w));
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
    {
        /* left put its values here, then right's MINLOC went over them */
        double lv0 = left + 0.5, rv0 = right + 0.5;
        double want0 = lv0 < rv0 ? lv0 : rv0;
        CHECK(dres[0].v == want0, "flavor %d double_int minloc [0] = %g want %g", fl, dres[0].v, want0);
        CHECK(dres[2].v == (-left < -right ? -left : -right), "flavor %d minloc [2] = %g", fl, dres[2].v);
    }

    /* doubles: sum under exclusive lock at the left */
    double dv = 0.5;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, left, 0, w));
    CHECK_OK(MPI_Accumulate(&dv, 1, MPI_DOUBLE, left, 3 * N, 1, MPI_DOUBLE, MPI_SUM, w));
    CHECK_OK(MPI_Win_unlock(left, w));
    free_win(fl, &w, base);

    /* 1 MiB through every flavor: put to the right, get back */
    size_t big = 1 << 20;
    char *bb, *src2 = malloc(big), *dst2 = malloc(big);
    MPI_Win wb = make_win(fl, (MPI_Aint)big, 1, (void **)&bb);
    fy_fill(src2, big, (unsigned)me + 7);
    CHECK_OK(MPI_Win_lock_all(0, wb));
    CHECK_OK(MPI_Put(src2, (int)big, MPI_BYTE, right, 0, (int)big, MPI_BYTE, wb));
    CHECK_OK(MPI_Win_flush(right, wb));
    CHECK_OK(MPI_Get(dst2, (int)big, MPI_BYTE, right, 0, (int)big, MPI_BYTE, wb));
    CHECK_OK(MPI_Win_unlock_all(wb));
    /* with one rank or two the right also wrote there: only check np == 1 */
    if (np == 1) CHECK(fy_verify(dst2, big, (unsigned)me + 7) == (size_t)-1, "flavor %d 1 MiB round trip", fl);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(fy_verify(bb, big, (unsigned)left + 7) == (size_t)-1, "flavor %d 1 MiB put from the left", fl);
    free_win(fl, &wb, bb);
    free(src2);
    free(dst2);
}

/* Accumulates over operations and types, from every rank into rank 0,
 * on a mapped window (CPU atomics: fetch-and-op and CAS loops) and a
 * Win_create one (the locked path), with fetches of the old values. */
static void test_acc_ops(int fl, int me, int np)
{
    char *base;
    MPI_Win w = make_win(fl, 1024, 1, (void **)&base);
    if (me == 0) {
        int *ib = (int *)(void *)base;
        ib[0] = 0;          /* SUM */
        ib[1] = -1;         /* BAND */
        ib[2] = 0;          /* BOR */
        ib[3] = 0;          /* BXOR */
        ib[4] = 1 << 20;    /* MIN */
        double *db = (double *)(void *)(base + 64);
        db[0] = 1.0;        /* PROD */
        db[1] = -1e9;       /* MAX */
        unsigned char *ub = (unsigned char *)base + 128;
        ub[0] = 0;          /* uint8 SUM (wraps) */
        _Bool *bb = (_Bool *)(void *)(base + 136);
        bb[0] = 0;          /* LXOR */
        struct { double v; int i; } *loc = (void *)(base + 256); /* MAXLOC on DOUBLE_INT */
        loc->v = -1; loc->i = -1;
        long long *lb = (long long *)(void *)(base + 320);
        for (int k = 0; k < 4; k++) lb[k] = 0; /* vector SUM (stride 2) */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_Win_lock_all(0, w));
    int one = 1, bit = 1 << me, old = 0, mine = me;
    CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w));
    int mask = ~(1 << me);
    CHECK_OK(MPI_Fetch_and_op(&mask, &old, MPI_INT, 0, 4, MPI_BAND, w));
    CHECK_OK(MPI_Accumulate(&bit, 1, MPI_INT, 0, 8, 1, MPI_INT, MPI_BOR, w));
    CHECK_OK(MPI_Get_accumulate(&bit, 1, MPI_INT, &old, 1, MPI_INT, 0, 12, 1, MPI_INT, MPI_BXOR, w));
    CHECK_OK(MPI_Accumulate(&mine, 1, MPI_INT, 0, 16, 1, MPI_INT, MPI_MIN, w));
    double two = 2.0, dme = me;
    CHECK_OK(MPI_Accumulate(&two, 1, MPI_DOUBLE, 0, 64 / 1, 1, MPI_DOUBLE, MPI_PROD, w));
    CHECK_OK(MPI_Accumulate(&dme, 1, MPI_DOUBLE, 0, 72, 1, MPI_DOUBLE, MPI_MAX, w));
    unsigned char u = 200;
    CHECK_OK(MPI_Accumulate(&u, 1, MPI_UINT8_T, 0, 128, 1, MPI_UINT8_T, MPI_SUM, w));
    _Bool t = 1;
    CHECK_OK(MPI_Accumulate(&t, 1, MPI_C_BOOL, 0, 136, 1, MPI_C_BOOL, MPI_LXOR, w));
    struct { double v; int i; } lv = {(double)(me % 2), me};
    CHECK_OK(MPI_Accumulate(&lv, 1, MPI_DOUBLE_INT, 0, 256, 1, MPI_DOUBLE_INT, MPI_MAXLOC, w));
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_LONG_LONG, &vec);
    MPI_Type_commit(&vec);
    long long lv2[2] = {1, 10};
    CHECK_OK(MPI_Accumulate(lv2, 2, MPI_LONG_LONG, 0, 320, 1, vec, MPI_SUM, w));
    MPI_Type_free(&vec);
    CHECK_OK(MPI_Win_unlock_all(w));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        int *ib = (int *)(void *)base;
        int all = (1 << np) - 1;
        CHECK(ib[0] == np, "flavor %d acc SUM = %d", fl, ib[0]);
        CHECK(ib[1] == ~all, "flavor %d fop BAND = %#x", fl, ib[1]);
        CHECK(ib[2] == all, "flavor %d acc BOR = %#x", fl, ib[2]);
        CHECK(ib[3] == all, "flavor %d gacc BXOR = %#x", fl, ib[3]);
        CHECK(ib[4] == 0, "flavor %d acc MIN = %d", fl, ib[4]);
        double *db = (double *)(void *)(base + 64);
        CHECK(db[0] == (double)(1 << np), "flavor %d acc PROD = %g", fl, db[0]);
        CHECK(db[1] == np - 1, "flavor %d acc MAX = %g", fl, db[1]);
        unsigned char *ub = (unsigned char *)base + 128;
        CHECK(ub[0] == (unsigned char)(200 * np), "flavor %d uint8 SUM = %d", fl, ub[0]);
        _Bool *bb = (_Bool *)(void *)(base + 136);
        CHECK(bb[0] == (np % 2), "flavor %d bool LXOR = %d", fl, bb[0]);
        struct { double v; int i; } *loc = (void *)(base + 256);
        double want = np > 1 ? 1.0 : 0.0;
        CHECK(loc->v == want && loc->i == (np > 1 ? 1 : 0), "flavor %d MAXLOC = (%g, %d)", fl, loc->v, loc->i);
        long long *lb = (long long *)(void *)(base + 320);
        CHECK(lb[0] == np && lb[1] == 0 && lb[2] == 10 * np && lb[3] == 0, "flavor %d vector SUM = %lld %lld %lld",
              fl, lb[0], lb[1], lb[2]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free_win(fl, &w, base);
}

/* Operations of no data, with NULL buffers (as mpi4py passes for an
 * empty message), to self and to a peer: they succeed and change nothing. */
static void test_empty(int fl, int me, int np)
{
    int *base;
    MPI_Win w = make_win(fl, 4 * sizeof(int), sizeof(int), (void **)&base);
    for (int i = 0; i < 4; i++) base[i] = 7;
    CHECK_OK(MPI_Win_fence(0, w));
    for (int t = 0; t < 2; t++) {
        int peer = t ? (me + 1) % np : me;
        CHECK_OK(MPI_Put(NULL, 0, MPI_BYTE, peer, 0, 0, MPI_BYTE, w));
        CHECK_OK(MPI_Get(NULL, 0, MPI_BYTE, peer, 0, 0, MPI_BYTE, w));
        CHECK_OK(MPI_Accumulate(NULL, 0, MPI_INT, peer, 0, 0, MPI_INT, MPI_SUM, w));
        CHECK_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_INT, peer, 0, 0, MPI_INT, MPI_SUM, w));
    }
    CHECK_OK(MPI_Win_fence(0, w));
    for (int i = 0; i < 4; i++) CHECK(base[i] == 7, "flavor %d: empty operations changed [%d] to %d", fl, i, base[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    free_win(fl, &w, base);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("rma_ops");
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int fl = 0; fl < 4; fl++) test_flavor(fl, me, np);
    for (int fl = 0; fl < 4; fl++) test_acc_ops(fl, me, np);
    for (int fl = 0; fl < 4; fl++) test_empty(fl, me, np);
    return fy_finish();
}
