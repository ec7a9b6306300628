/* Requests of small sends that left at once. In Ferry every MPI_Isend or
 * MPI_Irsend of an eager message the ring takes at once returns one shared,
 * complete request (FY_REQ_SENT, src/core/fy_request.h). What is checked is
 * what the standard promises of any send request, so the test holds for
 * every implementation:
 * - Wait/Test/Waitany/Waitsome/Testall set the handle to MPI_REQUEST_NULL;
 *   the same handle value may appear several times in one array;
 * - Request_get_status reports completion and leaves the handle usable;
 * - Request_free and Cancel of a send that left: the message is delivered,
 *   Test_cancelled says false;
 * - MPI_Start refuses it (not persistent), with MPI_ERR_REQUEST;
 * - a long run of small sends, far more than the ring holds, mixing sends
 *   that left at once with queued ones, arrives complete and in order.
 * Pairs (0,1), (2,3): the even rank sends. */
#include "fytest.h"

#define TAG_GO 700
#define NSTREAM 5000

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_sent_req");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = fy_rank_, size = fy_size_;
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size) return fy_finish();
    MPI_Status st, sts[8];
    int flag, idx, outc, idxs[8];

    if (rank % 2 == 0) {
        int v[8];
        MPI_Request rq[8];
        for (int i = 0; i < 8; i++) v[i] = rank * 1000 + i;

        /* Wait, Test */
        CHECK_OK(MPI_Isend(&v[0], 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[0]));
        CHECK_OK(MPI_Wait(&rq[0], &st));
        CHECK(rq[0] == MPI_REQUEST_NULL, "Wait left the handle");
        CHECK_OK(MPI_Irsend(&v[1], 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[1]));
        flag = 0;
        while (!flag) CHECK_OK(MPI_Test(&rq[1], &flag, &st));
        CHECK(rq[1] == MPI_REQUEST_NULL, "Test left the handle");
        int c = 0;
        CHECK(!MPI_Test_cancelled(&st, &c) && !c, "Test_cancelled of a send: %d", c);

        /* Request_get_status: complete, handle still valid */
        CHECK_OK(MPI_Isend(&v[2], 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &rq[2]));
        flag = 0;
        while (!flag) CHECK_OK(MPI_Request_get_status(rq[2], &flag, &st));
        CHECK(rq[2] != MPI_REQUEST_NULL, "Request_get_status freed the request");
        CHECK_OK(MPI_Request_get_status(rq[2], &flag, &st));
        CHECK(flag, "Request_get_status twice: flag %d", flag);
        /* MPI_Start: not a persistent request */
        int rc = MPI_Start(&rq[2]);
        CHECK_CLASS(rc, MPI_ERR_REQUEST);
        CHECK_OK(MPI_Wait(&rq[2], MPI_STATUS_IGNORE));
        CHECK(rq[2] == MPI_REQUEST_NULL, "Wait after get_status left the handle");

        /* Request_free; Cancel of a send that left */
        CHECK_OK(MPI_Isend(&v[3], 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &rq[3]));
        CHECK_OK(MPI_Request_free(&rq[3]));
        CHECK(rq[3] == MPI_REQUEST_NULL, "Request_free left the handle");
        CHECK_OK(MPI_Isend(&v[4], 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq[4]));
        CHECK_OK(MPI_Cancel(&rq[4]));
        CHECK_OK(MPI_Wait(&rq[4], &st));
        c = 1;
        MPI_Test_cancelled(&st, &c);
        CHECK(!c, "a send that left reported cancelled");

        /* one array, the same handle value several times */
        for (int i = 0; i < 8; i++)
            CHECK_OK(MPI_Isend(&v[i], 1, MPI_INT, peer, 10 + i, MPI_COMM_WORLD, &rq[i]));
        CHECK_OK(MPI_Waitany(8, rq, &idx, &st));
        CHECK(idx >= 0 && idx < 8 && rq[idx] == MPI_REQUEST_NULL, "Waitany index %d", idx);
        CHECK_OK(MPI_Waitsome(8, rq, &outc, idxs, sts));
        CHECK(outc >= 1 && outc <= 7, "Waitsome outcount %d", outc);
        for (int k = 0; k < outc; k++)
            CHECK(rq[idxs[k]] == MPI_REQUEST_NULL, "Waitsome slot %d", idxs[k]);
        flag = 0;
        while (!flag) CHECK_OK(MPI_Testall(8, rq, &flag, sts));
        for (int i = 0; i < 8; i++)
            CHECK(rq[i] == MPI_REQUEST_NULL, "Testall left slot %d", i);

        /* a long stream: half of each window of 64 waited on at once, the rest at the end */
        static int sv[NSTREAM];
        static MPI_Request srq[NSTREAM];
        for (int i = 0; i < NSTREAM; i++) {
            sv[i] = i;
            CHECK_OK(MPI_Isend(&sv[i], 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &srq[i]));
            if (i % 64 == 63) CHECK_OK(MPI_Waitall(32, &srq[i - 63], MPI_STATUSES_IGNORE));
        }
        CHECK_OK(MPI_Waitall(NSTREAM, srq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < NSTREAM; i++)
            CHECK(srq[i] == MPI_REQUEST_NULL, "stream request %d left", i);
        CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        int v = -1;
        for (int t = 1; t <= 5; t++) {
            CHECK_OK(MPI_Recv(&v, 1, MPI_INT, peer, t, MPI_COMM_WORLD, &st));
            CHECK(v == peer * 1000 + t - 1, "tag %d: got %d", t, v);
        }
        for (int i = 0; i < 8; i++) {
            CHECK_OK(MPI_Recv(&v, 1, MPI_INT, peer, 10 + i, MPI_COMM_WORLD, &st));
            CHECK(v == peer * 1000 + i, "array tag %d: got %d", 10 + i, v);
        }
        /* the receiver lags: most of the stream finds the ring full */
        fy_spin_us(20000);
        for (int i = 0; i < NSTREAM; i++) {
            CHECK_OK(MPI_Recv(&v, 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &st));
            if (v != i) {
                CHECK(0, "stream message %d arrived as %d", i, v);
                break;
            }
        }
        CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
    }
    return fy_finish();
}
