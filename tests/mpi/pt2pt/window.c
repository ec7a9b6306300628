/* Windows of nonblocking messages (src/pt2pt/rndv.c: transfers queued for
 * the pipe, FERRY_PIPE_QUEUE, and the receiver's pass that skips a
 * sender's slots when it has pushed nothing new): every rank but 0 sends
 * rank 0 a window of messages of mixed sizes (eager and rendezvous, in
 * pipe-sized pieces and not), each with its own pattern, while rank 0
 * posts them all into distinct buffers and completes them by Waitall,
 * by Wait in reverse order, by Waitany with computation between the calls
 * (transfers left in flight while it computes), and by Waitsome; then the
 * other way round (rank 0 sends to every rank). Receives are posted before
 * the sends start in some rounds and after in others. Every byte is
 * checked, and each status's source, tag and count. */
#include "fytest.h"

enum { W = 24 };
static const size_t sizes[] = {300000, 70000, 16, 1 << 20, 20000, 262144, 1, 3000000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static size_t size_of(int peer, int k) { return sizes[(size_t)(peer + k) % NSIZES]; }
static unsigned seed_of(int round, int src, int k) { return (unsigned)(round * 1000 + src * 100 + k); }

/* How the receiver completes its window. */
enum { BY_WAITALL, BY_REVERSE, BY_WAITANY, BY_WAITSOME, NHOW };

static void receive_window(int round, int how, int nsrc, const int *srcs, unsigned char **bufs,
                           MPI_Request *reqs) {
  int n = nsrc * W;
  for (int i = 0; i < n; i++) {
    int src = srcs[i % nsrc], k = i / nsrc;
    CHECK_OK(MPI_Irecv(bufs[i], (int)size_of(src, k), MPI_BYTE, src, k, MPI_COMM_WORLD, &reqs[i]));
  }
  MPI_Status st[4 * W];
  int idx[4 * W];
  switch (how) {
  case BY_WAITALL:
    CHECK_OK(MPI_Waitall(n, reqs, st));
    break;
  case BY_REVERSE:
    for (int i = n - 1; i >= 0; i--) CHECK_OK(MPI_Wait(&reqs[i], &st[i]));
    break;
  case BY_WAITANY:
    for (int left = n; left > 0; left--) {
      int j;
      MPI_Status s;
      CHECK_OK(MPI_Waitany(n, reqs, &j, &s));
      CHECK(j >= 0 && j < n, "waitany index %d", j);
      if (j >= 0 && j < n) st[j] = s;
      fy_spin_us(50); /* the others stay in flight meanwhile */
    }
    break;
  case BY_WAITSOME:
    for (int left = n; left > 0;) {
      int out;
      CHECK_OK(MPI_Waitsome(n, reqs, &out, idx, MPI_STATUSES_IGNORE));
      CHECK(out > 0 && out <= left, "waitsome returned %d of %d", out, left);
      if (out <= 0) break;
      left -= out;
      fy_spin_us(30);
    }
    break;
  }
  for (int i = 0; i < n; i++) {
    int src = srcs[i % nsrc], k = i / nsrc;
    size_t len = size_of(src, k);
    size_t bad = fy_verify(bufs[i], len, seed_of(round, src, k));
    CHECK(bad == (size_t)-1, "round %d how %d: message %d from %d (%zu bytes) wrong at %zu", round, how, k, src,
          len, bad);
    if (how == BY_WAITSOME) continue; /* (statuses ignored there) */
    int cnt;
    MPI_Get_count(&st[i], MPI_BYTE, &cnt);
    CHECK(st[i].MPI_SOURCE == src && st[i].MPI_TAG == k && (size_t)cnt == len,
          "round %d how %d: status of message %d from %d: source %d tag %d count %d", round, how, k, src,
          st[i].MPI_SOURCE, st[i].MPI_TAG, cnt);
  }
}

static void send_window(int round, int dst, int me, unsigned char **bufs, MPI_Request *reqs) {
  /* (filled first: a sender that computes between its sends leaves the
   * copies to the receiver, and nothing would queue for the pipe) */
  for (int k = 0; k < W; k++) fy_fill(bufs[k], size_of(me, k), seed_of(round, me, k));
  for (int k = 0; k < W; k++)
    CHECK_OK(MPI_Isend(bufs[k], (int)size_of(me, k), MPI_BYTE, dst, k, MPI_COMM_WORLD, &reqs[k]));
  CHECK_OK(MPI_Waitall(W, reqs, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("pt2pt_window");
  int rank = fy_rank_, size = fy_size_;
  if (size > 4) {
    if (rank == 0) printf("SKIP: written for 2-4 processes\n");
    return fy_finish();
  }
  int nsrc = size - 1;
  int nbuf = rank == 0 ? nsrc * W : W;
  unsigned char **bufs = malloc(sizeof *bufs * (size_t)nbuf);
  MPI_Request reqs[4 * W];
  /* buffer i: what it receives and what it sends (rank 0: message i/nsrc
   * of rank 1+i%nsrc, and its own message i; the others: message i of
   * rank 0 and their own) */
  size_t *cap = malloc(sizeof *cap * (size_t)nbuf);
  for (int i = 0; i < nbuf; i++) {
    size_t a = rank == 0 ? size_of(1 + i % nsrc, i / nsrc) : size_of(0, i);
    size_t b = rank == 0 ? (i < W ? size_of(0, i) : 0) : size_of(rank, i);
    cap[i] = a > b ? a : b;
    bufs[i] = malloc(cap[i]);
    CHECK(bufs[i] != NULL, "out of memory");
  }
  int srcs[3];
  for (int i = 0; i < nsrc; i++) srcs[i] = i + 1;
  int round = 0;
  for (int how = 0; how < NHOW; how++)
    for (int late = 0; late < 2; late++, round++) {
      /* many to one: everybody sends rank 0 a window */
      if (rank == 0) {
        for (int i = 0; i < nbuf; i++) memset(bufs[i], 0xee, cap[i]);
        if (late) fy_spin_us(2000); /* the rendezvous starts are there first */
        receive_window(round, how, nsrc, srcs, bufs, reqs);
      } else {
        if (!late) fy_spin_us(2000); /* the receives are posted first */
        send_window(round, 0, rank, bufs, reqs);
      }
      CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
      /* one to each: rank 0 sends every other rank a window */
      round++;
      if (rank == 0) {
        for (int d = 1; d < size; d++) send_window(round, d, 0, bufs, reqs);
      } else {
        for (int i = 0; i < W; i++) memset(bufs[i], 0xee, cap[i]);
        int zero = 0;
        receive_window(round, how, 1, &zero, bufs, reqs);
      }
      CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
  for (int i = 0; i < nbuf; i++) free(bufs[i]);
  free(bufs);
  free(cap);
  return fy_finish();
}
