/* The shared-memory path of the blocking Barrier, Bcast, Reduce,
 * Allreduce, Allgather, Alltoall, Gather and Scatter (src/coll/shm.c), and its fallbacks: many calls in a row (each
 * rank's two data slots are reused, so a fast rank must wait for slow
 * readers), every root, MPI_IN_PLACE, a strided vector type (packed into
 * the segment, gaps left untouched), contiguous ints and longs, sizes on
 * both sides of FERRY_COLL_SHM_MAX (32 KiB; 4 KiB for Allreduce on two)
 * and in pieces up to FERRY_COLL_SHM_LARGE (Bcast, Reduce on 3+ ranks; the
 * "pieces" variant: Reduce on 2 in odd-sized pieces; "split": Reduce on 2
 * split between the ranks by cross-memory attach), a pair type and a user operation
 * (both declined: point-to-point), several communicators (split, dup,
 * freed and created again), a nonblocking broadcast in flight across a
 * shared-memory barrier, and barrier semantics checked through a shared
 * window, and ranks that run ahead of a sleeping one (a Bcast root, the
 * non-roots of a Reduce) through the ring of small slots. Results are
 * checked exactly (integer data). */
#include "../common/fytest.h"

static int rank, size;

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static int v(int r, int i, int it) { return (r + 1) * 1000 + i * 3 + it; }

/* Bcast, Reduce at every root and Allreduce of n ints on comm, plain,
 * in place and through a vector type (every other int). */
static void round_ints(MPI_Comm comm, int n, int it) {
  int me, p;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  int *a = malloc(sizeof(int) * 2 * (n + 1)), *b = malloc(sizeof(int) * 2 * (n + 1));
  MPI_Datatype vec;
  MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  for (int root = 0; root < p; root++) {
    for (int i = 0; i < n; i++) a[i] = me == root ? v(root, i, it) : -1;
    CHECK_OK(MPI_Bcast(a, n, MPI_INT, root, comm));
    for (int i = 0; i < n; i++) CHECK(a[i] == v(root, i, it), "bcast n=%d root %d [%d] = %d", n, root, i, a[i]);
    /* vector type: the gaps must stay as they were */
    for (int i = 0; i < 2 * n; i++) a[i] = (i % 2 == 0 && me == root) ? v(root, i / 2, it) : -7;
    CHECK_OK(MPI_Bcast(a, 1, vec, root, comm));
    for (int i = 0; i < 2 * n; i++)
      CHECK(a[i] == (i % 2 == 0 ? v(root, i / 2, it) : -7), "bcast vector n=%d root %d [%d] = %d", n, root, i, a[i]);
    /* reduce, then in place at the root */
    for (int i = 0; i < n; i++) { a[i] = v(me, i, it); b[i] = -1; }
    CHECK_OK(MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, comm));
    if (me == root)
      for (int i = 0; i < n; i++) {
        int want = 0;
        for (int r = 0; r < p; r++) want += v(r, i, it);
        CHECK(b[i] == want, "reduce n=%d root %d [%d] = %d, want %d", n, root, i, b[i], want);
      }
    for (int i = 0; i < n; i++) a[i] = v(me, i, it);
    CHECK_OK(MPI_Reduce(me == root ? MPI_IN_PLACE : a, me == root ? a : NULL, n, MPI_INT, MPI_MAX, root, comm));
    if (me == root)
      for (int i = 0; i < n; i++) CHECK(a[i] == v(p - 1, i, it), "reduce in place n=%d [%d] = %d", n, i, a[i]);
    /* reduce over the vector type into a vector-typed result */
    for (int i = 0; i < 2 * n; i++) { a[i] = i % 2 == 0 ? v(me, i / 2, it) : -3; b[i] = -5; }
    CHECK_OK(MPI_Reduce(a, b, 1, vec, MPI_MIN, root, comm));
    if (me == root)
      for (int i = 0; i < 2 * n; i++)
        CHECK(b[i] == (i % 2 == 0 ? v(0, i / 2, it) : -5), "reduce vector n=%d [%d] = %d", n, i, b[i]);
  }
  for (int i = 0; i < n; i++) { a[i] = v(me, i, it); b[i] = 0; }
  CHECK_OK(MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, comm));
  for (int i = 0; i < n; i++) {
    int want = 0;
    for (int r = 0; r < p; r++) want += v(r, i, it);
    CHECK(b[i] == want, "allreduce n=%d [%d] = %d, want %d", n, i, b[i], want);
  }
  CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INT, MPI_BXOR, comm));
  for (int i = 0; i < n; i++) {
    int want = 0;
    for (int r = 0; r < p; r++) want ^= v(r, i, it);
    CHECK(a[i] == want, "allreduce in place n=%d [%d] = %d, want %d", n, i, a[i], want);
  }
  for (int i = 0; i < 2 * n; i++) a[i] = i % 2 == 0 ? v(me, i / 2, it) : -9;
  CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, a, 1, vec, MPI_MAX, comm));
  for (int i = 0; i < 2 * n; i++)
    CHECK(a[i] == (i % 2 == 0 ? v(p - 1, i / 2, it) : -9), "allreduce vector in place n=%d [%d] = %d", n, i, a[i]);
  MPI_Type_free(&vec);
  free(a);
  free(b);
}

