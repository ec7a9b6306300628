/* progress_pef_inside: workloads for the PEF's rules. Run by check.sh,
 * which reads FERRY_STATS=1. Spins without MPI calls give up after
 * SPIN_DEADLINE seconds (minutes: a hang guard on a loaded machine, not a
 * timing assertion) and fail with a message.
 *
 * usage: progress_pef_inside busy   (default)
 *   Ranks pair up; each round one side receives 4 large messages
 *   (receiver-first, watched) while both sides hammer the library with
 *   MPI_Iprobe, MPI_Test, small MPI_Isend / MPI_Recv, so PEF signals keep
 *   landing inside Ferry. The receiver first spins without MPI until its
 *   first message arrives, so every receiving rank needs a PEF hit (run
 *   with FERRY_DIRECT=0, else the sender may write it directly).
 *   check.sh asserts pef_inside=0, turns>0 and hits>0 on every rank.
 * usage: progress_pef_inside late
 *   No receive left behind: the sender sleeps 200 ms before sending, the
 *   receiver spins on its buffer without any MPI call. Run with
 *   FERRY_PEF_TRIGGER=both and FERRY_PEF_MAX_TURNS=1: the timer stops after
 *   one futile turn (capped>0), and the receive must still complete
 *   without an MPI call (the sender's kick triggers it).
 * usage: progress_pef_inside flood
 *   No receive left behind behind a full ring: the receiver posts a large
 *   receive and spins without MPI calls while the sender first sends 300
 *   eager messages of 1 B..12 KiB (more than the ring holds) and then the
 *   large one. The PEF must take the eager messages in as unexpected ones
 *   (the sender kicks when the ring is full) so that the rendezvous start
 *   gets through; then every eager message is received in order. */
#include "fytest.h"
#include <time.h>

#define K 4
#define NSMALL 40
#define ROUNDS 10
#define TAG_BIG 10
#define TAG_SMALL 50

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_us(long us) {
  struct timespec t = {us / 1000000, (us % 1000000) * 1000L}, rem;
  while (nanosleep(&t, &rem) != 0) t = rem;
}

#define SPIN_DEADLINE 240.0

/* Spin without MPI calls until *p == want or SPIN_DEADLINE s pass. */
static int spin_for(volatile unsigned char *p, unsigned char want) {
  double t0 = now_s();
  for (unsigned long k = 0;; k++) {
    if (*p == want) return 1;
    if ((k & 0xfff) == 0 && now_s() - t0 > SPIN_DEADLINE) return 0;
  }
}

static void busy(int rank, int partner) {
  int stalled = 0; /* after one stall, stop spinning: one hang guard per job */
  static const size_t sizes[K] = {100 << 10, 300 << 10, 1 << 20, 2 << 20};
  unsigned char *big[K];
  for (int i = 0; i < K; i++) {
    big[i] = malloc(sizes[i]);
    CHECK(big[i] != NULL, "malloc");
    if (!big[i]) return;
  }
  for (int round = 0; round < ROUNDS; round++) {
    int recv_side = (rank % 2) == (round % 2);
    unsigned seed[K];
    for (int i = 0; i < K; i++) {
      seed[i] = 77u * (unsigned)round + (unsigned)i;
      while (fy_pat(seed[i], sizes[i] - 1) == 0) seed[i] += 131u;
    }
    MPI_Request rq[K];
    if (recv_side) {
      for (int i = 0; i < K; i++) {
        memset(big[i], 0, sizes[i]);
        CHECK_OK(MPI_Irecv(big[i], (int)sizes[i], MPI_BYTE, partner, TAG_BIG + i, MPI_COMM_WORLD, &rq[i]));
      }
    } else {
      for (int i = 0; i < K; i++) fy_fill(big[i], sizes[i], seed[i]);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (recv_side && !stalled) {
      /* Only the PEF can trigger this one: no MPI call while we spin. */
      int ok = spin_for(big[0] + sizes[0] - 1, fy_pat(seed[0], sizes[0] - 1));
      CHECK(ok, "round %d: first message did not arrive within %.0f s without MPI calls: left behind", round,
            SPIN_DEADLINE);
      stalled = !ok;
    }
    /* Both sides: many small messages and polls while big ones are pending. */
    int sent = 0, got = 0, nbig_sent = 0, big_done = 0;
    MPI_Request sreq[NSMALL];
    int small_out[NSMALL];
    double t0 = now_s();
    while ((sent < NSMALL || got < NSMALL || !big_done) && now_s() - t0 < SPIN_DEADLINE + 60) {
      /* (longer than the partner's spin guard: a stalled spin fails there first) */
      if (!recv_side && nbig_sent < K) {
        sleep_us(300); /* the sender trickles the big ones in */
        CHECK_OK(MPI_Isend(big[nbig_sent], (int)sizes[nbig_sent], MPI_BYTE, partner, TAG_BIG + nbig_sent,
                           MPI_COMM_WORLD, &rq[nbig_sent]));
        nbig_sent++;
      }
      if (sent < NSMALL) {
        small_out[sent] = round * 1000 + sent;
        CHECK_OK(MPI_Isend(&small_out[sent], 1, MPI_INT, partner, TAG_SMALL, MPI_COMM_WORLD, &sreq[sent]));
        sent++;
      }
      int flag = 0;
      MPI_Status st;
      CHECK_OK(MPI_Iprobe(partner, TAG_SMALL, MPI_COMM_WORLD, &flag, &st));
      if (flag) {
        int v = -1;
        CHECK_OK(MPI_Recv(&v, 1, MPI_INT, partner, TAG_SMALL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == round * 1000 + got, "small message %d of round %d carries %d", got, round, v);
        got++;
      }
      CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
      if (recv_side || nbig_sent == K) {
        int one = 0;
        CHECK_OK(MPI_Test(&rq[K - 1], &one, MPI_STATUS_IGNORE));
        if (one) CHECK_OK(MPI_Testall(K, rq, &big_done, MPI_STATUSES_IGNORE));
      }
    }
    CHECK(sent == NSMALL && got == NSMALL && big_done,
          "round %d: sent %d got %d big_done %d after %.0f s", round, sent, got, big_done, SPIN_DEADLINE + 60);
    if (!big_done && (recv_side || nbig_sent == K)) MPI_Waitall(K, rq, MPI_STATUSES_IGNORE);
    CHECK_OK(MPI_Waitall(sent, sreq, MPI_STATUSES_IGNORE));
    if (recv_side)
      for (int i = 0; i < K; i++) {
        size_t bad = fy_verify(big[i], sizes[i], seed[i]);
        CHECK(bad == (size_t)-1, "round %d message %d: wrong at byte %zu", round, i, bad);
      }
  }
  for (int i = 0; i < K; i++) free(big[i]);
}

static void late(int rank, int partner) {
  size_t n = 1 << 20;
  unsigned char *buf = malloc(n);
  CHECK(buf != NULL, "malloc");
  if (!buf) return;
  for (int round = 0; round < 3; round++) {
    unsigned seed = 4242u + (unsigned)round;
    while (fy_pat(seed, n - 1) == 0) seed += 131u;
    MPI_Request rq;
    if (rank % 2 == 0) {
      memset(buf, 0, n);
      CHECK_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, partner, 3, MPI_COMM_WORLD, &rq));
      CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
      int ok = spin_for(buf + n - 1, fy_pat(seed, n - 1)); /* no MPI call: the timer gives up, the kick does not */
      CHECK(ok, "round %d: no data within %.0f s without MPI calls once the timer stopped: left behind", round,
            SPIN_DEADLINE);
      CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
      size_t bad = fy_verify(buf, n, seed);
      CHECK(bad == (size_t)-1, "round %d: wrong at byte %zu", round, bad);
    } else {
      fy_fill(buf, n, seed);
      CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
      sleep_us(200000);
      CHECK_OK(MPI_Isend(buf, (int)n, MPI_BYTE, partner, 3, MPI_COMM_WORLD, &rq));
      CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }
  }
  free(buf);
}

