/* Erroneous uses that MPICH's errors/ programs check, detected and reported
 * through the right object's handler, never a hang or a crash:
 * - a send buffer that starts where this process's own block of the receive
 *   buffer starts (Gather(v)/Scatter(v) at the root alone, the others do not
 *   call; Allgather(v), Alltoallv, Alltoallw, Reduce_local): MPI_ERR_BUFFER,
 *   while disjoint blocks of one buffer stay accepted; NULL count or
 *   displacement arrays: MPI_ERR_ARG;
 * - a message ending inside an element of a non-contiguous receive type
 *   (3 chars into an indexed type of ints): MPI_ERR_TYPE;
 * - MPI_Compare_and_swap on a floating-point or derived type: MPI_ERR_TYPE;
 * - MPI_Win_free inside a lock epoch, on a window whose handler returns
 *   while MPI_COMM_WORLD's is fatal: the error comes back, the window lives;
 * - a failing MPI_Cart_create leaves MPI_COMM_NULL;
 * - a user handler's changed error code is what the call returns, and
 *   Comm_create_from_group's handler argument takes the call's own errors;
 * - the MPI-1 MPI_Type_ub with a NULL argument: MPI_ERR_ARG. */
#include "fytest.h"

/* Removed in MPI 3.0 (mpi.h no longer declares it); libmpi still has it. */
int MPI_Type_ub(MPI_Datatype type, MPI_Aint *displacement);

static int cls(int rc)
{
    int c = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
    return c;
}
#define EXPECT(call, want) do { int c_ = cls(call); CHECK(c_ == (want), "%s: class %d, expected %s", #call, c_, #want); } while (0)

