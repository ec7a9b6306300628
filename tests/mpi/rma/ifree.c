/* MPIX_Win_ifree (seed 002 ch. 6: a server frees a client's window without
 * blocking its threads): the handle dies at the call, the request completes
 * once every member has called it (blocking or not) and the window's
 * epochs have ended. Meanwhile the window goes on serving: a member that
 * has not called it yet may still lock it and put. Checked on windows in
 * shared memory and, under FERRY_NOLOCAL=1 (mpi.net.nolocal.rma_ifree),
 * on windows across nodes:
 * - the first caller's request stays pending until the others call, and
 *   an exclusive lock + put from rank 1 after rank 0's ifree lands;
 * - an open fence epoch ends at the call; a pending MPIX_Win_iunlock_all
 *   before it; many rounds alternating Test and Wait, blocking free mixed;
 * - an open lock_all epoch: MPI_ERR_RMA_SYNC, the handle stays. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "rma_test.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("rma_ifree");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Request r;
  MPI_Win w;
  int *buf;

  /* the window serves after its first member's ifree (memory of the
   * window's own, flavors 1 and 2, goes with it: checked on 0 and 3) */
  MPI_Comm node;
  int nnode;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &nnode);
  MPI_Comm_free(&node);
  for (int flavor = 0; flavor < 4 && !fy_errs; flavor++) {
    if (flavor == 2 && nnode < size) continue; /* (shared memory spans one node) */
    w = make_win(flavor, sizeof(int), sizeof(int), (void **)&buf);
    if (rank == 0) {
      CHECK_OK(MPIX_Win_ifree(&w, &r));
      CHECK(w == MPI_WIN_NULL, "handle after ifree");
      if (size > 1) CHECK(!fy_done_after_tests(&r), "ifree completed before the others called it");
      MPI_Barrier(MPI_COMM_WORLD);
      CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      if (size > 1 && (flavor == 0 || flavor == 3)) CHECK(*buf == 77 + flavor, "flavor %d: window holds %d after rank 1's put", flavor, *buf);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 1) {
        int v = 77 + flavor;
        CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, w));
        CHECK_OK(MPI_Win_unlock(0, w));
      }
      if (rank % 2) {
        CHECK_OK(MPI_Win_free(&w));
      } else {
        CHECK_OK(MPIX_Win_ifree(&w, &r));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      }
    }
    if (flavor == 0) free(buf);
    if (flavor == 3) MPI_Free_mem(buf);
  }

  /* an open fence epoch ends at the call; a pending iunlock_all first */
  for (int round = 0; round < 100 && !fy_errs; round++) {
    CHECK_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &w));
    *buf = -1;
    int v = rank * 1000 + round, right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request u = MPI_REQUEST_NULL;
    if (round % 2) {
      CHECK_OK(MPI_Win_fence(0, w));
      CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, w));
      CHECK_OK(MPI_Win_fence(0, w)); /* (and the next epoch stays open) */
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      CHECK_OK(MPI_Win_lock_all(0, w));
      CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, w));
      CHECK_OK(MPIX_Win_iunlock_all(w, &u));
    }
    int got_before_free = *buf;
    CHECK_OK(MPIX_Win_ifree(&w, &r));
    if (round % 3) {
      CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      CHECK_OK(MPI_Wait(&u, MPI_STATUS_IGNORE));
    } else {
      MPI_Request both[2] = {u, r};
      CHECK_OK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
    }
    /* (after the free every member's put has landed: the window's memory
     * is Win_allocate's and gone, so read what it held through the value
     * seen at the fence, or check nothing for the lock_all rounds) */
    if (round % 2) CHECK(got_before_free == left * 1000 + round, "round %d: %d", round, got_before_free);
  }

  /* an open lock_all epoch */
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &w);
  MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
  CHECK_OK(MPI_Win_lock_all(0, w));
  MPI_Win keep = w;
  CHECK_CLASS(MPIX_Win_ifree(&w, &r), MPI_ERR_RMA_SYNC);
  CHECK(w == keep, "handle changed on error");
  CHECK_OK(MPI_Win_unlock_all(w));
  CHECK_CLASS(MPIX_Win_ifree(&w, NULL), MPI_ERR_ARG);
  CHECK_OK(MPIX_Win_ifree(&w, &r));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  return fy_finish();
}
