/* Partitioned communication (MPI 4.1 ch. 4) in a ring: each rank sends to
 * rank+1 and receives from rank-1 (itself at -n 1).
 * - equal partitioning on both sides, several Start/Wait epochs, payload
 *   changing every epoch, eager and rendezvous sizes;
 * - a different partitioning of the same bytes on the receive side;
 * - Pready out of order, Pready_range, Pready_list, Startall;
 * - Parrived polling: false before the sender is ready (the sender waits
 *   for a barrier), true for every receive partition afterwards, true on
 *   an inactive request;
 * - a derived (vector) datatype on the send side, contiguous on the receive;
 * - two pairs on the same (peer, tag) made ready in the opposite order of
 *   their init (pairing follows init order, not readiness);
 * - MPI_PROC_NULL peers, Request_get_status, Test, Waitall, Request_free. */
#include "fytest.h"

static MPI_Comm comm;
static int rank, size, next, prev;

/* Rank r's payload for epoch e: ints r*1000000 + e*1000 + i. */
static int val(int r, int e, int i) { return r * 1000000 + e * 1000 + i; }

/* One pattern: sparts x scount ints sent, rparts x rcount received. */
static void ring(int sparts, int scount, int rparts, int rcount, int epochs, int how)
{
    int n = sparts * scount;
    CHECK(n == rparts * rcount, "bad test");
    int *sb = malloc(sizeof(int) * (n ? n : 1)), *rb = malloc(sizeof(int) * (n ? n : 1));
    MPI_Request s, r;
    CHECK_OK(MPI_Psend_init(sb, sparts, scount, MPI_INT, next, 5, comm, MPI_INFO_NULL, &s));
    CHECK_OK(MPI_Precv_init(rb, rparts, rcount, MPI_INT, prev, 5, comm, MPI_INFO_NULL, &r));
    for (int e = 0; e < epochs; e++) {
        for (int i = 0; i < n; i++) sb[i] = val(rank, e, i), rb[i] = -1;
        if (how == 3) {
            MPI_Request both[2] = {r, s};
            CHECK_OK(MPI_Startall(2, both));
        } else {
            CHECK_OK(MPI_Start(&r));
            CHECK_OK(MPI_Start(&s));
        }
        /* Nobody has marked anything yet: no partition may have arrived. */
        if (n > 0)
            for (int i = 0; i < rparts; i++) {
                int f = 1;
                CHECK_OK(MPI_Parrived(r, i, &f));
                CHECK(!f, "partition %d arrived before any Pready (epoch %d)", i, e);
            }
        MPI_Barrier(comm);
        switch (how) {
        case 0: /* in order */
        case 3:
            for (int i = 0; i < sparts; i++) CHECK_OK(MPI_Pready(i, s));
            break;
        case 1: /* reverse order, then odd before even */
            for (int i = sparts - 1; i >= 0; i -= 2) CHECK_OK(MPI_Pready(i, s));
            for (int i = sparts - 2; i >= 0; i -= 2) CHECK_OK(MPI_Pready(i, s));
            break;
        case 2: { /* ranges and a shuffled list */
            int half = sparts / 2;
            if (half > 0) CHECK_OK(MPI_Pready_range(0, half - 1, s));
            int *l = malloc(sizeof(int) * (sparts - half + 1));
            for (int i = 0; i < sparts - half; i++) l[i] = sparts - 1 - i;
            CHECK_OK(MPI_Pready_list(sparts - half, l, s));
            free(l);
            break;
        }
        }
        /* Poll every receive partition until it has arrived. */
        for (int i = 0; i < rparts; i++) {
            int f = 0;
            while (!f) CHECK_OK(MPI_Parrived(r, i, &f));
        }
        MPI_Status st;
        int flag = 0;
        while (!flag) CHECK_OK(MPI_Request_get_status(r, &flag, &st));
        CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 5, "get_status source %d tag %d", st.MPI_SOURCE,
              st.MPI_TAG);
        if (e % 2) {
            MPI_Request both[2] = {s, r};
            MPI_Status sts[2];
            CHECK_OK(MPI_Waitall(2, both, sts));
            st = sts[1];
            CHECK(both[0] == s && both[1] == r, "Waitall freed a persistent request");
        } else {
            CHECK_OK(MPI_Wait(&r, &st));
            flag = 0;
            while (!flag) CHECK_OK(MPI_Test(&s, &flag, MPI_STATUS_IGNORE));
        }
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == n && st.MPI_SOURCE == prev && st.MPI_TAG == 5,
              "status count %d source %d tag %d (expected %d %d 5)", cnt, st.MPI_SOURCE, st.MPI_TAG, n, prev);
        int bad = 0;
        for (int i = 0; i < n; i++) bad += rb[i] != val(prev, e, i);
        CHECK(!bad, "%d wrong ints (%dx%d -> %dx%d, how %d, epoch %d)", bad, sparts, scount, rparts,
              rcount, how, e);
        /* Inactive again: Parrived is true. */
        if (rparts > 0) {
            int f = 0;
            CHECK_OK(MPI_Parrived(r, 0, &f));
            CHECK(f, "Parrived false on an inactive request");
        }
    }
    CHECK_OK(MPI_Request_free(&s));
    CHECK_OK(MPI_Request_free(&r));
    CHECK(s == MPI_REQUEST_NULL && r == MPI_REQUEST_NULL, "Request_free did not null");
    free(sb);
    free(rb);
}