/* Allgather of n ints: plain, in place, and into a strided vector
 * receive type (gaps untouched) from contiguous sends. */
static void round_allgather(MPI_Comm comm, int n, int it) {
  int me, p;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  int *a = malloc(sizeof(int) * (n + 1)), *b = malloc(sizeof(int) * 2 * (size_t)p * (n + 1));
  for (int i = 0; i < n; i++) a[i] = v(me, i, it);
  for (int i = 0; i < p * n; i++) b[i] = -1;
  CHECK_OK(MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, comm));
  for (int r = 0; r < p; r++)
    for (int i = 0; i < n; i++) CHECK(b[r * n + i] == v(r, i, it), "allgather n=%d [%d][%d] = %d", n, r, i, b[r * n + i]);
  for (int i = 0; i < p * n; i++) b[i] = (i / n == me) ? v(me, i % n, it + 1) : -1;
  CHECK_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n, MPI_INT, comm));
  for (int r = 0; r < p; r++)
    for (int i = 0; i < n; i++)
      CHECK(b[r * n + i] == v(r, i, it + 1), "allgather in place n=%d [%d][%d] = %d", n, r, i, b[r * n + i]);
  MPI_Datatype vec, vecr;
  MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * n * sizeof(int)), &vecr);
  MPI_Type_commit(&vecr);
  for (int i = 0; i < 2 * p * n; i++) b[i] = -7;
  CHECK_OK(MPI_Allgather(a, n, MPI_INT, b, 1, vecr, comm));
  for (int r = 0; r < p; r++)
    for (int i = 0; i < 2 * n; i++)
      CHECK(b[r * 2 * n + i] == (i % 2 == 0 ? v(r, i / 2, it) : -7), "allgather vector n=%d [%d][%d] = %d", n, r, i,
            b[r * 2 * n + i]);
  MPI_Type_free(&vecr);
  MPI_Type_free(&vec);
  free(a);
  free(b);
}

/* Alltoall of n ints per block: plain, in place, and from a strided vector
 * send type into contiguous blocks. Block for rank r from rank q: w(q, r). */
static int w(int q, int r, int i, int it) { return q * 10000 + r * 100 + i + it; }
static void round_alltoall(MPI_Comm comm, int n, int it) {
  int me, p;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  size_t tot = (size_t)p * n;
  int *a = malloc(sizeof(int) * 2 * tot + 4), *b = malloc(sizeof(int) * tot + 4);
  for (int r = 0; r < p; r++)
    for (int i = 0; i < n; i++) a[r * n + i] = w(me, r, i, it);
  CHECK_OK(MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, comm));
  for (int q = 0; q < p; q++)
    for (int i = 0; i < n; i++) CHECK(b[q * n + i] == w(q, me, i, it), "alltoall n=%d [%d][%d] = %d", n, q, i, b[q * n + i]);
  CHECK_OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, MPI_INT, comm));
  for (int q = 0; q < p; q++)
    for (int i = 0; i < n; i++) CHECK(a[q * n + i] == w(q, me, i, it), "alltoall in place n=%d [%d][%d] = %d", n, q, i, a[q * n + i]);
  MPI_Datatype vec, vecr;
  MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * n * sizeof(int)), &vecr);
  MPI_Type_commit(&vecr);
  for (int r = 0; r < p; r++)
    for (int i = 0; i < 2 * n; i++) a[r * 2 * n + i] = i % 2 == 0 ? w(me, r, i / 2, it + 1) : -5;
  CHECK_OK(MPI_Alltoall(a, 1, vecr, b, n, MPI_INT, comm));
  for (int q = 0; q < p; q++)
    for (int i = 0; i < n; i++)
      CHECK(b[q * n + i] == w(q, me, i, it + 1), "alltoall vector n=%d [%d][%d] = %d", n, q, i, b[q * n + i]);
  MPI_Type_free(&vecr);
  MPI_Type_free(&vec);
  free(a);
  free(b);
}

