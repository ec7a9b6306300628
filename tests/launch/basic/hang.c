/* A job that never ends: every rank waits for a message nobody sends
 * (used to check mpiexec's time limit). */
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size, v;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Recv(&v, 1, MPI_INT, (rank + 1) % size, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
