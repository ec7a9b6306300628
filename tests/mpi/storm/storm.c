/* Random message storm: COUNT messages in total (argv[1], default 100000)
 * among all ranks, random destinations, sizes (mostly small, some across the
 * eager/rendezvous switch, a few up to 256 KiB), tags and send modes, and
 * receives that are specific, ANY_SOURCE, ANY_TAG or both. Deterministic:
 * every rank regenerates every sender's schedule from the seed (argv[2]).
 *
 * Deadlock freedom with wildcards: messages go in batches separated by a
 * Barrier; within a batch, receives are posted most specific first (specific,
 * then (ANY_SOURCE, tag) on tags no specific receive uses, then
 * (source, ANY_TAG) on tags only they use, then full wildcards), so a less
 * specific receive can never starve a more specific one.
 *
 * Every message carries (source, sequence) in its first 8 bytes and a body
 * pattern derived from them: the receiver checks source, tag, size, payload
 * and that each expected message arrives exactly once. */
#include "fytest.h"

#define BATCH 250          /* messages per sender per batch */
#define MAXSZ (256 * 1024)
enum { K_SPEC, K_ANYSRC, K_ANYTAG, K_ANY };

typedef struct { int dest, tag, size, kind, sync; } msg_t;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return *s = x;
}

static void gen(msg_t *m, int n, int src, int size, unsigned seed)
{
    uint64_t s = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed << 20) ^ (uint64_t)(src + 1) * 0xD1B54A32D192ED03ull;
    for (int i = 0; i < 8; i++) rng_next(&s);
    for (int i = 0; i < n; i++) {
        uint64_t r = rng_next(&s);
        int d = size > 1 ? (int)(r % (uint64_t)(size - 1)) : 0;
        m[i].dest = size > 1 ? (d >= src ? d + 1 : d) : 0;
        int p = (int)((r >> 16) % 1000);
        uint64_t r2 = rng_next(&s);
        if (p < 850) m[i].size = 8 + (int)(r2 % 249);                 /* small eager */
        else if (p < 950) m[i].size = 257 + (int)(r2 % (16384 - 256)); /* eager */
        else if (p < 990) m[i].size = 16385 + (int)(r2 % 49152);       /* rendezvous */
        else m[i].size = 65537 + (int)(r2 % (MAXSZ - 65536));
        int k = (int)((r >> 32) % 100);
        m[i].kind = k < 70 ? K_SPEC : k < 80 ? K_ANYSRC : k < 90 ? K_ANYTAG : K_ANY;
        int t = (int)((r >> 40) % 4);
        switch (m[i].kind) {
        case K_SPEC: m[i].tag = t; break;           /* 0..3 */
        case K_ANYSRC: m[i].tag = 4 + t; break;     /* 4..7 */
        case K_ANYTAG: m[i].tag = 8 + t; break;     /* 8..11 */
        default: m[i].tag = (int)((r >> 48) % 12); break;
        }
        m[i].sync = ((r >> 56) % 10) == 0;
    }
}