#define NFLOOD 300
static void flood(int rank, int partner) {
  size_t n = 2 << 20, small_max = 12 << 10;
  unsigned char *buf = malloc(n), *small = malloc(small_max);
  CHECK(buf && small, "malloc");
  if (!buf || !small) return;
  unsigned seed = 99u;
  while (fy_pat(seed, n - 1) == 0) seed += 131u;
  MPI_Request rq;
  if (rank % 2 == 0) {
    memset(buf, 0, n);
    CHECK_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, partner, 5, MPI_COMM_WORLD, &rq));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    int ok = spin_for(buf + n - 1, fy_pat(seed, n - 1));
    CHECK(ok, "no data within %.0f s without MPI calls behind %d eager messages: left behind", SPIN_DEADLINE,
          NFLOOD);
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    size_t bad = fy_verify(buf, n, seed);
    CHECK(bad == (size_t)-1, "large message wrong at byte %zu", bad);
    for (int i = 0; i < NFLOOD; i++) {
      size_t len = 1 + ((size_t)i * 997) % small_max;
      MPI_Status st;
      CHECK_OK(MPI_Recv(small, (int)small_max, MPI_BYTE, partner, 6, MPI_COMM_WORLD, &st));
      int cnt = -1;
      MPI_Get_count(&st, MPI_BYTE, &cnt);
      CHECK(cnt == (int)len, "eager message %d: %d bytes, expected %zu (order broken?)", i, cnt, len);
      bad = fy_verify(small, len, 1000u + (unsigned)i);
      CHECK(bad == (size_t)-1, "eager message %d wrong at byte %zu", i, bad);
    }
  } else {
    fy_fill(buf, n, seed);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Request sq[NFLOOD];
    unsigned char *copies = malloc(NFLOOD * small_max);
    CHECK(copies != NULL, "malloc");
    if (!copies) return;
    for (int i = 0; i < NFLOOD; i++) {
      size_t len = 1 + ((size_t)i * 997) % small_max;
      fy_fill(copies + (size_t)i * small_max, len, 1000u + (unsigned)i);
      CHECK_OK(MPI_Isend(copies + (size_t)i * small_max, (int)len, MPI_BYTE, partner, 6, MPI_COMM_WORLD, &sq[i]));
    }
    CHECK_OK(MPI_Isend(buf, (int)n, MPI_BYTE, partner, 5, MPI_COMM_WORLD, &rq));
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Waitall(NFLOOD, sq, MPI_STATUSES_IGNORE));
    free(copies);
  }
  free(small);
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("progress_pef_inside");
  int rank = fy_rank_, size = fy_size_;
  CHECK(size % 2 == 0, "needs an even number of ranks, got %d", size);
  int partner = rank ^ 1;
  if (size % 2 == 0) {
    if (argc > 1 && !strcmp(argv[1], "late"))
      late(rank, partner);
    else if (argc > 1 && !strcmp(argv[1], "flood"))
      flood(rank, partner);
    else
      busy(rank, partner);
  }
  return fy_finish();
}
