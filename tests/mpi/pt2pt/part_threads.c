/* Partitioned send at MPI_THREAD_MULTIPLE: four threads each fill and mark
 * their own partitions (MPI_Pready, MPI_Pready_range) of one request,
 * several epochs, in a ring; the receiver polls MPI_Parrived. */
#include "fytest.h"
#include <pthread.h>

#define NT 4
#define PER 3            /* partitions per thread */
#define CNT 1000         /* ints per partition */
#define P (NT * PER)

static int *sb, epoch, rank;
static MPI_Request sreq;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int q = t * PER; q < (t + 1) * PER; q++)
        for (int i = 0; i < CNT; i++) sb[q * CNT + i] = rank * 100000 + epoch * 1000 + q;
    if (t % 2) {
        CHECK_OK(MPI_Pready_range(t * PER, (t + 1) * PER - 1, sreq));
    } else {
        for (int q = (t + 1) * PER - 1; q >= t * PER; q--) CHECK_OK(MPI_Pready(q, sreq));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    fy_init("pt2pt_part_threads");
    rank = fy_rank_;
    int size = fy_size_;
    if (provided < MPI_THREAD_MULTIPLE) {
        CHECK(!fy_is_ferry(), "Ferry gave thread level %d", provided);
        return fy_finish();
    }
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    sb = malloc(sizeof(int) * P * CNT);
    int *rb = malloc(sizeof(int) * P * CNT);
    MPI_Request rreq;
    CHECK_OK(MPI_Psend_init(sb, P, CNT, MPI_INT, next, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    CHECK_OK(MPI_Precv_init(rb, P / 2, 2 * CNT, MPI_INT, prev, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    for (epoch = 0; epoch < 5; epoch++) {
        CHECK_OK(MPI_Start(&rreq));
        CHECK_OK(MPI_Start(&sreq));
        pthread_t th[NT];
        for (int t = 0; t < NT; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
        for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
        for (int q = 0; q < P / 2; q++) {
            int f = 0;
            while (!f) CHECK_OK(MPI_Parrived(rreq, q, &f));
        }
        CHECK_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
        int bad = 0;
        for (int q = 0; q < P; q++)
            for (int i = 0; i < CNT; i++) bad += rb[q * CNT + i] != prev * 100000 + epoch * 1000 + q;
        CHECK(!bad, "epoch %d: %d wrong ints", epoch, bad);
    }
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
    free(sb);
    free(rb);
    return fy_finish();
}
