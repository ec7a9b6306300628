/* The pack engine's specialised paths and the shared staging of a
 * rendezvous, checked against a reference layout built here:
 * - indexed types of equal blocks (the displacement list: blocks of 4, 8,
 *   12, 16, 24, 32, 48 and 64 bytes, negative displacements, runs that
 *   merge two blocks, several items with a resized extent);
 * - 8-byte blocks 16 bytes apart (vector of stride 2), also repeated;
 * - one block per item (a resized char, short or double, two ints in a
 *   resized struct), which the engine packs as one run of all the items;
 * MPI_Pack/MPI_Unpack (holes untouched), then messages in a ring and
 * between pairs (blocking, both sides waiting: the staged SHARE path for
 * large ones), received with the same type, as bytes, truncated (count =
 * bytes received, nothing written beyond) and two at once (the second
 * receive cannot have the staging buffer). Message sizes go from eager to
 * rendezvous; run with FERRY_PIPE_MAX=0 (SHARE) and small pieces (FERRY_CMA_CHUNK not a multiple of any
 * block) so that pieces start and end inside blocks. */
#include "fytest.h"

#define MAXB 4096

typedef struct {
    const char *name;
    MPI_Datatype t;
    int nb;
    long disp[MAXB], len[MAXB]; /* one item's blocks in typemap order, bytes */
    long extent, lo, hi;        /* item stride; span of one item's bytes */
    long size;
    long *map;                  /* packed byte o of an item: its offset in the item */
} ref_t;

static void finish_ref(ref_t *r) {
    r->size = 0;
    r->lo = r->hi = 0;
    for (int b = 0; b < r->nb; b++) {
        r->size += r->len[b];
        if (b == 0 || r->disp[b] < r->lo) r->lo = r->disp[b];
        if (b == 0 || r->disp[b] + r->len[b] > r->hi) r->hi = r->disp[b] + r->len[b];
    }
    r->map = malloc(r->size * sizeof(long));
    for (long b = 0, o = 0; b < r->nb; b++)
        for (long j = 0; j < r->len[b]; j++) r->map[o++] = r->disp[b] + j;
    MPI_Type_commit(&r->t);
    int sz;
    MPI_Aint lb, ext;
    MPI_Type_size(r->t, &sz);
    MPI_Type_get_extent(r->t, &lb, &ext);
    CHECK(sz == r->size, "%s: size %d, expected %ld", r->name, sz, r->size);
    r->extent = ext;
}

/* indexed of `base` (esize bytes) with equal blocks of bl elements */
static void mk_indexed(ref_t *r, const char *name, MPI_Datatype base, int esize, int nb, int bl, int neg) {
    int *bls = malloc(nb * sizeof(int)), *dp = malloc(nb * sizeof(int));
    int at = 0;
    for (int i = 0; i < nb; i++) {
        bls[i] = bl;
        dp[i] = neg && i % 3 == 1 ? -at - 2 * bl : at; /* some blocks below 0 */
        at += bl + 1 + i % 3;
        r->disp[i] = (long)dp[i] * esize;
        r->len[i] = (long)bl * esize;
    }
    r->name = name;
    r->nb = nb;
    MPI_Type_indexed(nb, bls, dp, base, &r->t);
    free(bls);
    free(dp);
    finish_ref(r);
}

/* hindexed_block of doubles, resized to a larger extent (count > 1 items) */
static void mk_hblock(ref_t *r, const char *name, int nb, int bl) {
    MPI_Aint *dp = malloc(nb * sizeof(MPI_Aint));
    long at = 8;
    for (int i = 0; i < nb; i++) {
        dp[i] = at;
        r->disp[i] = at;
        r->len[i] = bl * 8L;
        at += bl * 8L + 8L * (1 + i % 4);
    }
    MPI_Datatype h;
    MPI_Type_create_hindexed_block(nb, bl, dp, MPI_DOUBLE, &h);
    MPI_Type_create_resized(h, 0, at + 24, &r->t);
    MPI_Type_free(&h);
    r->name = name;
    r->nb = nb;
    free(dp);
    finish_ref(r);
}

