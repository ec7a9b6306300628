/* Every send mode (standard, synchronous, buffered, ready), blocking and
 * nonblocking, at sizes on both sides of the eager/rendezvous switch, with
 * payload, source, tag and count verified. Ranks pair up (0,1), (2,3). */
#include "fytest.h"

static const int sizes[] = {0, 1, 1000, 16384, 16385, 100000, 4 << 20};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
enum { STD, SYNC, BUF, READY, NMODES };
static const char *mname[] = {"standard", "synchronous", "buffered", "ready"};
#define TAG_GO 999

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_modes");
    int rank = fy_rank_, size = fy_size_;
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size) peer = MPI_PROC_NULL; /* odd process count: last rank idles */
    int maxn = 4 << 20;
    char *sbuf = malloc(maxn), *rbuf = malloc(maxn);
    int bsz = 2 * (maxn + MPI_BSEND_OVERHEAD);
    char *battach = malloc(bsz);
    CHECK_OK(MPI_Buffer_attach(battach, bsz));

    for (int mode = 0; mode < NMODES && peer != MPI_PROC_NULL; mode++) {
        for (int nb = 0; nb < 2; nb++) {
            for (int si = 0; si < NSIZES; si++) {
                int n = sizes[si];
                int tag = 100 * mode + 10 * nb + si;
                unsigned seed = (unsigned)(tag * 7 + rank);
                if (rank % 2 == 0) {
                    fy_fill(sbuf, n, seed);
                    if (mode == READY) /* receiver has posted once this arrives */
                        CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    if (!nb) {
                        switch (mode) {
                        case STD: CHECK_OK(MPI_Send(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD)); break;
                        case SYNC: CHECK_OK(MPI_Ssend(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD)); break;
                        case BUF: CHECK_OK(MPI_Bsend(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD)); break;
                        case READY: CHECK_OK(MPI_Rsend(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD)); break;
                        }
                    } else {
                        MPI_Request rq = MPI_REQUEST_NULL;
                        switch (mode) {
                        case STD: CHECK_OK(MPI_Isend(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq)); break;
                        case SYNC: CHECK_OK(MPI_Issend(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq)); break;
                        case BUF: CHECK_OK(MPI_Ibsend(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq)); break;
                        case READY: CHECK_OK(MPI_Irsend(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq)); break;
                        }
                        MPI_Status st;
                        CHECK_OK(MPI_Wait(&rq, &st));
                        CHECK(rq == MPI_REQUEST_NULL, "request not freed by Wait");
                    }
                    if (mode == BUF) { /* the buffer may be reused at once */
                        memset(sbuf, 0xEE, n);
                        /* wait for delivery so the attached space is free again */
                        CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    }
                } else {
                    memset(rbuf, 0, n + 1 <= maxn ? n + 1 : n);
                    MPI_Status st;
                    unsigned sseed = (unsigned)(tag * 7 + peer);
                    if (!nb && mode != READY) {
                        CHECK_OK(MPI_Recv(rbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
                    } else {
                        MPI_Request rq;
                        CHECK_OK(MPI_Irecv(rbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq));
                        if (mode == READY)
                            CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
                        CHECK_OK(MPI_Wait(&rq, &st));
                    }
                    if (mode == BUF) CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
                    int cnt = -1;
                    MPI_Get_count(&st, MPI_BYTE, &cnt);
                    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag && cnt == n,
                          "%s %s size %d: source %d tag %d count %d", mname[mode],
                          nb ? "nonblocking" : "blocking", n, st.MPI_SOURCE, st.MPI_TAG, cnt);
                    size_t bad = fy_verify(rbuf, n, sseed);
                    CHECK(bad == (size_t)-1, "%s %s size %d: payload wrong at byte %zu",
                          mname[mode], nb ? "nonblocking" : "blocking", n, bad);
                }
            }
        }
    }
    void *addr; int asz;
    CHECK_OK(MPI_Buffer_detach(&addr, &asz));
    CHECK(addr == battach && asz == bsz, "detach returned %p/%d", addr, asz);
    free(battach); free(sbuf); free(rbuf);
    return fy_finish();
}
