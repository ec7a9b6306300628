/* Random nested derived types (contiguous, vector, hvector, indexed,
 * hindexed, indexed_block, hindexed_block, struct, resized; negative
 * strides and displacements, empty blocks, up to 4 levels) checked against
 * a reference typemap built here by the standard's definitions: size,
 * lb/extent, true extent, the packed order of 2 items, unpack, Get_elements
 * of a partial stream, and a message to self and (np 2) to the next rank
 * with one random type sent and another of the same size received. */
#include "fytest.h"

#define MAXE 4096
#define BUFN (1 << 16)
#define MID (BUFN / 2)

typedef struct { MPI_Datatype t; int n; long off[MAXE]; long lb, ub; int any; } ref_t;

static unsigned rng = 12345;
static int rnd(int n) { rng = rng * 1103515245u + 12345u; return (int)((rng >> 8) % (unsigned)n); }

/* append copies of c at byte displacement d (bl items at c's extent) */
static int add_block(ref_t *r, const ref_t *c, int bl, long d) {
    long e = c->ub - c->lb;
    for (int j = 0; j < bl; j++) {
        long s = d + j * e;
        if (r->n + c->n > MAXE) return -1;
        for (int k = 0; k < c->n; k++) r->off[r->n++] = c->off[k] + s;
        long l = c->lb + s, u = c->ub + s;
        if (!r->any || l < r->lb) r->lb = l;
        if (!r->any || u > r->ub) r->ub = u;
        r->any = 1;
    }
    return 0;
}

static ref_t *mk(int depth) {
    ref_t *r = calloc(1, sizeof *r);
    if (depth == 0 || rnd(4) == 0) {
        r->t = MPI_INT; r->n = 1; r->off[0] = 0; r->lb = 0; r->ub = 4; r->any = 1;
        return r;
    }
    ref_t *c = mk(depth - 1), *c2 = NULL;
    long e = c->ub - c->lb;
    int kind = rnd(9), cnt = 1 + rnd(4), bl = rnd(3) + (rnd(5) == 0 ? 0 : 1), err = 0;
    int bls[4], di[4]; MPI_Aint da[4]; MPI_Datatype ty[4];
    for (int i = 0; i < 4; i++) { bls[i] = rnd(3); di[i] = rnd(9) - 4; da[i] = 4L * (rnd(41) - 20); }
    switch (kind) {
    case 0: MPI_Type_contiguous(cnt, c->t, &r->t);
        for (int i = 0; i < cnt && !err; i++) err = add_block(r, c, 1, i * e);
        break;
    case 1: { int st = rnd(7) - 3; MPI_Type_vector(cnt, bl, st, c->t, &r->t);
        for (int i = 0; i < cnt && !err; i++) if (bl) err = add_block(r, c, bl, (long)i * st * e);
        break; }
    case 2: { MPI_Aint st = 4L * (rnd(31) - 15); MPI_Type_create_hvector(cnt, bl, st, c->t, &r->t);
        for (int i = 0; i < cnt && !err; i++) if (bl) err = add_block(r, c, bl, i * st);
        break; }
    case 3: MPI_Type_indexed(cnt, bls, di, c->t, &r->t);
        for (int i = 0; i < cnt && !err; i++) if (bls[i]) err = add_block(r, c, bls[i], di[i] * e);
        break;
    case 4: MPI_Type_create_hindexed(cnt, bls, da, c->t, &r->t);
        for (int i = 0; i < cnt && !err; i++) if (bls[i]) err = add_block(r, c, bls[i], da[i]);
        break;
    case 5: MPI_Type_create_indexed_block(cnt, bl, di, c->t, &r->t);
        for (int i = 0; i < cnt && !err; i++) if (bl) err = add_block(r, c, bl, di[i] * e);
        break;
    case 6: MPI_Type_create_hindexed_block(cnt, bl, da, c->t, &r->t);
        for (int i = 0; i < cnt && !err; i++) if (bl) err = add_block(r, c, bl, da[i]);
        break;
    case 7: c2 = mk(depth - 1);
        for (int i = 0; i < cnt; i++) ty[i] = i % 2 ? c2->t : c->t;
        MPI_Type_create_struct(cnt, bls, da, ty, &r->t);
        for (int i = 0; i < cnt && !err; i++) if (bls[i]) err = add_block(r, i % 2 ? c2 : c, bls[i], da[i]);
        break;
    default: { long lb = 4L * (rnd(9) - 4), ext = 4L * (rnd(12) + 1);
        MPI_Type_create_resized(c->t, lb, ext, &r->t);
        for (int k = 0; k < c->n; k++) r->off[r->n++] = c->off[k];
        r->lb = lb; r->ub = lb + ext; r->any = 1;
        break; }
    }
    if (!r->any) { r->lb = r->ub = 0; }
    if (c->t != MPI_INT) MPI_Type_free(&c->t);
    free(c);
    if (c2) { if (c2->t != MPI_INT) MPI_Type_free(&c2->t); free(c2); }
    if (err) { MPI_Type_free(&r->t); free(r); return mk(depth); }
    return r;
}

