/* net_mix: point-to-point where some peers share this host (shared memory)
 * and others do not (the fabric), or every peer is remote (FERRY_NOLOCAL=1).
 *
 * - MPI_Comm_split_type(SHARED) groups exactly the ranks whose processor
 *   names (host names) equal ours;
 * - rank 0 receives with MPI_ANY_SOURCE from every other rank, eager and
 *   rendezvous sizes interleaved: everything arrives, each sender's
 *   messages in the order sent;
 * - synchronous sends, a truncated receive (MPI_ERR_TRUNCATE, eager and
 *   rendezvous), a cancelled receive, MPI_Mprobe/MPI_Mrecv, a derived type
 *   (vector) in both protocols, both rendezvous choices (a blocking
 *   receive, and a nonblocking one matched in passing);
 * - unexpected messages around the fabric's eager limit, received in
 *   reverse order;
 * - a window over ranks on different hosts (messages to its targets,
 *   src/rma/am.c) and one over the host's ranks (its shared segment) both
 *   carry a put; rma_nodes tests the windows across hosts in full. */
#include "fytest.h"

#define NMSG 24

static size_t size_of(int i) {
  static const size_t s[] = {0, 8, 1000, 16384, 16385, 70000, 300000, 1 << 20};
  return s[i % 8];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("net_mix");
  int rank = fy_rank_, size = fy_size_;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* ---- host grouping ---- */
  char name[MPI_MAX_PROCESSOR_NAME], *all;
  int len;
  memset(name, 0, sizeof name);
  MPI_Get_processor_name(name, &len);
  all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
  MPI_Comm node;
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nsize, same = 0;
  MPI_Comm_size(node, &nsize);
  for (int r = 0; r < size; r++) same += !strcmp(all + (size_t)r * MPI_MAX_PROCESSOR_NAME, name);
  const char *nolocal = getenv("FERRY_NOLOCAL");
  int expect = (nolocal && !strcmp(nolocal, "1")) ? 1 : same;
  CHECK(nsize == expect, "split_type SHARED: %d ranks, %d share host %s", nsize, expect, name);
  free(all);

  /* ---- ANY_SOURCE from every rank, per-sender order ---- */
  size_t maxb = 1 << 20;
  char *buf = malloc(maxb);
  if (rank == 0) {
    int *next = calloc((size_t)size, sizeof *next);
    for (int k = 0; k < (size - 1) * NMSG; k++) {
      MPI_Status st;
      CHECK_OK(MPI_Recv(buf, (int)maxb, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE, cnt;
      MPI_Get_count(&st, MPI_BYTE, &cnt);
      CHECK(st.MPI_TAG == next[src], "from %d: message %d came when %d was due", src, st.MPI_TAG, next[src]);
      size_t n = size_of(st.MPI_TAG + src);
      CHECK((size_t)cnt == n, "from %d tag %d: %d bytes, expected %zu", src, st.MPI_TAG, cnt, n);
      CHECK(fy_verify(buf, n, (unsigned)(src * 100 + st.MPI_TAG)) == (size_t)-1, "payload from %d tag %d", src,
            st.MPI_TAG);
      next[src] = st.MPI_TAG + 1;
    }
    free(next);
  } else {
    for (int t = 0; t < NMSG; t++) {
      size_t n = size_of(t + rank);
      fy_fill(buf, n, (unsigned)(rank * 100 + t));
      if (t % 3 == 1) CHECK_OK(MPI_Ssend(buf, (int)n, MPI_BYTE, 0, t, MPI_COMM_WORLD));
      else CHECK_OK(MPI_Send(buf, (int)n, MPI_BYTE, 0, t, MPI_COMM_WORLD));
    }
  }
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

  /* ---- pairs: truncation, cancel, mprobe, derived types, rendezvous choices ---- */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  if (size > 1) {
    static const size_t tr[] = {100, 200000};
    for (int i = 0; i < 2; i++) {
      MPI_Request rq;
      MPI_Status st;
      fy_fill(buf, tr[i], 7u);
      CHECK_OK(MPI_Irecv(buf + maxb / 2, (int)(tr[i] / 2), MPI_BYTE, left, 50 + i, MPI_COMM_WORLD, &rq));
      CHECK_OK(MPI_Send(buf, (int)tr[i], MPI_BYTE, right, 50 + i, MPI_COMM_WORLD));
      int rc = MPI_Wait(&rq, &st);
      int cls;
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_TRUNCATE, "truncated %zu-byte receive: class %d", tr[i], cls);
      CHECK(fy_verify(buf + maxb / 2, tr[i] / 2, 7u) == (size_t)-1, "truncated receive kept the first bytes");
    }
    /* a receive nobody matches is cancelled */
    MPI_Request rq;
    MPI_Status st;
    int flag;
    CHECK_OK(MPI_Irecv(buf, 10, MPI_BYTE, left, 999, MPI_COMM_WORLD, &rq));
    CHECK_OK(MPI_Cancel(&rq));
    CHECK_OK(MPI_Wait(&rq, &st));
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "receive from %d not cancelled", left);
    /* mprobe + mrecv of a rendezvous message */
    size_t n = 300000;
    fy_fill(buf, n, 11u);
    CHECK_OK(MPI_Isend(buf, (int)n, MPI_BYTE, right, 60, MPI_COMM_WORLD, &rq));
    MPI_Message msg;
    CHECK_OK(MPI_Mprobe(left, 60, MPI_COMM_WORLD, &msg, &st));
    int cnt;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK((size_t)cnt == n, "mprobe count %d", cnt);
    char *rb = malloc(n);
    CHECK_OK(MPI_Mrecv(rb, (int)n, MPI_BYTE, &msg, &st));
    CHECK(fy_verify(rb, n, 11u) == (size_t)-1, "mrecv payload");
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    /* vector type, eager and rendezvous; receiver contiguous */
    MPI_Datatype vec;
    MPI_Type_vector(4096, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *v = malloc(4096 * 3 * sizeof(int)), *c = malloc(4096 * 2 * sizeof(int));
    for (int i = 0; i < 4096 * 3; i++) v[i] = i * 7 + rank;
    for (int cnt2 = 1; cnt2 <= 4096; cnt2 *= 64) {
      MPI_Datatype small;
      MPI_Type_vector(cnt2, 2, 3, MPI_INT, &small);
      MPI_Type_commit(&small);
      CHECK_OK(MPI_Sendrecv(v, 1, small, right, 70, c, cnt2 * 2, MPI_INT, left, 70, MPI_COMM_WORLD, &st));
      for (int i = 0; i < cnt2 * 2; i++)
        CHECK(c[i] == (i / 2 * 3 + i % 2) * 7 + left, "vector(%d) element %d: %d", cnt2, i, c[i]);
      /* and back: contiguous sender, vector receiver */
      memset(v, 0, 4096 * 3 * sizeof(int));
      CHECK_OK(MPI_Sendrecv(c, cnt2 * 2, MPI_INT, left, 71, v, 1, small, right, 71, MPI_COMM_WORLD, &st));
      for (int i = 0; i < cnt2 * 2; i++) {
        int want = (i / 2 * 3 + i % 2) * 7 + rank;
        CHECK(v[(i / 2) * 3 + i % 2] == want, "vector receive(%d) element %d", cnt2, i);
      }
      for (int i = 0; i < 4096 * 3; i++) v[i] = i * 7 + rank;
      MPI_Type_free(&small);
    }
    MPI_Type_free(&vec);
    free(v);
    free(c);
    /* rendezvous matched in passing (nonblocking receive posted late, then
     * computing) and by a blocking receive */
    n = 1 << 20;
    fy_fill(buf, n, 13u);
    CHECK_OK(MPI_Isend(buf, (int)n, MPI_BYTE, right, 80, MPI_COMM_WORLD, &rq));
    char *r2 = malloc(n);
    MPI_Request rr;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); /* the start has (likely) arrived */
    CHECK_OK(MPI_Irecv(r2, (int)n, MPI_BYTE, left, 80, MPI_COMM_WORLD, &rr));
    CHECK_OK(MPI_Wait(&rr, &st));
    CHECK(fy_verify(r2, n, 13u) == (size_t)-1, "late nonblocking rendezvous payload");
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Sendrecv(buf, (int)n, MPI_BYTE, right, 81, r2, (int)n, MPI_BYTE, left, 81, MPI_COMM_WORLD, &st));
    CHECK(fy_verify(r2, n, 13u) == (size_t)-1, "sendrecv rendezvous payload");
    free(r2);
    free(rb);
  }

  /* ---- unexpected messages around the fabric's eager limit (64 KiB) and
   * the send-by-reference threshold (8 KiB), taken in reverse tag order
   * after a barrier: each waits unexpected, copied out of the provider's
   * buffer, and must land whole in its own receive ---- */
  {
    static const size_t us[] = {8191, 8192, 32768, 65000, 65536, 65537};
    enum { NU = sizeof us / sizeof us[0] };
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char *sb[NU], *rb[NU];
    MPI_Request sq[NU];
    for (int i = 0; i < NU; i++) {
      sb[i] = malloc(us[i]);
      rb[i] = malloc(us[i]);
      fy_fill(sb[i], us[i], (unsigned)(rank * 31 + i));
      CHECK_OK(MPI_Isend(sb[i], (int)us[i], MPI_BYTE, right, 90 + i, MPI_COMM_WORLD, &sq[i]));
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = NU - 1; i >= 0; i--) {
      MPI_Status st;
      CHECK_OK(MPI_Recv(rb[i], (int)us[i], MPI_BYTE, left, 90 + i, MPI_COMM_WORLD, &st));
      int got = -1;
      MPI_Get_count(&st, MPI_BYTE, &got);
      CHECK(got == (int)us[i], "unexpected %zu bytes: count %d", us[i], got);
      CHECK(fy_verify(rb[i], us[i], (unsigned)(left * 31 + i)) == (size_t)-1, "unexpected %zu bytes: payload",
            us[i]);
    }
    CHECK_OK(MPI_Waitall(NU, sq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NU; i++) {
      free(sb[i]);
      free(rb[i]);
    }
  }

  /* ---- windows: across hosts and on one ---- */
  MPI_Comm comms[2] = {MPI_COMM_WORLD, node};
  for (int k = 0; k < 2; k++) {
    int *base, crank, csize;
    MPI_Win win;
    MPI_Comm_rank(comms[k], &crank);
    MPI_Comm_size(comms[k], &csize);
    CHECK_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comms[k], &base, &win));
    *base = -1;
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Put(&crank, 1, MPI_INT, (crank + 1) % csize, 0, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK(*base == (crank + csize - 1) % csize, "window %s: put left %d", k ? "on the host" : "across hosts", *base);
    MPI_Win_free(&win);
  }
  MPI_Comm_free(&node);
  free(buf);
  return fy_finish();
}
