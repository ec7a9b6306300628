/* net_ahead: fabric rendezvous messages whose data goes right behind the
 * RTS as a tagged message (FERRY_OFI_AHEAD, src/pt2pt/net.c), in every
 * place a receive can meet it, each checked byte for byte.
 *
 * Rank 0 sends to rank 1 unless said otherwise:
 *  1. unexpected: three large messages and then a small one, which rank 1
 *     receives first (the data of the large ones must not hold the small
 *     one back: it lands in bounce buffers), then the large ones out of
 *     order;
 *  2. truncation, matched on arrival and unexpected: the first bytes
 *     delivered, MPI_ERR_TRUNCATE, nothing written past the buffer; and a
 *     receive of 0 elements;
 *  3. a receive into a vector type;
 *  4. MPI_Mprobe/MPI_Mrecv of an unexpected message;
 *  5. MPI_Issend completes only once its receive is posted, though all
 *     its data has left;
 *  6. a stream of messages: while one message's data ahead is
 *     unanswered the next ones carry none (plain RGETs), and with a small
 *     FERRY_OFI_AHEAD a message carries only the credit's worth;
 *  7. with 3 ranks, MPI_ANY_SOURCE over two senders;
 *  8. a pingpong of large messages: the receiver's answer to each one's
 *     data ahead rides on its reply (FY_PKF_FIN_DONE) or goes by itself,
 *     and either way it has reached the sender before that sender's next
 *     message, which must then go ahead too.
 * FYTEST_EXPECT_AHEAD=1: rank 0 must have sent some data ahead (MPI_T
 * ferry_net_ahead), so the protocol under test was the one that ran, and
 * every message of the pingpong. FYTEST_EXPECT_RIDE=1 (where the
 * application thread takes its messages in, not an agent): some answers
 * must have ridden on a reply (ferry_net_fin_rode), on both ranks. */
#include "fytest.h"
#include <unistd.h>

enum { KB = 1024, MB = 1024 * 1024 };
static const size_t big[3] = {100 * KB, 1 * MB, 3 * MB + 17};

static void check_bytes(const char *what, const char *buf, size_t n, unsigned seed) {
  size_t at = fy_verify(buf, n, seed);
  CHECK(at == (size_t)-1, "%s (%zu bytes): wrong at byte %zu", what, n, at);
}

/* rank 0 tells rank 1 it may go on (and the other way round) */
static void go(int to) { CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, to, 99, MPI_COMM_WORLD)); }
static void wait_go(int from) { CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, from, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); }