static int handled;
static void change_code(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handled++;
    *code = MPI_ERR_OTHER;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("errors_misuse");
    int rank = fy_rank_, size = fy_size_;
    MPI_Comm comm;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int *a = calloc((size_t)(4 * size), sizeof *a), *b = calloc((size_t)(4 * size + 20), sizeof *b);
    int cnt[64], dsp[64];
    MPI_Datatype ty[64];
    for (int i = 0; i < size; i++) cnt[i] = 1, dsp[i] = i, ty[i] = MPI_INT;

    /* rooted calls: only the root calls, and must return at once */
    for (int root = 0; root < size; root++) {
        if (rank == root) {
            EXPECT(MPI_Gather(a + root, 1, MPI_INT, a, 1, MPI_INT, root, comm), MPI_ERR_BUFFER);
            EXPECT(MPI_Gatherv(a + root, 1, MPI_INT, a, cnt, dsp, MPI_INT, root, comm), MPI_ERR_BUFFER);
            EXPECT(MPI_Scatter(a, 1, MPI_INT, a + root, 1, MPI_INT, root, comm), MPI_ERR_BUFFER);
            EXPECT(MPI_Scatterv(a, cnt, dsp, MPI_INT, a + root, 1, MPI_INT, root, comm), MPI_ERR_BUFFER);
            MPI_Request r;
            EXPECT(MPI_Igather(a + root, 1, MPI_INT, a, 1, MPI_INT, root, comm, &r), MPI_ERR_BUFFER);
            EXPECT(MPI_Scatterv(a, NULL, dsp, MPI_INT, b, 1, MPI_INT, root, comm), MPI_ERR_ARG);
            EXPECT(MPI_Gatherv(b, 1, MPI_INT, a, cnt, NULL, MPI_INT, root, comm), MPI_ERR_ARG);
        }
        CHECK_OK(MPI_Barrier(comm));
    }
    EXPECT(MPI_Allgather(a + rank, 1, MPI_INT, a, 1, MPI_INT, comm), MPI_ERR_BUFFER);
    EXPECT(MPI_Allgatherv(a + rank, 1, MPI_INT, a, cnt, dsp, MPI_INT, comm), MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoallv(a, cnt, dsp, MPI_INT, a, cnt, dsp, MPI_INT, comm), MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, cnt, NULL, MPI_INT, comm), MPI_ERR_ARG);
    EXPECT(MPI_Allgatherv(a, 1, MPI_INT, b, NULL, dsp, MPI_INT, comm), MPI_ERR_ARG);
    int bd[64];
    for (int i = 0; i < size; i++) bd[i] = i * (int)sizeof(int);
    EXPECT(MPI_Alltoallw(a, cnt, bd, ty, a, cnt, bd, ty, comm), MPI_ERR_BUFFER);

    /* accepted: one buffer, disjoint halves; the own block elsewhere */
    int sd[64], rd[64];
    for (int i = 0; i < size; i++) sd[i] = i, rd[i] = size + i, a[i] = rank * 100 + i;
    CHECK_OK(MPI_Alltoallv(a, cnt, sd, MPI_INT, a, cnt, rd, MPI_INT, comm));
    for (int i = 0; i < size; i++) CHECK(a[size + i] == i * 100 + rank, "alltoallv in one buffer: %d at %d", a[size + i], i);
    a[2 * size] = rank;
    CHECK_OK(MPI_Allgather(a + 2 * size, 1, MPI_INT, a, 1, MPI_INT, comm));
    for (int i = 0; i < size; i++) CHECK(a[i] == i, "allgather from the same buffer: %d at %d", a[i], i);
    CHECK_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, 1, MPI_INT, comm));

    /* a message that ends inside an int */
    if (size >= 2 && rank < 2) {
        MPI_Status st;
        char c3[3] = {1, 2, 3};
        if (rank == 1) {
            CHECK_OK(MPI_Send(c3, 3, MPI_CHAR, 0, 5, comm));
            CHECK_OK(MPI_Send(b, 1, MPI_INT, 0, 6, comm));
        } else {
            MPI_Datatype ix;
            int bl[3] = {1, 2, 1}, ds[3] = {4, 8, 16};
            CHECK_OK(MPI_Type_indexed(3, bl, ds, MPI_INT, &ix));
            CHECK_OK(MPI_Type_commit(&ix));
            EXPECT(MPI_Recv(b, 1, ix, 1, 5, comm, &st), MPI_ERR_TYPE);
            MPI_Type_free(&ix);
            CHECK_OK(MPI_Recv(b, 4, MPI_INT, 1, 6, comm, &st));
        }
    }

    /* compare-and-swap: integer types only */
    MPI_Win win;
    long long wbuf[2] = {0, 0}, o = 1, cmp = 0, res = 0;
    CHECK_OK(MPI_Win_create(wbuf, sizeof wbuf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    EXPECT(MPI_Compare_and_swap(&o, &cmp, &res, MPI_DOUBLE, 0, 0, win), MPI_ERR_TYPE);
    EXPECT(MPI_Compare_and_swap(&o, &cmp, &res, MPI_FLOAT, 0, 0, win), MPI_ERR_TYPE);
    MPI_Datatype d8;
    CHECK_OK(MPI_Type_contiguous(8, MPI_BYTE, &d8));
    CHECK_OK(MPI_Type_commit(&d8));
    EXPECT(MPI_Compare_and_swap(&o, &cmp, &res, d8, 0, 0, win), MPI_ERR_TYPE);
    MPI_Type_free(&d8);
    CHECK_OK(MPI_Compare_and_swap(&o, &cmp, &res, MPI_LONG_LONG, 0, 0, win));
    /* freeing inside the epoch: the window's handler (returns), not
     * MPI_COMM_WORLD's (fatal) */
    CHECK(cls(MPI_Win_free(&win)) == MPI_ERR_RMA_SYNC, "Win_free in a lock epoch did not fail");
    CHECK(win != MPI_WIN_NULL, "a failing Win_free cleared the handle");
    CHECK_OK(MPI_Win_unlock(0, win));
    CHECK_OK(MPI_Win_free(&win));

    /* a failing constructor leaves MPI_COMM_NULL */
    MPI_Comm cart = MPI_COMM_WORLD;
    int dims[2] = {size + 1, size + 1}, per[2] = {0, 0};
    CHECK(cls(MPI_Cart_create(comm, 2, dims, per, 0, &cart)) != MPI_SUCCESS, "Cart_create larger than comm");
    CHECK(cart == MPI_COMM_NULL, "a failing Cart_create left a communicator");

    /* the code a user handler sets is returned */
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_create_errhandler(change_code, &eh));
    CHECK_OK(MPI_Comm_set_errhandler(comm, eh));
    int rc = MPI_Send(b, 1, MPI_INT, size, 0, comm);
    CHECK(handled == 1 && cls(rc) == MPI_ERR_OTHER, "user handler: %d calls, class %d", handled, cls(rc));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* Comm_create_from_group's handler argument also takes the call's own
     * errors */
    MPI_Session ses;
    MPI_Group self;
    CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses));
    CHECK_OK(MPI_Group_from_session_pset(ses, "mpi://SELF", &self));
    rc = MPI_Comm_create_from_group(self, "ferry.test.misuse", MPI_INFO_NULL, eh, NULL);
    CHECK(handled == 2 && cls(rc) == MPI_ERR_OTHER, "Comm_create_from_group: %d calls, class %d", handled, cls(rc));
    MPI_Group_free(&self);
    CHECK_OK(MPI_Session_finalize(&ses));
    MPI_Errhandler_free(&eh);

    /* calls without a communicator, then a removed MPI-1 function with a NULL argument */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Reduce_local(a, a, 2, MPI_INT, MPI_SUM), MPI_ERR_BUFFER); /* (no communicator: WORLD's handler) */
    MPI_Aint ub = 0;
    CHECK(cls(MPI_Type_ub(MPI_INT, NULL)) == MPI_ERR_ARG, "Type_ub(NULL)");
    CHECK_OK(MPI_Type_ub(MPI_INT, &ub));
    CHECK(ub == (MPI_Aint)sizeof(int), "Type_ub(MPI_INT) = %ld", (long)ub);

    MPI_Comm_free(&comm);
    free(a);
    free(b);
    return fy_finish();
}
