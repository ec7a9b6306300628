/* Running out of context ids is an error (MPI_ERR_OTHER on every process),
 * not a hang or a crash, and freeing makes room again. Ranks hold
 * different numbers of communicators (a process-local bitmap per rank),
 * so the agreement must find slots free in all of them. Once out, the
 * last 64 are freed and MPI_Comm_idup runs out again (the nonblocking
 * agreement's own path to the error, which once read one step past its
 * table). */
#include "fytest.h"
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("comm_exhaust");
  int rank, size, rc = MPI_SUCCESS, n = 0, cap = 10000;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm *c = malloc((size_t)cap * sizeof *c);
  /* rank r first takes r * 7 private communicators (dups of SELF) */
  MPI_Comm priv[64];
  for (int i = 0; i < rank * 7 && i < 64; i++) CHECK_OK(MPI_Comm_dup(MPI_COMM_SELF, &priv[i]));
  while (n < cap) {
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &c[n]);
    if (rc != MPI_SUCCESS) break;
    n++;
  }
  CHECK(n < cap, "never ran out of context ids (%d communicators)", n);
  CHECK_CLASS(rc, MPI_ERR_OTHER);
  int most = 0;
  for (int r = 0; r < size; r++) most = r * 7 > most ? r * 7 : most;
  CHECK(n >= 8000 - most, "ran out after only %d communicators", n);
  if (n >= 64) {
    int back = n - 64, m = 0;
    for (int i = back; i < n; i++) CHECK_OK(MPI_Comm_free(&c[i]));
    n = back;
    while (n < cap) {
      MPI_Request rq;
      rc = MPI_Comm_idup(MPI_COMM_WORLD, &c[n], &rq);
      if (rc == MPI_SUCCESS) rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) break;
      n++, m++;
    }
    CHECK_CLASS(rc, MPI_ERR_OTHER);
    /* the 64 freed come back (and the part of the id space that only a
     * nonblocking agreement's first round offers, which the blocking
     * ones left unused) */
    CHECK(m >= 64, "MPI_Comm_idup made only %d communicators after 64 were freed", m);
  }
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
  free(c);
  return fy_finish();
}
