/* Many nonblocking collectives in flight at once on one communicator
 * (each schedule has its own tag): eager and rendezvous sizes, completed
 * with Waitall, Waitany and Testsome in different orders; persistent ones
 * restarted while others are pending. */
#include "../common/fytest.h"

enum { K = 8, BIG = 40000, SMALL = 3 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("coll_multi");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static int a[K][BIG], b[K][BIG];
  for (int round = 0; round < 3; round++) {
    MPI_Request rq[K];
    for (int k = 0; k < K; k++) {
      int n = k % 2 ? BIG : SMALL;
      for (int i = 0; i < n; i++) { a[k][i] = rank + k + i; b[k][i] = -1; }
      switch (k % 4) {
        case 0: CHECK_OK(MPI_Iallreduce(a[k], b[k], n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[k])); break;
        case 1: CHECK_OK(MPI_Ibcast(a[k], n, MPI_INT, k % size, MPI_COMM_WORLD, &rq[k])); break;
        case 2: CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq[k])); break;
        case 3: CHECK_OK(MPI_Iscan(a[k], b[k], n, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq[k])); break;
      }
    }
    if (round == 0) {
      CHECK_OK(MPI_Waitall(K, rq, MPI_STATUSES_IGNORE));
    } else if (round == 1) {
      for (int j = 0; j < K; j++) {
        int idx;
        CHECK_OK(MPI_Waitany(K, rq, &idx, MPI_STATUS_IGNORE));
        CHECK(idx != MPI_UNDEFINED, "waitany");
      }
    } else {
      int left = K, out, idx[K];
      while (left > 0) {
        CHECK_OK(MPI_Testsome(K, rq, &out, idx, MPI_STATUSES_IGNORE));
        if (out != MPI_UNDEFINED) left -= out;
      }
    }
    for (int k = 0; k < K; k++) {
      int n = k % 2 ? BIG : SMALL;
      for (int i = 0; i < n; i++) {
        int want;
        switch (k % 4) {
          case 0: want = size * (k + i) + size * (size - 1) / 2; if (b[k][i] != want) goto bad; break;
          case 1: want = k % size + k + i; if (a[k][i] != want) goto bad; break;
          case 3: want = rank + k + i; if (b[k][i] != want) goto bad; break;
          default: break;
        }
        continue;
      bad:
        CHECK(0, "round %d op %d [%d] wrong", round, k, i);
        break;
      }
    }
  }
  /* persistent: two allreduces started alternately with a pending ibcast */
  MPI_Request p[2], q;
  int x[2][SMALL], y[2][SMALL], big[BIG];
  CHECK_OK(MPI_Allreduce_init(x[0], y[0], SMALL, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &p[0]));
  CHECK_OK(MPI_Allreduce_init(x[1], y[1], SMALL, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &p[1]));
  for (int it = 0; it < 10; it++) {
    for (int i = 0; i < BIG; i++) big[i] = rank == 0 ? it + i : -1;
    CHECK_OK(MPI_Ibcast(big, BIG, MPI_INT, 0, MPI_COMM_WORLD, &q));
    for (int i = 0; i < SMALL; i++) { x[0][i] = rank + it; x[1][i] = rank * it; }
    CHECK_OK(MPI_Startall(2, p));
    CHECK_OK(MPI_Waitall(2, p, MPI_STATUSES_IGNORE));
    CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(y[0][0] == size * it + size * (size - 1) / 2, "persistent sum it %d: %d", it, y[0][0]);
    CHECK(y[1][0] == (size - 1) * it, "persistent max it %d: %d", it, y[1][0]);
    CHECK(big[BIG - 1] == it + BIG - 1, "ibcast it %d", it);
  }
  CHECK_OK(MPI_Request_free(&p[0]));
  CHECK_OK(MPI_Request_free(&p[1]));
  return fy_finish();
}
