/* One test per rule of seed 002 ch. 5 (rules 1-19), each failing if the
 * rule is broken. Late peers are made late by a "go" message, never by
 * timing, so every expectation is deterministic: "pending" means the
 * request did not complete while the peer it depends on was held back.
 * FERRY_RMA_REORDER (bit mask of the four reorder keys) selects which
 * outcome rules 12-17 expect; ctest runs this program with 0 and 15. */
#include "rma_test.h"

static int me, np;
static unsigned ro;
enum { AAA = 1, AAE = 2, EAE = 4, EAA = 8 };
#define TAG_GO 901

static void go_send(int to) { MPI_Send(NULL, 0, MPI_BYTE, to, TAG_GO, MPI_COMM_WORLD); }
static void go_recv(int from) { MPI_Recv(NULL, 0, MPI_BYTE, from, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }

/* Still incomplete after many progress passes (the peer it waits for is held back). */
static int pending(MPI_Request *r)
{
    int flag = 0;
    for (int i = 0; i < 200 && !flag; i++) MPI_Test(r, &flag, MPI_STATUS_IGNORE);
    return !flag;
}
/* Completes without the held-back peer (bounded: never hangs). */
static int eventually(MPI_Request *r)
{
    int flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 20) MPI_Test(r, &flag, MPI_STATUS_IGNORE);
    return flag;
}

static MPI_Group g1(int r)
{
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &r, &g);
    MPI_Group_free(&world);
    return g;
}

static MPI_Win win(int **base)
{
    MPI_Win w;
    CHECK_OK(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, base, &w));
    memset(*base, 0, 16 * sizeof(int));
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN); /* may not exist yet: ignore */
    MPI_Barrier(MPI_COMM_WORLD);
    return w;
}
static void done(MPI_Win *w)
{
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_Win_free(w));
}

/* A target that posts to `origin` (or starts toward it) only after "go". */
static void late_post(MPI_Win w, int origin)
{
    MPI_Group g = g1(origin);
    go_recv(origin);
    CHECK_OK(MPI_Win_post(g, 0, w));
    CHECK_OK(MPI_Win_wait(w));
    MPI_Group_free(&g);
}
static void post_wait(MPI_Win w, int origin)
{
    MPI_Group g = g1(origin);
    CHECK_OK(MPI_Win_post(g, 0, w));
    CHECK_OK(MPI_Win_wait(w));
    MPI_Group_free(&g);
}
static void start_put_complete(MPI_Win w, int target, int val, int slot)
{
    MPI_Group g = g1(target);
    CHECK_OK(MPI_Win_start(g, 0, w));
    CHECK_OK(MPI_Put(&val, 1, MPI_INT, target, slot, 1, MPI_INT, w));
    CHECK_OK(MPI_Win_complete(w));
    MPI_Group_free(&g);
}

/* Rule 1: RMA calls in nonblocking epochs behave as in MPI-3. */
static void rule1(void)
{
    int *b;
    MPI_Win w = win(&b);
    MPI_Request r[2];
    int v = 100 + me;
    CHECK_OK(MPIX_Win_ifence(0, w, &r[0]));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, (me + 1) % np, 0, 1, MPI_INT, w));
    CHECK_OK(MPIX_Win_ifence(MPI_MODE_NOSUCCEED, w, &r[1]));
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    int from = (me + np - 1) % np;
    CHECK(b[0] == 100 + from, "rule 1: put in an ifence epoch: %d", b[0]);
    done(&w);
}

/* Rule 2: closing is not completion: icomplete returns, its request stays
 * pending until the late target posts and the epoch really completes. */
static void rule2(void)
{
    int *b;
    MPI_Win w = win(&b);
    if (me == 0) {
        MPI_Group g = g1(1);
        MPI_Request r[2];
        int v = 42;
        CHECK_OK(MPIX_Win_istart(g, 0, w, &r[0]));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, w));
        CHECK_OK(MPIX_Win_icomplete(w, &r[1]));
        CHECK(pending(&r[1]), "rule 2: icomplete's request completed before the target posted");
        go_send(1);
        CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        MPI_Group_free(&g);
    } else if (me == 1) {
        late_post(w, 0);
        CHECK(b[0] == 42, "rule 2: %d", b[0]);
    }
    done(&w);
}

/* Rule 3: an RMA call belongs to the most recently opened access epoch,
 * even while an earlier one has not completed. */
