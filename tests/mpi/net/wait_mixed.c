/* net_wait_mixed: blocking receives of a rank with both a shared-memory
 * peer and a fabric peer, each sender late (it sleeps first), so the
 * receiver's wait goes to sleep every time.
 *
 * Rank 0 receives with MPI_ANY_SOURCE; rounds alternate between the last
 * rank (on another host: the fabric) and rank 1 (on rank 0's host: shared
 * memory). Every message arrives, from the rank due, with its content.
 * What the wait slept on is judged from FERRY_STATS by the caller
 * (tests/mpi/net/hosts.sh, case progress): with a fabric agent the sleeps
 * are relayed (the agent watches the fabric's fd and rings the doorbell),
 * none are naps; in mode none they are naps. */
#include "fytest.h"
#include <unistd.h>

#define ROUNDS 8
#define LATE_US 30000

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("net_wait_mixed");
  int rank = fy_rank_, size = fy_size_;
  CHECK(size >= 3, "needs 3 ranks (2 on one host, 1 on another), got %d", size);
  if (size < 3) return fy_finish();
  for (int i = 0; i < ROUNDS; i++) {
    int from = i % 2 ? 1 : size - 1;
    long v[4];
    if (rank == from) {
      usleep(LATE_US);
      for (int k = 0; k < 4; k++) v[k] = (long)i * 1000 + from * 10 + k;
      CHECK_OK(MPI_Send(v, 4, MPI_LONG, 0, i, MPI_COMM_WORLD));
    } else if (rank == 0) {
      MPI_Status st;
      memset(v, 0, sizeof v);
      CHECK_OK(MPI_Recv(v, 4, MPI_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE == from && st.MPI_TAG == i, "round %d: from %d tag %d, expected %d tag %d", i,
            st.MPI_SOURCE, st.MPI_TAG, from, i);
      for (int k = 0; k < 4; k++)
        CHECK(v[k] == (long)i * 1000 + from * 10 + k, "round %d: word %d is %ld", i, k, v[k]);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  }
  return fy_finish();
}
