/* Partitioned communication, early-bird: a chunk of ready partitions
 * arrives before the sender has marked the others (docs/partitioned.md).
 * In a ring (itself at -n 1), for each pattern:
 * - the sender marks the send partitions under the receiver's first chunk
 *   and then waits for a "go" from its receiver; the receiver polls
 *   MPI_Parrived on its first partition until it is true (so without early
 *   sending this program would never finish), checks that chunk's data and
 *   that its last partition has not arrived, then sends "go";
 * - then the rest is marked, in reverse order, and everything checked.
 * Patterns: equal partitioning, 64 KiB partitions (one per chunk); the
 * sender cut finer than the receiver (8 x 16 KiB sent, 2 x 64 KiB
 * received); a non-contiguous (vector) send type whose partitions do not
 * line up with the receiver's chunks (packed path); small partitions
 * grouped into one chunk of several receive partitions; three epochs each. */
#include "fytest.h"
#include <stdlib.h>

static MPI_Comm comm;
static int rank, size, next, prev;

static int val(int r, int e, int i) { return (r * 7 + e) * 1000003 + i; }

/* sparts x scount items of stype (each item `per` ints) sent; rparts x
 * rcount ints received; `first` = send partitions to mark before the go. */
static void pattern(const char *name, int sparts, int scount, MPI_Datatype stype, int per, int stride,
                    int rparts, int rcount, int first) {
  int n = rparts * rcount;
  CHECK(n == sparts * scount * per, "bad pattern %s", name);
  int *sb = malloc(sizeof(int) * (size_t)(sparts * scount) * (size_t)stride + sizeof(int));
  int *rb = malloc(sizeof(int) * (size_t)n + sizeof(int));
  MPI_Request s, r;
  CHECK_OK(MPI_Psend_init(sb, sparts, scount, stype, next, 11, comm, MPI_INFO_NULL, &s));
  CHECK_OK(MPI_Precv_init(rb, rparts, rcount, MPI_INT, prev, 11, comm, MPI_INFO_NULL, &r));
  for (int e = 0; e < 3; e++) {
    /* item k of the send buffer holds ints k*per .. k*per+per-1 of the stream */
    for (int k = 0; k < sparts * scount; k++)
      for (int i = 0; i < stride; i++) sb[k * stride + i] = i < per ? val(rank, e, k * per + i) : -9;
    for (int i = 0; i < n; i++) rb[i] = -1;
    CHECK_OK(MPI_Start(&r));
    CHECK_OK(MPI_Start(&s));
    for (int i = 0; i < first; i++) CHECK_OK(MPI_Pready(i, s));
    /* receive side: the first partition arrives while the sender holds back */
    int f = 0;
    while (!f) CHECK_OK(MPI_Parrived(r, 0, &f));
    int bad = -1;
    for (int i = 0; i < rcount && bad < 0; i++)
      if (rb[i] != val(prev, e, i)) bad = i;
    CHECK(bad < 0, "%s epoch %d: early partition 0, int %d = %d, want %d", name, e, bad, bad < 0 ? 0 : rb[bad],
          bad < 0 ? 0 : val(prev, e, bad));
    CHECK_OK(MPI_Parrived(r, rparts - 1, &f));
    CHECK(!f, "%s epoch %d: the last partition arrived before the sender marked it", name, e);
    int go = 1, got = 0;
    MPI_Request q;
    CHECK_OK(MPI_Irecv(&got, 1, MPI_INT, next, 12, comm, &q));
    CHECK_OK(MPI_Send(&go, 1, MPI_INT, prev, 12, comm));
    CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = sparts - 1; i >= first; i--) CHECK_OK(MPI_Pready(i, s));
    MPI_Status st;
    CHECK_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&r, &st));
    int cnt = -1;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == n && st.MPI_SOURCE == prev && st.MPI_TAG == 11, "%s epoch %d: status count %d source %d tag %d",
          name, e, cnt, st.MPI_SOURCE, st.MPI_TAG);
    bad = -1;
    for (int i = 0; i < n && bad < 0; i++)
      if (rb[i] != val(prev, e, i)) bad = i;
    CHECK(bad < 0, "%s epoch %d: int %d = %d, want %d", name, e, bad, bad < 0 ? 0 : rb[bad],
          bad < 0 ? 0 : val(prev, e, bad));
    for (int i = 0; i < rparts; i++) {
      CHECK_OK(MPI_Parrived(r, i, &f));
      CHECK(f, "%s: partition %d not arrived after the wait", name, i);
    }
  }
  MPI_Request_free(&s);
  MPI_Request_free(&r);
  free(sb);
  free(rb);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("pt2pt_part_early");
  comm = MPI_COMM_WORLD;
  rank = fy_rank_;
  size = fy_size_;
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  const int K = 16384; /* ints in 64 KiB */
  pattern("equal", 4, K, MPI_INT, 1, 1, 4, K, 1);
  pattern("finer sender", 8, K / 4, MPI_INT, 1, 1, 2, K, 4);
  /* 3 partitions of 24 Ki pairs of ints taken from triples: 48 Ki ints a
   * partition, so the receiver's 64 KiB chunks (16 Ki ints) cut across them */
  MPI_Datatype pairs;
  CHECK_OK(MPI_Type_vector(1, 2, 3, MPI_INT, &pairs));
  MPI_Datatype pair3;
  CHECK_OK(MPI_Type_create_resized(pairs, 0, 3 * sizeof(int), &pair3));
  CHECK_OK(MPI_Type_commit(&pair3));
  pattern("vector", 3, 24 * 1024, pair3, 2, 3, 9, K, 1);
  MPI_Type_free(&pair3);
  MPI_Type_free(&pairs);
  /* 64 partitions of 4 KiB received: 16 a chunk; sent as 64 x 4 KiB */
  pattern("grouped", 64, 1024, MPI_INT, 1, 1, 64, 1024, 16);
  return fy_finish();
}
