/* late_peer: rank 1 sleeps FYTEST_LATE_MS (default 1500) after MPI_Init
 * before its first MPI call; rank 0 sends it a message and waits in
 * MPI_Barrier meanwhile. The fabric connection to rank 1 needs rank 1's
 * progress, so rank 0's wait has nothing to do for that long: its
 * counters (FERRY_STATS) tell whether it slept or polled (the test:
 * mpi.net.nolocal.late_peer). Prints PASS on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int rank, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *ms = getenv("FYTEST_LATE_MS");
  if (rank == 1) {
    usleep((useconds_t)(ms ? atoi(ms) : 1500) * 1000);
    MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 0) {
    x = 42;
    MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1 && x != 42) {
    printf("FAIL late_peer: got %d\n", x);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) printf("PASS late_peer\n");
  MPI_Finalize();
  return 0;
}
