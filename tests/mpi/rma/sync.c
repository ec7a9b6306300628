/* Every synchronization call, blocking and nonblocking (MPIX_Win_i*), and
 * mixes of the two: fence, post/start/complete/wait/test, lock/unlock,
 * lock_all/unlock_all, the flushes, Win_sync, Win_free with epochs still
 * completing. */
#include "rma_test.h"

static int me, np;

/* Ring PSCW: every rank exposes to its left neighbour and accesses its right. */
static void pscw(int nonblocking, int flavor)
{
    int *base;
    MPI_Win w = make_win(flavor, 4 * sizeof(int), sizeof(int), (void **)&base);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Group gl = group_of(&left, 1), gr = group_of(&right, 1);
    for (int round = 0; round < 3; round++) {
        int v = me * 10 + round;
        if (nonblocking) {
            MPI_Request r[4];
            CHECK_OK(MPIX_Win_ipost(gl, 0, w, &r[0]));
            CHECK_OK(MPIX_Win_istart(gr, 0, w, &r[1]));
            CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, round % 4, 1, MPI_INT, w));
            CHECK_OK(MPIX_Win_icomplete(w, &r[2]));
            CHECK_OK(MPIX_Win_iwait(w, &r[3]));
            CHECK_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        } else {
            pscw_round(w, gl, gr, right, v, round % 4, round == 1);
        }
        int got = base[round % 4];
        CHECK(got == left * 10 + round, "pscw nb=%d fl=%d round %d: %d", nonblocking, flavor, round, got);
    }
    /* NOCHECK on both sides, synchronised by a barrier */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_Win_post(gl, MPI_MODE_NOCHECK, w));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_Win_start(gr, MPI_MODE_NOCHECK, w));
    int v = 99 + me;
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 3, 1, MPI_INT, w));
    CHECK_OK(MPI_Win_complete(w));
    CHECK_OK(MPI_Win_wait(w));
    CHECK(base[3] == 99 + left, "nocheck pscw: %d", base[3]);
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    free_win(flavor, &w, base);
}

static void fences(int flavor)
{
    int *base;
    MPI_Win w = make_win(flavor, np * sizeof(int), sizeof(int), (void **)&base);
    MPI_Request r;
    /* nonblocking fence, then blocking, alternating */
    for (int round = 0; round < 6; round++) {
        int v = round * 100 + me;
        if (round % 2) {
            CHECK_OK(MPIX_Win_ifence(0, w, &r));
            CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            CHECK_OK(MPI_Win_fence(0, w));
        }
        for (int t = 0; t < np; t++) CHECK_OK(MPI_Put(&v, 1, MPI_INT, t, me, 1, MPI_INT, w));
        if (round % 3 == 0) {
            CHECK_OK(MPI_Win_fence(0, w));
        } else {
            CHECK_OK(MPIX_Win_ifence(0, w, &r));
            CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        for (int s = 0; s < np; s++) CHECK(base[s] == round * 100 + s, "fence round %d from %d: %d", round, s, base[s]);
    }
    /* ifence chains: several fences in flight before any wait */
    MPI_Request rs[3];
    int v = 7 + me;
    CHECK_OK(MPIX_Win_ifence(0, w, &rs[0]));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, (me + 1) % np, me, 1, MPI_INT, w));
    CHECK_OK(MPIX_Win_ifence(0, w, &rs[1]));
    CHECK_OK(MPIX_Win_ifence(MPI_MODE_NOSUCCEED, w, &rs[2]));
    CHECK_OK(MPI_Waitall(3, rs, MPI_STATUSES_IGNORE));
    int left = (me + np - 1) % np;
    CHECK(base[left] == 7 + left, "ifence chain: %d", base[left]);
    free_win(flavor, &w, base);
}

