/* Helpers shared by the RMA tests. */
#ifndef RMA_TEST_H
#define RMA_TEST_H
#include "fytest.h"

/* The flavors the tests loop over: 0 create (memory from malloc), 1
 * allocate, 2 allocate_shared, 3 create over MPI_Alloc_mem. */
static inline MPI_Win make_win(int flavor, MPI_Aint bytes, int disp, void **base)
{
    MPI_Win w = MPI_WIN_NULL;
    switch (flavor) {
    case 0:
        *base = calloc(1, bytes ? (size_t)bytes : 1);
        CHECK_OK(MPI_Win_create(*base, bytes, disp, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
        break;
    case 1:
        CHECK_OK(MPI_Win_allocate(bytes, disp, MPI_INFO_NULL, MPI_COMM_WORLD, base, &w));
        memset(*base, 0, (size_t)bytes);
        break;
    case 2:
        CHECK_OK(MPI_Win_allocate_shared(bytes, disp, MPI_INFO_NULL, MPI_COMM_WORLD, base, &w));
        memset(*base, 0, (size_t)bytes);
        break;
    default:
        CHECK_OK(MPI_Alloc_mem(bytes, MPI_INFO_NULL, base));
        memset(*base, 0, (size_t)bytes);
        CHECK_OK(MPI_Win_create(*base, bytes, disp, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
        break;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* nobody writes before everybody cleared its memory */
    return w;
}

static inline void free_win(int flavor, MPI_Win *w, void *base)
{
    CHECK_OK(MPI_Win_free(w));
    if (flavor == 0) free(base);
    if (flavor == 3) MPI_Free_mem(base);
}

/* Sum of v over MPI_COMM_WORLD, at every rank (point-to-point only: the
 * collectives are another branch's). */
static inline int sum_all(int v)
{
    int me, np, tot = v;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (me == 0) {
        for (int r = 1; r < np; r++) {
            int x;
            MPI_Recv(&x, 1, MPI_INT, r, 777, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            tot += x;
        }
        for (int r = 1; r < np; r++) MPI_Send(&tot, 1, MPI_INT, r, 778, MPI_COMM_WORLD);
    } else {
        MPI_Send(&v, 1, MPI_INT, 0, 777, MPI_COMM_WORLD);
        MPI_Recv(&tot, 1, MPI_INT, 0, 778, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return tot;
}

/* Busy work outside MPI (no progress calls). */
static inline void compute_us(double us)
{
    double t0 = MPI_Wtime();
    while ((MPI_Wtime() - t0) * 1e6 < us) {
    }
}
/* A group of MPI_COMM_WORLD's ranks (the caller frees it). */
static inline MPI_Group group_of(int *ranks, int n)
{
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, ranks, &g);
    MPI_Group_free(&world);
    return g;
}

/* One round of blocking PSCW: expose to `from`, access `to`, put v at
 * displacement disp of rank `right`, then close both epochs (the exposure
 * by MPI_Win_test in a loop when use_test, else by MPI_Win_wait). */
static inline void pscw_round(MPI_Win w, MPI_Group from, MPI_Group to, int right, int v, MPI_Aint disp,
                              int use_test)
{
    CHECK_OK(MPI_Win_post(from, 0, w));
    CHECK_OK(MPI_Win_start(to, 0, w));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, disp, 1, MPI_INT, w));
    CHECK_OK(MPI_Win_complete(w));
    if (use_test) {
        int flag = 0;
        while (!flag) CHECK_OK(MPI_Win_test(w, &flag));
    } else {
        CHECK_OK(MPI_Win_wait(w));
    }
}

#endif
