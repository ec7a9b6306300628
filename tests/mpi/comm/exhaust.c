/* Running out of context ids is an error (MPI_ERR_OTHER on every process),
 * not a hang or a crash, and freeing makes room again. Ranks hold
 * different numbers of communicators (a process-local bitmap per rank),
 * so the agreement must find slots free in all of them. Both agreements:
 * the blocking one (MPI_Comm_dup) and the nonblocking one (MPI_Comm_idup,
 * whose last round once read one step past its table). */
#include "fytest.h"
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("comm_exhaust");
  int rank, size, cap = 10000;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm *c = malloc((size_t)cap * sizeof *c);
  for (int nb = 0; nb < 2; nb++) {
    int rc = MPI_SUCCESS, n = 0;
    /* rank r first takes r * 7 private communicators (dups of SELF) */
    MPI_Comm priv[64];
    for (int i = 0; i < rank * 7 && i < 64; i++) CHECK_OK(MPI_Comm_dup(MPI_COMM_SELF, &priv[i]));
    while (n < cap) {
      if (nb) {
        MPI_Request rq;
        rc = MPI_Comm_idup(MPI_COMM_WORLD, &c[n], &rq);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
      } else {
        rc = MPI_Comm_dup(MPI_COMM_WORLD, &c[n]);
      }
      if (rc != MPI_SUCCESS) break;
      n++;
    }
    CHECK(n < cap, "%s: never ran out of context ids (%d communicators)", nb ? "idup" : "dup", n);
    CHECK_CLASS(rc, MPI_ERR_OTHER);
    int most = 0;
    for (int r = 0; r < size; r++) most = r * 7 > most ? r * 7 : most;
    CHECK(n >= 8000 - most, "%s: ran out after only %d communicators", nb ? "idup" : "dup", n);
    /* every process agrees how many it got */
    int other = -1;
    if (size > 1) {
      CHECK_OK(MPI_Sendrecv(&n, 1, MPI_INT, (rank + 1) % size, 0, &other, 1, MPI_INT, (rank + size - 1) % size, 0,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(other == n, "rank %d got %d communicators, its neighbour %d", rank, n, other);
    }
    /* the last one works */
    if (n > 0) {
      int v = rank, got = -1;
      CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 1, &got, 1, MPI_INT, (rank + size - 1) % size, 1,
                            c[n - 1], MPI_STATUS_IGNORE));
      CHECK(got == (rank + size - 1) % size, "got %d", got);
    }
    for (int i = 0; i < n; i++) CHECK_OK(MPI_Comm_free(&c[i]));
    for (int i = 0; i < rank * 7 && i < 64; i++) CHECK_OK(MPI_Comm_free(&priv[i]));
    MPI_Comm d;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK_OK(MPI_Comm_free(&d));
  }
  free(c);
  return fy_finish();
}
