/* Matching order rules with wildcards:
 *  1. receives posted before arrival: recv0(0,0), recv1(0,0), recv2(wild),
 *     recv3(0,0) take messages m0..m3 from rank 0 in order (recv2 with
 *     ANY_SOURCE, then with ANY_TAG);
 *  2. the same with all messages already arrived (unexpected queue);
 *  3. tag selection: Recv(tag B) skips an earlier tag A, ANY_TAG then gets A;
 *  4. non-overtaking per sender on a stream mixing eager and rendezvous sizes
 *     and tags, received with ANY_TAG;
 *  5. ANY_SOURCE receives collecting from every other rank: each sender's
 *     sequence arrives in order;
 *  6. more rendezvous sends in flight to one peer than the sender has
 *     rendezvous slots (256 on shared memory), then a small one: the small
 *     one must not overtake those still waiting for a slot. */
#include "fytest.h"

#define TAG_GO 800
#define NSTREAM 300
#define NBIG 300            /* > the 256 rendezvous slots of a process */
#define BIG (256 << 10)     /* rendezvous on every path (above the pipe's 128 KiB) */

static int msize(int seq) { return (seq % 17 == 3) ? 20000 + seq * 7 : (seq % 5) * 8 + 4; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_order");
    int rank = fy_rank_, size = fy_size_;
    MPI_Status st;
    char *buf = malloc(200000);

    if (size >= 2 && rank < 2) {
        for (int variant = 0; variant < 4; variant++) {
            int posted_first = variant < 2, wild_src = variant % 2 == 0;
            if (rank == 0) {
                if (posted_first)
                    CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                for (int k = 0; k < 4; k++) CHECK_OK(MPI_Send(&k, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
                if (!posted_first)
                    CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD));
            } else {
                int v[4] = {-1, -1, -1, -1};
                MPI_Request r[4];
                if (!posted_first) /* all four are queued once GO (sent after them) arrived */
                    CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK_OK(MPI_Irecv(&v[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[0]));
                CHECK_OK(MPI_Irecv(&v[1], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[1]));
                CHECK_OK(MPI_Irecv(&v[2], 1, MPI_INT, wild_src ? MPI_ANY_SOURCE : 0,
                                   wild_src ? 0 : MPI_ANY_TAG, MPI_COMM_WORLD, &r[2]));
                CHECK_OK(MPI_Irecv(&v[3], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[3]));
                if (posted_first) CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD));
                CHECK_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
                for (int k = 0; k < 4; k++)
                    CHECK(v[k] == k, "variant %d (%s, %s): recv%d got m%d", variant,
                          posted_first ? "posted first" : "unexpected",
                          wild_src ? "ANY_SOURCE" : "ANY_TAG", k, v[k]);
            }
        }
        /* 3: tag selection */
        if (rank == 0) {
            int a = 1, b = 2, c = 3;
            CHECK_OK(MPI_Send(&a, 1, MPI_INT, 1, 11, MPI_COMM_WORLD));
            CHECK_OK(MPI_Send(&b, 1, MPI_INT, 1, 12, MPI_COMM_WORLD));
            CHECK_OK(MPI_Send(&c, 1, MPI_INT, 1, 11, MPI_COMM_WORLD));
        } else {
            int x = 0;
            CHECK_OK(MPI_Recv(&x, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &st));
            CHECK(x == 2, "Recv(tag 12) got %d", x);
            CHECK_OK(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(x == 1 && st.MPI_TAG == 11, "ANY_TAG got %d tag %d, expected the first tag-11", x, st.MPI_TAG);
            CHECK_OK(MPI_Recv(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(x == 3, "last got %d", x);
        }
    }

    /* 4 and 5: every rank > 0 streams NSTREAM messages to rank 0. */
    if (rank > 0) {
        MPI_Request *rq = malloc(sizeof(MPI_Request) * NSTREAM);
        char *sb = malloc((size_t)NSTREAM * 24000);
        for (int s = 0; s < NSTREAM; s++) {
            char *p = sb + (size_t)s * 24000;
            int n = msize(s);
            fy_fill(p, n, (unsigned)(rank * 100000 + s));
            memcpy(p, &s, sizeof s);
            if (s % 3 == 0) CHECK_OK(MPI_Isend(p, n, MPI_BYTE, 0, s % 4, MPI_COMM_WORLD, &rq[s]));
            else { CHECK_OK(MPI_Send(p, n, MPI_BYTE, 0, s % 4, MPI_COMM_WORLD)); rq[s] = MPI_REQUEST_NULL; }
        }
        CHECK_OK(MPI_Waitall(NSTREAM, rq, MPI_STATUSES_IGNORE));
        free(rq); free(sb);
    } else {
        int *next = calloc(size, sizeof(int));
        for (int i = 0; i < NSTREAM * (size - 1); i++) {
            int cnt, seq;
            /* alternate full wildcard with per-source ANY_TAG receives */
            int src = (i % 2) ? MPI_ANY_SOURCE : 1 + (i / 2) % (size - 1);
            if (src != MPI_ANY_SOURCE && next[src] >= NSTREAM) src = MPI_ANY_SOURCE;
            CHECK_OK(MPI_Recv(buf, 200000, MPI_BYTE, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            int s = st.MPI_SOURCE;
            if (s < 1 || s >= size) { CHECK(0, "bad source %d", s); break; }
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            memcpy(&seq, buf, sizeof seq);
            CHECK(seq == next[s], "from %d: got seq %d, expected %d (overtaking)", s, seq, next[s]);
            CHECK(cnt == msize(next[s]) && st.MPI_TAG == next[s] % 4, "from %d seq %d: count %d tag %d",
                  s, next[s], cnt, st.MPI_TAG);
            fy_fill(buf, 4, (unsigned)(s * 100000 + next[s]));
            CHECK(fy_verify(buf, cnt, (unsigned)(s * 100000 + next[s])) == (size_t)-1, "from %d seq %d payload", s, seq);
            next[s]++;
        }
        free(next);
    }

    /* 6: rank 0 to rank 1, tags in sending order, received with ANY_TAG */
    if (size >= 2 && rank < 2) {
        char *big = malloc(BIG);
        if (rank == 0) {
            MPI_Request *rq = malloc(sizeof(MPI_Request) * NBIG);
            fy_fill(big, BIG, 6);
            for (int k = 0; k < NBIG; k++) CHECK_OK(MPI_Isend(big, BIG, MPI_BYTE, 1, k, MPI_COMM_WORLD, &rq[k]));
            int last = NBIG;
            CHECK_OK(MPI_Send(&last, 1, MPI_INT, 1, NBIG, MPI_COMM_WORLD));
            CHECK_OK(MPI_Waitall(NBIG, rq, MPI_STATUSES_IGNORE));
            free(rq);
        } else {
            int first_bad = -1, bad_tag = 0, bad_cnt = 0;
            for (int k = 0; k <= NBIG; k++) { /* (all of them, so the sender's Waitall ends) */
                int cnt;
                CHECK_OK(MPI_Recv(big, BIG, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                if (first_bad < 0 && (st.MPI_TAG != k || cnt != (k < NBIG ? BIG : (int)sizeof(int)))) {
                    first_bad = k;
                    bad_tag = st.MPI_TAG;
                    bad_cnt = cnt;
                }
            }
            CHECK(first_bad < 0, "message %d of %d: tag %d, %d bytes (overtaken)", first_bad, NBIG + 1, bad_tag,
                  bad_cnt);
        }
        free(big);
    }
    free(buf);
    return fy_finish();
}
