/* MPI_Isendrecv / MPI_Isendrecv_replace (MPI 4.0) and the MPI 4.1
 * Request_get_status_all/any/some: a ring shift in both directions, small
 * (eager) and large (rendezvous) messages, the receive's status in the
 * request's, MPI_PROC_NULL partners, Request_free before completion, and
 * the get_status calls leaving requests untouched. */
#include <mpi.h>
#include <stdlib.h>
#include "fytest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("isendrecv");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int sizes[2] = {4, 1 << 18};
  for (int k = 0; k < 2; k++) {
    int n = sizes[k];
    int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) out[i] = rank * 1000 + i, in[i] = -1;
    MPI_Request r;
    MPI_Status st;
    CHECK_OK(MPI_Isendrecv(out, n, MPI_INT, right, 7, in, n, MPI_INT, left, 7, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL, "request freed by Wait");
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7 && cnt == n, "status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG, cnt);
    for (int i = 0; i < n; i++)
      if (in[i] != left * 1000 + i) { CHECK(0, "n=%d in[%d] = %d", n, i, in[i]); break; }

    /* replace: the buffer ends up with the left neighbour's data */
    for (int i = 0; i < n; i++) out[i] = rank * 1000 + i;
    CHECK_OK(MPI_Isendrecv_replace(out, n, MPI_INT, right, 8, left, 8, MPI_COMM_WORLD, &r));
    /* get_status does not free the request; it becomes true eventually */
    int flag = 0;
    while (!flag) CHECK_OK(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
    int idx;
    CHECK_OK(MPI_Request_get_status_any(1, &r, &idx, &flag, &st));
    CHECK(flag && idx == 0 && st.MPI_SOURCE == left, "get_status_any %d %d", flag, idx);
    MPI_Request two[2] = {r, MPI_REQUEST_NULL};
    MPI_Status sts[2];
    CHECK_OK(MPI_Request_get_status_all(2, two, &flag, sts));
    CHECK(flag && sts[0].MPI_TAG == 8, "get_status_all");
    int outc, ind[2];
    CHECK_OK(MPI_Request_get_status_some(2, two, &outc, ind, sts));
    CHECK(outc == 1 && ind[0] == 0, "get_status_some %d", outc);
    CHECK(r != MPI_REQUEST_NULL, "get_status left the request");
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
      if (out[i] != left * 1000 + i) { CHECK(0, "replace n=%d out[%d] = %d", n, i, out[i]); break; }

    /* freed before it completes (eager size: the later message from the
     * same neighbour cannot overtake it, so its receive is done when the
     * zero-byte one is) */
    if (k == 0) {
      in[0] = -1;
      out[0] = rank * 1000;
      CHECK_OK(MPI_Isendrecv(out, n, MPI_INT, right, 9, in, n, MPI_INT, left, 9, MPI_COMM_WORLD, &r));
      CHECK_OK(MPI_Request_free(&r));
      CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_INT, right, 10, NULL, 0, MPI_INT, left, 10, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
      CHECK(in[0] == left * 1000, "freed Isendrecv delivered %d", in[0]);
      MPI_Barrier(MPI_COMM_WORLD); /* every rank's send of it is done too */
    }
    free(out);
    free(in);
  }
  /* partners that are MPI_PROC_NULL */
  int x = 5, y = 6;
  MPI_Request r;
  MPI_Status st;
  CHECK_OK(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, &y, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && y == 6, "PROC_NULL status %d", st.MPI_SOURCE);
  /* none active */
  MPI_Request nul = MPI_REQUEST_NULL;
  int flag, idx, outc, ind;
  CHECK_OK(MPI_Request_get_status_any(1, &nul, &idx, &flag, MPI_STATUS_IGNORE));
  CHECK(flag && idx == MPI_UNDEFINED, "any of none");
  CHECK_OK(MPI_Request_get_status_some(1, &nul, &outc, &ind, MPI_STATUSES_IGNORE));
  CHECK(outc == MPI_UNDEFINED, "some of none");
  return fy_finish();
}