static void unexpected(int rank, char *buf) {
  if (rank == 0) {
    MPI_Request rq[4];
    char *s[3];
    for (int i = 0; i < 3; i++) {
      s[i] = malloc(big[i]);
      fy_fill(s[i], big[i], 100 + i);
      CHECK_OK(MPI_Isend(s[i], (int)big[i], MPI_BYTE, 1, 1 + i, MPI_COMM_WORLD, &rq[i]));
    }
    int small = 42;
    CHECK_OK(MPI_Isend(&small, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &rq[3]));
    CHECK_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 3; i++) free(s[i]);
  } else if (rank == 1) {
    int small = 0;
    CHECK_OK(MPI_Recv(&small, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(small == 42, "small message: %d", small);
    static const int order[3] = {2, 0, 1};
    for (int j = 0; j < 3; j++) {
      int i = order[j], n = -1;
      MPI_Status st;
      memset(buf, 0, big[i]);
      CHECK_OK(MPI_Recv(buf, (int)big[i], MPI_BYTE, 0, 1 + i, MPI_COMM_WORLD, &st));
      MPI_Get_count(&st, MPI_BYTE, &n);
      CHECK(n == (int)big[i], "unexpected message %d: %d bytes", i, n);
      check_bytes("unexpected message", buf, big[i], 100 + i);
    }
  }
}

static void truncation(int rank, char *buf) {
  enum { LEN = 1 * MB, CAP = 300 * KB };
  if (rank == 0) {
    char *s = malloc(LEN);
    fy_fill(s, LEN, 7);
    wait_go(1); /* first: the receive is posted before the message comes */
    CHECK_OK(MPI_Send(s, LEN, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
    MPI_Request rq; /* then unexpected */
    CHECK_OK(MPI_Isend(s, LEN, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &rq));
    go(1);
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Send(s, 200 * KB, MPI_BYTE, 1, 4, MPI_COMM_WORLD));
    free(s);
  } else if (rank == 1) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int m = 0; m < 2; m++) {
      MPI_Request rq = MPI_REQUEST_NULL;
      MPI_Status st;
      memset(buf, 0x5a, LEN);
      if (m == 0) {
        CHECK_OK(MPI_Irecv(buf, CAP, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &rq));
        go(0);
      } else {
        wait_go(0);
        CHECK_OK(MPI_Irecv(buf, CAP, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq));
      }
      int rc = MPI_Wait(&rq, &st), cls = -1, n = -1;
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_TRUNCATE, "%s truncated receive: error class %d", m ? "unexpected" : "posted", cls);
      MPI_Get_count(&st, MPI_BYTE, &n);
      CHECK(n == CAP, "truncated receive: count %d, expected %d", n, CAP);
      check_bytes("truncated receive", buf, CAP, 7);
      size_t past = 0;
      for (size_t i = CAP; i < LEN; i++) past += (unsigned char)buf[i] != 0x5a;
      CHECK(past == 0, "truncated receive wrote %zu bytes past its buffer", past);
    }
    MPI_Status st;
    int rc = MPI_Recv(buf, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &st), cls = -1, n = -1;
    MPI_Error_class(rc, &cls);
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(cls == MPI_ERR_TRUNCATE && n == 0, "receive of 0 elements: class %d, count %d", cls, n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
}

static void vector(int rank, char *buf) {
  enum { BLOCKS = 4096, BL = 96, STRIDE = 160 }; /* 384 KiB of data */
  MPI_Datatype v;
  CHECK_OK(MPI_Type_vector(BLOCKS, BL, STRIDE, MPI_BYTE, &v));
  CHECK_OK(MPI_Type_commit(&v));
  size_t n = (size_t)BLOCKS * BL;
  if (rank == 0) {
    char *s = malloc(n);
    fy_fill(s, n, 11);
    CHECK_OK(MPI_Send(s, (int)n, MPI_BYTE, 1, 5, MPI_COMM_WORLD));
    free(s);
  } else if (rank == 1) {
    char *packed = malloc(n);
    memset(buf, 0, (size_t)BLOCKS * STRIDE);
    CHECK_OK(MPI_Recv(buf, 1, v, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int b = 0; b < BLOCKS; b++) memcpy(packed + (size_t)b * BL, buf + (size_t)b * STRIDE, BL);
    check_bytes("vector receive", packed, n, 11);
    free(packed);
  }
  MPI_Type_free(&v);
}

static void mprobe(int rank, char *buf) {
  enum { LEN = 700 * KB };
  if (rank == 0) {
    char *s = malloc(LEN);
    fy_fill(s, LEN, 13);
    CHECK_OK(MPI_Send(s, LEN, MPI_BYTE, 1, 6, MPI_COMM_WORLD));
    free(s);
  } else if (rank == 1) {
    MPI_Message msg;
    MPI_Status st;
    int n = -1;
    CHECK_OK(MPI_Mprobe(0, 6, MPI_COMM_WORLD, &msg, &st));
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == LEN, "mprobe: %d bytes", n);
    memset(buf, 0, LEN);
    CHECK_OK(MPI_Mrecv(buf, LEN, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
    check_bytes("mrecv", buf, LEN, 13);
  }
}

static void ssend(int rank, char *buf) {
  enum { LEN = 256 * KB };
  if (rank == 0) {
    char *s = malloc(LEN);
    fy_fill(s, LEN, 17);
    MPI_Request rq;
    int done = 0;
    CHECK_OK(MPI_Issend(s, LEN, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &rq));
    /* rank 1 posts its receive only after "go": meanwhile the data has
     * time to leave, and the send must still not complete */
    for (int i = 0; i < 200 && !done; i++) {
      CHECK_OK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
      usleep(250);
    }
    CHECK(!done, "MPI_Issend completed before its receive was posted");
    go(1);
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    free(s);
  } else if (rank == 1) {
    wait_go(0);
    memset(buf, 0, LEN);
    CHECK_OK(MPI_Recv(buf, LEN, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check_bytes("ssend", buf, LEN, 17);
  }
}

static void stream(int rank, char *buf) {
  enum { N = 24, LEN = 300 * KB + 5 };
  if (rank == 0) {
    char *s = malloc((size_t)N * LEN);
    MPI_Request rq[N];
    for (int i = 0; i < N; i++) {
      fy_fill(s + (size_t)i * LEN, LEN, 1000 + i);
      CHECK_OK(MPI_Isend(s + (size_t)i * LEN, LEN, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &rq[i]));
    }
    go(1);
    CHECK_OK(MPI_Waitall(N, rq, MPI_STATUSES_IGNORE));
    free(s);
  } else if (rank == 1) {
    wait_go(0); /* every message has started: the first ones unexpected */
    for (int i = 0; i < N; i++) {
      memset(buf, 0, LEN);
      CHECK_OK(MPI_Recv(buf, LEN, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      check_bytes("stream", buf, LEN, 1000 + i);
    }
  }
}

static void any_source(int rank, int size, char *buf) {
  enum { LEN = 1 * MB + 3 };
  if (size < 3) return;
  if (rank == 1 || rank == 2) {
    char *s = malloc(LEN);
    fy_fill(s, LEN, 2000 + rank);
    CHECK_OK(MPI_Send(s, LEN, MPI_BYTE, 0, 10, MPI_COMM_WORLD));
    free(s);
  } else if (rank == 0) {
    int seen = 0;
    for (int k = 0; k < 2; k++) {
      MPI_Status st;
      memset(buf, 0, LEN);
      CHECK_OK(MPI_Recv(buf, LEN, MPI_BYTE, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE == 1 || st.MPI_SOURCE == 2, "source %d", st.MPI_SOURCE);
      seen |= 1 << st.MPI_SOURCE;
      check_bytes("any source", buf, LEN, 2000 + (unsigned)st.MPI_SOURCE);
    }
    CHECK(seen == 6, "sources seen: mask %d", seen);
  }
}

static void pingpong(int rank, char *buf, fy_counter_t *ahead) {
  enum { N = 12, LEN = 200 * KB + 9 };
  if (rank > 1) return;
  int ferry = fy_is_ferry();
  const char *want = getenv("FYTEST_EXPECT_AHEAD"), *ride = getenv("FYTEST_EXPECT_RIDE");
  fy_counter_t rode;
  int counting_ride = ferry && ride && atoi(ride) && fy_counter_start(&rode, "ferry_net_fin_rode");
  unsigned long long before = ahead ? fy_counter_read(ahead) : 0;
  char *s = malloc(LEN);
  for (int i = 0; i < N; i++) {
    int me = rank == i % 2;
    if (me) {
      fy_fill(s, LEN, 3000 + i);
      CHECK_OK(MPI_Send(s, LEN, MPI_BYTE, 1 - rank, 11, MPI_COMM_WORLD));
    } else {
      memset(buf, 0, LEN);
      CHECK_OK(MPI_Recv(buf, LEN, MPI_BYTE, 1 - rank, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      check_bytes("pingpong", buf, LEN, 3000 + i);
    }
  }
  free(s);
  if (ahead && want && atoi(want)) {
    unsigned long long went = fy_counter_read(ahead) - before;
    CHECK(went == N / 2, "pingpong: %llu of rank 0's %d messages went ahead", went, N / 2);
  }
  if (counting_ride) {
    unsigned long long r = fy_counter_end(&rode);
    CHECK(r > 0, "pingpong: no answer to data ahead rode on a reply");
  }
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init(&argc, &argv);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  fy_init("net_ahead");
  int rank = fy_rank_, size = fy_size_;
  char *buf = malloc(4 * MB);
  const char *want = getenv("FYTEST_EXPECT_AHEAD");
  fy_counter_t ahead;
  int counting = rank == 0 && want && atoi(want) && fy_is_ferry() && fy_counter_start(&ahead, "ferry_net_ahead");
  if (size >= 2) {
    unexpected(rank, buf);
    truncation(rank, buf);
    vector(rank, buf);
    mprobe(rank, buf);
    ssend(rank, buf);
    stream(rank, buf);
    any_source(rank, size, buf);
    pingpong(rank, buf, counting ? &ahead : NULL);
  }
  if (counting) CHECK(fy_counter_end(&ahead) > 0, "no message sent its data ahead (FERRY_OFI_AHEAD)");
  MPI_Barrier(MPI_COMM_WORLD);
  free(buf);
  MPI_T_finalize();
  return fy_finish();
}
