/* Buffered mode: Bsend/Ibsend complete locally while the receiver has not
 * posted anything; Buffer_detach waits for delivery and returns the attached
 * buffer; a too-small buffer (or none) yields MPI_ERR_BUFFER under
 * MPI_ERRORS_RETURN and sends nothing; the buffer is reusable after detach. */
#include "fytest.h"

#define NMSG 8
#define TAG_GO 50

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_bsend");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = fy_rank_, size = fy_size_;
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size) peer = MPI_PROC_NULL;
    static const int ns[NMSG] = {0, 1, 100, 16384, 16385, 50000, 3, 70000};
    int total = 0;
    for (int i = 0; i < NMSG; i++) total += ns[i] + MPI_BSEND_OVERHEAD;
    char *bb = malloc(total);
    char *msg = malloc(70000);
    char *rbuf = malloc(70000);

    if (peer != MPI_PROC_NULL && rank % 2 == 0) {
        CHECK_OK(MPI_Buffer_attach(bb, total));
        for (int i = 0; i < NMSG; i++) {
            fy_fill(msg, ns[i], (unsigned)i + 1);
            if (i % 2) {
                MPI_Request r;
                CHECK_OK(MPI_Ibsend(msg, ns[i], MPI_BYTE, peer, i, MPI_COMM_WORLD, &r));
                CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE)); /* local completion */
            } else {
                CHECK_OK(MPI_Bsend(msg, ns[i], MPI_BYTE, peer, i, MPI_COMM_WORLD));
            }
            memset(msg, 0, ns[i]);
        }
        /* All buffered; the receiver has posted nothing yet. Let it go. */
        CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
        void *a; int s;
        CHECK_OK(MPI_Buffer_detach(&a, &s));
        CHECK(a == bb && s == total, "detach gave %p/%d, attached %p/%d", a, s, (void *)bb, total);

        /* No buffer attached: error, nothing sent. */
        int rc = MPI_Bsend(msg, 10, MPI_BYTE, peer, 60, MPI_COMM_WORLD);
        CHECK_CLASS(rc, MPI_ERR_BUFFER);
        /* Too small a buffer: error for Bsend and Ibsend. */
        CHECK_OK(MPI_Buffer_attach(bb, 100 + MPI_BSEND_OVERHEAD));
        rc = MPI_Bsend(msg, 1000, MPI_BYTE, peer, 60, MPI_COMM_WORLD);
        CHECK_CLASS(rc, MPI_ERR_BUFFER);
        MPI_Request r = MPI_REQUEST_NULL;
        rc = MPI_Ibsend(msg, 20000, MPI_BYTE, peer, 60, MPI_COMM_WORLD, &r);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK_CLASS(rc, MPI_ERR_BUFFER);
        /* A message that fits still goes. */
        fy_fill(msg, 100, 99);
        CHECK_OK(MPI_Bsend(msg, 100, MPI_BYTE, peer, 60, MPI_COMM_WORLD));
        CHECK_OK(MPI_Buffer_detach(&a, &s));
        CHECK(a == bb && s == 100 + MPI_BSEND_OVERHEAD, "second detach gave %d bytes", s);
    } else if (peer != MPI_PROC_NULL) {
        CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = NMSG - 1; i >= 0; i--) { /* reverse order: tags select */
            MPI_Status st;
            int cnt;
            memset(rbuf, 0, 70000);
            CHECK_OK(MPI_Recv(rbuf, 70000, MPI_BYTE, peer, i, MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(cnt == ns[i], "msg %d: count %d expected %d", i, cnt, ns[i]);
            CHECK(fy_verify(rbuf, ns[i], (unsigned)i + 1) == (size_t)-1, "msg %d payload", i);
        }
        MPI_Status st;
        int cnt;
        CHECK_OK(MPI_Recv(rbuf, 70000, MPI_BYTE, peer, 60, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == 100 && fy_verify(rbuf, 100, 99) == (size_t)-1,
              "after failed Bsends got %d bytes (a failed Bsend was delivered?)", cnt);
    }
    free(bb); free(msg); free(rbuf);
    return fy_finish();
}
