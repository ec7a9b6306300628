/* Derived types in every point-to-point call, eager and rendezvous sizes:
 * both sides non-contiguous with different layouts (holes, negative
 * displacements, deep nesting), truncated receives (MPI_ERR_TRUNCATE with
 * the received count right, buffer outside the type untouched), partial
 * receives (Get_count MPI_UNDEFINED, Get_elements exact), MPI_BOTTOM with
 * absolute addresses, Type_free while the receive is pending, Sendrecv,
 * Ssend, Bsend, persistent requests, Mprobe/Mrecv. Ring over all ranks. */
#include "fytest.h"

#define N 40000          /* elements per side: 320 kB of doubles (rendezvous) */

static double *sbuf, *rbuf;

/* value of element i as sent by rank r */
static double val(int r, long i) { return r * 1e7 + (double)i; }

/* the three layouts over a buffer of 3*n doubles */
static MPI_Datatype mk_vector(int n) { /* n doubles, stride 3 */
    MPI_Datatype t; MPI_Type_vector(n, 1, 3, MPI_DOUBLE, &t); MPI_Type_commit(&t); return t;
}
static MPI_Datatype mk_nested(int n) { /* struct{ hole, indexed(neg displ), vector } over n doubles */
    /* inner: indexed of 2 blocks {1 at +1, 1 at -1} (relative), resized to 3 doubles */
    MPI_Datatype ix, rs, vec, st;
    int bl[] = {1, 1}, d[] = {2, 0};
    MPI_Type_indexed(2, bl, d, MPI_DOUBLE, &ix);           /* elements 2, 0 */
    MPI_Type_create_resized(ix, 0, 3 * sizeof(double), &rs);
    MPI_Type_contiguous(n / 2, rs, &vec);                    /* n doubles over 3n/2 */
    int bl2[] = {1}; MPI_Aint d2[] = {0}; MPI_Datatype t2[] = {vec};
    MPI_Type_create_struct(1, bl2, d2, t2, &st);
    MPI_Type_commit(&st);
    MPI_Type_free(&ix); MPI_Type_free(&rs); MPI_Type_free(&vec);
    return st;
}
/* i-th element position (in doubles) of the layouts */
static long pos_vector(long i) { return 3 * i; }
static long pos_nested(long i) { return 3 * (i / 2) + (i % 2 ? 0 : 2); }

