/* Partitioned communication: errors are reported with the right class
 * and leave the request usable (MPI_ERRORS_RETURN).
 * - Pready / Pready_range / Pready_list on an inactive request, with a
 *   partition out of range, a partition marked twice in one epoch, a
 *   receive request; Parrived on a send request or out of range;
 * - negative partitions; MPI_ANY_SOURCE / MPI_ANY_TAG at init;
 * - a partitioned send larger than the partitioned receive: the receive
 *   completes with MPI_ERR_TRUNCATE (also a smaller one: totals must agree),
 *   small and chunked, and leaves nothing behind for the next pair. */
#include "fytest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_part_errors");
    int rank = fy_rank_, size = fy_size_;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int b[16] = {0}, rb[16] = {0};
    MPI_Request s, r;
    CHECK_OK(MPI_Psend_init(b, 4, 4, MPI_INT, next, 3, comm, MPI_INFO_NULL, &s));
    CHECK_OK(MPI_Precv_init(rb, 4, 4, MPI_INT, prev, 3, comm, MPI_INFO_NULL, &r));

    CHECK_CLASS(MPI_Pready(0, s), MPI_ERR_REQUEST);          /* not started */
    CHECK_CLASS(MPI_Pready_range(0, 1, s), MPI_ERR_REQUEST);
    int l2[2] = {0, 1};
    CHECK_CLASS(MPI_Pready_list(2, l2, s), MPI_ERR_REQUEST);
    CHECK_OK(MPI_Start(&s));
    CHECK_OK(MPI_Start(&r));
    CHECK_CLASS(MPI_Start(&s), MPI_ERR_REQUEST);             /* already active */
    CHECK_CLASS(MPI_Pready(4, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready(-1, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready(0, r), MPI_ERR_REQUEST);          /* a receive */
    CHECK_CLASS(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    int f = 0;
    CHECK_CLASS(MPI_Parrived(s, 0, &f), MPI_ERR_REQUEST);    /* a send */
    CHECK_CLASS(MPI_Parrived(r, 4, &f), MPI_ERR_ARG);
    CHECK_OK(MPI_Pready(1, s));
    CHECK_CLASS(MPI_Pready(1, s), MPI_ERR_ARG);              /* twice */
    CHECK_CLASS(MPI_Pready_range(0, 2, s), MPI_ERR_ARG);     /* holds 1 */
    CHECK_CLASS(MPI_Pready_range(2, 4, s), MPI_ERR_ARG);     /* beyond */
    CHECK_CLASS(MPI_Pready_range(3, 2, s), MPI_ERR_ARG);     /* empty */
    int dup[2] = {2, 2}, held[2] = {2, 1};
    CHECK_CLASS(MPI_Pready_list(2, dup, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready_list(2, held, s), MPI_ERR_ARG);
    /* none of the failed calls marked anything: 0, 2, 3 remain */
    int rest[3] = {3, 0, 2};
    CHECK_OK(MPI_Pready_list(3, rest, s));
    CHECK_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_CLASS(MPI_Pready(0, s), MPI_ERR_REQUEST);          /* completed epoch */
    MPI_Request_free(&s);
    MPI_Request_free(&r);

    MPI_Request x = MPI_REQUEST_NULL;
    CHECK_CLASS(MPI_Psend_init(b, -1, 4, MPI_INT, next, 3, comm, MPI_INFO_NULL, &x), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Precv_init(b, 1, 4, MPI_INT, MPI_ANY_SOURCE, 3, comm, MPI_INFO_NULL, &x), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Precv_init(b, 1, 4, MPI_INT, prev, MPI_ANY_TAG, comm, MPI_INFO_NULL, &x), MPI_ERR_TAG);
    CHECK(x == MPI_REQUEST_NULL, "a failed init returned a request");

    /* Totals disagree: 16 ints sent into 8, then 4 ints sent into 8. */
    for (int k = 0; k < 2; k++) {
        int sn = k ? 4 : 16;
        CHECK_OK(MPI_Psend_init(b, 2, sn / 2, MPI_INT, next, 4, comm, MPI_INFO_NULL, &s));
        CHECK_OK(MPI_Precv_init(rb, 2, 4, MPI_INT, prev, 4, comm, MPI_INFO_NULL, &r));
        CHECK_OK(MPI_Start(&r));
        CHECK_OK(MPI_Start(&s));
        CHECK_OK(MPI_Pready_range(0, 1, s));
        MPI_Status st;
        int e = MPI_Wait(&r, &st);
        CHECK_CLASS(e, MPI_ERR_TRUNCATE);
        CHECK_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        MPI_Request_free(&s);
        MPI_Request_free(&r);
    }

    /* The same with chunked transfers (docs/partitioned.md): each pair of
     * totals (ints sent, ints received) mixes the receiver's cut into
     * 64 KiB chunks with a sender that waits for it or sends early; then a
     * matching pair on the same tag gets its own data, so no mismatched
     * chunk was left behind. */
    enum { BIG = 1 << 16 }; /* 256 KiB of ints */
    int *bb = malloc(sizeof(int) * BIG), *rbb = malloc(sizeof(int) * BIG);
    const int tot[4][2] = {{BIG, BIG / 2}, {BIG / 2, BIG}, {2048, BIG}, {BIG, 2048}};
    for (int k = 0; k < 4; k++) {
        CHECK_OK(MPI_Psend_init(bb, 4, tot[k][0] / 4, MPI_INT, next, 6, comm, MPI_INFO_NULL, &s));
        CHECK_OK(MPI_Precv_init(rbb, 2, tot[k][1] / 2, MPI_INT, prev, 6, comm, MPI_INFO_NULL, &r));
        CHECK_OK(MPI_Start(&r));
        CHECK_OK(MPI_Start(&s));
        CHECK_OK(MPI_Pready_range(0, 3, s));
        int e = MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK_CLASS(e, MPI_ERR_TRUNCATE);
        CHECK_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        MPI_Request_free(&s);
        MPI_Request_free(&r);
        CHECK_OK(MPI_Psend_init(bb, 8, BIG / 8, MPI_INT, next, 6, comm, MPI_INFO_NULL, &s));
        CHECK_OK(MPI_Precv_init(rbb, 4, BIG / 4, MPI_INT, prev, 6, comm, MPI_INFO_NULL, &r));
        for (int i = 0; i < BIG; i++) bb[i] = rank * 7 + i + k, rbb[i] = -1;
        CHECK_OK(MPI_Start(&r));
        CHECK_OK(MPI_Start(&s));
        CHECK_OK(MPI_Pready_range(0, 7, s));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        int bad = -1;
        for (int i = 0; i < BIG && bad < 0; i++)
            if (rbb[i] != prev * 7 + i + k) bad = i;
        CHECK(bad < 0, "after mismatch %d: int %d wrong", k, bad);
        MPI_Request_free(&s);
        MPI_Request_free(&r);
    }
    free(bb);
    free(rbb);
    MPI_Comm_free(&comm);
    return fy_finish();
}
