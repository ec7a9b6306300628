/* Small messages of every length from 0 to 72 bytes, the range where a
 * packet's header changes size (an eager message that needs no answer
 * carries a shorter header than a synchronous one: pkt.h) and where a
 * packet grows from one cache line of the ring cell to two. Each length is
 * sent in standard and synchronous mode, received once as an unexpected
 * message (in reverse order, after the sender said it is done) and once
 * into a posted receive; every byte and the status are checked. Pairs of
 * ranks (even -> odd). */
#include "fytest.h"

#define MAXN 72
#define NLEN (MAXN + 1)
#define TAG_DONE 1000

static void check_msg(const char *what, const unsigned char *buf, MPI_Status *st, int n, unsigned seed,
                      int src) {
    int cnt = -1;
    MPI_Get_count(st, MPI_BYTE, &cnt);
    CHECK(cnt == n, "%s %d bytes: count %d", what, n, cnt);
    CHECK(st->MPI_SOURCE == src, "%s %d bytes: source %d, expected %d", what, n, st->MPI_SOURCE, src);
    size_t bad = fy_verify(buf, (size_t)n, seed);
    CHECK(bad == (size_t)-1, "%s %d bytes: byte %zu wrong", what, n, bad);
    CHECK(buf[n] == 0xEE, "%s %d bytes: the byte after the message was written", what, n);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_small");
    int rank = fy_rank_, size = fy_size_;
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size) peer = MPI_PROC_NULL;
    static unsigned char sbuf[2 * NLEN][MAXN], rbuf[2 * NLEN][MAXN + 1];
    MPI_Request rq[2 * NLEN];

    for (int phase = 0; phase < 2 && peer != MPI_PROC_NULL; phase++) {
        int unexpected = phase == 0;
        if (rank % 2 == 0) {
            /* tag n: standard, tag NLEN + n: synchronous */
            for (int k = 0; k < 2 * NLEN; k++) fy_fill(sbuf[k], MAXN, (unsigned)(k + 7 * phase));
            if (!unexpected) CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int n = 0; n < NLEN; n++) CHECK_OK(MPI_Send(sbuf[n], n, MPI_BYTE, peer, n, MPI_COMM_WORLD));
            for (int n = 0; n < NLEN; n++)
                CHECK_OK(MPI_Issend(sbuf[NLEN + n], n, MPI_BYTE, peer, NLEN + n, MPI_COMM_WORLD, &rq[n]));
            if (unexpected) CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD));
            CHECK_OK(MPI_Waitall(NLEN, rq, MPI_STATUSES_IGNORE));
        } else {
            memset(rbuf, 0xEE, sizeof rbuf);
            MPI_Status st[2 * NLEN];
            if (unexpected) {
                /* everything is in before the go: take it last first */
                CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                for (int k = 2 * NLEN - 1; k >= 0; k--)
                    CHECK_OK(MPI_Recv(rbuf[k], MAXN, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st[k]));
            } else {
                for (int k = 0; k < 2 * NLEN; k++)
                    CHECK_OK(MPI_Irecv(rbuf[k], MAXN, MPI_BYTE, peer, k, MPI_COMM_WORLD, &rq[k]));
                CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD));
                CHECK_OK(MPI_Waitall(2 * NLEN, rq, st));
            }
            for (int k = 0; k < 2 * NLEN; k++)
                check_msg(k < NLEN ? (unexpected ? "unexpected standard" : "posted standard")
                                   : (unexpected ? "unexpected synchronous" : "posted synchronous"),
                          rbuf[k], &st[k], k % NLEN, (unsigned)(k + 7 * phase), peer);
        }
    }
    return fy_finish();
}
