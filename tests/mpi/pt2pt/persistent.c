/* Persistent requests: Send_init, Ssend_init, Bsend_init, Rsend_init and
 * Recv_init started many times with Start and Startall, payloads changing
 * every round; Request_free of an inactive persistent request; a persistent
 * request that was never started completes a Wait at once (inactive). */
#include "fytest.h"

#define ROUNDS 40
#define TAG_GO 77
static const int sizes[] = {0, 8, 16385, 100000};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_persistent");
    int rank = fy_rank_, size = fy_size_;
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size) peer = MPI_PROC_NULL;
    int maxn = 100000;
    int bsz = 4 * (maxn + MPI_BSEND_OVERHEAD);
    char *bb = malloc(bsz);
    MPI_Buffer_attach(bb, bsz);
    char *sbuf = malloc(maxn), *rbuf = malloc(maxn);

    /* Inactive persistent request: Wait/Test return at once, Request_free works. */
    {
        MPI_Request r;
        MPI_Status st;
        int flag = 0;
        CHECK_OK(MPI_Recv_init(rbuf, 4, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Wait(&r, &st));
        CHECK(r != MPI_REQUEST_NULL, "Wait on inactive persistent request freed it");
        CHECK_OK(MPI_Test(&r, &flag, &st));
        CHECK(flag, "Test on inactive persistent request not complete");
        CHECK_OK(MPI_Request_free(&r));
        CHECK(r == MPI_REQUEST_NULL, "Request_free did not null the handle");
        CHECK_OK(MPI_Send_init(sbuf, 4, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Request_free(&r));
    }

    for (int si = 0; si < 4 && peer != MPI_PROC_NULL; si++) {
        int n = sizes[si];
        for (int mode = 0; mode < 4; mode++) {
            MPI_Request r;
            int tag = 10 * si + mode;
            if (rank % 2 == 0) {
                switch (mode) {
                case 0: CHECK_OK(MPI_Send_init(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r)); break;
                case 1: CHECK_OK(MPI_Ssend_init(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r)); break;
                case 2: CHECK_OK(MPI_Bsend_init(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r)); break;
                case 3: CHECK_OK(MPI_Rsend_init(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r)); break;
                }
                for (int k = 0; k < ROUNDS; k++) {
                    fy_fill(sbuf, n, (unsigned)(k * 131 + tag));
                    if (mode == 3)
                        CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    if (k % 2) CHECK_OK(MPI_Start(&r));
                    else CHECK_OK(MPI_Startall(1, &r));
                    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
                    CHECK(r != MPI_REQUEST_NULL, "persistent send request freed by Wait");
                    if (mode == 2) /* delivered: its attached-buffer space is free again */
                        CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                }
                CHECK_OK(MPI_Request_free(&r));
            } else {
                CHECK_OK(MPI_Recv_init(rbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r));
                for (int k = 0; k < ROUNDS; k++) {
                    MPI_Status st;
                    memset(rbuf, 0, n);
                    CHECK_OK(MPI_Start(&r));
                    if (mode == 3) CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
                    CHECK_OK(MPI_Wait(&r, &st));
                    if (mode == 2) CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
                    int cnt = -1;
                    MPI_Get_count(&st, MPI_BYTE, &cnt);
                    CHECK(cnt == n && st.MPI_SOURCE == peer && st.MPI_TAG == tag,
                          "mode %d size %d round %d: count %d src %d tag %d", mode, n, k, cnt, st.MPI_SOURCE, st.MPI_TAG);
                    size_t bad = fy_verify(rbuf, n, (unsigned)(k * 131 + tag));
                    CHECK(bad == (size_t)-1, "mode %d size %d round %d: byte %zu wrong", mode, n, k, bad);
                }
                CHECK_OK(MPI_Request_free(&r));
            }
        }
    }

    /* Startall over a mixed array: both directions at once, several rounds. */
    if (peer != MPI_PROC_NULL) {
        int a[4], b[4];
        MPI_Request rq[4];
        CHECK_OK(MPI_Send_init(&a[0], 1, MPI_INT, peer, 200, MPI_COMM_WORLD, &rq[0]));
        CHECK_OK(MPI_Ssend_init(&a[1], 3, MPI_INT, peer, 201, MPI_COMM_WORLD, &rq[1]));
        CHECK_OK(MPI_Recv_init(&b[0], 1, MPI_INT, peer, 200, MPI_COMM_WORLD, &rq[2]));
        CHECK_OK(MPI_Recv_init(&b[1], 3, MPI_INT, MPI_ANY_SOURCE, 201, MPI_COMM_WORLD, &rq[3]));
        for (int k = 0; k < 100; k++) {
            for (int i = 0; i < 4; i++) { a[i] = rank * 1000 + k * 10 + i; b[i] = -1; }
            CHECK_OK(MPI_Startall(4, rq));
            CHECK_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
            for (int i = 0; i < 4; i++)
                CHECK(b[i] == peer * 1000 + k * 10 + i, "Startall round %d: b[%d]=%d", k, i, b[i]);
        }
        for (int i = 0; i < 4; i++) CHECK_OK(MPI_Request_free(&rq[i]));
    }
    void *p; int s;
    MPI_Buffer_detach(&p, &s);
    free(bb); free(sbuf); free(rbuf);
    return fy_finish();
}