static void rule3(void)
{
    int *b;
    MPI_Win w = win(&b);
    if (me == 0) {
        MPI_Group g = g1(1);
        MPI_Request r[4];
        int v1 = 1, v2 = 2;
        CHECK_OK(MPIX_Win_istart(g, 0, w, &r[0]));
        CHECK_OK(MPI_Put(&v1, 1, MPI_INT, 1, 0, 1, MPI_INT, w));
        CHECK_OK(MPIX_Win_icomplete(w, &r[1]));
        /* between the epochs nothing is open: an RMA call is erroneous */
        int rc = MPI_Put(&v1, 1, MPI_INT, 1, 0, 1, MPI_INT, w);
        CHECK_CLASS(rc, MPI_ERR_RMA_SYNC);
        CHECK_OK(MPIX_Win_ilock(MPI_LOCK_EXCLUSIVE, 1, 0, w, &r[2]));
        CHECK_OK(MPI_Put(&v2, 1, MPI_INT, 1, 1, 1, MPI_INT, w));
        CHECK_OK(MPIX_Win_iunlock(1, w, &r[3]));
        go_send(1);
        CHECK_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        MPI_Group_free(&g);
    } else if (me == 1) {
        late_post(w, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) CHECK(b[0] == 1 && b[1] == 2, "rule 3: %d %d", b[0], b[1]);
    done(&w);
}

/* Rule 4: any mix of blocking and nonblocking opening and closing. */
static void rule4(void)
{
    int *b;
    MPI_Win w = win(&b);
    int t = (me + 1) % np, v = me + 1;
    MPI_Request r;
    CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, t, 0, w, &r));
    CHECK_OK(MPI_Accumulate(&v, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, w));
    CHECK_OK(MPI_Win_unlock(t, w));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w));
    CHECK_OK(MPI_Accumulate(&v, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, w));
    CHECK_OK(MPIX_Win_iunlock(t, w, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    /* odd ranks fence nonblocking, even ranks blocking */
    if (me % 2) {
        CHECK_OK(MPIX_Win_ifence(0, w, &r));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        CHECK_OK(MPI_Win_fence(0, w));
    }
    int from = (me + np - 1) % np;
    CHECK(b[0] == 2 * (from + 1), "rule 4: %d", b[0]);
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
    done(&w);
}

/* Rule 5: an epoch whose open, close and flushes are all nonblocking never
 * blocks: against a lock held elsewhere, every call returns at once. */
static void rule5(void)
{
    int *b;
    MPI_Win w = win(&b);
    if (me == 1) {
        CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
        go_send(0);
        go_recv(0);
        CHECK_OK(MPI_Win_unlock(0, w));
    } else if (me == 0) {
        go_recv(1);
        MPI_Request r[3];
        int v = 5;
        CHECK_OK(MPIX_Win_ilock(MPI_LOCK_EXCLUSIVE, 0, 0, w, &r[0]));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, w));
        CHECK_OK(MPIX_Win_iflush(0, w, &r[1]));
        CHECK_OK(MPIX_Win_iunlock(0, w, &r[2]));
        CHECK(pending(&r[1]) && pending(&r[2]), "rule 5: flush/unlock completed while another process held the lock");
        CHECK(b[0] == 0, "rule 5: the put ran before the lock was granted");
        go_send(1);
        CHECK_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        CHECK(b[0] == 5, "rule 5: %d", b[0]);
    }
    done(&w);
}

/* Rule 6: intra-epoch ordering and atomicity are those of MPI-3. */
static void rule6(void)
{
    int *b;
    MPI_Win w = win(&b);
    MPI_Request r[2];
    int one = 1;
    CHECK_OK(MPIX_Win_ilock_all(0, w, &r[0]));
    for (int k = 0; k < 200; k++) CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w));
    if (me == np - 1) {
        int a = 1, c = 2;
        CHECK_OK(MPI_Accumulate(&a, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_REPLACE, w));
        CHECK_OK(MPI_Accumulate(&c, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_REPLACE, w));
    }
    CHECK_OK(MPIX_Win_iunlock_all(w, &r[1]));
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        CHECK(b[0] == 200 * np, "rule 6: atomic sums %d (want %d)", b[0], 200 * np);
        CHECK(b[1] == 2, "rule 6: accumulate order %d", b[1]);
    }
    done(&w);
}

/* Rule 7: FIFO matching of access and exposure epochs: the k-th exposure
 * of the target toward the origin matches its k-th access epoch. */
