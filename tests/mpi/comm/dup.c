/* MPI_Comm_dup / MPI_Comm_free / MPI_Comm_compare: a duplicate has its own
 * matching context (a message sent on one never matches a receive on the
 * other), keeps rank, size and error handler, and many may coexist. */
#include "fytest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Comm d;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  int r2, s2, res;
  MPI_Comm_rank(d, &r2);
  MPI_Comm_size(d, &s2);
  CHECK(r2 == rank && s2 == size, "dup has rank %d size %d", r2, s2);
  CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, d, &res));
  CHECK(res == MPI_CONGRUENT, "compare(world, dup) = %d", res);
  MPI_Errhandler eh;
  CHECK_OK(MPI_Comm_get_errhandler(d, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "the dup did not inherit the error handler");

  /* Same source and tag on both communicators: each receive gets its own. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int a = 100 + rank, b = 200 + rank, ga = -1, gb = -1;
  MPI_Request q[4];
  CHECK_OK(MPI_Irecv(&gb, 1, MPI_INT, left, 5, d, &q[0]));
  CHECK_OK(MPI_Irecv(&ga, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &q[1]));
  CHECK_OK(MPI_Isend(&a, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &q[2]));
  CHECK_OK(MPI_Isend(&b, 1, MPI_INT, right, 5, d, &q[3]));
  CHECK_OK(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
  CHECK(ga == 100 + left && gb == 200 + left, "contexts mixed: world got %d, dup got %d", ga, gb);

  /* Many communicators at once, each carrying a message. */
  enum { N = 40 };
  MPI_Comm cs[N];
  for (int i = 0; i < N; i++) CHECK_OK(MPI_Comm_dup(i % 2 ? d : MPI_COMM_WORLD, &cs[i]));
  int got[N], val[N];
  MPI_Request rq[2 * N];
  /* post in reverse, send forward: each receive must find its own context */
  for (int i = N - 1; i >= 0; i--) CHECK_OK(MPI_Irecv(&got[i], 1, MPI_INT, left, 0, cs[i], &rq[i]));
  for (int i = 0; i < N; i++) {
    val[i] = i * 1000 + rank;
    CHECK_OK(MPI_Isend(&val[i], 1, MPI_INT, right, 0, cs[i], &rq[N + i]));
  }
  CHECK_OK(MPI_Waitall(2 * N, rq, MPI_STATUSES_IGNORE));
  for (int i = 0; i < N; i++) CHECK(got[i] == i * 1000 + left, "comm %d got %d", i, got[i]);
  for (int i = 0; i < N; i++) CHECK_OK(MPI_Comm_free(&cs[i]));
  CHECK(cs[0] == MPI_COMM_NULL, "Comm_free did not reset the handle");
  CHECK_OK(MPI_Comm_free(&d));
  int e = MPI_Comm_free(&(MPI_Comm){MPI_COMM_WORLD});
  CHECK(e != MPI_SUCCESS, "freeing MPI_COMM_WORLD succeeded");
  return fy_finish();
}
