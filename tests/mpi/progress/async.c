/* progress_async: a receiver-first rendezvous completes while the receiver
 * makes no MPI call at all.
 *
 * Ranks pair up (even r receives, r+1 sends). Each iteration the receiver
 * posts MPI_Irecv of 100 KiB..4 MiB (above the eager threshold), both sides
 * meet in MPI_Barrier, then the receiver spins on the last byte of its
 * buffer WITHOUT calling MPI until the expected marker shows up; only an
 * asynchronous progress agent (thread, interrupt, pef) can make that
 * happen (the sender writing into the published receive, or an agent
 * triggering the rendezvous). The sender uses MPI_Isend + MPI_Wait,
 * sometimes a few ms late so that PEF timer turns also miss and decay
 * first. After the spin the receiver waits and verifies the whole payload.
 * The spin gives up after FY_SPIN_DEADLINE seconds (minutes: a hang guard
 * for a loaded machine, not a timing assertion) and counts a failure.
 *
 * Under FERRY_PROGRESS=none it passes only with FERRY_DIRECT=1.
 * usage: progress_async [iterations [compute]]   (default 20)
 *   compute: the receiver computes without MPI for 20 ms, then waits
 *   (no spin on the data: passes in every mode, used by the
 *   progress_modes_env tests).
 *   crowd: with an odd number of ranks, the last rank sends a small eager
 *   message to rank 0 right after each barrier and rank 0's partner sends
 *   3 ms late, so the rendezvous start queues behind another message.
 *   medium: 20000- and 65536-byte messages (above FERRY_DIRECT_MIN, at most
 *   the eager threshold), the sender 3 ms late, the receiver computing as
 *   in compute: the sender writes them into the published receive (the
 *   test's FERRY_STATS check) where it would otherwise send them eagerly.
 *   eager: the same sizes and late sender, the receiver spinning on its
 *   buffer: over the fabric they arrive eagerly, and only a fabric agent
 *   that takes in large eager messages (FERRY_OFI_AGENT_EAGER) brings
 *   them without an MPI call.
 * Under ThreadSanitizer the receiver computes instead of reading its
 * buffer: the read races by design with a progress thread that copies an
 * eager message in (FERRY_EAGER_PIPE_MAX), which TSan rightly reports. */
#include "fytest.h"
#include <time.h>

#define FY_SPIN_DEADLINE 240.0

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L}, rem;
  while (nanosleep(&t, &rem) != 0) t = rem; /* PEF signals interrupt it */
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("progress_async");
  int rank = fy_rank_, size = fy_size_;
  int iters = argc > 1 ? atoi(argv[1]) : 20;
  int eager = argc > 2 && !strcmp(argv[2], "eager");
  int medium = eager || (argc > 2 && !strcmp(argv[2], "medium"));
  int compute_only = (medium && !eager) || (argc > 2 && !strcmp(argv[2], "compute"));
#ifdef __SANITIZE_THREAD__
  compute_only = 1;
#endif
  int crowd = argc > 2 && !strcmp(argv[2], "crowd");
  CHECK(!crowd || size % 2 == 1, "crowd needs an odd number of ranks");
  static const size_t large[] = {100 << 10, 160 << 10, 256 << 10, 1 << 20, (1 << 20) + 3, 4 << 20};
  static const size_t med[] = {20000, 65536};
  const size_t *sizes = medium ? med : large;
  const int nsizes = medium ? 2 : (int)(sizeof large / sizeof large[0]);
  size_t maxb = 4 << 20;
  unsigned char *buf = malloc(maxb);
  CHECK(buf != NULL, "malloc");
  int partner = (rank % 2 == 0) ? rank + 1 : rank - 1;
  if (partner >= size) partner = -1; /* odd size: the last rank only joins barriers */
  int spins_ok = 0, stalled = 0; /* after one stall, just wait: one hang guard per job */

  for (int it = 0; it < iters && buf; it++) {
    size_t n = sizes[it % nsizes];
    unsigned seed = 1000u + (unsigned)it;
    /* the marker must differ from the receiver's pre-filled zeros */
    while (fy_pat(seed, n - 1) == 0) seed += 7919u;
    if (partner >= 0 && rank % 2 == 0) {
      memset(buf, 0, n);
      MPI_Request rq;
      CHECK_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, partner, 7, MPI_COMM_WORLD, &rq));
      CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
      /* No MPI call in here: the data has to arrive on its own. */
      volatile unsigned char *last = buf + n - 1;
      unsigned char want = fy_pat(seed, n - 1);
      double t0 = now_s();
      int arrived = 0, spun = !(compute_only || stalled);
      if (!spun) {
        volatile double x = 0;
        while (now_s() - t0 < 0.02) x += 1.0;
        arrived = 1;
      }
      for (unsigned long k = 0; !arrived; k++) {
        if (*last == want) { arrived = 1; break; }
        if ((k & 0xfff) == 0 && now_s() - t0 > FY_SPIN_DEADLINE) break;
      }
      CHECK(arrived, "iteration %d (%zu bytes): no data within %.0f s without MPI calls: the receive was left behind",
            it, n, FY_SPIN_DEADLINE);
      spins_ok += spun && arrived;
      stalled |= !arrived;
      MPI_Status st;
      CHECK_OK(MPI_Wait(&rq, &st));
      int cnt = -1;
      MPI_Get_count(&st, MPI_BYTE, &cnt);
      CHECK(cnt == (int)n && st.MPI_SOURCE == partner && st.MPI_TAG == 7,
            "status count %d source %d tag %d", cnt, st.MPI_SOURCE, st.MPI_TAG);
      size_t bad = fy_verify(buf, n, seed);
      CHECK(bad == (size_t)-1, "iteration %d: payload wrong at byte %zu of %zu", it, bad, n);
      if (crowd && rank == 0) {
        int v = -1;
        CHECK_OK(MPI_Recv(&v, 1, MPI_INT, size - 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == it, "crowd message %d carries %d", it, v);
      }
    } else if (partner >= 0) {
      fy_fill(buf, n, seed);
      CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
      if (it % 3 == 1 || crowd || medium) sleep_ms(3); /* late sender: PEF turns miss first */
      MPI_Request rq;
      CHECK_OK(MPI_Isend(buf, (int)n, MPI_BYTE, partner, 7, MPI_COMM_WORLD, &rq));
      CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
      CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
      if (crowd) CHECK_OK(MPI_Send(&it, 1, MPI_INT, 0, 8, MPI_COMM_WORLD));
    }
  }
  if (partner >= 0 && rank % 2 == 0 && !compute_only)
    printf("rank %d: %d of %d receives progressed without MPI calls\n", rank, spins_ok, iters);
  free(buf);
  return fy_finish();
}
