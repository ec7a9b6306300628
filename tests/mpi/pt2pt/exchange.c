/* Large nonblocking exchanges between pairs of ranks (r, r^1), in every
 * order the protocol distinguishes (src/pt2pt/direct.c, rndv.c,
 * FERRY_EXCHANGE_SPLIT): Irecv before or after Isend, the peer inside an
 * MPI call or computing when the other side's message starts, and the
 * requests completed by Waitall, by the send first then the receive (so a
 * copy left to a peer inside MPI must be taken back when it leaves), by the
 * receive first, or by a Test loop. Sizes straddle the eager threshold and
 * the pipe limit. Every byte is checked; a ring's odd rank out at -n 3
 * exchanges with itself. */
#include "fytest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("pt2pt_exchange");
  int rank = fy_rank_, size = fy_size_;
  int peer = (rank ^ 1) < size ? rank ^ 1 : rank;
  static const size_t sizes[] = {20000, 65536, 200000, 300000, 1 << 20};
  size_t maxn = (size_t)1 << 20;
  unsigned char *sb = malloc(maxn), *rb = malloc(maxn);
  CHECK(sb && rb, "out of memory");
  if (!sb || !rb) return fy_finish();
  /* The same pseudo-random choices on both sides of a pair. */
  unsigned seed = 12345u + (unsigned)(rank < peer ? rank : peer);
  for (int it = 0; it < 160; it++) {
    seed = seed * 1103515245u + 12345u;
    unsigned c = seed >> 8;
    size_t n = sizes[c % 5];
    int recv_first = (c >> 3) & 1, how = (c >> 4) & 3;
    /* one side computes a little before starting (the other is then inside
     * MPI or computing when the first message starts) */
    int late = ((c >> 6) & 1) ? (rank < peer) : (rank > peer);
    int delay = (int)((c >> 7) % 60);
    for (size_t i = 0; i < n; i++) sb[i] = fy_pat((unsigned)(it * 131 + rank), i);
    memset(rb, 0xee, n);
    MPI_Request rq[2];
    if (late) fy_spin_us(delay);
    if (recv_first) {
      CHECK_OK(MPI_Irecv(rb, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD, &rq[1]));
      CHECK_OK(MPI_Isend(sb, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD, &rq[0]));
    } else {
      CHECK_OK(MPI_Isend(sb, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD, &rq[0]));
      CHECK_OK(MPI_Irecv(rb, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD, &rq[1]));
    }
    if (!late) fy_spin_us(delay / 2);
    if (how == 0) {
      CHECK_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    } else if (how == 1) {
      CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
      fy_spin_us(delay);
      CHECK_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    } else if (how == 2) {
      CHECK_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
      CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    } else {
      int done = 0;
      double t0 = fy_now();
      while (!done && fy_now() - t0 < 30.0) {
        CHECK_OK(MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE));
        if (!done) fy_spin_us(2);
      }
      CHECK(done, "iteration %d: Testall did not complete in 30 s", it);
      if (!done) break;
    }
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++)
      if (rb[i] != fy_pat((unsigned)(it * 131 + peer), i)) bad = i;
    CHECK(bad == n, "iteration %d (%zu bytes, recv_first %d, how %d): byte %zu wrong", it, n, recv_first,
          how, bad);
  }
  free(sb);
  free(rb);
  return fy_finish();
}