/* Gather and Scatter of n ints at every root: plain, in place at the root,
 * and with a strided vector type on the root's side (gaps untouched);
 * then a fixed root many times in a row (the others run ahead through the
 * ring of small slots, their counts travelling with the blocks), and a
 * receive block smaller than the sent one (MPI_ERR_TRUNCATE where it is
 * received, on every path). */
static void round_rooted(MPI_Comm comm, int n, int it) {
  int me, p;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  size_t tot = (size_t)p * n;
  int *a = malloc(sizeof(int) * (n + 1)), *b = malloc(sizeof(int) * 2 * tot + 4);
  MPI_Datatype vec, vecr;
  MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * n * sizeof(int)), &vecr);
  MPI_Type_commit(&vecr);
  for (int root = 0; root < p; root++) {
    for (int i = 0; i < n; i++) a[i] = w(me, root, i, it);
    for (size_t i = 0; i < tot; i++) b[i] = -1;
    CHECK_OK(MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, root, comm));
    if (me == root)
      for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
          CHECK(b[q * n + i] == w(q, root, i, it), "gather n=%d root %d [%d][%d] = %d", n, root, q, i, b[q * n + i]);
    if (me == root) /* in place: the root's block is already there */
      for (int i = 0; i < n; i++) b[me * n + i] = w(me, root, i, it + 1);
    for (int i = 0; i < n; i++) a[i] = w(me, root, i, it + 1);
    CHECK_OK(MPI_Gather(me == root ? MPI_IN_PLACE : a, n, MPI_INT, b, n, MPI_INT, root, comm));
    if (me == root)
      for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
          CHECK(b[q * n + i] == w(q, root, i, it + 1), "gather in place n=%d [%d][%d] = %d", n, q, i, b[q * n + i]);
    for (size_t i = 0; i < 2 * tot; i++) b[i] = -7;
    CHECK_OK(MPI_Gather(a, n, MPI_INT, b, 1, vecr, root, comm));
    if (me == root)
      for (int q = 0; q < p; q++)
        for (int i = 0; i < 2 * n; i++)
          CHECK(b[q * 2 * n + i] == (i % 2 == 0 ? w(q, root, i / 2, it + 1) : -7), "gather vector n=%d [%d][%d] = %d",
                n, q, i, b[q * 2 * n + i]);
    /* scatter from the vector-typed blocks just gathered (root), then plain */
    for (int i = 0; i < n; i++) a[i] = -1;
    CHECK_OK(MPI_Scatter(b, 1, vecr, a, n, MPI_INT, root, comm));
    for (int i = 0; i < n; i++) CHECK(a[i] == w(me, root, i, it + 1), "scatter vector n=%d root %d [%d] = %d", n, root, i, a[i]);
    for (int q = 0; q < p; q++)
      for (int i = 0; i < n; i++) b[q * n + i] = me == root ? w(q, root, i, it + 2) : -1;
    for (int i = 0; i < n; i++) a[i] = -1;
    CHECK_OK(MPI_Scatter(b, n, MPI_INT, a, n, MPI_INT, root, comm));
    for (int i = 0; i < n; i++) CHECK(a[i] == w(me, root, i, it + 2), "scatter n=%d root %d [%d] = %d", n, root, i, a[i]);
    for (int i = 0; i < n; i++) a[i] = -1;
    CHECK_OK(MPI_Scatter(b, n, MPI_INT, me == root ? MPI_IN_PLACE : a, n, MPI_INT, root, comm));
    if (me != root)
      for (int i = 0; i < n; i++) CHECK(a[i] == w(me, root, i, it + 2), "scatter in place n=%d [%d] = %d", n, i, a[i]);
  }
  for (int k = 0; k < 70; k++) { /* a fixed root, back to back */
    int x = me * 1000 + k, y = -1;
    CHECK_OK(MPI_Gather(&x, 1, MPI_INT, b, 1, MPI_INT, 0, comm));
    if (me == 0)
      for (int q = 0; q < p; q++) CHECK(b[q] == q * 1000 + k, "gather loop %d [%d] = %d", k, q, b[q]);
    if (me == 0)
      for (int q = 0; q < p; q++) b[q] = q * 7 + k;
    CHECK_OK(MPI_Scatter(b, 1, MPI_INT, &y, 1, MPI_INT, 0, comm));
    CHECK(y == me * 7 + k, "scatter loop %d got %d", k, y);
  }
  if (n >= 2 && p > 1) { /* one int fewer received than sent */
    MPI_Comm e;
    MPI_Comm_dup(comm, &e);
    MPI_Comm_set_errhandler(e, MPI_ERRORS_RETURN);
    int root = p - 1, rc, cls;
    /* the others' blocks (the root's own is in place) ... */
    rc = MPI_Gather(me == root ? MPI_IN_PLACE : a, n, MPI_INT, b, n - 1, MPI_INT, root, e);
    MPI_Error_class(rc, &cls);
    CHECK(me == root ? cls == MPI_ERR_TRUNCATE : rc == MPI_SUCCESS, "gather truncated n=%d: rank %d class %d", n, me,
          cls);
    rc = MPI_Scatter(b, n, MPI_INT, me == root ? MPI_IN_PLACE : a, n - 1, MPI_INT, root, e);
    MPI_Error_class(rc, &cls);
    CHECK(me != root ? cls == MPI_ERR_TRUNCATE : rc == MPI_SUCCESS, "scatter truncated n=%d: rank %d class %d", n, me,
          cls);
    /* ... and the root's own: it still takes part, then reports it */
    rc = MPI_Gather(a, n, MPI_INT, b, n - 1, MPI_INT, root, e);
    MPI_Error_class(rc, &cls);
    CHECK(me == root ? cls == MPI_ERR_TRUNCATE : rc == MPI_SUCCESS, "gather own truncated n=%d: rank %d class %d", n,
          me, cls);
    rc = MPI_Scatter(b, n, MPI_INT, a, n - 1, MPI_INT, root, e);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "scatter own truncated n=%d: rank %d class %d", n, me, cls);
    /* nonblocking: the root's own block alone does not fit; it still
     * sends the others theirs, and its wait reports it */
    MPI_Request q;
    for (int i = 0; i < p * n; i++) b[i] = i;
    CHECK_OK(MPI_Iscatter(b, n, MPI_INT, a, me == root ? n - 1 : n, MPI_INT, root, e, &q));
    rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(me == root ? cls == MPI_ERR_TRUNCATE : rc == MPI_SUCCESS, "iscatter own truncated n=%d: rank %d class %d",
          n, me, cls);
    if (me != root)
      for (int i = 0; i < n; i++) CHECK(a[i] == me * n + i, "iscatter own truncated n=%d [%d] = %d", n, i, a[i]);
    CHECK_OK(MPI_Igather(a, me == root ? n : n - 1, MPI_INT, b, n - 1, MPI_INT, root, e, &q));
    rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(me == root ? cls == MPI_ERR_TRUNCATE : rc == MPI_SUCCESS, "igather own truncated n=%d: rank %d class %d",
          n, me, cls);
    CHECK_OK(MPI_Barrier(e)); /* nothing left behind on the communicator */
    MPI_Comm_free(&e);
  }
  MPI_Type_free(&vecr);
  MPI_Type_free(&vec);
  free(a);
  free(b);
}

