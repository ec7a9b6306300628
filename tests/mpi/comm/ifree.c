/* MPIX_Comm_ifree and MPIX_Comm_idisconnect (seed 002 ch. 6): the handle
 * dies at the call; the request completes once every operation pending on
 * the communicator has completed and been released (ifree), and once every
 * member of both groups has called it too (idisconnect). Checked:
 * - nothing pending: ifree completes at once; 10 000 rounds reuse context
 *   ids (more than the 8192 slots);
 * - a pending receive holds it back until its message arrives (sent after
 *   a barrier the receiver enters after testing); a cancelled one lets it
 *   go (the thesis's "zombie receives");
 * - idisconnect waits for the other members, on intra- and
 *   intercommunicators, and meets MPI_Comm_disconnect on others;
 * - errors with ERRORS_RETURN: predefined communicators, NULL pointers
 *   (the handle stays), MPI_Comm_free(NULL). */
#include <mpi.h>
#include "fytest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("comm_ifree");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Request r;
  MPI_Comm c;

  /* nothing pending */
  for (int i = 0; i < 10000 && !fy_errs; i++) {
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_OK(MPIX_Comm_ifree(&c, &r));
    CHECK(c == MPI_COMM_NULL, "handle after ifree");
    if (i % 2) {
      CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      int flag = 0;
      CHECK_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
      CHECK(flag && r == MPI_REQUEST_NULL, "ifree with nothing pending completes at once");
    }
  }

  /* a pending receive holds it back until its message arrives */
  if (size > 1) {
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int v = -1;
    if (rank == 0) {
      MPI_Request rr;
      CHECK_OK(MPI_Irecv(&v, 1, MPI_INT, 1, 3, c, &rr));
      CHECK_OK(MPIX_Comm_ifree(&c, &r));
      CHECK(!fy_done_after_tests(&r), "ifree completed with a receive pending");
      MPI_Barrier(MPI_COMM_WORLD);
      CHECK_OK(MPI_Wait(&rr, MPI_STATUS_IGNORE));
      CHECK(v == 42, "received %d", v);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      v = 42;
      if (rank == 1) CHECK_OK(MPI_Send(&v, 1, MPI_INT, 0, 3, c));
      CHECK_OK(MPIX_Comm_ifree(&c, &r));
    }
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }

  /* a cancelled receive lets it go */
  {
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Request rr;
    MPI_Status st;
    int v, cancelled = 0;
    CHECK_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 9, c, &rr));
    CHECK_OK(MPIX_Comm_ifree(&c, &r));
    CHECK(!fy_done_after_tests(&r), "ifree completed with a receive pending");
    CHECK_OK(MPI_Cancel(&rr));
    CHECK_OK(MPI_Wait(&rr, &st));
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled, "receive not cancelled");
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }

  /* idisconnect waits for every member */
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  if (rank == 0) {
    CHECK_OK(MPIX_Comm_idisconnect(&c, &r));
    CHECK(c == MPI_COMM_NULL, "handle after idisconnect");
    if (size > 1) CHECK(!fy_done_after_tests(&r), "idisconnect completed before the others called it");
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    /* the blocking form meets the nonblocking one */
    if (rank % 2) CHECK_OK(MPI_Comm_disconnect(&c));
    else CHECK_OK(MPIX_Comm_idisconnect(&c, &r));
  }
  if (rank % 2 == 0) CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(c == MPI_COMM_NULL, "handle after disconnect");

  if (size > 1) {
    MPI_Comm half, inter;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    CHECK_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter));
    CHECK_OK(MPI_Comm_free(&half));
    int me = 0, sum = 0;
    CHECK_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, inter)); /* used once */
    if (rank == 0) {
      CHECK_OK(MPIX_Comm_idisconnect(&inter, &r));
      CHECK(!fy_done_after_tests(&r), "idisconnect completed before the remote group called it");
      MPI_Barrier(MPI_COMM_WORLD);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      r = MPI_REQUEST_NULL;
      if (rank == 1) CHECK_OK(MPI_Comm_disconnect(&inter));
      else CHECK_OK(MPIX_Comm_idisconnect(&inter, &r));
    }
    CHECK(inter == MPI_COMM_NULL, "handle after idisconnect");
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }

  /* errors */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  c = MPI_COMM_WORLD;
  CHECK_CLASS(MPIX_Comm_ifree(&c, &r), MPI_ERR_COMM);
  c = MPI_COMM_SELF;
  CHECK_CLASS(MPIX_Comm_idisconnect(&c, &r), MPI_ERR_COMM);
  CHECK(c == MPI_COMM_SELF, "predefined handle changed");
  CHECK_CLASS(MPIX_Comm_ifree(NULL, &r), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_free(NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_disconnect(NULL), MPI_ERR_ARG);
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_CLASS(MPIX_Comm_ifree(&c, NULL), MPI_ERR_ARG);
  CHECK(c != MPI_COMM_NULL, "handle lost on error");
  CHECK_OK(MPI_Comm_free(&c));
  return fy_finish();
}
