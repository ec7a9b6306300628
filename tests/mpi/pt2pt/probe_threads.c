/* Matched probes at MPI_THREAD_MULTIPLE while another thread takes in
 * arrivals. Rank 0's threads send, each on its own communicator, pausing
 * now and then so that rank 1's blocking MPI_Mprobe goes to sleep; rank
 * 1's threads take every message with Mprobe (or Improbe, or a plain
 * Probe) and receive it. Any other thread of the process (the `thread`
 * progress agent, or the application's own threads in their waits) may
 * queue an arrival between a waiter's last poll and its check before
 * sleeping: that check must end the wait, since a matched probe has
 * dequeued the message by then (a wait that asked again lost it and
 * hung: MPICH's threads/pt2pt/mt_mprobe_sendrecv_huge over the fabric).
 * Counts per thread and data are checked; a lost message is a hang the
 * watchdog reports. Needs exactly pairs (rank r sends to r ^ 1). */
#include "fytest.h"
#include <pthread.h>
#include <unistd.h>

#define NT 4
#define ITER 150

static MPI_Comm comms[NT];
static int rank, errs_t[NT];

static int count_of(int it) { return it % 3 == 0 ? 4096 : 1 + it % 7; } /* 16 KiB or a few ints */

static void *sender(void *arg)
{
    int t = (int)(intptr_t)arg;
    int *b = malloc(sizeof(int) * 4096);
    for (int it = 0; it < ITER; it++) {
        int n = count_of(it);
        for (int i = 0; i < n; i++) b[i] = t * 1000000 + it * 1000 + i % 1000;
        /* the receiver's wait spins and yields first, then sleeps: a pause
         * of a few hundred microseconds sends it to sleep */
        if (it % 4 == t % 4) usleep(100 + 50 * (unsigned)t);
        CHECK_OK(MPI_Send(b, n, MPI_INT, rank ^ 1, it, comms[t]));
    }
    free(b);
    return NULL;
}

static void *receiver(void *arg)
{
    int t = (int)(intptr_t)arg;
    int *b = malloc(sizeof(int) * 4096);
    for (int it = 0; it < ITER; it++) {
        MPI_Status st;
        MPI_Message m = MPI_MESSAGE_NULL;
        int n = -1, how = (it + t) % 3;
        if (how == 0) {
            CHECK_OK(MPI_Mprobe(rank ^ 1, MPI_ANY_TAG, comms[t], &m, &st));
        } else if (how == 1) {
            int f = 0;
            while (!f) CHECK_OK(MPI_Improbe(rank ^ 1, MPI_ANY_TAG, comms[t], &f, &m, &st));
        } else {
            CHECK_OK(MPI_Probe(rank ^ 1, MPI_ANY_TAG, comms[t], &st));
        }
        MPI_Get_count(&st, MPI_INT, &n);
        if (st.MPI_TAG != it || n != count_of(it)) {
            errs_t[t]++;
            fprintf(stderr, "thread %d: message %d probed as tag %d, %d ints (expected %d)\n", t, it,
                    st.MPI_TAG, n, count_of(it));
        }
        if (how == 2)
            CHECK_OK(MPI_Recv(b, 4096, MPI_INT, rank ^ 1, st.MPI_TAG, comms[t], &st));
        else
            CHECK_OK(MPI_Mrecv(b, 4096, MPI_INT, &m, &st));
        MPI_Get_count(&st, MPI_INT, &n);
        int bad = n != count_of(it);
        for (int i = 0; !bad && i < n; i++) bad = b[i] != t * 1000000 + it * 1000 + i % 1000;
        if (bad) {
            errs_t[t]++;
            fprintf(stderr, "thread %d: message %d has %d ints or wrong data\n", t, it, n);
        }
    }
    free(b);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    fy_init("pt2pt_probe_threads");
    rank = fy_rank_;
    if (provided < MPI_THREAD_MULTIPLE) {
        CHECK(!fy_is_ferry(), "Ferry gave thread level %d", provided);
        return fy_finish();
    }
    if (fy_size_ % 2) {
        if (rank == 0) printf("SKIP: needs an even number of processes\n");
        return fy_finish();
    }
    for (int t = 0; t < NT; t++) CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, rank % 2 ? receiver : sender, (void *)(intptr_t)t);
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++) {
        CHECK(errs_t[t] == 0, "thread %d: %d errors", t, errs_t[t]);
        CHECK_OK(MPI_Comm_free(&comms[t]));
    }
    return fy_finish();
}
