/* Bad input gives the right error class (and leaves the window usable). */
#include "rma_test.h"

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("rma_errors");
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *base, v = 1, res;
    MPI_Win w;
    CHECK_CLASS(MPI_Win_allocate(-1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w), MPI_ERR_SIZE);
    CHECK_CLASS(MPI_Win_allocate(8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w), MPI_ERR_DISP);
    CHECK_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w));
    CHECK_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN)); /* a window's default is fatal */
    CHECK_CLASS(MPI_Win_fence(0, (MPI_Win)0x12345678), MPI_ERR_WIN);
    CHECK_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);

    /* no epoch */
    CHECK_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_unlock(0, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_unlock_all(w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_complete(w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_wait(w), MPI_ERR_RMA_SYNC);
    int flag;
    CHECK_CLASS(MPI_Win_test(w, &flag), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_flush(0, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_flush_all(w), MPI_ERR_RMA_SYNC);
    MPI_Request r;
    CHECK_CLASS(MPIX_Win_iunlock(0, w, &r), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPIX_Win_icomplete(w, &r), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPIX_Win_iflush(0, w, &r), MPI_ERR_RMA_SYNC);

    /* lock arguments */
    CHECK_CLASS(MPI_Win_lock(12345, 0, 0, w), MPI_ERR_LOCKTYPE);
    CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, np, 0, w), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0x7, w), MPI_ERR_ASSERT);
    CHECK_CLASS(MPIX_Win_ilock(MPI_LOCK_SHARED, -5, 0, w, &r), MPI_ERR_RANK);

    /* inside a lock epoch */
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    CHECK_CLASS(MPI_Put(&v, 1, MPI_INT, np, 0, 1, MPI_INT, w), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Put(&v, 1, MPI_INT, 1 % np, 0, 1, MPI_INT, w), np > 1 ? MPI_ERR_RMA_SYNC : MPI_SUCCESS);
    CHECK_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, w), MPI_ERR_RMA_RANGE);
    CHECK_CLASS(MPI_Put(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, w), MPI_ERR_DISP);
    CHECK_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 3, 2, MPI_SHORT, w), MPI_SUCCESS);
    CHECK_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 3, 1, MPI_SHORT, w), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MAXLOC, w), MPI_ERR_OP);
    CHECK_CLASS(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, w), MPI_ERR_OP);
    CHECK_CLASS(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_FLOAT, MPI_SUM, w), MPI_ERR_TYPE);
    {
        /* an empty type against data: a type error, not a crash */
        MPI_Datatype empty;
        int r2[2];
        MPI_Type_contiguous(0, MPI_INT, &empty);
        MPI_Type_commit(&empty);
        CHECK_CLASS(MPI_Accumulate(&v, 1, empty, 0, 0, 1, MPI_INT, MPI_SUM, w), MPI_ERR_TYPE);
        CHECK_CLASS(MPI_Get_accumulate(&v, 1, MPI_INT, r2, 2, empty, 0, 0, 1, MPI_INT, MPI_SUM, w), MPI_ERR_TYPE);
        MPI_Type_free(&empty);
    }
    {
        /* an accumulate's data must be of one predefined type, even for MPI_REPLACE */
        MPI_Datatype mix, ty[2] = {MPI_INT, MPI_FLOAT};
        int bl[2] = {1, 1}, pair[2] = {0, 0};
        MPI_Aint dp[2] = {0, 4};
        MPI_Type_create_struct(2, bl, dp, ty, &mix);
        MPI_Type_commit(&mix);
        CHECK_CLASS(MPI_Accumulate(pair, 1, mix, 0, 0, 1, mix, MPI_REPLACE, w), MPI_ERR_TYPE);
        MPI_Type_free(&mix);
        /* and user-defined operations are not allowed */
        MPI_Op uop;
        MPI_Op_create(user_sum, 1, &uop);
        CHECK_CLASS(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, uop, w), MPI_ERR_OP);
        MPI_Op_free(&uop);
    }
    CHECK_CLASS(MPI_Fetch_and_op(&v, &res, MPI_INT, 0, 0, MPI_SUM, w), MPI_SUCCESS);
    CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_lock_all(0, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_fence(0, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_free(&w), MPI_ERR_RMA_SYNC);
    CHECK(w != MPI_WIN_NULL, "a failed Win_free keeps the window");
    CHECK_OK(MPI_Win_unlock(0, w));

    /* request-based operations need a passive epoch */
    CHECK_OK(MPI_Win_fence(0, w));
    CHECK_CLASS(MPI_Rput(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, w, &r), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w), MPI_SUCCESS); /* ends the empty fence epoch */
    CHECK_OK(MPI_Win_unlock(0, w));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w));
    CHECK_CLASS(MPI_Win_fence(0x12, w), MPI_ERR_ASSERT);
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
    CHECK_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, w), MPI_ERR_RMA_SYNC);

    /* flavor-specific calls */
    MPI_Aint sz;
    int du;
    void *p;
    CHECK_OK(MPI_Win_shared_query(w, 0, &sz, &du, &p));
    CHECK_CLASS(MPI_Win_shared_query(w, np, &sz, &du, &p), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Win_attach(w, &v, sizeof v), MPI_ERR_RMA_FLAVOR);
    CHECK_CLASS(MPI_Win_detach(w, &v), MPI_ERR_RMA_FLAVOR);
    CHECK_OK(MPI_Win_free(&w));
    int buf[4];
    CHECK_OK(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    CHECK_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN)); /* a window's default is fatal */
    /* MPI 4.1: MPI_Win_create's windows may be queried: my own memory is
     * there, a peer's is not mapped (size 0, NULL) */
    CHECK_OK(MPI_Win_shared_query(w, me, &sz, &du, &p));
    CHECK(sz == sizeof buf && du == 1 && p == buf, "shared_query of my created window: %ld %d %p", (long)sz, du, p);
    if (np > 1) {
        CHECK_OK(MPI_Win_shared_query(w, (me + 1) % np, &sz, &du, &p));
        CHECK(sz == 0 && p == NULL, "shared_query of a peer's created window: %ld %p", (long)sz, p);
    }
    CHECK_OK(MPI_Win_free(&w));
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    CHECK_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_attach(w, buf, sizeof buf));
    CHECK_CLASS(MPI_Win_shared_query(w, 0, &sz, &du, &p), MPI_ERR_RMA_FLAVOR);
    CHECK_CLASS(MPI_Win_attach(w, buf + 1, sizeof(int)), MPI_ERR_RMA_ATTACH);
    CHECK_CLASS(MPI_Win_detach(w, buf + 2), MPI_ERR_RMA_ATTACH);
    MPI_Aint addr;
    addr = (MPI_Aint)(uintptr_t)buf; /* what MPI_Get_address returns on Linux */
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w));
    CHECK_CLASS(MPI_Put(&v, 1, MPI_INT, me, addr + sizeof buf, 1, MPI_INT, w), MPI_ERR_RMA_RANGE);
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, me, addr, 1, MPI_INT, w));
    CHECK_OK(MPI_Win_unlock(me, w));
    CHECK(buf[0] == 1, "dynamic put to myself: %d", buf[0]);
    CHECK_OK(MPI_Win_detach(w, buf));
    CHECK_OK(MPI_Win_free(&w));
    return fy_finish();
}