static void rule7(void)
{
    int *b;
    MPI_Win w = win(&b);
    MPI_Request r[8];
    MPI_Group g = g1(me == 0 ? 1 : 0);
    if (me == 0) {
        int v[4]; /* origin buffers stay untouched until their epoch completes */
        for (int k = 0; k < 4; k++) {
            v[k] = 10 + k;
            CHECK_OK(MPIX_Win_istart(g, 0, w, &r[2 * k]));
            CHECK_OK(MPI_Put(&v[k], 1, MPI_INT, 1, 0, 1, MPI_INT, w));
            CHECK_OK(MPI_Put(&v[k], 1, MPI_INT, 1, 1 + k, 1, MPI_INT, w));
            CHECK_OK(MPIX_Win_icomplete(w, &r[2 * k + 1]));
        }
        CHECK_OK(MPI_Waitall(8, r, MPI_STATUSES_IGNORE));
    } else if (me == 1) {
        for (int k = 0; k < 4; k++) {
            CHECK_OK(MPIX_Win_ipost(g, 0, w, &r[2 * k]));
            CHECK_OK(MPIX_Win_iwait(w, &r[2 * k + 1]));
        }
        CHECK_OK(MPI_Waitall(8, r, MPI_STATUSES_IGNORE));
        /* The last epoch's write wins, unless the reorder keys let the
         * epochs toward one target be active at once: the user must then
         * keep their regions disjoint (seed 002, "Reorder flags"), and b[0]
         * is not (seen: 11 in one run of 4 ranks with all four keys). */
        if (!(ro & (AAA | EAE))) CHECK(b[0] == 13, "rule 7: last write %d", b[0]);
        for (int k = 0; k < 4; k++) CHECK(b[1 + k] == 10 + k, "rule 7: epoch %d wrote %d", k, b[1 + k]);
    }
    MPI_Group_free(&g);
    done(&w);
}

/* Rule 8: serial activation: an epoch behind one that cannot activate
 * waits, even if it could activate by itself. */
static void rule8(void)
{
    int *b;
    MPI_Win w = win(&b);
    if (me == 0) {
        MPI_Group g = g1(1);
        MPI_Request r[4];
        int v = 8;
        CHECK_OK(MPIX_Win_istart(g, 0, w, &r[0]));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, w));
        CHECK_OK(MPIX_Win_icomplete(w, &r[1]));
        CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, 1, 0, w, &r[2]));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, w));
        CHECK_OK(MPIX_Win_iunlock(1, w, &r[3]));
        CHECK(pending(&r[3]), "rule 8: a later epoch completed before a deferred earlier one");
        go_send(1);
        CHECK_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        MPI_Group_free(&g);
    } else if (me == 1) {
        late_post(w, 0);
    }
    done(&w);
}

/* Rule 8 with A_A_A_R on: E0 = start toward 1 (late), E1 = lock toward 1
 * (deferred: 1 is a current target), E2 = lock toward 2, which the key
 * alone would let pass, stays behind the deferred E1. */
static void rule8_reorder(void)
{
    int *b;
    MPI_Win w = win(&b);
    if (me == 0) {
        MPI_Group g = g1(1);
        MPI_Request r[6];
        int v = 8;
        CHECK_OK(MPIX_Win_istart(g, 0, w, &r[0]));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, w));
        CHECK_OK(MPIX_Win_icomplete(w, &r[1]));
        CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, 1, 0, w, &r[2]));
        CHECK_OK(MPIX_Win_iunlock(1, w, &r[3]));
        CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, 2, 0, w, &r[4]));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 2, 1, 1, MPI_INT, w));
        CHECK_OK(MPIX_Win_iunlock(2, w, &r[5]));
        CHECK(pending(&r[5]), "rule 8: an epoch was activated past a deferred one");
        go_send(1);
        CHECK_OK(MPI_Waitall(6, r, MPI_STATUSES_IGNORE));
        MPI_Group_free(&g);
    } else if (me == 1) {
        late_post(w, 0);
    }
    done(&w);
}

/* Rule 9: ifence has the barrier semantics of fence, without blocking. */
static void rule9(void)
{
    int *b;
    MPI_Win w = win(&b);
    MPI_Request r;
    int v = 9;
    CHECK_OK(MPI_Win_fence(0, w));
    if (me == 1) CHECK_OK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, w));
    if (me == 0) {
        CHECK_OK(MPIX_Win_ifence(MPI_MODE_NOSUCCEED, w, &r));
        CHECK(pending(&r), "rule 9: ifence completed before every process fenced");
        go_send(1);
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(b[0] == 9, "rule 9: the peer's put is not visible after the fence: %d", b[0]);
    } else {
        if (me == 1) go_recv(0);
        CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
    }
    done(&w);
}

