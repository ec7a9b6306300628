/* Large derived-type rendezvous with both sides blocked in MPI_Send and
 * MPI_Recv (the SHARE split path: the packing sender writes front pieces,
 * the receiver reads the back ones it packed): vector into vector of another
 * stride (both non-contiguous), into contiguous doubles, into indexed,
 * truncation (MPI_ERR_TRUNCATE, count = bytes received, nothing written
 * beyond), sizes that are no multiple of the piece size. Run with small
 * pieces (FERRY_CMA_CHUNK) and FERRY_PIPE_MAX=0, and with FERRY_CMA=0. */
#include "fytest.h"

#define N 100003L /* doubles sent */

static double val(long i) { return 0.5 + (double)i; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("datatype_share");
    int rank = fy_rank_;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double *s = malloc(3 * N * sizeof(double)), *r = malloc(3 * N * sizeof(double));
    MPI_Datatype v2, v3, ix, half;
    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &v2);
    MPI_Type_vector(N, 1, 3, MPI_DOUBLE, &v3);
    MPI_Type_vector(N / 2, 1, 3, MPI_DOUBLE, &half);
    int nb = (int)(N / 4 + 1), *bl = malloc(nb * sizeof(int)), *dp = malloc(nb * sizeof(int)), at = 0;
    long left = N;
    for (int i = 0; i < nb; i++) { /* blocks of up to 4 doubles, gaps of 1-3 */
        bl[i] = left < 4 ? (int)left : 4;
        left -= bl[i];
        dp[i] = at;
        at += bl[i] + 1 + i % 3;
    }
    MPI_Type_indexed(nb, bl, dp, MPI_DOUBLE, &ix);
    char *ixmask = calloc(3 * N, 1);
    for (int b = 0; b < nb; b++)
        for (int j = 0; j < bl[b]; j++) ixmask[dp[b] + j] = 1;
    MPI_Type_commit(&v2); MPI_Type_commit(&v3); MPI_Type_commit(&half); MPI_Type_commit(&ix);
    for (long i = 0; i < N; i++) s[3 * i] = val(i);
    struct { MPI_Datatype t; int count; const char *name; } rt[] = {
        {v2, 1, "vector stride 2"}, {MPI_DOUBLE, (int)N, "contiguous"}, {ix, 1, "indexed"}, {half, 1, "truncated"}};
    for (int k = 0; k < 4; k++) {
        for (int rep = 0; rep < 3; rep++) {
            if (rank == 0) {
                CHECK_OK(MPI_Send(s, 1, v3, 1, k, MPI_COMM_WORLD));
            } else if (rank == 1) {
                for (long i = 0; i < 3 * N; i++) r[i] = -1;
                MPI_Status st;
                int rc = MPI_Recv(r, rt[k].count, rt[k].t, 0, k, MPI_COMM_WORLD, &st);
                int cnt;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                long got = k == 3 ? N / 2 : N;
                if (k == 3) CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
                else CHECK(rc == MPI_SUCCESS, "%s: rc %d", rt[k].name, rc);
                CHECK(cnt == (int)(got * 8), "%s: count %d, expected %ld", rt[k].name, cnt, got * 8);
                /* element i of the receive layout, and the holes untouched */
                long i = 0, bad = -1;
                for (long p = 0; p < 3 * N; p++) {
                    int in;
                    if (k == 0) in = p % 2 == 0 && p / 2 < N;
                    else if (k == 1) in = p < N;
                    else if (k == 3) in = p % 3 == 0 && p / 3 < N / 2;
                    else in = ixmask[p];
                    double want = in ? val(i++) : -1;
                    if (r[p] != want) { bad = p; break; }
                }
                CHECK(bad < 0, "%s: wrong value at double %ld: %g", rt[k].name, bad, bad < 0 ? 0 : r[bad]);
                CHECK(i == got, "%s: %ld elements, expected %ld", rt[k].name, i, got);
            }
        }
    }
    MPI_Type_free(&v2); MPI_Type_free(&v3); MPI_Type_free(&half); MPI_Type_free(&ix);
    free(s); free(r); free(bl); free(dp); free(ixmask);
    return fy_finish();
}