/* vector(n, 1, 2) of doubles, optionally resized (repeated items) */
static void mk_vec2(ref_t *r, const char *name, int n, long extent) {
    MPI_Datatype v;
    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &v);
    if (extent) {
        MPI_Type_create_resized(v, 0, extent, &r->t);
        MPI_Type_free(&v);
    } else {
        r->t = v;
    }
    for (int i = 0; i < n; i++) {
        r->disp[i] = 16L * i;
        r->len[i] = 8;
    }
    r->name = name;
    r->nb = n;
    finish_ref(r);
}

/* one block of bl elements of `base` (esize bytes) at byte disp, resized
 * to extent: every item one block (the run of count blocks, an extent
 * apart, that the engine folds them into) */
static void mk_one(ref_t *r, const char *name, MPI_Datatype base, int esize, int bl, long disp, long extent) {
    int b[1] = {bl};
    MPI_Aint d[1] = {disp};
    MPI_Datatype ty[1] = {base}, s;
    MPI_Type_create_struct(1, b, d, ty, &s);
    MPI_Type_create_resized(s, 0, extent, &r->t);
    MPI_Type_free(&s);
    r->disp[0] = disp;
    r->len[0] = (long)bl * esize;
    r->name = name;
    r->nb = 1;
    finish_ref(r);
}

/* Buffer layout for count items: base offset so that negative
 * displacements stay inside; total bytes. */
static long base_of(const ref_t *r) { return r->lo < 0 ? -r->lo : 0; }
static long span_of(const ref_t *r, int count) { return base_of(r) + r->hi + (long)(count - 1) * r->extent + 16; }

/* packed byte i of count items in the layout at buf+base: its address */
static long where(const ref_t *r, long i) {
    return base_of(r) + (i / r->size) * r->extent + r->map[i % r->size];
}

static unsigned char sval(long pos) { return (unsigned char)(pos * 7 + 3); }

/* buf (span bytes) holds packed bytes [0, got) of `stream` in r's layout
 * and the sentinel 0xEE everywhere else */
static int check_layout(const ref_t *r, const unsigned char *buf, long span, const unsigned char *stream, long got,
                        const char *what) {
    unsigned char *want = malloc(span);
    memset(want, 0xEE, span);
    for (long i = 0; i < got; i++) want[where(r, i)] = stream[i];
    long bad = -1;
    for (long p = 0; p < span && bad < 0; p++)
        if (buf[p] != want[p]) bad = p;
    CHECK(bad < 0, "%s %s: byte %ld is %#x, expected %#x", r->name, what, bad, bad < 0 ? 0 : buf[bad],
          bad < 0 ? 0 : want[bad]);
    free(want);
    return bad < 0;
}

static unsigned char *make_send(const ref_t *r, int count, unsigned char **stream) {
    long span = span_of(r, count), n = r->size * count;
    unsigned char *s = malloc(span);
    for (long p = 0; p < span; p++) s[p] = sval(p);
    *stream = malloc(n ? n : 1);
    for (long i = 0; i < n; i++) (*stream)[i] = s[where(r, i)];
    return s;
}

static void test_pack(const ref_t *r) {
    for (int count = 1; count <= 3; count++) {
        unsigned char *stream, *s = make_send(r, count, &stream);
        long n = r->size * count, span = span_of(r, count);
        unsigned char *packed = malloc(n + 8), *u = malloc(span);
        int pos = 4;
        memset(packed, 0, n + 8);
        CHECK_OK(MPI_Pack(s + base_of(r), count, r->t, packed, (int)n + 8, &pos, MPI_COMM_SELF));
        CHECK(pos == n + 4, "%s: position %d", r->name, pos);
        CHECK(memcmp(packed + 4, stream, n) == 0, "%s: MPI_Pack of %d item(s) differs", r->name, count);
        memset(u, 0xEE, span);
        pos = 4;
        CHECK_OK(MPI_Unpack(packed, (int)n + 8, &pos, u + base_of(r), count, r->t, MPI_COMM_SELF));
        check_layout(r, u, span, stream, n, "MPI_Unpack");
        free(packed); free(u); free(s); free(stream);
    }
}