static void fill(double *b, long n, long (*pos)(long), int r) {
    for (long i = 0; i < 3 * n + 8; i++) b[i] = -1;
    for (long i = 0; i < n; i++) b[pos(i)] = val(r, i);
}
static int verify(const double *b, long n, long (*pos)(long), int r, const char *what) {
    for (long i = 0; i < n; i++)
        if (b[pos(i)] != val(r, i)) {
            CHECK(0, "%s: element %ld = %g, expected %g", what, i, b[pos(i)], val(r, i));
            return 0;
        }
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("datatype_p2p");
    int rank = fy_rank_, size = fy_size_;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    sbuf = malloc((3 * N + 8) * sizeof(double));
    rbuf = malloc((3 * N + 8) * sizeof(double));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int sizes[] = {10, 300, N};
    for (int si = 0; si < 3; si++) {
        int n = sizes[si];
        MPI_Datatype tv = mk_vector(n), tn = mk_nested(n);
        MPI_Status st;
        int cnt;
        /* vector -> nested */
        fill(sbuf, n, pos_vector, rank);
        fill(rbuf, n, pos_nested, -1);
        CHECK_OK(MPI_Sendrecv(sbuf, 1, tv, next, 1, rbuf, 1, tn, prev, 1, MPI_COMM_WORLD, &st));
        verify(rbuf, n, pos_nested, prev, "sendrecv vector->nested");
        CHECK(rbuf[1] == -1, "hole written");
        /* nested -> vector with Isend/Irecv, the receive type freed while pending */
        MPI_Request rq[2];
        MPI_Datatype tv2 = mk_vector(n);
        fill(sbuf, n, pos_nested, rank);
        fill(rbuf, n, pos_vector, -1);
        CHECK_OK(MPI_Irecv(rbuf, 1, tv2, prev, 2, MPI_COMM_WORLD, &rq[0]));
        MPI_Type_free(&tv2);
        CHECK_OK(MPI_Isend(sbuf, 1, tn, next, 2, MPI_COMM_WORLD, &rq[1]));
        CHECK_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        verify(rbuf, n, pos_vector, prev, "isend nested->vector");
        /* vector -> contiguous doubles, Ssend */
        fill(sbuf, n, pos_vector, rank);
        if (rank % 2 == 0) {
            CHECK_OK(MPI_Ssend(sbuf, 1, tv, next, 3, MPI_COMM_WORLD));
            CHECK_OK(MPI_Recv(rbuf, n, MPI_DOUBLE, prev, 3, MPI_COMM_WORLD, &st));
        } else {
            CHECK_OK(MPI_Recv(rbuf, n, MPI_DOUBLE, prev, 3, MPI_COMM_WORLD, &st));
            CHECK_OK(MPI_Ssend(sbuf, 1, tv, next, 3, MPI_COMM_WORLD));
        }
        for (long i = 0; i < n; i++)
            if (rbuf[i] != val(prev, i)) { CHECK(0, "ssend vector->double %ld", i); break; }
        MPI_Get_count(&st, MPI_DOUBLE, &cnt);
        CHECK(cnt == n, "count %d", cnt);
        /* truncation: n doubles into a type holding n/2: ERR_TRUNCATE, nothing beyond */
        MPI_Datatype half = mk_vector(n / 2);
        for (long i = 0; i < 3 * n + 8; i++) rbuf[i] = -1;
        for (long i = 0; i < n; i++) sbuf[i] = val(rank, i);
        CHECK_OK(MPI_Irecv(rbuf, 1, half, prev, 4, MPI_COMM_WORLD, &rq[0]));
        CHECK_OK(MPI_Send(sbuf, n, MPI_DOUBLE, next, 4, MPI_COMM_WORLD));
        int rc = MPI_Wait(&rq[0], &st);
        CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
        MPI_Get_count(&st, half, &cnt);
        CHECK(cnt == 1, "truncated count %d", cnt);
        for (long i = 0; i < n / 2; i++)
            if (rbuf[3 * i] != val(prev, i)) { CHECK(0, "truncated data %ld", i); break; }
        CHECK(rbuf[3 * (n / 2)] == -1 && rbuf[1] == -1, "written outside the truncated type");
        /* partial: n/2 + 1 doubles into 2 items of half: count undefined, elements exact */
        fill(sbuf, n, pos_vector, rank);
        CHECK_OK(MPI_Sendrecv(sbuf, n / 2 + 1, MPI_DOUBLE, next, 5, rbuf, 2, half, prev, 5, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, half, &cnt);
        CHECK(cnt == MPI_UNDEFINED, "partial count %d", cnt);
        MPI_Get_elements(&st, half, &cnt);
        CHECK(cnt == n / 2 + 1, "partial elements %d", cnt);
        /* truncation with both sides blocked and both non-contiguous (the
         * pipe path for small blocks): n elements of tv into half */
        fill(sbuf, n, pos_vector, rank);
        for (long i = 0; i < 3 * n + 8; i++) rbuf[i] = -1;
        rc = MPI_Sendrecv(sbuf, 1, tv, next, 10, rbuf, 1, half, prev, 10, MPI_COMM_WORLD, &st);
        CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
        verify(rbuf, n / 2, pos_vector, prev, "truncated vector->vector");
        CHECK(rbuf[3 * (n / 2)] == -1, "truncated vector: written past the type");
        MPI_Type_free(&half);
        /* persistent + Mprobe/Mrecv with the nested type */
        fill(sbuf, n, pos_nested, rank);
        fill(rbuf, n, pos_nested, -1);
        MPI_Request ps;
        CHECK_OK(MPI_Send_init(sbuf, 1, tn, next, 6, MPI_COMM_WORLD, &ps));
        for (int it = 0; it < 2; it++) {
            MPI_Message m;
            CHECK_OK(MPI_Start(&ps));
            CHECK_OK(MPI_Mprobe(prev, 6, MPI_COMM_WORLD, &m, &st));
            CHECK_OK(MPI_Mrecv(rbuf, 1, tn, &m, &st));
            CHECK_OK(MPI_Wait(&ps, MPI_STATUS_IGNORE));
            verify(rbuf, n, pos_nested, prev, "persistent/mrecv nested");
        }
        MPI_Request_free(&ps);
        /* Bsend of a vector */
        if (n <= 300) {
            int bsz = n * 8 + MPI_BSEND_OVERHEAD + 64;
            void *bb = malloc(bsz);
            MPI_Buffer_attach(bb, bsz);
            fill(sbuf, n, pos_vector, rank);
            fill(rbuf, n, pos_vector, -1);
            CHECK_OK(MPI_Bsend(sbuf, 1, tv, next, 7, MPI_COMM_WORLD));
            CHECK_OK(MPI_Recv(rbuf, 1, tv, prev, 7, MPI_COMM_WORLD, &st));
            verify(rbuf, n, pos_vector, prev, "bsend vector");
            MPI_Buffer_detach(&bb, &bsz);
            free(bb);
        }
        /* large blocks (moved in place by cross-memory attach): 100 x 400
         * doubles stride 800 <-> 320 x 125 doubles stride 375 (staged), both ways */
        if (n == N) {
            MPI_Datatype big, mid;
            MPI_Type_vector(100, 400, 800, MPI_DOUBLE, &big); MPI_Type_commit(&big);
            MPI_Type_vector(320, 125, 375, MPI_DOUBLE, &mid); MPI_Type_commit(&mid);
            for (int dir = 0; dir < 4; dir++) {
                MPI_Datatype ts = dir % 2 ? mid : big, tr = dir % 2 ? big : mid;
                int o = dir % 2;
                long ss = o ? 375 : 800, sb = o ? 125 : 400, rs = o ? 800 : 375, rb = o ? 400 : 125;
                for (long i = 0; i < 3 * n + 8; i++) { sbuf[i] = -2; rbuf[i] = -1; }
                for (long i = 0; i < n; i++) sbuf[(i / sb) * ss + i % sb] = val(rank, i);
                if (dir < 2) {
                    CHECK_OK(MPI_Sendrecv(sbuf, 1, ts, next, 9, rbuf, 1, tr, prev, 9, MPI_COMM_WORLD, &st));
                } else { /* receive posted first, not waited on: one side copies alone */
                    CHECK_OK(MPI_Irecv(rbuf, 1, tr, prev, 9, MPI_COMM_WORLD, &rq[0]));
                    MPI_Barrier(MPI_COMM_WORLD);
                    CHECK_OK(MPI_Isend(sbuf, 1, ts, next, 9, MPI_COMM_WORLD, &rq[1]));
                    CHECK_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
                }
                for (long i = 0; i < n; i++)
                    if (rbuf[(i / rb) * rs + i % rb] != val(prev, i)) { CHECK(0, "big blocks dir %d: %ld", dir, i); break; }
                CHECK(rbuf[rb] == -1 && rbuf[3 * n] == -1, "big blocks: hole written");
            }
            MPI_Type_free(&big);
            MPI_Type_free(&mid);
        }
        MPI_Type_free(&tv);
        MPI_Type_free(&tn);
    }
    /* a computing receiver with a published contiguous receive: the sender
     * of a vector writes straight into it (packed piece by piece) */
    {
        long n = N;
        MPI_Datatype tv = mk_vector((int)n);
        MPI_Request q[2];
        fill(sbuf, n, pos_vector, rank);
        for (long i = 0; i < n; i++) rbuf[i] = -1;
        CHECK_OK(MPI_Irecv(rbuf, (int)n, MPI_DOUBLE, prev, 15, MPI_COMM_WORLD, &q[0]));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_OK(MPI_Isend(sbuf, 1, tv, next, 15, MPI_COMM_WORLD, &q[1]));
        double t0 = MPI_Wtime();
        volatile double sink = 0;
        while (MPI_Wtime() - t0 < 0.02) sink += 1; /* compute outside MPI */
        CHECK_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        for (long i = 0; i < n; i++)
            if (rbuf[i] != val(prev, i)) { CHECK(0, "direct vector->double %ld", i); break; }
        MPI_Type_free(&tv);
    }
    /* odd block sizes (7-byte blocks sent, 5-byte blocks received): pipe
     * chunks and copy pieces end inside blocks */
    {
        const int nb7 = 60000, nb5 = 84000; /* 420000 bytes each */
        char *s8 = malloc((size_t)nb7 * 11), *r8 = malloc((size_t)nb5 * 9);
        MPI_Datatype t7, t5;
        MPI_Type_vector(nb7, 7, 11, MPI_CHAR, &t7); MPI_Type_commit(&t7);
        MPI_Type_vector(nb5, 5, 9, MPI_CHAR, &t5); MPI_Type_commit(&t5);
        for (long i = 0; i < (long)nb7 * 11; i++) s8[i] = 0;
        for (long i = 0; i < (long)nb7 * 7; i++) s8[(i / 7) * 11 + i % 7] = (char)(i * 7 + rank);
        for (int mode = 0; mode < 2; mode++) {
            memset(r8, -1, (size_t)nb5 * 9);
            if (mode == 0) {
                CHECK_OK(MPI_Sendrecv(s8, 1, t7, next, 11, r8, 1, t5, prev, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else {
                MPI_Request q[2];
                CHECK_OK(MPI_Irecv(r8, 1, t5, prev, 12, MPI_COMM_WORLD, &q[0]));
                MPI_Barrier(MPI_COMM_WORLD);
                CHECK_OK(MPI_Isend(s8, 1, t7, next, 12, MPI_COMM_WORLD, &q[1]));
                CHECK_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
            }
            for (long i = 0; i < (long)nb5 * 5; i++)
                if (r8[(i / 5) * 9 + i % 5] != (char)(i * 7 + prev)) { CHECK(0, "odd blocks mode %d: byte %ld", mode, i); break; }
            CHECK(r8[5] == -1 && r8[8] == -1, "odd blocks: gap written");
        }
        MPI_Type_free(&t7); MPI_Type_free(&t5);
        free(s8); free(r8);
    }
    /* MPI_BOTTOM: a struct of absolute addresses of three separate objects */
    {
        int a = rank, c[3] = {rank, rank * 2, rank * 3};
        double b = rank + 0.5;
        int ra = -1, rc3[3] = {-1, -1, -1};
        double rb = -1;
        MPI_Aint d[3], e[3];
        MPI_Get_address(&a, &d[0]); MPI_Get_address(&b, &d[1]); MPI_Get_address(c, &d[2]);
        MPI_Get_address(&ra, &e[0]); MPI_Get_address(&rb, &e[1]); MPI_Get_address(rc3, &e[2]);
        int bl[] = {1, 1, 3};
        MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE, MPI_INT}, ts, tr;
        MPI_Type_create_struct(3, bl, d, ty, &ts);
        MPI_Type_create_struct(3, bl, e, ty, &tr);
        MPI_Type_commit(&ts); MPI_Type_commit(&tr);
        CHECK_OK(MPI_Sendrecv(MPI_BOTTOM, 1, ts, next, 8, MPI_BOTTOM, 1, tr, prev, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(ra == prev && rb == prev + 0.5 && rc3[2] == prev * 3, "MPI_BOTTOM struct: %d %g %d", ra, rb, rc3[2]);
        MPI_Type_free(&ts); MPI_Type_free(&tr);
    }
    /* MPI_BOTTOM at rendezvous sizes: two separate arrays of 20000 doubles
     * (moved in place) and 20000 ints at stride 2 (packed while copied) */
    {
        double *x = malloc(20000 * sizeof *x), *y = malloc(20000 * sizeof *y);
        double *rx = calloc(20000, sizeof *rx), *ry = calloc(20000, sizeof *ry);
        int *z = malloc(40000 * sizeof *z), *rz = calloc(40000, sizeof *rz);
        for (int i = 0; i < 20000; i++) { x[i] = rank + i; y[i] = -rank - i; z[2 * i] = rank * 100000 + i; }
        MPI_Datatype vz, ts, tr, tt[2];
        MPI_Type_vector(20000, 1, 2, MPI_INT, &vz);
        MPI_Aint d[3], e[3];
        int bl[3] = {20000, 20000, 1};
        MPI_Get_address(x, &d[0]); MPI_Get_address(y, &d[1]); MPI_Get_address(z, &d[2]);
        MPI_Get_address(rx, &e[0]); MPI_Get_address(ry, &e[1]); MPI_Get_address(rz, &e[2]);
        MPI_Datatype ty[3] = {MPI_DOUBLE, MPI_DOUBLE, vz};
        MPI_Type_create_struct(2, bl, d, ty, &ts);
        MPI_Type_create_struct(2, bl, e, ty, &tr);
        MPI_Type_create_struct(1, bl + 2, d + 2, ty + 2, &tt[0]);
        MPI_Type_create_struct(1, bl + 2, e + 2, ty + 2, &tt[1]);
        MPI_Type_commit(&ts); MPI_Type_commit(&tr); MPI_Type_commit(&tt[0]); MPI_Type_commit(&tt[1]);
        CHECK_OK(MPI_Sendrecv(MPI_BOTTOM, 1, ts, next, 13, MPI_BOTTOM, 1, tr, prev, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Sendrecv(MPI_BOTTOM, 1, tt[0], next, 14, MPI_BOTTOM, 1, tt[1], prev, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 20000; i++)
            if (rx[i] != prev + i || ry[i] != -prev - i || rz[2 * i] != prev * 100000 + i || rz[2 * i + 1] != 0) {
                CHECK(0, "MPI_BOTTOM rendezvous: element %d", i);
                break;
            }
        MPI_Type_free(&ts); MPI_Type_free(&tr); MPI_Type_free(&tt[0]); MPI_Type_free(&tt[1]); MPI_Type_free(&vz);
        free(x); free(y); free(rx); free(ry); free(z); free(rz);
    }
    free(sbuf);
    free(rbuf);
    return fy_finish();
}