/* Rule 10: requests must be completed by the user: (a) a flush request
 * even after its epoch completed, (b) after Win_free. */
static void rule10(void)
{
    int *b;
    MPI_Win w = win(&b);
    int t = (me + 1) % np, v = 10;
    MPI_Request rf, ru, rl;
    CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, t, 0, w, &rl));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, t, me, 1, MPI_INT, w));
    CHECK_OK(MPIX_Win_iflush(t, w, &rf));
    CHECK_OK(MPIX_Win_iunlock(t, w, &ru));
    CHECK_OK(MPI_Wait(&ru, MPI_STATUS_IGNORE));
    CHECK(rf != MPI_REQUEST_NULL, "rule 10a: the flush request vanished");
    int flag = 0;
    CHECK_OK(MPI_Test(&rf, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && rf == MPI_REQUEST_NULL, "rule 10a: flush request not complete after its epoch");
    CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, t, 0, w, &rf));
    CHECK_OK(MPIX_Win_iunlock(t, w, &ru));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_Win_free(&w));
    CHECK_OK(MPI_Wait(&rf, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&ru, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&rl, MPI_STATUS_IGNORE));
}

/* Rule 11: the rules are per window: a deferred epoch on one window does
 * not hold back another window. */
static void rule11(void)
{
    int *b, *b2;
    MPI_Win w = win(&b), w2 = win(&b2);
    if (me == 0) {
        MPI_Group g = g1(1);
        MPI_Request r[4];
        int v = 11;
        CHECK_OK(MPIX_Win_istart(g, 0, w, &r[0]));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, w));
        CHECK_OK(MPIX_Win_icomplete(w, &r[1]));
        CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, 1, 0, w2, &r[2]));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, w2));
        CHECK_OK(MPIX_Win_iunlock(1, w2, &r[3]));
        CHECK(eventually(&r[3]), "rule 11: an epoch on another window was held back");
        CHECK(pending(&r[1]), "rule 11: the late epoch completed early");
        go_send(1);
        CHECK_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        MPI_Group_free(&g);
    } else if (me == 1) {
        late_post(w, 0);
    }
    done(&w2);
    done(&w);
}

/* Rules 12 and 13 (A_A_A_R): an access epoch after an active access epoch.
 * E1 = start toward 1 (late), E2 = start (12) or lock (13) toward 2,
 * E3 = lock toward 1, which is a target of the active E1: never reordered. */
static void rule12_13(int lock)
{
    int *b;
    MPI_Win w = win(&b);
    if (me == 0) {
        MPI_Group ga = g1(1), gb = g1(2);
        MPI_Request r[6];
        int v = 12;
        CHECK_OK(MPIX_Win_istart(ga, 0, w, &r[0]));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, w));
        CHECK_OK(MPIX_Win_icomplete(w, &r[1]));
        if (lock) CHECK_OK(MPIX_Win_ilock(MPI_LOCK_EXCLUSIVE, 2, 0, w, &r[2]));
        else CHECK_OK(MPIX_Win_istart(gb, 0, w, &r[2]));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 2, 0, 1, MPI_INT, w));
        if (lock) CHECK_OK(MPIX_Win_iunlock(2, w, &r[3]));
        else CHECK_OK(MPIX_Win_icomplete(w, &r[3]));
        if (ro & AAA) CHECK(eventually(&r[3]), "rule %d: A_A_A_R did not let the epoch toward 2 pass", 12 + lock);
        else CHECK(pending(&r[3]), "rule %d: without A_A_A_R the epoch toward 2 passed the late one", 12 + lock);
        CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, 1, 0, w, &r[4]));
        CHECK_OK(MPIX_Win_iunlock(1, w, &r[5]));
        if (lock) CHECK(pending(&r[5]), "rule 13: a lock toward a current target was activated");
        go_send(1);
        CHECK_OK(MPI_Waitall(6, r, MPI_STATUSES_IGNORE));
        MPI_Group_free(&ga);
        MPI_Group_free(&gb);
    } else if (me == 1) {
        late_post(w, 0);
    } else if (me == 2 && !lock) {
        post_wait(w, 0);
    }
    done(&w);
}

