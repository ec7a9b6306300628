/* Cancel of posted receives: Test_cancelled is true, the buffer is untouched,
 * and the cancelled receive never takes the message sent afterwards, which a
 * new receive gets. Specific and wildcard receives, eager and rendezvous.
 * A receive that already completed cannot be cancelled (Test_cancelled false). */
#include "fytest.h"

#define TAG_GO 500

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_cancel");
    int rank = fy_rank_, size = fy_size_;
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    static const int ns[] = {4, 100000};
    char *buf = malloc(100000), *buf2 = malloc(100000);
    MPI_Status st;
    int flag;

    /* Local: cancel receives nobody will ever match, in several forms. */
    for (int k = 0; k < 3; k++) {
        MPI_Request r;
        int src = k == 0 ? rank : MPI_ANY_SOURCE, tag = k == 1 ? MPI_ANY_TAG : 4242;
        if (k == 1) src = rank;
        memset(buf, 0x5A, 16);
        CHECK_OK(MPI_Irecv(buf, 16, MPI_BYTE, src, k == 1 ? tag : 4242 + k, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Cancel(&r));
        if (k == 2) { flag = 0; while (!flag) CHECK_OK(MPI_Test(&r, &flag, &st)); }
        else CHECK_OK(MPI_Wait(&r, &st));
        flag = 0;
        CHECK_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "form %d: Test_cancelled false after Cancel of an unmatched receive", k);
        CHECK(buf[0] == 0x5A && buf[15] == 0x5A, "cancelled receive wrote the buffer");
    }

    if (peer < size) {
        for (int i = 0; i < 2; i++) {
            int n = ns[i];
            if (rank % 2 == 1) {
                MPI_Request r1, r2;
                memset(buf, 0x11, n);
                CHECK_OK(MPI_Irecv(buf, n, MPI_BYTE, i ? MPI_ANY_SOURCE : peer, 7, MPI_COMM_WORLD, &r1));
                CHECK_OK(MPI_Cancel(&r1));
                CHECK_OK(MPI_Wait(&r1, &st));
                CHECK_OK(MPI_Test_cancelled(&st, &flag));
                CHECK(flag, "size %d: receive not cancelled", n);
                /* now let the sender send; a fresh receive must get it */
                CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
                CHECK_OK(MPI_Irecv(buf2, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &r2));
                CHECK_OK(MPI_Wait(&r2, &st));
                CHECK_OK(MPI_Test_cancelled(&st, &flag));
                CHECK(!flag, "size %d: completed receive reports cancelled", n);
                CHECK(fy_verify(buf2, n, (unsigned)n) == (size_t)-1, "size %d: payload", n);
                CHECK(buf[0] == 0x11 && buf[n - 1] == 0x11, "size %d: the cancelled receive got data", n);
                /* cancel after completion has no effect */
                CHECK_OK(MPI_Irecv(buf2, n, MPI_BYTE, peer, 8, MPI_COMM_WORLD, &r2));
                CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
                flag = 0;
                while (!flag) CHECK_OK(MPI_Request_get_status(r2, &flag, &st));
                CHECK_OK(MPI_Cancel(&r2));
                CHECK_OK(MPI_Wait(&r2, &st));
                CHECK_OK(MPI_Test_cancelled(&st, &flag));
                CHECK(!flag, "size %d: Cancel after completion cancelled the receive", n);
                CHECK(fy_verify(buf2, n, (unsigned)n + 1) == (size_t)-1, "size %d: payload 2", n);
            } else {
                CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                fy_fill(buf, n, (unsigned)n);
                CHECK_OK(MPI_Send(buf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD));
                CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                fy_fill(buf, n, (unsigned)n + 1);
                CHECK_OK(MPI_Send(buf, n, MPI_BYTE, peer, 8, MPI_COMM_WORLD));
            }
        }
    }
    free(buf); free(buf2);
    return fy_finish();
}