static unsigned body_seed(int src, int seq) { return (unsigned)src * 1000003u + (unsigned)seq; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("storm");
    int rank = fy_rank_, size = fy_size_;
    long total = argc > 1 ? atol(argv[1]) : 100000;
    unsigned seed = argc > 2 ? (unsigned)atoi(argv[2]) : 12345;
    int per = (int)(total / size);
    if (per < 1) per = 1;

    msg_t **sched = malloc(sizeof(msg_t *) * size);
    for (int s = 0; s < size; s++) {
        sched[s] = malloc(sizeof(msg_t) * per);
        gen(sched[s], per, s, size, seed);
    }
    char **got = malloc(sizeof(char *) * size); /* got[s][seq]: received */
    for (int s = 0; s < size; s++) got[s] = calloc(per, 1);

    int nb = (per + BATCH - 1) / BATCH;
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (BATCH + (size_t)BATCH * size));
    char **rbuf = malloc(sizeof(char *) * (size_t)BATCH * size);
    int *rcap = malloc(sizeof(int) * (size_t)BATCH * size);
    char *sbuf = malloc((size_t)BATCH * MAXSZ / 8 + MAXSZ); /* grown below if needed */
    size_t sbuf_cap = (size_t)BATCH * MAXSZ / 8 + MAXSZ;
    long received = 0, expected = 0;

    for (int b = 0; b < nb; b++) {
        int lo = b * BATCH, hi = lo + BATCH < per ? lo + BATCH : per;
        int nr = 0;
        /* Receives, most specific first. Capacity: largest message the
         * receive could possibly match in this batch. */
        for (int kind = K_SPEC; kind <= K_ANY; kind++) {
            for (int s = 0; s < size; s++) {
                for (int i = lo; i < hi; i++) {
                    msg_t *m = &sched[s][i];
                    if (m->dest != rank || m->kind != kind) continue;
                    int src = (kind == K_SPEC || kind == K_ANYTAG) ? s : MPI_ANY_SOURCE;
                    int tag = (kind == K_SPEC || kind == K_ANYSRC) ? m->tag : MPI_ANY_TAG;
                    int cap = 0;
                    for (int s2 = 0; s2 < size; s2++)
                        for (int j = lo; j < hi; j++) {
                            msg_t *o = &sched[s2][j];
                            if (o->dest != rank) continue;
                            if (src != MPI_ANY_SOURCE && s2 != src) continue;
                            if (tag != MPI_ANY_TAG && o->tag != tag) continue;
                            if (o->size > cap) cap = o->size;
                        }
                    rbuf[nr] = malloc(cap);
                    rcap[nr] = cap;
                    CHECK_OK(MPI_Irecv(rbuf[nr], cap, MPI_BYTE, src, tag, MPI_COMM_WORLD, &rq[nr]));
                    nr++;
                    expected++;
                }
            }
        }
        /* Sends */
        size_t need = 0;
        for (int i = lo; i < hi; i++) need += sched[rank][i].size;
        if (need > sbuf_cap) { free(sbuf); sbuf = malloc(need); sbuf_cap = need; }
        size_t off = 0;
        int ns = 0;
        for (int i = lo; i < hi; i++) {
            msg_t *m = &sched[rank][i];
            char *p = sbuf + off;
            off += m->size;
            fy_fill(p, m->size, body_seed(rank, i));
            int32_t hdr[2] = {rank, i};
            memcpy(p, hdr, sizeof hdr);
            if (m->sync) CHECK_OK(MPI_Issend(p, m->size, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, &rq[nr + ns]));
            else CHECK_OK(MPI_Isend(p, m->size, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, &rq[nr + ns]));
            ns++;
        }
        /* Complete receives as they come (verifying each), then sends. */
        for (int k = 0; k < nr; k++) {
            int idx;
            MPI_Status st;
            CHECK_OK(MPI_Waitany(nr, rq, &idx, &st));
            if (idx == MPI_UNDEFINED) { CHECK(0, "Waitany: no active receive left"); break; }
            int cnt = -1;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            int32_t hdr[2] = {-1, -1};
            if (cnt >= 8) memcpy(hdr, rbuf[idx], sizeof hdr);
            int s = hdr[0], seq = hdr[1];
            if (s < 0 || s >= size || seq < lo || seq >= hi || s != st.MPI_SOURCE) {
                CHECK(0, "batch %d: bad header (%d,%d) from status source %d tag %d count %d", b, s, seq,
                      st.MPI_SOURCE, st.MPI_TAG, cnt);
                continue;
            }
            msg_t *m = &sched[s][seq];
            CHECK(m->dest == rank, "message (%d,%d) was for rank %d", s, seq, m->dest);
            CHECK(!got[s][seq], "message (%d,%d) received twice", s, seq);
            got[s][seq] = 1;
            received++;
            CHECK(st.MPI_TAG == m->tag && cnt == m->size, "message (%d,%d): tag %d count %d, expected %d/%d",
                  s, seq, st.MPI_TAG, cnt, m->tag, m->size);
            fy_fill(rbuf[idx], 8, body_seed(s, seq));
            size_t bad = fy_verify(rbuf[idx], cnt, body_seed(s, seq));
            CHECK(bad == (size_t)-1, "message (%d,%d) size %d: byte %zu wrong", s, seq, cnt, bad);
        }
        CHECK_OK(MPI_Waitall(ns, rq + nr, MPI_STATUSES_IGNORE));
        for (int k = 0; k < nr; k++) free(rbuf[k]);
        MPI_Barrier(MPI_COMM_WORLD);
        if (fy_errs > 20) { fprintf(stderr, "storm: too many failures, stopping\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
    }
    CHECK(received == expected, "received %ld of %ld messages", received, expected);
    if (rank == 0) printf("storm: %d ranks, %d messages each, %d batches\n", size, per, nb);
    for (int s = 0; s < size; s++) { free(sched[s]); free(got[s]); }
    free(sched); free(got); free(rq); free(rbuf); free(rcap); free(sbuf);
    return fy_finish();
}