/* Rules 14 and 15 (A_A_E_R): an access epoch after an active exposure. */
static void rule14_15(int lock)
{
    int *b;
    MPI_Win w = win(&b);
    if (me == 0) {
        MPI_Group ga = g1(1), gb = g1(2);
        MPI_Request r[4];
        int v = 14;
        CHECK_OK(MPIX_Win_ipost(ga, 0, w, &r[0]));
        CHECK_OK(MPIX_Win_iwait(w, &r[1]));
        if (lock) CHECK_OK(MPIX_Win_ilock(MPI_LOCK_EXCLUSIVE, 2, 0, w, &r[2]));
        else CHECK_OK(MPIX_Win_istart(gb, 0, w, &r[2]));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 2, 0, 1, MPI_INT, w));
        if (lock) CHECK_OK(MPIX_Win_iunlock(2, w, &r[3]));
        else CHECK_OK(MPIX_Win_icomplete(w, &r[3]));
        if (ro & AAE) CHECK(eventually(&r[3]), "rule %d: A_A_E_R did not let the access pass", 14 + lock);
        else CHECK(pending(&r[3]), "rule %d: without A_A_E_R the access passed the exposure", 14 + lock);
        go_send(1);
        CHECK_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        MPI_Group_free(&ga);
        MPI_Group_free(&gb);
    } else if (me == 1) {
        go_recv(0);
        start_put_complete(w, 0, 1, 1);
    } else if (me == 2 && !lock) {
        post_wait(w, 0);
    }
    done(&w);
}

/* Rule 16 (E_A_E_R): an exposure after an active exposure; never while the
 * local window is locked. Rule 17 (E_A_A_R): an exposure after an active
 * access epoch. */
static void rule16_17(int after_access, int locked)
{
    int *b;
    MPI_Win w = win(&b);
    int rule = after_access ? 17 : 16;
    unsigned flag = after_access ? EAA : EAE;
    if (me == 0) {
        MPI_Group ga = g1(1), gb = g1(2);
        MPI_Request r[4];
        int v = 16;
        if (locked) go_recv(3); /* rank 3 holds a lock on my window */
        if (after_access) {
            CHECK_OK(MPIX_Win_istart(ga, 0, w, &r[0]));
            CHECK_OK(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, w));
            CHECK_OK(MPIX_Win_icomplete(w, &r[1]));
        } else {
            CHECK_OK(MPIX_Win_ipost(ga, 0, w, &r[0]));
            CHECK_OK(MPIX_Win_iwait(w, &r[1]));
        }
        CHECK_OK(MPIX_Win_ipost(gb, 0, w, &r[2]));
        CHECK_OK(MPIX_Win_iwait(w, &r[3]));
        if ((ro & flag) && !locked) CHECK(eventually(&r[3]), "rule %d: the reorder key did not let the exposure pass", rule);
        else CHECK(pending(&r[3]), "rule %d: the exposure passed%s", rule, locked ? " while the window was locked" : "");
        if (locked) go_send(3);
        go_send(1);
        CHECK_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        MPI_Group_free(&ga);
        MPI_Group_free(&gb);
    } else if (me == 1) {
        if (after_access) late_post(w, 0);
        else {
            go_recv(0);
            start_put_complete(w, 0, 1, 1);
        }
    } else if (me == 2) {
        start_put_complete(w, 0, 2, 2);
    } else if (me == 3 && locked) {
        CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
        go_send(0);
        go_recv(0);
        CHECK_OK(MPI_Win_unlock(0, w));
    }
    done(&w);
}

/* Rule 18: an epoch next to a fence waits for the fence epoch to complete,
 * whatever the reorder keys. */
static void rule18(void)
{
    int *b;
    MPI_Win w = win(&b);
    if (me == 0) {
        MPI_Request r[3];
        CHECK_OK(MPIX_Win_ifence(0, w, &r[0]));
        CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, 0, 0, w, &r[1]));
        CHECK_OK(MPIX_Win_iunlock(0, w, &r[2]));
        CHECK(pending(&r[2]), "rule 18: an epoch after a fence ran before the fence completed");
        go_send(1);
        CHECK_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    } else {
        if (me == 1) go_recv(0);
        CHECK_OK(MPI_Win_fence(0, w));
    }
    done(&w);
}