/* Declined calls: a pair type (MAXLOC) and a user operation. */
static void declined(MPI_Comm comm) {
  int me, p;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  struct { double v; int i; } x[3], y[3];
  for (int k = 0; k < 3; k++) { x[k].v = (double)((me * 7 + k) % p); x[k].i = me; }
  CHECK_OK(MPI_Allreduce(x, y, 3, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
  for (int k = 0; k < 3; k++) {
    double best = -1; int who = -1;
    for (int r = 0; r < p; r++) {
      double w = (double)((r * 7 + k) % p);
      if (w > best) { best = w; who = r; }
    }
    CHECK(y[k].v == best && y[k].i == who, "maxloc [%d] = (%g,%d), want (%g,%d)", k, y[k].v, y[k].i, best, who);
  }
  MPI_Op op;
  MPI_Op_create(user_sum, 1, &op);
  int a[5], b[5];
  for (int k = 0; k < 5; k++) a[k] = me + k;
  CHECK_OK(MPI_Allreduce(a, b, 5, MPI_INT, op, comm));
  for (int k = 0; k < 5; k++) CHECK(b[k] == p * (p - 1) / 2 + p * k, "user op [%d] = %d", k, b[k]);
  MPI_Op_free(&op);
}

/* Barrier semantics: everyone writes its mark into a shared window before
 * the barrier and reads everyone's after it. */
static void barrier_marks(void) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int me, p;
  MPI_Comm_rank(node, &me);
  MPI_Comm_size(node, &p);
  int *mine;
  MPI_Win win;
  if (MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win) != MPI_SUCCESS) {
    MPI_Comm_free(&node);
    return;
  }
  int *all[64];
  for (int r = 0; r < p && r < 64; r++) {
    MPI_Aint sz;
    int du;
    MPI_Win_shared_query(win, r, &sz, &du, &all[r]);
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  for (int it = 1; it <= 200; it++) {
    __atomic_store_n(mine, it, __ATOMIC_RELEASE);
    CHECK_OK(MPI_Barrier(node));
    for (int r = 0; r < p && r < 64; r++) {
      int m = __atomic_load_n(all[r], __ATOMIC_ACQUIRE);
      CHECK(m >= it, "after barrier %d rank %d's mark is %d", it, r, m);
    }
    CHECK_OK(MPI_Barrier(node)); /* nobody writes it+1 before all have read */
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Comm_free(&node);
}

/* A Bcast root and a Reduce's other ranks run ahead of a reader that
 * sleeps (through the ring of small slots, further than its depth, then
 * into the full slots and back): every reader still sees each
 * operation's own data. */
static void run_ahead(void) {
  enum { N = 100 };
  static int big[3000];
  for (int phase = 0; phase < 2; phase++) {
    int slow = phase == 0 ? size - 1 : 0;
    if (rank == slow) usleep(20000);
    for (int it = 0; it < N; it++) {
      int n = it % 10 == 9 ? 3000 : 1 + it % 5; /* 12 KiB now and then: the full slots */
      for (int i = 0; i < n; i++) big[i] = rank == 0 ? it * 7 + i : -1;
      CHECK_OK(MPI_Bcast(big, n, MPI_INT, 0, MPI_COMM_WORLD));
      CHECK(big[0] == it * 7 && big[n - 1] == it * 7 + n - 1, "run-ahead bcast %d: %d %d", it, big[0], big[n - 1]);
      long x = rank * 100 + it, s = -1;
      CHECK_OK(MPI_Reduce(&x, &s, 1, MPI_LONG, MPI_SUM, slow, MPI_COMM_WORLD));
      if (rank == slow)
        CHECK(s == 100L * size * (size - 1) / 2 + (long)size * it, "run-ahead reduce %d: %ld", it, s);
      if (rank == slow && it == N / 2) usleep(5000);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("coll_shm");
  rank = fy_rank_;
  size = fy_size_;
  static const int ns[] = {1, 7, 500, 1024, 1025, 3000, 8192, 9000, 70000};
  for (int it = 0; it < 3; it++)
    for (int k = 0; k < 9; k++) {
      round_ints(MPI_COMM_WORLD, ns[k], it);
      round_allgather(MPI_COMM_WORLD, ns[k], it);
      if (ns[k] <= 9000) round_alltoall(MPI_COMM_WORLD, ns[k], it);
      if (ns[k] <= 3000) round_rooted(MPI_COMM_WORLD, ns[k], it);
    }
  declined(MPI_COMM_WORLD);
  run_ahead();
  /* many calls in a row, alternating roots, no other traffic */
  for (int it = 0; it < 300; it++) {
    int x = rank == it % size ? it : -1;
    CHECK_OK(MPI_Bcast(&x, 1, MPI_INT, it % size, MPI_COMM_WORLD));
    CHECK(x == it, "bcast loop %d got %d", it, x);
    long s = rank + it, t = 0;
    CHECK_OK(MPI_Allreduce(&s, &t, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(t == (long)size * (size - 1) / 2 + (long)size * it, "allreduce loop %d got %ld", it, t);
  }
  /* a nonblocking broadcast (rendezvous size) in flight across barriers */
  {
    int n = 1 << 16;
    int *big = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) big[i] = rank == 0 ? i : -1;
    MPI_Request r;
    CHECK_OK(MPI_Ibcast(big, n, MPI_INT, 0, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++) CHECK(big[i] == i, "ibcast [%d] = %d", i, big[i]);
    free(big);
  }
  /* several communicators, created and freed repeatedly */
  for (int rep = 0; rep < 4; rep++) {
    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    round_ints(half, 7, rep);
    round_allgather(half, 9, rep);
    round_alltoall(dup, 3, rep);
    round_rooted(half, 5, rep);
    round_ints(dup, 33, rep);
    round_ints(MPI_COMM_WORLD, 5, rep);
    CHECK_OK(MPI_Barrier(half));
    CHECK_OK(MPI_Barrier(dup));
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
  }
  barrier_marks();
  return fy_finish();
}
