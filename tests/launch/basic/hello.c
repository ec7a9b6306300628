/* Launch probe: prints "hello <rank> of <size>", passes a token around the
 * ring, and checks the size against argv[1] when given; with FY_HELLO_HOST
 * set also "host <rank> <processor name>". Exit 0 on success. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, tok = -1, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && size != atoi(argv[1])) {
        fprintf(stderr, "FAIL hello: size %d, expected %s\n", size, argv[1]);
        bad = 1;
    }
    if (size > 1) {
        if (rank == 0) {
            tok = 0;
            MPI_Send(&tok, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&tok, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (tok != size - 1) { fprintf(stderr, "FAIL hello: token %d\n", tok); bad = 1; }
        } else {
            MPI_Recv(&tok, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            tok++;
            MPI_Send(&tok, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }
    printf("hello %d of %d\n", rank, size);
    if (getenv("FY_HELLO_HOST")) {
        char name[MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_Get_processor_name(name, &len);
        printf("host %d %s\n", rank, name);
    }
    fflush(stdout);
    MPI_Finalize();
    return bad;
}
