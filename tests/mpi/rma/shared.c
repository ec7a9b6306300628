/* Win_allocate_shared + Win_shared_query: direct load/store into the
 * neighbours' memory, contiguous layout; Win_create_dynamic with
 * attach/detach and addresses exchanged by the application; names, group. */
#include "rma_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("rma_shared");
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int *base;
    MPI_Win w;
    MPI_Aint mysize = (me + 1) * sizeof(int);
    CHECK_OK(MPI_Win_allocate_shared(mysize, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w));
    char *expect = NULL;
    for (int r = 0; r < np; r++) {
        MPI_Aint sz;
        int du;
        int *p;
        CHECK_OK(MPI_Win_shared_query(w, r, &sz, &du, &p));
        CHECK(sz == (MPI_Aint)((r + 1) * sizeof(int)) && du == (int)sizeof(int), "query %d: %ld %d", r, (long)sz, du);
        if (expect) CHECK((char *)p == expect, "rank %d's memory does not follow rank %d's", r, r - 1);
        expect = (char *)p + sz;
        if (r == me) CHECK(p == base, "my own base differs");
    }
    MPI_Aint sz0;
    int du0;
    int *p0;
    CHECK_OK(MPI_Win_shared_query(w, MPI_PROC_NULL, &sz0, &du0, &p0));
    CHECK(sz0 == sizeof(int), "PROC_NULL query gives rank 0's segment");
    /* store into the right neighbour's last element directly */
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int *rp;
    MPI_Aint rsz;
    int rdu;
    CHECK_OK(MPI_Win_shared_query(w, right, &rsz, &rdu, &rp));
    CHECK_OK(MPI_Win_lock_all(0, w));
    rp[right] = 1000 + me;
    CHECK_OK(MPI_Win_sync(w));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_Win_sync(w));
    CHECK(base[me] == 1000 + left, "direct store from the left: %d", base[me]);
    CHECK_OK(MPI_Win_unlock_all(w));
    CHECK_OK(MPI_Win_set_name(w, "shared window"));
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_OK(MPI_Win_get_name(w, name, &len));
    CHECK(strcmp(name, "shared window") == 0 && len == 13, "name %s", name);
    MPI_Group g, wg;
    int cmp;
    CHECK_OK(MPI_Win_get_group(w, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "window group differs from the communicator's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    CHECK_OK(MPI_Win_free(&w));

    /* dynamic */
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    double *dyn = calloc(16, sizeof(double));
    CHECK_OK(MPI_Win_attach(w, dyn, 16 * sizeof(double)));
    MPI_Aint mine, theirs;
    mine = (MPI_Aint)(uintptr_t)dyn; /* what MPI_Get_address returns on Linux */
    MPI_Sendrecv(&mine, 1, MPI_AINT, left, 5, &theirs, 1, MPI_AINT, right, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double x[4] = {me, me + 0.5, me + 0.25, 1};
    CHECK_OK(MPI_Win_lock_all(0, w));
    CHECK_OK(MPI_Put(x, 3, MPI_DOUBLE, right, theirs, 3, MPI_DOUBLE, w));
    CHECK_OK(MPI_Accumulate(&x[3], 1, MPI_DOUBLE, right, theirs + 8 * sizeof(double), 1, MPI_DOUBLE, MPI_SUM, w));
    CHECK_OK(MPI_Win_flush(right, w));
    double back[3];
    CHECK_OK(MPI_Get(back, 3, MPI_DOUBLE, right, theirs, 3, MPI_DOUBLE, w));
    CHECK_OK(MPI_Win_unlock_all(w));
    CHECK(back[1] == me + 0.5, "dynamic get %g", back[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(dyn[0] == left && dyn[2] == left + 0.25 && dyn[8] == 1.0, "dynamic put: %g %g %g", dyn[0], dyn[2], dyn[8]);
    CHECK_OK(MPI_Win_detach(w, dyn));
    CHECK_OK(MPI_Win_free(&w));
    free(dyn);
    return fy_finish();
}
