/* MPI_ERRORS_ARE_FATAL (the default): rank 0 sends to an invalid rank; the
 * job must fail (the driver checks the exit status and the message). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) MPI_Send(&x, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD);
    else MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("FAIL fatal: rank %d survived an error under MPI_ERRORS_ARE_FATAL\n", rank);
    MPI_Finalize();
    return 1;
}