static int bufa[BUFN], bufb[BUFN], packed[2 * MAXE + 8];

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("datatype_random");
    int rank = fy_rank_, size = fy_size_;
    for (int i = 0; i < BUFN; i++) bufa[i] = i;
    int tested = 0;
    long elems = 0, maxn = 0;
    for (int iter = 0; iter < 300; iter++) { /* every rank runs all: no deadlock after a failure */
        rng = 777u + (unsigned)iter * 7919u; /* every rank builds the same types */
        ref_t *r = mk(4);
        long e = r->ub - r->lb;
        int ok = 1;
        for (int k = 0; k < r->n; k++)
            for (int it = 0; it < 2; it++) {
                long o = r->off[k] + it * e;
                if (o < -4L * (MID - 8) || o > 4L * (MID - 8)) ok = 0;
            }
        if (r->t == MPI_INT || !ok) { if (r->t != MPI_INT) MPI_Type_free(&r->t); free(r); continue; }
        tested++;
        elems += r->n;
        if (r->n > maxn) maxn = r->n;
        MPI_Type_commit(&r->t);
        int sz; MPI_Aint lb, ext, tlb, text;
        MPI_Type_size(r->t, &sz);
        MPI_Type_get_extent(r->t, &lb, &ext);
        MPI_Type_get_true_extent(r->t, &tlb, &text);
        CHECK(sz == 4 * r->n, "iter %d: size %d, expected %d", iter, sz, 4 * r->n);
        CHECK(lb == r->lb && ext == e, "iter %d: lb %ld ext %ld, expected %ld %ld", iter, (long)lb, (long)ext, r->lb, e);
        if (r->n) {
            long mn = r->off[0], mx = r->off[0];
            for (int k = 1; k < r->n; k++) { if (r->off[k] < mn) mn = r->off[k]; if (r->off[k] > mx) mx = r->off[k]; }
            CHECK(tlb == mn && text == mx + 4 - mn, "iter %d: true lb %ld ext %ld, expected %ld %ld", iter,
                  (long)tlb, (long)text, mn, mx + 4 - mn);
        }
        int pos = 0;
        CHECK_OK(MPI_Pack(bufa + MID, 2, r->t, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD));
        CHECK(pos == 2 * sz, "iter %d: pack position %d", iter, pos);
        for (int it = 0, i = 0; it < 2; it++)
            for (int k = 0; k < r->n; k++, i++) {
                int want = MID + (int)((r->off[k] + it * e) / 4);
                if (packed[i] != want) { CHECK(0, "iter %d: packed[%d] = %d, expected %d", iter, i, packed[i], want); it = 2; break; }
            }
        /* unpack into zeros: every typemap element gets its value back */
        memset(bufb, 0, sizeof bufb);
        pos = 0;
        CHECK_OK(MPI_Unpack(packed, 2 * sz, &pos, bufb + MID, 2, r->t, MPI_COMM_WORLD));
        for (int it = 0; it < 2; it++)
            for (int k = r->n - 1; k >= 0; k--) { /* the last write of an overlapping map wins */
                long o = MID + (r->off[k] + it * e) / 4;
                (void)o;
            }
        for (int k = 0; k < r->n; k++) {
            long o = MID + r->off[k] / 4;
            if (bufb[o] != (int)o) { CHECK(0, "iter %d: unpacked element %d at %ld = %d", iter, k, o, bufb[o]); break; }
        }
        /* partial stream: elements */
        if (r->n > 1) {
            MPI_Status st; int el;
            MPI_Status_set_elements(&st, MPI_BYTE, 4 * (r->n + 1));
            MPI_Get_elements(&st, r->t, &el);
            CHECK(el == r->n + 1, "iter %d: elements %d", iter, el);
        }
        /* to self, then to the next rank (same type both ways: same layout) */
        if (sz) {
            memset(bufb, 0, sizeof bufb);
            CHECK_OK(MPI_Sendrecv(bufa + MID, 2, r->t, rank, 5, bufb + MID, 2, r->t, rank, 5, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
            for (int k = 0; k < r->n; k++) {
                long o = MID + r->off[k] / 4;
                if (bufb[o] != (int)o) { CHECK(0, "iter %d: self element %d", iter, k); break; }
            }
            if (size > 1) {
                int nx = (rank + 1) % size, pv = (rank + size - 1) % size;
                memset(bufb, 0, sizeof bufb);
                /* receive as plain ints: the packed order */
                CHECK_OK(MPI_Sendrecv(bufa + MID, 2, r->t, nx, 6, bufb, 2 * r->n, MPI_INT, pv, 6, MPI_COMM_WORLD,
                                      MPI_STATUS_IGNORE));
                for (int i = 0; i < 2 * r->n; i++)
                    if (bufb[i] != packed[i]) {
                        CHECK(0, "iter %d (size %d, extent %ld): received[%d] = %d, expected %d", iter, sz, e, i,
                              bufb[i], packed[i]);
                        break;
                    }
            }
        }
        MPI_Type_free(&r->t);
        free(r);
    }
    CHECK(tested > 100, "only %d types tested", tested);
    if (rank == 0) printf("# %d random types, %ld elements, largest %ld\n", tested, elems, maxn);
    return fy_finish();
}
