/* Sendrecv and Sendrecv_replace around a ring (every rank sends right and
 * receives from the left at once, eager and rendezvous sizes, which would
 * deadlock with blocking Send/Recv for large sizes) and with MPI_PROC_NULL. */
#include "fytest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_sendrecv");
    int rank = fy_rank_, size = fy_size_;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static const int ns[] = {0, 4, 16384, 16385, 1 << 20};
    char *sb = malloc(1 << 20), *rb = malloc(1 << 20);
    MPI_Status st;
    int cnt;
    for (int i = 0; i < 5; i++) {
        int n = ns[i];
        fy_fill(sb, n, (unsigned)(rank * 10 + i));
        memset(rb, 0, n);
        CHECK_OK(MPI_Sendrecv(sb, n, MPI_BYTE, right, i, rb, n, MPI_BYTE, left, i, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == i && cnt == n, "Sendrecv status size %d", n);
        CHECK(fy_verify(rb, n, (unsigned)(left * 10 + i)) == (size_t)-1, "Sendrecv payload size %d", n);
        CHECK(fy_verify(sb, n, (unsigned)(rank * 10 + i)) == (size_t)-1, "Sendrecv changed the send buffer");
        /* replace, with wildcards on the receive side */
        fy_fill(sb, n, (unsigned)(rank * 10 + i + 5));
        CHECK_OK(MPI_Sendrecv_replace(sb, n, MPI_BYTE, right, 100 + i, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                      MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 100 + i && cnt == n, "Sendrecv_replace status size %d", n);
        CHECK(fy_verify(sb, n, (unsigned)(left * 10 + i + 5)) == (size_t)-1, "Sendrecv_replace payload size %d", n);
    }
    /* PROC_NULL on either side */
    int x = rank, y = -7;
    CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, &y, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(y == -7 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0,
          "Sendrecv PROC_NULL: y %d source %d tag %d count %d", y, st.MPI_SOURCE, st.MPI_TAG, cnt);
    CHECK_OK(MPI_Sendrecv_replace(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    CHECK(x == rank && st.MPI_SOURCE == MPI_PROC_NULL, "Sendrecv_replace PROC_NULL");
    /* send to the right, nothing from the left end of a chain */
    int src = rank == 0 ? MPI_PROC_NULL : rank - 1, dst = rank == size - 1 ? MPI_PROC_NULL : rank + 1;
    y = -1;
    CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, dst, 2, &y, 1, MPI_INT, src, 2, MPI_COMM_WORLD, &st));
    CHECK(y == (rank == 0 ? -1 : rank - 1), "chain Sendrecv got %d", y);
    /* to self */
    x = 42; y = 0;
    CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, rank, 3, &y, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &st));
    CHECK(y == 42, "Sendrecv to self got %d", y);
    free(sb); free(rb);
    return fy_finish();
}
