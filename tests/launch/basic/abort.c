/* Abort probe: rank argv[1] (default 2) calls MPI_Abort(MPI_COMM_WORLD,
 * argv[2] (default 7)) while the others block in MPI_Recv. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, x;
    MPI_Init(&argc, &argv);
    int who = argc > 1 ? atoi(argv[1]) : 2, code = argc > 2 ? atoi(argv[2]) : 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (who >= size) who = size - 1;
    if (rank == who) /* no message of our own: the launcher must name us */
        MPI_Abort(MPI_COMM_WORLD, code);
    MPI_Recv(&x, 1, MPI_INT, who, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("FAIL abort: rank %d returned from MPI_Recv\n", rank);
    MPI_Finalize();
    return 1;
}
