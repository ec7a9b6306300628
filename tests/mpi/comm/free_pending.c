/* MPI_Comm_free while operations on the communicator are pending (MPI 4.1
 * 7.4.3: they complete normally): an Irecv, an Isend and an Ibcast started
 * on a duplicate, the duplicate freed, then the operations completed and
 * checked; many rounds, so a freed object or a reused context id would show. */
#include <mpi.h>
#include "fytest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("comm_free_pending");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int round = 0; round < 200; round++) {
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int in = -1, out = rank + round, b = rank == 0 ? round : -1;
    MPI_Request r[3];
    CHECK_OK(MPI_Irecv(&in, 1, MPI_INT, left, 5, c, &r[0]));
    CHECK_OK(MPI_Ibcast(&b, 1, MPI_INT, 0, c, &r[1]));
    CHECK_OK(MPI_Isend(&out, 1, MPI_INT, right, 5, c, &r[2]));
    CHECK_OK(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "freed handle");
    CHECK_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    CHECK(in == left + round && b == round, "round %d: got %d and %d", round, in, b);
    if (fy_errs) break;
  }
  return fy_finish();
}
