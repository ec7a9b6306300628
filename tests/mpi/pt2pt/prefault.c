/* The shared segment is mapped into every process at MPI_Init
 * (FERRY_SHM_PREFAULT, src/transport/shm/fy_shm_segment.c): messages that
 * walk each receive ring three times round and fill the pipe slots take
 * no page fault. Without it each process faults once per ring cell and
 * slot of its first lap (64 + 32), which cost the first call after a
 * computation 3-4 us on a VM. Run with FERRY_SHM_PREFAULT=0 and
 * EXPECT_FAULTS=1, the test checks that it can see those faults. */
#include "fytest.h"
#include <sys/resource.h>

static long minflt(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("pt2pt_prefault");
  int rank = fy_rank_, size = fy_size_, peer = rank ^ 1;
  enum { ROUNDS = 200, BIG = 40000 };
  char small[8] = {0};
  char *big = malloc(BIG);
  memset(big, rank + 1, BIG); /* our own pages, touched before counting */
  long faults = 0;
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); /* sets up the collective segment */
  if (peer < size) {
    /* one of each kind first: the request pool and matching queues */
    for (int i = 0; i < 2; i++) {
      if (rank & 1) {
        CHECK_OK(MPI_Recv(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Send(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD));
      } else {
        CHECK_OK(MPI_Send(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD));
        CHECK_OK(MPI_Recv(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      }
    }
    long f0 = minflt();
    for (int i = 0; i < ROUNDS; i++) {
      /* every 8th round a message above the eager threshold, which goes
       * through the sender's pipe slots */
      int n = i % 8 == 7 ? BIG : 8;
      char *b = n == BIG ? big : small;
      if (rank & 1) {
        CHECK_OK(MPI_Recv(b, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Send(b, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
      } else {
        b[0] = (char)i;
        CHECK_OK(MPI_Send(b, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
        CHECK_OK(MPI_Recv(b, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(b[0] == (char)i, "round %d: got %d back", i, b[0]);
      }
    }
    faults = minflt() - f0;
    if (getenv("FY_TEST_VERBOSE")) printf("rank %d: %ld page faults\n", rank, faults);
  }
  /* nobody goes on to the test's closing messages (unexpected at a rank
   * still counting, which may map a new bounce slab) before all counted */
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  int expect = getenv("EXPECT_FAULTS") != NULL;
  if (peer < size) {
    if (expect)
      CHECK(faults >= 32, "FERRY_SHM_PREFAULT=0: %ld page faults over %d round trips, expected a lap's worth", faults, ROUNDS);
    else
      CHECK(faults < 16, "%ld page faults over %d round trips with the segment prefaulted", faults, ROUNDS);
  }
  free(big);
  return fy_finish();
}
