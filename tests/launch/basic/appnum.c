/* MPMD probe: prints "app <rank> of <size>: appnum <MPI_APPNUM> arg <argv[1]>
 * env <FY_APP_ENV> cwd <basename of the working directory>" and checks
 * that the world spans every program of the command line (a message
 * around the ring). Exit 0 on success. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, flag = 0, *appnum = NULL, tok = 0, bad = 0;
    char cwd[4096] = "?";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    if (size > 1) {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        if (rank == 0) {
            MPI_Send(&tok, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
            MPI_Recv(&tok, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (tok != size - 1) { fprintf(stderr, "FAIL appnum: token %d\n", tok); bad = 1; }
        } else {
            MPI_Recv(&tok, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            tok++;
            MPI_Send(&tok, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
        }
    }
    if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "?");
    const char *base = strrchr(cwd, '/');
    const char *env = getenv("FY_APP_ENV");
    printf("app %d of %d: appnum %d arg %s env %s cwd %s\n", rank, size, flag ? *appnum : -1,
           argc > 1 ? argv[1] : "-", env ? env : "-", base && base[1] ? base + 1 : cwd);
    fflush(stdout);
    MPI_Finalize();
    return bad;
}
