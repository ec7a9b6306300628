/* Status fields and counts: Get_count/Get_elements with the received type
 * and others (MPI_UNDEFINED when the byte count is not a multiple), a status
 * from Recv with MPI_STATUS_IGNORE, truncation reported as MPI_ERR_TRUNCATE
 * under MPI_ERRORS_RETURN (Recv, Wait, Waitall -> MPI_ERR_IN_STATUS with the
 * status' MPI_ERROR) for eager and rendezvous sizes; afterwards the receiver
 * and the sender keep working. Pairs (0,1), (2,3). Also counts of 63 bits
 * in a status. */
#include "fytest.h"

#define TAG_GO 700

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_status");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = fy_rank_, size = fy_size_;
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    MPI_Status st;
    int cnt, el, rc;
    char *buf = malloc(400000);

    /* Counts of 63 bits survive a status (the high word's sign bit is
     * count bit 62: MPICH's big_count_status), cancelled or not. */
    static const MPI_Count bigc[] = {60, 0x3654321f71234567LL, 0x7654321f71234567LL, 0x7654321ff1234567LL};
    for (int i = 0; i < 4; i++)
        for (int canc = 0; canc < 2; canc++) {
            MPI_Count got = -1;
            int flag = -1;
            CHECK_OK(MPI_Status_set_cancelled(&st, canc));
            CHECK_OK(MPI_Status_set_elements_x(&st, MPI_BYTE, bigc[i]));
            CHECK_OK(MPI_Get_elements_x(&st, MPI_BYTE, &got));
            CHECK_OK(MPI_Test_cancelled(&st, &flag));
            CHECK(got == bigc[i] && flag == canc, "status count %llx (cancelled %d): %llx, %d",
                  (long long)bigc[i], canc, (long long)got, flag);
        }

    if (peer < size && rank % 2 == 0) {
        int ints[10];
        for (int i = 0; i < 10; i++) ints[i] = i * i;
        CHECK_OK(MPI_Send(ints, 10, MPI_INT, peer, 1, MPI_COMM_WORLD));
        CHECK_OK(MPI_Send(ints, 7, MPI_BYTE, peer, 2, MPI_COMM_WORLD));
        CHECK_OK(MPI_Send(ints, 3, MPI_INT, peer, 3, MPI_COMM_WORLD));
        /* truncation: eager, rendezvous; then messages that must still work */
        static const int big[] = {100, 16385, 300000};
        for (int i = 0; i < 3; i++) {
            fy_fill(buf, big[i], (unsigned)i);
            CHECK_OK(MPI_Send(buf, big[i], MPI_BYTE, peer, 10 + i, MPI_COMM_WORLD));
            rc = MPI_Send(buf, big[i], MPI_BYTE, peer, 20 + i, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "sender saw error %d for a message truncated at the receiver", rc);
            CHECK_OK(MPI_Send(buf, big[i], MPI_BYTE, peer, 30 + i, MPI_COMM_WORLD));
            CHECK_OK(MPI_Send(buf, big[i], MPI_BYTE, peer, 40 + i, MPI_COMM_WORLD));
        }
    } else if (peer < size) {
        int v[10];
        CHECK_OK(MPI_Recv(v, 10, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_INT, &cnt);
        MPI_Get_elements(&st, MPI_INT, &el);
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 1 && cnt == 10 && el == 10 && v[9] == 81,
              "ints: source %d tag %d count %d elements %d", st.MPI_SOURCE, st.MPI_TAG, cnt, el);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == 40, "count in bytes %d", cnt);
        MPI_Get_count(&st, MPI_DOUBLE, &cnt);
        CHECK(cnt == 5, "count in doubles %d", cnt);
        MPI_Count c8 = -1;
        MPI_Get_elements_x(&st, MPI_SHORT, &c8);
        CHECK(c8 == 20, "Get_elements_x shorts %lld", (long long)c8);
        /* 7 bytes: not a whole number of ints */
        CHECK_OK(MPI_Recv(v, 10, MPI_INT, peer, 2, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_INT, &cnt);
        MPI_Get_elements(&st, MPI_INT, &el);
        CHECK(cnt == MPI_UNDEFINED, "Get_count of 7 bytes as MPI_INT: %d, expected MPI_UNDEFINED", cnt);
        CHECK(el == MPI_UNDEFINED, "Get_elements of 7 bytes as MPI_INT: %d, expected MPI_UNDEFINED", el);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == 7, "7 bytes counted as %d", cnt);
        /* STATUS_IGNORE */
        CHECK_OK(MPI_Recv(v, 10, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v[2] == 4, "Recv with STATUS_IGNORE data");

        static const int big[] = {100, 16385, 300000};
        for (int i = 0; i < 3; i++) {
            int n = big[i], small = n / 2;
            /* blocking Recv */
            st.MPI_ERROR = MPI_SUCCESS;
            rc = MPI_Recv(buf, small, MPI_BYTE, peer, 10 + i, MPI_COMM_WORLD, &st);
            CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 10 + i, "truncated Recv status source %d tag %d",
                  st.MPI_SOURCE, st.MPI_TAG);
            /* Irecv + Wait */
            MPI_Request r;
            CHECK_OK(MPI_Irecv(buf, small, MPI_BYTE, peer, 20 + i, MPI_COMM_WORLD, &r));
            rc = MPI_Wait(&r, &st);
            CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
            CHECK(r == MPI_REQUEST_NULL, "truncated request not freed");
            /* Waitall: MPI_ERR_IN_STATUS; the good one MPI_SUCCESS */
            MPI_Request rr[2];
            MPI_Status sts[2];
            char *good = malloc(n);
            CHECK_OK(MPI_Irecv(buf, small, MPI_BYTE, peer, 30 + i, MPI_COMM_WORLD, &rr[0]));
            CHECK_OK(MPI_Irecv(good, n, MPI_BYTE, peer, 40 + i, MPI_COMM_WORLD, &rr[1]));
            sts[0].MPI_ERROR = sts[1].MPI_ERROR = -12345;
            rc = MPI_Waitall(2, rr, sts);
            CHECK_CLASS(rc, MPI_ERR_IN_STATUS);
            CHECK_CLASS(sts[0].MPI_ERROR, MPI_ERR_TRUNCATE);
            /* the standard allows MPI_ERR_PENDING for a request not yet complete */
            CHECK(sts[1].MPI_ERROR == MPI_SUCCESS || sts[1].MPI_ERROR == MPI_ERR_PENDING,
                  "good receive in Waitall has MPI_ERROR %d", sts[1].MPI_ERROR);
            if (sts[1].MPI_ERROR == MPI_ERR_PENDING) CHECK_OK(MPI_Wait(&rr[1], &sts[1]));
            CHECK(rr[0] == MPI_REQUEST_NULL, "truncated request of Waitall not freed");
            CHECK(fy_verify(good, n, (unsigned)i) == (size_t)-1, "payload after truncation, size %d", n);
            free(good);
        }
    }
    /* both sides still work: a last exchange */
    if (peer < size) {
        int x = rank, y = -1;
        CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, peer, 99, &y, 1, MPI_INT, peer, 99, MPI_COMM_WORLD, &st));
        CHECK(y == peer, "final exchange got %d", y);
    }
    free(buf);
    return fy_finish();
}