static void locks(int flavor)
{
    long *base;
    MPI_Win w = make_win(flavor, 8 * sizeof(long), sizeof(long), (void **)&base);
    MPI_Barrier(MPI_COMM_WORLD);
    /* exclusive read-modify-write without atomics: the lock must serialize */
    for (int k = 0; k < 20; k++) {
        long x = 0;
        MPI_Request r[4];
        if (k % 2) {
            CHECK_OK(MPIX_Win_ilock(MPI_LOCK_EXCLUSIVE, 0, 0, w, &r[0]));
            CHECK_OK(MPI_Get(&x, 1, MPI_LONG, 0, 0, 1, MPI_LONG, w));
            CHECK_OK(MPIX_Win_iflush(0, w, &r[1]));
            CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
            x++;
            CHECK_OK(MPI_Put(&x, 1, MPI_LONG, 0, 0, 1, MPI_LONG, w));
            CHECK_OK(MPIX_Win_iunlock(0, w, &r[2]));
            CHECK_OK(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
        } else {
            CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
            CHECK_OK(MPI_Get(&x, 1, MPI_LONG, 0, 0, 1, MPI_LONG, w));
            CHECK_OK(MPI_Win_flush_local(0, w));
            x++;
            CHECK_OK(MPI_Put(&x, 1, MPI_LONG, 0, 0, 1, MPI_LONG, w));
            CHECK_OK(MPI_Win_unlock(0, w));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) CHECK(base[0] == 20 * np, "exclusive counter %ld", base[0]);
    /* lock_all + flush variants, nonblocking */
    MPI_Request r[6];
    long one = 1;
    CHECK_OK(MPIX_Win_ilock_all(0, w, &r[0]));
    for (int t = 0; t < np; t++) CHECK_OK(MPI_Accumulate(&one, 1, MPI_LONG, t, 1, 1, MPI_LONG, MPI_SUM, w));
    CHECK_OK(MPIX_Win_iflush_all(w, &r[1]));
    CHECK_OK(MPIX_Win_iflush_local_all(w, &r[2]));
    CHECK_OK(MPIX_Win_iflush_local(me, w, &r[3]));
    CHECK_OK(MPI_Win_flush_all(w));
    CHECK_OK(MPI_Win_sync(w));
    CHECK_OK(MPIX_Win_iunlock_all(w, &r[4]));
    CHECK_OK(MPI_Waitall(5, r, MPI_STATUSES_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(base[1] == np, "lock_all accumulate %ld", base[1]);
    /* shared locks from everybody at once on everybody */
    for (int t = 0; t < np; t++) CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w));
    for (int t = 0; t < np; t++) CHECK_OK(MPI_Accumulate(&one, 1, MPI_LONG, t, 2, 1, MPI_LONG, MPI_SUM, w));
    for (int t = 0; t < np; t++) CHECK_OK(MPI_Win_unlock(t, w));
    /* MPI_PROC_NULL */
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, MPI_PROC_NULL, 0, w));
    CHECK_OK(MPI_Put(&one, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG, w));
    CHECK_OK(MPI_Win_unlock(MPI_PROC_NULL, w));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(base[2] == np, "shared locks accumulate %ld", base[2]);
    free_win(flavor, &w, base);
}

/* Win_free while nonblocking epochs are still completing: free completes
 * them; the requests stay valid until waited (rule 10b). */
static void free_pending(int flavor)
{
    int *base;
    MPI_Win w = make_win(flavor, np * sizeof(int), sizeof(int), (void **)&base);
    MPI_Request r[3];
    int v = me + 1;
    CHECK_OK(MPIX_Win_ilock(MPI_LOCK_EXCLUSIVE, (me + 1) % np, 0, w, &r[0]));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, (me + 1) % np, me, 1, MPI_INT, w));
    CHECK_OK(MPIX_Win_iflush((me + 1) % np, w, &r[1]));
    CHECK_OK(MPIX_Win_iunlock((me + 1) % np, w, &r[2]));
    CHECK_OK(MPI_Win_free(&w));
    CHECK(w == MPI_WIN_NULL, "Win_free sets MPI_WIN_NULL");
    int flag = 0;
    CHECK_OK(MPI_Testall(3, r, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "requests of epochs completed by Win_free are complete");
    if (flavor == 0) free(base);
    if (flavor == 3) MPI_Free_mem(base);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("rma_sync");
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int fl = 0; fl < 3; fl++) {
        pscw(0, fl);
        pscw(1, fl);
        fences(fl);
        locks(fl);
        free_pending(fl);
    }
    return fy_finish();
}