/* One message of count items from `from` to `to` (blocking Send / Recv,
 * or Sendrecv in a ring when ring is set); received as the type (cap items:
 * fewer is a truncation), or as bytes. */
static void test_msg(const ref_t *r, int count, int cap, int as_bytes, int ring) {
    int rank = fy_rank_, size = fy_size_;
    unsigned char *stream, *s = make_send(r, count, &stream);
    long n = r->size * count, span = span_of(r, cap), cbytes = r->size * cap;
    unsigned char *u = malloc(as_bytes ? cbytes + 16 : span);
    memset(u, 0xEE, as_bytes ? cbytes + 16 : span);
    MPI_Status st;
    int rc = MPI_SUCCESS, recv = 1, tag = 7;
    void *rb = as_bytes ? (void *)u : (void *)(u + base_of(r));
    int rcount = as_bytes ? (int)cbytes : cap;
    MPI_Datatype rt = as_bytes ? MPI_BYTE : r->t;
    if (ring) {
        rc = MPI_Sendrecv(s + base_of(r), count, r->t, (rank + 1) % size, tag, rb, rcount, rt,
                          (rank + size - 1) % size, tag, MPI_COMM_WORLD, &st);
    } else if (size == 1) {
        MPI_Request q;
        MPI_Isend(s + base_of(r), count, r->t, 0, tag, MPI_COMM_WORLD, &q);
        rc = MPI_Recv(rb, rcount, rt, 0, tag, MPI_COMM_WORLD, &st);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else if (rank % 2 == 0 && rank + 1 < size) {
        CHECK_OK(MPI_Send(s + base_of(r), count, r->t, rank + 1, tag, MPI_COMM_WORLD));
        recv = 0;
    } else if (rank % 2 == 1) {
        rc = MPI_Recv(rb, rcount, rt, rank - 1, tag, MPI_COMM_WORLD, &st);
    } else {
        recv = 0; /* the odd one out */
    }
    if (recv) {
        long got = n < cbytes ? n : cbytes;
        char what[96];
        snprintf(what, sizeof what, "%s count %d into %d%s", ring ? "ring" : "pair", count, cap,
                 as_bytes ? " bytes" : "");
        if (n > cbytes) CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
        else CHECK(rc == MPI_SUCCESS, "%s %s: rc %d", r->name, what, rc);
        int c;
        MPI_Get_count(&st, MPI_BYTE, &c);
        CHECK(c == got, "%s %s: count %d bytes, expected %ld", r->name, what, c, got);
        if (as_bytes) {
            CHECK(memcmp(u, stream, got) == 0, "%s %s: data differs", r->name, what);
            for (long p = got; p < cbytes + 16; p++)
                if (u[p] != 0xEE) { CHECK(0, "%s %s: byte %ld written", r->name, what, p); break; }
        } else {
            check_layout(r, u, span, stream, got, what);
        }
    }
    free(u); free(s); free(stream);
}

/* Two large messages received at once (both matched before either is
 * copied): one may take the staging buffer, the other is staged in
 * private memory. */
static void test_two(const ref_t *r, int count) {
    int rank = fy_rank_, size = fy_size_;
    if (size < 2 || rank > 1) return;
    unsigned char *stream, *s = make_send(r, count, &stream);
    long n = r->size * count, span = span_of(r, count);
    if (rank == 0) {
        CHECK_OK(MPI_Send(s + base_of(r), count, r->t, 1, 1, MPI_COMM_WORLD));
        CHECK_OK(MPI_Send(s + base_of(r), count, r->t, 1, 2, MPI_COMM_WORLD));
    } else {
        unsigned char *u1 = malloc(span), *u2 = malloc(span);
        memset(u1, 0xEE, span);
        memset(u2, 0xEE, span);
        MPI_Request q[2];
        MPI_Irecv(u2 + base_of(r), count, r->t, 0, 2, MPI_COMM_WORLD, &q[1]);
        MPI_Irecv(u1 + base_of(r), count, r->t, 0, 1, MPI_COMM_WORLD, &q[0]);
        CHECK_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        check_layout(r, u1, span, stream, n, "first of two");
        check_layout(r, u2, span, stream, n, "second of two");
        free(u1); free(u2);
    }
    free(s); free(stream);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    fy_init("datatype_kernels");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static ref_t T[16];
    int nt = 0;
    mk_indexed(&T[nt++], "indexed 32-byte blocks", MPI_DOUBLE, 8, 300, 4, 0);
    mk_indexed(&T[nt++], "indexed 32-byte blocks, negative displacements", MPI_DOUBLE, 8, 257, 4, 1);
    mk_indexed(&T[nt++], "indexed 4-byte blocks", MPI_INT, 4, 200, 1, 1);
    mk_indexed(&T[nt++], "indexed 8-byte blocks", MPI_DOUBLE, 8, 100, 1, 0);
    mk_indexed(&T[nt++], "indexed 12-byte blocks", MPI_INT, 4, 150, 3, 1);
    mk_indexed(&T[nt++], "indexed 24-byte blocks", MPI_DOUBLE, 8, 90, 3, 0);
    mk_indexed(&T[nt++], "indexed 64-byte blocks", MPI_DOUBLE, 8, 40, 8, 1);
    mk_hblock(&T[nt++], "hindexed_block 16-byte blocks, resized", 60, 2);
    mk_hblock(&T[nt++], "hindexed_block 48-byte blocks, resized", 30, 6);
    mk_vec2(&T[nt++], "vector stride 2", 1000, 0);
    mk_vec2(&T[nt++], "vector stride 2, resized", 7, 136);
    mk_one(&T[nt++], "one char, extent 2", MPI_CHAR, 1, 1, 0, 2);
    mk_one(&T[nt++], "one short, extent 6", MPI_SHORT, 2, 1, 0, 6);
    mk_one(&T[nt++], "one double at 8, extent 24", MPI_DOUBLE, 8, 1, 8, 24);
    mk_one(&T[nt++], "two ints at 4, extent 12", MPI_INT, 4, 2, 4, 12);
    for (int k = 0; k < nt; k++) test_pack(&T[k]);
    for (int k = 0; k < nt; k++) {
        /* items for about 1 KiB (eager) and 100 KiB (rendezvous: the pipe
         * or SHARE, by FERRY_PIPE_MAX) */
        int c1 = (int)(1024 / T[k].size) + 1, c2 = (int)(100000 / T[k].size) + 1;
        int counts[] = {c1, c2};
        for (int i = 0; i < 2; i++) {
            int c = counts[i];
            test_msg(&T[k], c, c, 0, 0);
            test_msg(&T[k], c, c, 0, 1);
            test_msg(&T[k], c, c, 1, 0);
            test_msg(&T[k], c, c / 2 + 1, 0, 0);  /* truncated */
            test_msg(&T[k], c, c, 0, 0);          /* the staging buffer again */
        }
        test_two(&T[k], c2);
    }
    /* larger than the 2 MiB the staging buffer has so far: it grows, and
     * the sender maps the new one */
    test_msg(&T[9], 400, 400, 0, 0);
    test_msg(&T[0], 3, 3, 0, 0);
    for (int k = 0; k < nt; k++) {
        MPI_Type_free(&T[k].t);
        free(T[k].map);
    }
    return fy_finish();
}
