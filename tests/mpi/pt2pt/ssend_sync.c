/* Synchronous mode semantics without timing: an Issend must not complete
 * while the receiver provably has not started the matching receive (the
 * receiver is blocked waiting for a go-ahead on another tag, or has only
 * probed the message). After the go-ahead, it completes. Eager and
 * rendezvous sizes. Also Ssend to a receive already posted. */
#include "fytest.h"

#define TAG_MSG 1
#define TAG_GO 2
#define TAG_PROBED 3
static const int sizes[] = {0, 8, 16384, 16385, 200000};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_ssend_sync");
    int rank = fy_rank_, size = fy_size_;
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size) peer = MPI_PROC_NULL;
    char *buf = malloc(200000);

    for (int si = 0; si < 5 && peer != MPI_PROC_NULL; si++) {
        int n = sizes[si];
        if (rank % 2 == 0) {
            MPI_Request rq;
            int flag = 0;
            fy_fill(buf, n, (unsigned)n);
            CHECK_OK(MPI_Issend(buf, n, MPI_BYTE, peer, TAG_MSG, MPI_COMM_WORLD, &rq));
            /* The receiver probes, tells us, and waits for our go. */
            CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_PROBED, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < 200; i++) {
                CHECK_OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
                if (flag) break;
            }
            CHECK(!flag, "size %d: Issend completed before the receive was posted", n);
            MPI_Status gst;
            int gflag = 1;
            CHECK_OK(MPI_Request_get_status(rq, &gflag, &gst));
            CHECK(!gflag, "size %d: Request_get_status says complete before the receive", n);
            CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
            while (!flag) CHECK_OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
            CHECK(rq == MPI_REQUEST_NULL, "request not freed");
            /* Blocking Ssend to a receive posted beforehand. */
            CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_OK(MPI_Ssend(buf, n, MPI_BYTE, peer, TAG_MSG, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            CHECK_OK(MPI_Probe(peer, TAG_MSG, MPI_COMM_WORLD, &st));
            CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_PROBED, MPI_COMM_WORLD));
            CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            memset(buf, 0, n);
            CHECK_OK(MPI_Recv(buf, n, MPI_BYTE, peer, TAG_MSG, MPI_COMM_WORLD, &st));
            CHECK(fy_verify(buf, n, (unsigned)n) == (size_t)-1, "size %d: payload", n);
            MPI_Request rq;
            memset(buf, 0, n);
            CHECK_OK(MPI_Irecv(buf, n, MPI_BYTE, peer, TAG_MSG, MPI_COMM_WORLD, &rq));
            CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
            CHECK_OK(MPI_Wait(&rq, &st));
            CHECK(fy_verify(buf, n, (unsigned)n) == (size_t)-1, "size %d: payload (posted)", n);
        }
    }
    free(buf);
    return fy_finish();
}