/* Vector type on the send side (every other int), contiguous receive. */
static void derived(void)
{
    enum { P = 4, C = 3, N = P * C };
    int sb[2 * N], rb[N];
    MPI_Datatype v;
    MPI_Type_vector(C, 1, 2, MPI_INT, &v);
    MPI_Datatype vr;
    MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * C * sizeof(int)), &vr);
    MPI_Type_commit(&vr);
    MPI_Type_free(&v);
    MPI_Request s, r;
    CHECK_OK(MPI_Psend_init(sb, P, 1, vr, next, 6, comm, MPI_INFO_NULL, &s));
    CHECK_OK(MPI_Precv_init(rb, 2, N / 2, MPI_INT, prev, 6, comm, MPI_INFO_NULL, &r));
    MPI_Type_free(&vr); /* the requests keep it */
    for (int e = 0; e < 3; e++) {
        for (int i = 0; i < 2 * N; i++) sb[i] = (i % 2) ? -7 : val(rank, e, i / 2);
        for (int i = 0; i < N; i++) rb[i] = -1;
        CHECK_OK(MPI_Start(&r));
        CHECK_OK(MPI_Start(&s));
        for (int i = P - 1; i >= 0; i--) CHECK_OK(MPI_Pready(i, s));
        CHECK_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        int bad = 0;
        for (int i = 0; i < N; i++) bad += rb[i] != val(prev, e, i);
        CHECK(!bad, "derived: %d wrong ints in epoch %d", bad, e);
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
}

/* Two pairs on one (peer, tag): the second made ready first. Pairing
 * follows the order of init calls, so each receive gets its own data. */
static void two_pairs(void)
{
    int sa[64] = {0}, sb2[64] = {0}, ra[64], rb2[64];
    MPI_Request s1, s2, r1, r2;
    CHECK_OK(MPI_Psend_init(sa, 2, 32, MPI_INT, next, 9, comm, MPI_INFO_NULL, &s1));
    CHECK_OK(MPI_Psend_init(sb2, 4, 16, MPI_INT, next, 9, comm, MPI_INFO_NULL, &s2));
    CHECK_OK(MPI_Precv_init(ra, 1, 64, MPI_INT, prev, 9, comm, MPI_INFO_NULL, &r1));
    CHECK_OK(MPI_Precv_init(rb2, 8, 8, MPI_INT, prev, 9, comm, MPI_INFO_NULL, &r2));
    for (int i = 0; i < 64; i++) sa[i] = val(rank, 1, i), sb2[i] = val(rank, 2, i), ra[i] = rb2[i] = -1;
    MPI_Request all[4] = {r1, r2, s1, s2};
    CHECK_OK(MPI_Startall(4, all));
    for (int i = 0; i < 4; i++) CHECK_OK(MPI_Pready(i, s2));
    /* let the second pair's message travel before the first's */
    int f = 0;
    for (int i = 0; i < 8; i++) {
        f = 0;
        while (!f) CHECK_OK(MPI_Parrived(r2, i, &f));
    }
    CHECK_OK(MPI_Pready_range(0, 1, s1));
    CHECK_OK(MPI_Waitall(4, all, MPI_STATUSES_IGNORE));
    int bad = 0;
    for (int i = 0; i < 64; i++) bad += (ra[i] != val(prev, 1, i)) + (rb2[i] != val(prev, 2, i));
    CHECK(!bad, "two pairs: %d wrong ints", bad);
    for (int i = 0; i < 4; i++) MPI_Request_free(&all[i]);
}

/* PROC_NULL peers: Start completes the receive at once; the send after its
 * partitions are ready; statuses say PROC_NULL. */
static void proc_null(void)
{
    int b[8] = {0};
    MPI_Request s, r;
    MPI_Status st;
    CHECK_OK(MPI_Psend_init(b, 2, 4, MPI_INT, MPI_PROC_NULL, 1, comm, MPI_INFO_NULL, &s));
    CHECK_OK(MPI_Precv_init(b, 4, 2, MPI_INT, MPI_PROC_NULL, 1, comm, MPI_INFO_NULL, &r));
    for (int e = 0; e < 2; e++) {
        CHECK_OK(MPI_Start(&s));
        CHECK_OK(MPI_Start(&r));
        int f = 0;
        CHECK_OK(MPI_Parrived(r, 3, &f));
        CHECK(f, "PROC_NULL partition not arrived");
        CHECK_OK(MPI_Pready_range(0, 1, s));
        CHECK_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Wait(&r, &st));
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0, "PROC_NULL status source %d count %d",
              st.MPI_SOURCE, cnt);
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_part");
    rank = fy_rank_;
    size = fy_size_;
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int big = 40000; /* 160 KB: a rendezvous on every transport setting */
    for (int how = 0; how < 4; how++) {
        ring(4, 8, 4, 8, 3, how);          /* equal partitioning */
        ring(4, 8, 2, 16, 3, how);         /* receiver coarser */
        ring(3, 10, 5, 6, 2, how);         /* different, neither divides the other */
        ring(8, big / 8, 5, big / 5, 2, how); /* rendezvous size */
    }
    ring(1, 1, 1, 1, 2, 0);
    ring(2, 0, 1, 0, 2, 0);                /* no bytes */
    ring(0, 7, 1, 0, 2, 0);                /* no partition: leaves at Start */
    derived();
    two_pairs();
    proc_null();
    MPI_Comm_free(&comm);
    return fy_finish();
}
