/* One-way large messages between pairs (even rank -> odd rank) where one
 * side takes the copy alone and the other reaches its wait later, or at
 * once (src/pt2pt/rndv.c, joinable single copies, FERRY_RNDV_JOIN): the
 * receiver matched in passing at its Irecv while the sender waits (the
 * sender copies, a late receiver joins), the receiver waiting first while
 * the sender computes (the receiver copies, a late sender joins), both
 * waiting at once, and random delays on both sides; some receives are
 * shorter than the message (MPI_ERR_TRUNCATE, the prefix delivered).
 * Sizes straddle the piece size. Every byte is checked. */
#include "fytest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("pt2pt_join");
  int rank = fy_rank_, size = fy_size_;
  int peer = rank ^ 1;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  static const size_t sizes[] = {65537, 200000, 262144, (1 << 20) + 13, (size_t)4 << 20};
  size_t maxn = (size_t)4 << 20;
  unsigned char *buf = malloc(maxn);
  CHECK(buf != NULL, "out of memory");
  if (!buf || peer >= size) { /* the odd one out at -n 3 watches */
    MPI_Comm dummy;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &dummy);
    MPI_Comm_free(&dummy);
    free(buf);
    return fy_finish();
  }
  int sender = (rank & 1) == 0;
  MPI_Comm pair; /* the barriers that order the two sides */
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair));
  MPI_Comm_set_errhandler(pair, MPI_ERRORS_RETURN);
  unsigned seed = 777u + (unsigned)(rank & ~1);
  for (int it = 0; it < 120; it++) {
    seed = seed * 1103515245u + 12345u;
    unsigned c = seed >> 8;
    size_t n = sizes[c % 5];
    int how = (int)((c >> 3) & 3), trunc = ((c >> 5) % 6) == 0;
    int delay = 20 + (int)((c >> 8) % 200);
    size_t cap = trunc ? n - 4096 - (c >> 9) % 1000 : n;
    MPI_Request rq;
    if (sender) {
      fy_fill(buf, n, (unsigned)it * 7919u + (unsigned)rank);
      if (how == 0) MPI_Barrier(pair); /* the receive is posted */
      CHECK_OK(MPI_Isend(buf, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD, &rq));
      if (how == 1) { MPI_Barrier(pair); fy_spin_us(delay); }
      if (how == 3) fy_spin_us(delay / 2);
      CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
      if (how == 0) MPI_Barrier(pair);
    } else {
      memset(buf, 0xee, n);
      CHECK_OK(MPI_Irecv(buf, (int)cap, MPI_BYTE, peer, it, MPI_COMM_WORLD, &rq));
      if (how == 0) { MPI_Barrier(pair); fy_spin_us(delay); }
      if (how == 1) MPI_Barrier(pair);
      if (how == 3) fy_spin_us(delay);
      MPI_Status st;
      int rc = MPI_Wait(&rq, &st);
      if (how == 0) MPI_Barrier(pair);
      if (trunc) {
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "iteration %d: %zu bytes into %zu: error class %d, not MPI_ERR_TRUNCATE",
              it, n, cap, cls);
      } else {
        CHECK(rc == MPI_SUCCESS, "iteration %d: MPI_Wait returned %d", it, rc);
        int cnt = -1;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == (int)n, "iteration %d: count %d, expected %zu", it, cnt, n);
      }
      size_t bad = fy_verify(buf, cap, (unsigned)it * 7919u + (unsigned)peer);
      CHECK(bad == (size_t)-1, "iteration %d (how %d, %zu bytes, receive of %zu): byte %zu wrong", it, how, n, cap, bad);
      for (size_t i = cap; i < n && trunc; i++)
        if (buf[i] != 0xee) {
          CHECK(0, "iteration %d: byte %zu past the receive buffer written", it, i);
          break;
        }
    }
  }
  MPI_Comm_free(&pair);
  free(buf);
  return fy_finish();
}
