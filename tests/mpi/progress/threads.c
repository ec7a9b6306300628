/* progress_threads: MPI_THREAD_MULTIPLE with asynchronous progress agents.
 *
 * Ranks pair up (rank^1). Per rank, NT application threads each run their
 * own blocking ping-pong and nonblocking exchanges with the same thread of
 * the partner on a private tag range, with sizes across eager and
 * rendezvous; every payload is verified. One more thread meanwhile loops on
 * MPI_Iprobe(ANY_SOURCE, ANY_TAG) and MPI_Test of its own receive, which
 * the partner's probe thread satisfies once the partner's exchange threads
 * are done. Fails at once unless provided == MPI_THREAD_MULTIPLE.
 * usage: progress_threads [NT]   (2..3, default 2) */
#include "fytest.h"
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define ITERS 12
#define TAG_PROBE 900
static int rank_, partner_, nt_;
static atomic_int workers_done;

static const size_t sizes[] = {0, 1, 1000, 16384, 16385, 70000, 512 << 10, 2 << 20};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned seed_of(int from, int t, int it, int k) {
  return (unsigned)(from * 100000 + t * 10000 + it * 100 + k);
}

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  int tag = 100 * (t + 1); /* tag, tag+1: this thread's only tags */
  size_t maxb = 2 << 20;
  unsigned char *s = malloc(maxb), *r = malloc(maxb), *s2 = malloc(maxb), *r2 = malloc(maxb);
  CHECK(s && r && s2 && r2, "malloc");
  for (int it = 0; it < ITERS && s && r && s2 && r2; it++) {
    size_t n = sizes[(it + t) % NSIZES];
    /* Blocking ping-pong: the lower rank speaks first. */
    fy_fill(s, n, seed_of(rank_, t, it, 0));
    memset(r, 0, n);
    MPI_Status st;
    if (rank_ < partner_) {
      CHECK_OK(MPI_Send(s, (int)n, MPI_BYTE, partner_, tag, MPI_COMM_WORLD));
      CHECK_OK(MPI_Recv(r, (int)n, MPI_BYTE, partner_, tag, MPI_COMM_WORLD, &st));
    } else {
      CHECK_OK(MPI_Recv(r, (int)n, MPI_BYTE, partner_, tag, MPI_COMM_WORLD, &st));
      CHECK_OK(MPI_Send(s, (int)n, MPI_BYTE, partner_, tag, MPI_COMM_WORLD));
    }
    int cnt = -1;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(cnt == (int)n && st.MPI_TAG == tag, "thread %d it %d: count %d tag %d", t, it, cnt, st.MPI_TAG);
    size_t bad = fy_verify(r, n, seed_of(partner_, t, it, 0));
    CHECK(bad == (size_t)-1, "thread %d it %d ping-pong %zu bytes: wrong at %zu", t, it, n, bad);

    /* Nonblocking exchange of two messages, receiver first, then compute. */
    size_t n2 = sizes[(it * 3 + t + 5) % NSIZES];
    size_t h = n2;
    MPI_Request rq[4];
    memset(r, 0, n);
    memset(r2, 0, h);
    fy_fill(s, n, seed_of(rank_, t, it, 1));
    fy_fill(s2, h, seed_of(rank_, t, it, 2));
    CHECK_OK(MPI_Irecv(r, (int)n, MPI_BYTE, partner_, tag + 1, MPI_COMM_WORLD, &rq[0]));
    CHECK_OK(MPI_Irecv(r2, (int)h, MPI_BYTE, partner_, tag, MPI_COMM_WORLD, &rq[1]));
    volatile double x = 0;
    for (int i = 0; i < 20000; i++) x += i * 0.5; /* compute while receives are pending */
    CHECK_OK(MPI_Isend(s, (int)n, MPI_BYTE, partner_, tag + 1, MPI_COMM_WORLD, &rq[2]));
    CHECK_OK(MPI_Isend(s2, (int)h, MPI_BYTE, partner_, tag, MPI_COMM_WORLD, &rq[3]));
    int done = 0;
    while (!done) CHECK_OK(MPI_Testall(4, rq, &done, MPI_STATUSES_IGNORE));
    bad = fy_verify(r, n, seed_of(partner_, t, it, 1));
    CHECK(bad == (size_t)-1, "thread %d it %d exchange A %zu bytes: wrong at %zu", t, it, n, bad);
    bad = fy_verify(r2, h, seed_of(partner_, t, it, 2));
    CHECK(bad == (size_t)-1, "thread %d it %d exchange B %zu bytes: wrong at %zu", t, it, h, bad);
  }
  free(s);
  free(r);
  free(s2);
  free(r2);
  atomic_fetch_add(&workers_done, 1);
  return NULL;
}

/* Iprobe/Test loop concurrent with the workers. */
static void *prober(void *arg) {
  (void)arg;
  int in = -1, out = rank_ + 7, sent = 0, done = 0;
  long probes = 0, seen = 0;
  MPI_Request rq, sq = MPI_REQUEST_NULL;
  CHECK_OK(MPI_Irecv(&in, 1, MPI_INT, partner_, TAG_PROBE, MPI_COMM_WORLD, &rq));
  double t0 = now_s();
  while (!done && now_s() - t0 < 240.0) { /* minutes, not seconds: a loaded machine */
    int flag = 0;
    MPI_Status st;
    CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    probes++;
    if (flag) {
      seen++;
      int okt = st.MPI_TAG == TAG_PROBE || st.MPI_TAG == FY_TAG_RESULT ||
                (st.MPI_TAG >= 100 && st.MPI_TAG <= 100 * nt_ + 1 && st.MPI_TAG % 100 <= 1);
      CHECK(okt && st.MPI_SOURCE == partner_, "Iprobe saw source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    }
    if (!sent && atomic_load(&workers_done) == nt_) {
      CHECK_OK(MPI_Isend(&out, 1, MPI_INT, partner_, TAG_PROBE, MPI_COMM_WORLD, &sq));
      sent = 1;
    }
    CHECK_OK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
  }
  CHECK(done, "probe thread: partner's message not received within 240 s");
  if (!done) {
    MPI_Cancel(&rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
  } else {
    CHECK(in == partner_ + 7, "probe message carries %d", in);
  }
  if (!sent) CHECK_OK(MPI_Isend(&out, 1, MPI_INT, partner_, TAG_PROBE, MPI_COMM_WORLD, &sq));
  CHECK_OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
  CHECK(probes > 0, "no probes");
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  fy_init("progress_threads");
  if (provided != MPI_THREAD_MULTIPLE) {
    CHECK(0, "provided %d, not MPI_THREAD_MULTIPLE", provided);
    return fy_finish();
  }
  rank_ = fy_rank_;
  nt_ = argc > 1 ? atoi(argv[1]) : 2;
  if (nt_ < 1 || nt_ > 3) nt_ = 2;
  CHECK(fy_size_ % 2 == 0, "needs an even number of ranks, got %d", fy_size_);
  if (fy_size_ % 2 == 0) {
    partner_ = rank_ ^ 1;
    pthread_t th[4];
    for (int t = 0; t < nt_; t++)
      CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    CHECK(pthread_create(&th[nt_], NULL, prober, NULL) == 0, "pthread_create");
    for (int t = 0; t <= nt_; t++) pthread_join(th[t], NULL);
  }
  return fy_finish();
}
