/* Large local copies, which Ferry makes in pieces (FERRY_COPY_CHUNK, see
 * src/datatype/fy_copy.h): sizes on both sides of a piece boundary and
 * odd tails, through MPI_Pack/MPI_Unpack of contiguous data, a
 * Sendrecv to self, the own block of Allgather and Alltoall (large blocks:
 * the cross-memory alltoall), a Reduce's fold and a Put/Get on a shared
 * window. Every byte is checked, and so are the bytes just past each
 * destination (a piece must not run over). */
#include "fytest.h"

#define GUARD 64

static unsigned char pat(size_t i, int seed) { return (unsigned char)(i * 131u + (unsigned)seed * 7u + (i >> 12)); }

static void fill(unsigned char *b, size_t n, int seed) { for (size_t i = 0; i < n; i++) b[i] = pat(i, seed); }

static size_t first_bad(const unsigned char *b, size_t n, int seed) {
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(i, seed)) return i;
    return n;
}

static int guard_ok(const unsigned char *b) {
    for (int i = 0; i < GUARD; i++)
        if (b[i] != 0xee) return 0;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("datatype_bigcopy");
    int rank = fy_rank_, np = fy_size_;
    const size_t sizes[] = {16383, 16384, 16385, 262143, 262144, 262145, (1u << 20) + 5, (3u << 20) + 7};
    const int nsz = (int)(sizeof sizes / sizeof sizes[0]);
    size_t maxn = sizes[nsz - 1];
    unsigned char *a = malloc(maxn * (size_t)np + GUARD), *b = malloc(maxn * (size_t)np + GUARD);
    CHECK(a && b, "out of memory");
    if (!a || !b) return fy_finish();

    for (int k = 0; k < nsz; k++) {
        size_t n = sizes[k];
        int cnt = (int)n, pos = 0;
        /* Pack / Unpack of MPI_BYTE */
        fill(a, n, k);
        memset(b, 0xee, n + GUARD);
        CHECK_OK(MPI_Pack(a, cnt, MPI_BYTE, b, cnt + GUARD, &pos, MPI_COMM_WORLD));
        CHECK(pos == cnt && first_bad(b, n, k) == n && guard_ok(b + n), "Pack of %zu bytes", n);
        memset(a, 0xee, n + GUARD);
        pos = 0;
        CHECK_OK(MPI_Unpack(b, cnt, &pos, a, cnt, MPI_BYTE, MPI_COMM_WORLD));
        CHECK(pos == cnt && first_bad(a, n, k) == n && guard_ok(a + n), "Unpack of %zu bytes", n);

        /* Sendrecv to self */
        memset(b, 0xee, n + GUARD);
        CHECK_OK(MPI_Sendrecv(a, cnt, MPI_BYTE, rank, 5, b, cnt, MPI_BYTE, rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(first_bad(b, n, k) == n && guard_ok(b + n), "Sendrecv to self of %zu bytes", n);

        /* Allgather: every block, this rank's own copied locally */
        fill(a, n, 100 + rank);
        memset(b, 0xee, n * (size_t)np + GUARD);
        CHECK_OK(MPI_Allgather(a, cnt, MPI_BYTE, b, cnt, MPI_BYTE, MPI_COMM_WORLD));
        for (int j = 0; j < np; j++)
            CHECK(first_bad(b + (size_t)j * n, n, 100 + j) == n, "Allgather of %zu bytes: block %d", n, j);
        CHECK(guard_ok(b + n * (size_t)np), "Allgather of %zu bytes: past the end", n);

        /* Alltoall: block j for rank j */
        if (n * (size_t)np <= maxn * (size_t)np) {
            for (int j = 0; j < np; j++) fill(a + (size_t)j * n, n, 1000 * rank + j);
            memset(b, 0xee, n * (size_t)np + GUARD);
            CHECK_OK(MPI_Alltoall(a, cnt, MPI_BYTE, b, cnt, MPI_BYTE, MPI_COMM_WORLD));
            for (int j = 0; j < np; j++)
                CHECK(first_bad(b + (size_t)j * n, n, 1000 * j + rank) == n, "Alltoall of %zu bytes: block %d", n, j);
            CHECK(guard_ok(b + n * (size_t)np), "Alltoall of %zu bytes: past the end", n);
        }

        /* Reduce (MAX of identical inputs: the result is the input) */
        fill(a, n, k);
        memset(b, 0xee, n + GUARD);
        CHECK_OK(MPI_Reduce(a, b, cnt, MPI_UNSIGNED_CHAR, MPI_MAX, 0, MPI_COMM_WORLD));
        if (rank == 0) CHECK(first_bad(b, n, k) == n && guard_ok(b + n), "Reduce of %zu bytes", n);
    }

    /* Put and Get on a shared window (a mapped target: a local copy) */
    MPI_Comm node;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    size_t n = sizes[nsz - 1];
    unsigned char *base;
    MPI_Win w;
    CHECK_OK(MPI_Win_allocate_shared((MPI_Aint)(n + GUARD), 1, MPI_INFO_NULL, node, &base, &w));
    int nr, nodesz;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &nodesz);
    int t = (nr + 1) % nodesz;
    memset(base, 0xee, n + GUARD);
    fill(a, n, 7 + nr);
    MPI_Win_fence(0, w);
    CHECK_OK(MPI_Put(a, (int)n, MPI_BYTE, t, 0, (int)n, MPI_BYTE, w));
    MPI_Win_fence(0, w);
    int from = (nr + nodesz - 1) % nodesz;
    CHECK(first_bad(base, n, 7 + from) == n && guard_ok(base + n), "Put of %zu bytes", n);
    memset(b, 0xee, n + GUARD);
    CHECK_OK(MPI_Get(b, (int)n, MPI_BYTE, t, 0, (int)n, MPI_BYTE, w));
    MPI_Win_fence(0, w);
    CHECK(first_bad(b, n, 7 + nr) == n && guard_ok(b + n), "Get of %zu bytes", n);
    MPI_Win_free(&w);
    MPI_Comm_free(&node);
    free(a);
    free(b);
    return fy_finish();
}
