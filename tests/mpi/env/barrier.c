/* Barrier, many rounds with random delays: a shared counter file records
 * arrivals; after round k's barrier every rank must see all arrivals of
 * round k (no timing involved). Also a barrier on COMM_SELF. */
#include "fytest.h"
#include <fcntl.h>
#include <sys/mman.h>

#define ROUNDS 300

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("env_barrier");
    int rank = fy_rank_, size = fy_size_;
    char path[256] = "";
    if (rank == 0) {
        snprintf(path, sizeof path, "/tmp/fytest-barrier-XXXXXX");
        int fd = mkstemp(path);
        CHECK(fd >= 0, "mkstemp");
        CHECK(ftruncate(fd, ROUNDS * sizeof(int)) == 0, "ftruncate");
        close(fd);
        for (int r = 1; r < size; r++) MPI_Send(path, sizeof path, MPI_CHAR, r, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(path, sizeof path, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    int fd = open(path, O_RDWR);
    int *cnt = fd >= 0 ? mmap(NULL, ROUNDS * sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (cnt == MAP_FAILED) { CHECK(0, "cannot map %s", path); MPI_Abort(MPI_COMM_WORLD, 2); }
    close(fd);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); /* everyone mapped before rank 0 unlinks */
    if (rank == 0) unlink(path);
    srand(1234 + rank);
    for (int k = 0; k < ROUNDS; k++) {
        if (rand() % 8 == 0) usleep(rand() % 2000);
        __atomic_fetch_add(&cnt[k], 1, __ATOMIC_SEQ_CST);
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        int seen = __atomic_load_n(&cnt[k], __ATOMIC_SEQ_CST);
        if (seen != size) { CHECK(0, "round %d: left the barrier after %d of %d arrivals", k, seen, size); break; }
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_SELF));
    munmap(cnt, ROUNDS * sizeof(int));
    return fy_finish();
}
