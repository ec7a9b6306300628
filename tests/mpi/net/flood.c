/* net_flood: many peers at once into one receiver, every message eager
 * (up to the fabric's 64 KiB limit) and of an odd size, each one checked
 * byte for byte.
 *
 * The receive buffers of the ofi transport take several messages each
 * (FI_MULTI_RECV, src/transport/ofi/fy_ofi.c): a message from one peer can
 * land in a buffer before another peer's message that completes first,
 * and the buffer must not be posted again while the earlier one is still
 * arriving. Phase 1: every other rank sends NMSG messages to rank 0 as
 * fast as it can (Isend windows), rank 0 takes them with MPI_ANY_SOURCE
 * and checks sizes, order per sender and contents. Phase 2: everyone
 * sends to everyone at once (nonblocking, all posted before any wait).
 * Run with 3 or more ranks, so that a receiver has several connections. */
#include "fytest.h"

#define NMSG 600
#define WIN 16
#define MAXB 65000

static size_t size_of(int src, int i) {
  static const size_t s[] = {65000, 8, 40001, 1001, 3, 64999, 17, 30000, 60007, 5};
  return s[(i + src) % 10];
}
static unsigned seed_of(int src, int dst, int i) { return (unsigned)(src * 1000003 + dst * 7919 + i); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("net_flood");
  int rank = fy_rank_, size = fy_size_;
  char *rbuf = malloc(MAXB), *sbuf[WIN];
  for (int w = 0; w < WIN; w++) sbuf[w] = malloc(MAXB);

  /* ---- phase 1: all into rank 0 ---- */
  if (rank == 0) {
    int *next = calloc((size_t)size, sizeof *next), bad = 0;
    for (int k = 0; k < NMSG * (size - 1); k++) {
      MPI_Status st;
      CHECK_OK(MPI_Recv(rbuf, MAXB, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE, n = -1, i = next[src]++;
      MPI_Get_count(&st, MPI_BYTE, &n);
      CHECK(n == (int)size_of(src, i), "message %d from %d: %d bytes, not %zu", i, src, n, size_of(src, i));
      size_t at = n >= 0 ? fy_verify(rbuf, (size_t)n, seed_of(src, 0, i)) : 0;
      if (at != (size_t)-1 && bad++ < 5)
        CHECK(0, "message %d from %d (%d bytes) wrong at byte %zu", i, src, n, at);
    }
    free(next);
  } else {
    MPI_Request rq[WIN];
    for (int w = 0; w < WIN; w++) rq[w] = MPI_REQUEST_NULL;
    for (int i = 0; i < NMSG; i++) {
      int w = i % WIN;
      CHECK_OK(MPI_Wait(&rq[w], MPI_STATUS_IGNORE));
      fy_fill(sbuf[w], size_of(rank, i), seed_of(rank, 0, i));
      CHECK_OK(MPI_Isend(sbuf[w], (int)size_of(rank, i), MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[w]));
    }
    CHECK_OK(MPI_Waitall(WIN, rq, MPI_STATUSES_IGNORE));
  }

  /* ---- phase 2: everyone to everyone, all posted at once ---- */
  int rounds = 20;
  char **in = calloc((size_t)size, sizeof *in), **out = calloc((size_t)size, sizeof *out);
  MPI_Request *rr = malloc(2 * (size_t)size * sizeof *rr);
  MPI_Status *st = malloc(2 * (size_t)size * sizeof *st);
  for (int p = 0; p < size; p++) {
    in[p] = malloc(MAXB);
    out[p] = malloc(MAXB);
  }
  for (int r = 0; r < rounds; r++) {
    int nr = 0;
    for (int p = 0; p < size; p++)
      if (p != rank) CHECK_OK(MPI_Irecv(in[p], MAXB, MPI_BYTE, p, 2, MPI_COMM_WORLD, &rr[nr++]));
    for (int p = 0; p < size; p++)
      if (p != rank) {
        fy_fill(out[p], size_of(rank + p, r), seed_of(rank, p, r));
        CHECK_OK(MPI_Isend(out[p], (int)size_of(rank + p, r), MPI_BYTE, p, 2, MPI_COMM_WORLD, &rr[nr++]));
      }
    CHECK_OK(MPI_Waitall(nr, rr, st));
    for (int p = 0, k = 0; p < size; p++) {
      if (p == rank) continue;
      size_t want = size_of(p + rank, r);
      int n = -1;
      MPI_Get_count(&st[k++], MPI_BYTE, &n);
      CHECK(n == (int)want, "round %d from %d: %d bytes, not %zu", r, p, n, want);
      size_t at = fy_verify(in[p], want, seed_of(p, rank, r));
      CHECK(at == (size_t)-1, "round %d from %d (%zu bytes) wrong at byte %zu", r, p, want, at);
    }
  }
  for (int p = 0; p < size; p++) {
    free(in[p]);
    free(out[p]);
  }
  free(in);
  free(out);
  free(rr);
  free(st);
  for (int w = 0; w < WIN; w++) free(sbuf[w]);
  free(rbuf);
  return fy_finish();
}
