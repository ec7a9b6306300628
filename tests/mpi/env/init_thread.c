/* Init_thread at the level named by argv[1] (single, funneled, serialized,
 * multiple; default: Init): Initialized/Finalized before and after,
 * provided is a valid level and equals Query_thread, Is_thread_main; with
 * MPI_THREAD_MULTIPLE two threads per rank exchange messages concurrently. */
#include "fytest.h"
#include <pthread.h>

#define NMSG 200
static int g_rank, g_size;
static pthread_t g_main;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg; /* thread t talks on tag t */
    int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    int main_flag = 1;
    MPI_Is_thread_main(&main_flag);
    if (t >= 0 && pthread_self() != g_main) CHECK(!main_flag, "Is_thread_main true in a spawned thread");
    for (int i = 0; i < NMSG; i++) {
        int v = g_rank * 100000 + t * 10000 + i, w = -1;
        MPI_Request r;
        CHECK_OK(MPI_Irecv(&w, 1, MPI_INT, left, t, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Send(&v, 1, MPI_INT, right, t, MPI_COMM_WORLD));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(w == left * 100000 + t * 10000 + i, "thread %d msg %d: got %d", t, i, w);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, required = -1;
    const char *lv = argc > 1 ? argv[1] : "none";
    if (!strcmp(lv, "single")) required = MPI_THREAD_SINGLE;
    else if (!strcmp(lv, "funneled")) required = MPI_THREAD_FUNNELED;
    else if (!strcmp(lv, "serialized")) required = MPI_THREAD_SERIALIZED;
    else if (!strcmp(lv, "multiple")) required = MPI_THREAD_MULTIPLE;

    MPI_Initialized(&flag);
    int pre_init = flag;
    MPI_Finalized(&flag);
    int pre_fin = flag;
    if (required < 0) MPI_Init(&argc, &argv);
    else MPI_Init_thread(&argc, &argv, required, &provided);
    fy_init("env_init_thread");
    CHECK(pre_init == 0 && pre_fin == 0, "before Init: Initialized %d Finalized %d", pre_init, pre_fin);
    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
          MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE, "thread level constants not ordered");
    MPI_Initialized(&flag);
    CHECK(flag, "Initialized false after Init");
    MPI_Finalized(&flag);
    CHECK(!flag, "Finalized true before Finalize");
    int q = -1;
    CHECK_OK(MPI_Query_thread(&q));
    if (required >= 0) {
        CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d invalid", provided);
        CHECK(q == provided, "Query_thread %d, provided %d", q, provided);
        /* Ferry provides every level up to MULTIPLE */
        if (fy_is_ferry()) CHECK(provided >= required, "Ferry: provided %d < required %d", provided, required);
    } else {
        CHECK(q >= MPI_THREAD_SINGLE && q <= MPI_THREAD_MULTIPLE, "Query_thread %d after Init", q);
    }
    flag = 0;
    CHECK_OK(MPI_Is_thread_main(&flag));
    CHECK(flag, "Is_thread_main false on the main thread");
    g_main = pthread_self();
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t th[2];
        for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
        for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    } else {
        worker(0);
    }
    int rc = fy_finish();
    MPI_Initialized(&flag);
    int post_init = flag;
    MPI_Finalized(&flag);
    if (!post_init || !flag) {
        fprintf(stderr, "FAIL env_init_thread [rank %d]: after Finalize Initialized %d Finalized %d\n", g_rank, post_init, flag);
        rc = 1;
    }
    return rc;
}