/* Rule 19: the same for lock_all. */
static void rule19(void)
{
    int *b;
    MPI_Win w = win(&b);
    if (me == 2) {
        CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w));
        go_send(0);
        go_recv(0);
        CHECK_OK(MPI_Win_unlock(1, w));
    } else if (me == 0) {
        go_recv(2);
        MPI_Request r[4];
        CHECK_OK(MPIX_Win_ilock_all(0, w, &r[0]));
        CHECK_OK(MPIX_Win_iunlock_all(w, &r[1]));
        CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, 2, 0, w, &r[2]));
        CHECK_OK(MPIX_Win_iunlock(2, w, &r[3]));
        CHECK(pending(&r[3]), "rule 19: an epoch after lock_all ran before lock_all completed");
        go_send(2);
        CHECK_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    }
    done(&w);
}

/* A target computing outside MPI still grants: exposure (its ipost),
 * locks and fences complete at the origin while the target computes. */
static void computing_target(void)
{
    int *b;
    MPI_Win w = win(&b);
    MPI_Group g = g1(me == 0 ? 1 : 0);
    if (me == 1) {
        MPI_Request r[2];
        CHECK_OK(MPIX_Win_ipost(g, 0, w, &r[0]));
        CHECK_OK(MPIX_Win_iwait(w, &r[1]));
        /* compute in slices; the probes between them cannot help the
         * origin, whose epochs need nothing more from this process */
        int flag = 0;
        for (int k = 0; k < 100 && !flag; k++) {
            compute_us(50000);
            CHECK_OK(MPI_Iprobe(0, TAG_GO, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        }
        CHECK(flag, "the origin's epoch did not complete while the target computed");
        go_recv(0);
        CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(b[0] == 77 && b[1] == 78, "computing target: %d %d", b[0], b[1]);
    } else if (me == 0) {
        start_put_complete(w, 1, 77, 0);
        CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w));
        int v = 78;
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, w));
        CHECK_OK(MPI_Win_unlock(1, w));
        go_send(1);
    }
    MPI_Group_free(&g);
    done(&w);
}

/* An origin computing outside MPI after closing its epoch does not hold the
 * target back: the target copies the origin's recorded put itself. The
 * origin makes no MPI call until the target says (through shared memory)
 * that its Win_wait returned. */
static void computing_origin(void)
{
    int *b;
    MPI_Win w;
    CHECK_OK(MPI_Win_allocate_shared(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w));
    memset(b, 0, 16 * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Group g = g1(me == 0 ? 1 : 0);
    if (me == 0) {
        volatile int *flag;
        MPI_Aint sz;
        int du;
        CHECK_OK(MPI_Win_shared_query(w, 1, &sz, &du, (void *)&flag));
        MPI_Request r[2];
        int v[64];
        for (int i = 0; i < 64 && i < 8; i++) v[i] = 500 + i;
        CHECK_OK(MPIX_Win_istart(g, 0, w, &r[0]));
        CHECK_OK(MPI_Put(v, 8, MPI_INT, 1, 0, 8, MPI_INT, w));
        CHECK_OK(MPIX_Win_icomplete(w, &r[1]));
        go_send(1);
        double t0 = MPI_Wtime();
        while (!flag[15] && MPI_Wtime() - t0 < 20) {
        }
        CHECK(flag[15] == 1, "the target's epoch did not complete while the origin computed");
        CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    } else if (me == 1) {
        go_recv(0);
        CHECK_OK(MPI_Win_post(g, 0, w));
        CHECK_OK(MPI_Win_wait(w));
        CHECK(b[0] == 500 && b[7] == 507, "delegated put: %d %d", b[0], b[7]);
        ((volatile int *)b)[15] = 1;
    }
    MPI_Group_free(&g);
    done(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("rma_rules");
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *e = getenv("FERRY_RMA_REORDER");
    ro = e ? (unsigned)atoi(e) : 0;
    if (!fy_is_ferry()) ro = 0;
    rule1();
    if (np >= 2) {
        rule2(); rule3(); rule4(); rule5(); rule6(); rule7(); rule8(); rule9(); rule10(); rule11();
        rule18();
        computing_target();
        computing_origin();
    }
    if (np >= 3) {
        rule12_13(0); rule12_13(1);
        rule14_15(0); rule14_15(1);
        rule16_17(0, 0); rule16_17(1, 0);
        rule19();
        if (ro & AAA) rule8_reorder();
    }
    if (np >= 4) {
        rule16_17(0, 1); rule16_17(1, 1);
    }
    return fy_finish();
}
