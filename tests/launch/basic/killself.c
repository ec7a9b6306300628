/* Failure probe: rank 1 kills itself with SIGKILL right after MPI_Init while
 * every other rank blocks in MPI_Recv from it. The launcher must end the job. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        kill(getpid(), SIGKILL);
        pause();
    }
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("FAIL killself: rank %d received a message from a dead rank\n", rank);
    MPI_Finalize();
    return 1;
}
