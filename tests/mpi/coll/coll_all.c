/* Every collective of MPI 4.1 ch. 6 on intracommunicators, in its blocking,
 * nonblocking and persistent forms (the persistent one started twice),
 * with small (eager) and large (rendezvous) messages, every root,
 * MPI_IN_PLACE where the standard allows it, a non-contiguous type
 * (MPI_DOUBLE_INT: 12 bytes of data in a 16-byte extent), the large-count
 * _c forms, an empty type against zero counts and an Allgatherv with
 * blocks of very different sizes. The algorithm settings
 * (FERRY_COLL_*) come from the test's environment, so the same program
 * checks each algorithm. */
#include "../common/fytest.h"

static int rank, size, mode;
static const char *mode_name[] = {"blocking", "nonblocking", "persistent"};

/* Run one collective in the current mode; the persistent form is started
 * twice, with `reset` run before each start. */
#define COLL(reset, B, I, ...)                                                          \
  do {                                                                                  \
    if (mode == 0) {                                                                    \
      reset;                                                                            \
      CHECK_OK(MPI_##B(__VA_ARGS__));                                                   \
    } else if (mode == 1) {                                                             \
      MPI_Request r_;                                                                   \
      reset;                                                                            \
      CHECK_OK(MPI_##I(__VA_ARGS__, &r_));                                              \
      CHECK_OK(MPI_Wait(&r_, MPI_STATUS_IGNORE));                                       \
      CHECK(r_ == MPI_REQUEST_NULL, "request not freed");                              \
    } else {                                                                            \
      MPI_Request r_;                                                                   \
      CHECK_OK(MPI_##B##_init(__VA_ARGS__, MPI_INFO_NULL, &r_));                        \
      for (int k_ = 0; k_ < 2; k_++) {                                                  \
        if (k_) checks_##B();                                                           \
        reset;                                                                          \
        CHECK_OK(MPI_Start(&r_));                                                       \
        CHECK_OK(MPI_Wait(&r_, MPI_STATUS_IGNORE));                                     \
      }                                                                                 \
      CHECK_OK(MPI_Request_free(&r_));                                                  \
    }                                                                                   \
  } while (0)

static int val(int r, long i) { return r * 100003 + (int)(i % 100000) * 7 + 1; }

static int *A, *B; /* scratch buffers big enough for every test */
static long N;     /* elements per process */
static int root;

#define FAIL_AT(what, i, got, want) \
  CHECK(0, "%s %s n=%ld root=%d: [%ld] = %d, expected %d", what, mode_name[mode], N, root, (long)(i), (int)(got), (int)(want))

/* Each check_* verifies the result of the collective of the same name; the
 * persistent COLL form runs it between its two starts. */
static void checks_Bcast(void) {
  for (long i = 0; i < N; i++)
    if (A[i] != val(root, i)) { FAIL_AT("bcast", i, A[i], val(root, i)); return; }
}

static void test_bcast(void) {
  COLL({ for (long i = 0; i < N; i++) A[i] = rank == root ? val(root, i) : -1; },
       Bcast, Ibcast, A, (int)N, MPI_INT, root, MPI_COMM_WORLD);
  checks_Bcast();
}

static int in_place;
static void checks_Reduce(void) {
  if (rank != root) return;
  for (long i = 0; i < N; i++) {
    long want = 0;
    for (int r = 0; r < size; r++) want += val(r, i);
    if (B[i] != (int)want) { FAIL_AT(in_place ? "reduce(in place)" : "reduce", i, B[i], want); return; }
  }
}
static void test_reduce(void) {
  in_place = 0;
  COLL({ for (long i = 0; i < N; i++) { A[i] = val(rank, i); B[i] = -1; } },
       Reduce, Ireduce, A, B, (int)N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  checks_Reduce();
  in_place = 1;
  COLL({ for (long i = 0; i < N; i++) B[i] = val(rank, i); },
       Reduce, Ireduce, rank == root ? MPI_IN_PLACE : B, B, (int)N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  checks_Reduce();
}

static void checks_Allreduce(void) {
  for (long i = 0; i < N; i++) {
    int want = 0;
    for (int r = 0; r < size; r++) if (val(r, i) > want) want = val(r, i);
    if (B[i] != want) { FAIL_AT("allreduce max", i, B[i], want); return; }
  }
}
static void test_allreduce(void) {
  COLL({ for (long i = 0; i < N; i++) { A[i] = val(rank, i); B[i] = -1; } },
       Allreduce, Iallreduce, A, B, (int)N, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  checks_Allreduce();
  COLL({ for (long i = 0; i < N; i++) B[i] = val(rank, i); },
       Allreduce, Iallreduce, MPI_IN_PLACE, B, (int)N, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  checks_Allreduce();
}

static void checks_Gather(void) {
  if (rank != root) return;
  for (int r = 0; r < size; r++)
    for (long i = 0; i < N; i++)
      if (B[r * N + i] != val(r, i)) { FAIL_AT("gather", r * N + i, B[r * N + i], val(r, i)); return; }
}
static void test_gather(void) {
  COLL({ for (long i = 0; i < N; i++) A[i] = val(rank, i); for (long i = 0; i < N * size; i++) B[i] = -1; },
       Gather, Igather, A, (int)N, MPI_INT, B, (int)N, MPI_INT, root, MPI_COMM_WORLD);
  checks_Gather();
  COLL({ for (long i = 0; i < N * size; i++) B[i] = -1; for (long i = 0; i < N; i++) B[rank * N + i] = val(rank, i); },
       Gather, Igather, rank == root ? MPI_IN_PLACE : B + rank * N, (int)N, MPI_INT, B, (int)N, MPI_INT, root, MPI_COMM_WORLD);
  checks_Gather();
}

/* Gatherv: rank r sends r+1 chunks... counts vary: r gets (N + r) elements,
 * placed in reverse order with gaps of 1. */
static int *cnts, *dsps;
static void vlayout(void) {
  long off = 0;
  for (int r = size - 1; r >= 0; r--) {
    cnts[r] = (int)(N + r);
    dsps[r] = (int)off;
    off += N + r + 1;
  }
}
static void checks_Gatherv(void) {
  if (rank != root) return;
  for (int r = 0; r < size; r++)
    for (long i = 0; i < cnts[r]; i++)
      if (B[dsps[r] + i] != val(r, i)) { FAIL_AT("gatherv", dsps[r] + i, B[dsps[r] + i], val(r, i)); return; }
}
static void test_gatherv(void) {
  vlayout();
  COLL({ for (long i = 0; i < N + rank; i++) A[i] = val(rank, i); for (long i = 0; i < (N + size + 1) * size; i++) B[i] = -1; },
       Gatherv, Igatherv, A, (int)N + rank, MPI_INT, B, cnts, dsps, MPI_INT, root, MPI_COMM_WORLD);
  checks_Gatherv();
}

static void checks_Scatter(void) {
  long off = in_place && rank == root ? rank * N : 0; /* in place: the root's block stays put */
  for (long i = 0; i < N; i++)
    if (B[off + i] != val(rank, i)) { FAIL_AT("scatter", i, B[off + i], val(rank, i)); return; }
}
static void test_scatter(void) {
  in_place = 0;
  COLL({ if (rank == root) for (int r = 0; r < size; r++) for (long i = 0; i < N; i++) A[r * N + i] = val(r, i);
         for (long i = 0; i < N; i++) B[i] = -1; },
       Scatter, Iscatter, A, (int)N, MPI_INT, B, (int)N, MPI_INT, root, MPI_COMM_WORLD);
  checks_Scatter();
  /* in place at the root: its block stays where it is */
  in_place = 1;
  COLL({ for (int r = 0; r < size; r++) for (long i = 0; i < N; i++) B[r * N + i] = rank == root ? val(r, i) : -1; },
       Scatter, Iscatter, B, (int)N, MPI_INT, rank == root ? MPI_IN_PLACE : B, (int)N, MPI_INT, root, MPI_COMM_WORLD);
  checks_Scatter();
}

static void checks_Scatterv(void) {
  for (long i = 0; i < cnts[rank]; i++)
    if (B[i] != val(rank, i)) { FAIL_AT("scatterv", i, B[i], val(rank, i)); return; }
}
static void test_scatterv(void) {
  vlayout();
  COLL({ if (rank == root) for (int r = 0; r < size; r++) for (long i = 0; i < cnts[r]; i++) A[dsps[r] + i] = val(r, i);
         for (long i = 0; i < N + size; i++) B[i] = -1; },
       Scatterv, Iscatterv, A, cnts, dsps, MPI_INT, B, cnts[rank], MPI_INT, root, MPI_COMM_WORLD);
  checks_Scatterv();
}

static void checks_Allgather(void) {
  for (int r = 0; r < size; r++)
    for (long i = 0; i < N; i++)
      if (B[r * N + i] != val(r, i)) { FAIL_AT("allgather", r * N + i, B[r * N + i], val(r, i)); return; }
}
static void test_allgather(void) {
  COLL({ for (long i = 0; i < N; i++) A[i] = val(rank, i); for (long i = 0; i < N * size; i++) B[i] = -1; },
       Allgather, Iallgather, A, (int)N, MPI_INT, B, (int)N, MPI_INT, MPI_COMM_WORLD);
  checks_Allgather();
  COLL({ for (long i = 0; i < N * size; i++) B[i] = -1; for (long i = 0; i < N; i++) B[rank * N + i] = val(rank, i); },
       Allgather, Iallgather, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, B, (int)N, MPI_INT, MPI_COMM_WORLD);
  checks_Allgather();
}

static void checks_Allgatherv(void) {
  for (int r = 0; r < size; r++)
    for (long i = 0; i < cnts[r]; i++)
      if (B[dsps[r] + i] != val(r, i)) { FAIL_AT("allgatherv", dsps[r] + i, B[dsps[r] + i], val(r, i)); return; }
}
static void test_allgatherv(void) {
  vlayout();
  COLL({ for (long i = 0; i < N + rank; i++) A[i] = val(rank, i); for (long i = 0; i < (N + size + 1) * size; i++) B[i] = -1; },
       Allgatherv, Iallgatherv, A, cnts[rank], MPI_INT, B, cnts, dsps, MPI_INT, MPI_COMM_WORLD);
  checks_Allgatherv();
  COLL({ for (long i = 0; i < (N + size + 1) * size; i++) B[i] = -1; for (long i = 0; i < cnts[rank]; i++) B[dsps[rank] + i] = val(rank, i); },
       Allgatherv, Iallgatherv, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, B, cnts, dsps, MPI_INT, MPI_COMM_WORLD);
  checks_Allgatherv();
}

/* alltoall: block for r from s holds val(s*size + r, i) */
static void checks_Alltoall(void) {
  for (int r = 0; r < size; r++)
    for (long i = 0; i < N; i++)
      if (B[r * N + i] != val(r * size + rank, i)) { FAIL_AT("alltoall", r * N + i, B[r * N + i], val(r * size + rank, i)); return; }
}
static void test_alltoall(void) {
  COLL({ for (int r = 0; r < size; r++) for (long i = 0; i < N; i++) { A[r * N + i] = val(rank * size + r, i); B[r * N + i] = -1; } },
       Alltoall, Ialltoall, A, (int)N, MPI_INT, B, (int)N, MPI_INT, MPI_COMM_WORLD);
  checks_Alltoall();
  COLL({ for (int r = 0; r < size; r++) for (long i = 0; i < N; i++) B[r * N + i] = val(rank * size + r, i); },
       Alltoall, Ialltoall, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, B, (int)N, MPI_INT, MPI_COMM_WORLD);
  checks_Alltoall();
}

/* alltoallv: rank s sends (s + r) % 3 + N elements to r */
static int *sc, *sd, *rc, *rd;
static void avlayout(void) {
  int so = 0, ro = 0;
  for (int r = 0; r < size; r++) {
    sc[r] = (int)N + (rank + r) % 3; sd[r] = so; so += sc[r] + 2;
    rc[r] = (int)N + (r + rank) % 3; rd[r] = ro; ro += rc[r] + 1;
  }
}
static void checks_Alltoallv(void) {
  for (int r = 0; r < size; r++)
    for (long i = 0; i < rc[r]; i++)
      if (B[rd[r] + i] != val(r * size + rank, i)) { FAIL_AT("alltoallv", rd[r] + i, B[rd[r] + i], val(r * size + rank, i)); return; }
}
static void test_alltoallv(void) {
  avlayout();
  COLL({ for (int r = 0; r < size; r++) for (long i = 0; i < sc[r]; i++) A[sd[r] + i] = val(rank * size + r, i);
         for (long i = 0; i < (N + 4) * size; i++) B[i] = -1; },
       Alltoallv, Ialltoallv, A, sc, sd, MPI_INT, B, rc, rd, MPI_INT, MPI_COMM_WORLD);
  checks_Alltoallv();
  COLL({ for (int r = 0; r < size; r++) for (long i = 0; i < rc[r]; i++) B[rd[r] + i] = val(rank * size + r, i); },
       Alltoallv, Ialltoallv, MPI_IN_PLACE, rc, rd, MPI_INT, B, rc, rd, MPI_INT, MPI_COMM_WORLD);
  checks_Alltoallv();
}

static MPI_Datatype *tys;
static void checks_Alltoallw(void) { checks_Alltoallv(); }
static void test_alltoallw(void) {
  avlayout();
  int *sdb = malloc(sizeof(int) * size), *rdb = malloc(sizeof(int) * size);
  for (int r = 0; r < size; r++) { sdb[r] = sd[r] * 4; rdb[r] = rd[r] * 4; tys[r] = MPI_INT; }
  COLL({ for (int r = 0; r < size; r++) for (long i = 0; i < sc[r]; i++) A[sd[r] + i] = val(rank * size + r, i);
         for (long i = 0; i < (N + 4) * size; i++) B[i] = -1; },
       Alltoallw, Ialltoallw, A, sc, sdb, tys, B, rc, rdb, tys, MPI_COMM_WORLD);
  checks_Alltoallw();
  free(sdb); free(rdb);
}

static void checks_Reduce_scatter_block(void) {
  for (long i = 0; i < N; i++) {
    int want = 0;
    for (int r = 0; r < size; r++) want += val(r, rank * N + i);
    if (B[i] != want) { FAIL_AT("reduce_scatter_block", i, B[i], want); return; }
  }
}
static void test_reduce_scatter_block(void) {
  COLL({ for (long i = 0; i < N * size; i++) A[i] = val(rank, i); for (long i = 0; i < N; i++) B[i] = -1; },
       Reduce_scatter_block, Ireduce_scatter_block, A, B, (int)N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  checks_Reduce_scatter_block();
  COLL({ for (long i = 0; i < N * size; i++) B[i] = val(rank, i); },
       Reduce_scatter_block, Ireduce_scatter_block, MPI_IN_PLACE, B, (int)N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  checks_Reduce_scatter_block();
}

static void checks_Reduce_scatter(void) {
  long off = 0;
  for (int r = 0; r < rank; r++) off += cnts[r];
  for (long i = 0; i < cnts[rank]; i++) {
    int want = 0;
    for (int r = 0; r < size; r++) want += val(r, off + i);
    if (B[i] != want) { FAIL_AT("reduce_scatter", i, B[i], want); return; }
  }
}
static void test_reduce_scatter(void) {
  vlayout();
  long tot = 0;
  for (int r = 0; r < size; r++) tot += cnts[r];
  COLL({ for (long i = 0; i < tot; i++) A[i] = val(rank, i); for (long i = 0; i < N + size; i++) B[i] = -1; },
       Reduce_scatter, Ireduce_scatter, A, B, cnts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  checks_Reduce_scatter();
  COLL({ for (long i = 0; i < tot; i++) B[i] = val(rank, i); },
       Reduce_scatter, Ireduce_scatter, MPI_IN_PLACE, B, cnts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  checks_Reduce_scatter();
}

static int excl;
static void checks_Scan(void) {
  for (long i = 0; i < N; i++) {
    int want = 0;
    for (int r = 0; r < rank + (excl ? 0 : 1); r++) want += val(r, i);
    if (excl && rank == 0) continue; /* undefined */
    if (B[i] != want) { FAIL_AT(excl ? "exscan" : "scan", i, B[i], want); return; }
  }
}
static void checks_Exscan(void) { checks_Scan(); }
static void test_scan(void) {
  excl = 0;
  COLL({ for (long i = 0; i < N; i++) { A[i] = val(rank, i); B[i] = -1; } },
       Scan, Iscan, A, B, (int)N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  checks_Scan();
  COLL({ for (long i = 0; i < N; i++) B[i] = val(rank, i); },
       Scan, Iscan, MPI_IN_PLACE, B, (int)N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  checks_Scan();
  excl = 1;
  COLL({ for (long i = 0; i < N; i++) { A[i] = val(rank, i); B[i] = -1; } },
       Exscan, Iexscan, A, B, (int)N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  checks_Exscan();
  COLL({ for (long i = 0; i < N; i++) B[i] = val(rank, i); },
       Exscan, Iexscan, MPI_IN_PLACE, B, (int)N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  checks_Exscan();
}

static void checks_Barrier(void) {}
static void test_barrier(void) {
  if (mode == 0) { CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); return; }
  MPI_Request r;
  if (mode == 1) {
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    return;
  }
  CHECK_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  for (int k = 0; k < 3; k++) {
    CHECK_OK(MPI_Start(&r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }
  CHECK_OK(MPI_Request_free(&r));
  checks_Barrier();
}

/* Non-contiguous data: MPI_DOUBLE_INT pairs through bcast, allgather,
 * alltoall and a MAXLOC allreduce. */
typedef struct { double v; int i; } di_t;
static void test_noncontig(void) {
  di_t *x = malloc(sizeof(di_t) * N * size), *y = malloc(sizeof(di_t) * N * size);
  for (long i = 0; i < N; i++) { x[i].v = rank == root ? i * 0.5 : -1; x[i].i = rank == root ? (int)i : -1; }
  CHECK_OK(MPI_Bcast(x, (int)N, MPI_DOUBLE_INT, root, MPI_COMM_WORLD));
  for (long i = 0; i < N; i++)
    if (x[i].v != i * 0.5 || x[i].i != i) { FAIL_AT("bcast double_int", i, x[i].i, i); break; }
  for (long i = 0; i < N; i++) { x[i].v = (double)((rank + i) % size); x[i].i = rank; }
  CHECK_OK(MPI_Allreduce(x, y, (int)N, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
  for (long i = 0; i < N; i++) {
    /* max value size-1 held by rank (size-1-i) mod size */
    int who = (int)(((size - 1 - i) % size + size) % size);
    if (y[i].v != size - 1 || y[i].i != who) { FAIL_AT("maxloc double_int", i, y[i].i, who); break; }
  }
  for (long i = 0; i < N; i++) { x[i].v = rank + i; x[i].i = rank; }
  CHECK_OK(MPI_Allgather(x, (int)N, MPI_DOUBLE_INT, y, (int)N, MPI_DOUBLE_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; r++)
    for (long i = 0; i < N; i++)
      if (y[r * N + i].v != r + i || y[r * N + i].i != r) { FAIL_AT("allgather double_int", r * N + i, y[r * N + i].i, r); r = size; break; }
  for (int r = 0; r < size; r++)
    for (long i = 0; i < N; i++) { x[r * N + i].v = rank * 1000 + r + i * 0.25; x[r * N + i].i = rank; }
  CHECK_OK(MPI_Alltoall(x, (int)N, MPI_DOUBLE_INT, y, (int)N, MPI_DOUBLE_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; r++)
    for (long i = 0; i < N; i++)
      if (y[r * N + i].v != r * 1000 + rank + i * 0.25 || y[r * N + i].i != r) { FAIL_AT("alltoall double_int", r * N + i, y[r * N + i].i, r); r = size; break; }
  /* Reduce_scatter_block of a pair type with MAXLOC (commutative: the
   * ring when FERRY_COLL_REDUCE_SCATTER=ring or the blocks are large) */
  for (int r = 0; r < size; r++)
    for (long i = 0; i < N; i++) { x[r * N + i].v = (double)((rank + r + i) % size); x[r * N + i].i = rank; }
  CHECK_OK(MPI_Reduce_scatter_block(x, y, (int)N, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
  for (long i = 0; i < N; i++) {
    int who = (int)((((size - 1 - rank - i) % size) + size) % size);
    if (y[i].v != size - 1 || y[i].i != who) { FAIL_AT("reduce_scatter_block maxloc", i, y[i].i, who); break; }
  }
  /* Gather and Scatter with every root (the binomial tree's subtrees wrap
   * past rank p-1 for some), non-contiguous on both sides, and with types
   * that differ between the root and the others: 2N ints against N pairs
   * of ints in 12-byte cells. */
  MPI_Datatype two, pair;
  CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &two));
  CHECK_OK(MPI_Type_create_resized(two, 0, 12, &pair));
  CHECK_OK(MPI_Type_commit(&pair));
  int *cells = malloc(12 * (size_t)N * size);
  for (int rt = 0; rt < size; rt++) {
    for (long i = 0; i < N; i++) { x[i].v = rank + i * 0.5; x[i].i = rank * 7; }
    CHECK_OK(MPI_Gather(x, (int)N, MPI_DOUBLE_INT, y, (int)N, MPI_DOUBLE_INT, rt, MPI_COMM_WORLD));
    for (int r = 0; rank == rt && r < size; r++)
      for (long i = 0; i < N; i++)
        if (y[r * N + i].v != r + i * 0.5 || y[r * N + i].i != r * 7) { FAIL_AT("gather double_int", r * N + i, y[r * N + i].i, r * 7); r = size; break; }
    for (long i = 0; i < N; i++) x[i].i = -1;
    CHECK_OK(MPI_Scatter(y, (int)N, MPI_DOUBLE_INT, x, (int)N, MPI_DOUBLE_INT, rt, MPI_COMM_WORLD));
    for (long i = 0; i < N; i++)
      if (x[i].v != rank + i * 0.5 || x[i].i != rank * 7) { FAIL_AT("scatter double_int", i, x[i].i, rank * 7); break; }
    for (long i = 0; i < 2 * N; i++) A[i] = val(rank, i);
    for (long i = 0; i < 3 * N * size; i++) cells[i] = -1;
    CHECK_OK(MPI_Gather(A, 2 * (int)N, MPI_INT, cells, (int)N, pair, rt, MPI_COMM_WORLD));
    for (int r = 0; rank == rt && r < size; r++)
      for (long i = 0; i < 2 * N; i++) {
        long at = (r * N + i / 2) * 3 + i % 2;
        if (cells[at] != val(r, i)) { FAIL_AT("gather ints into pairs", at, cells[at], val(r, i)); r = size; break; }
      }
    for (long i = 0; i < 2 * N; i++) A[i] = -1;
    CHECK_OK(MPI_Scatter(cells, (int)N, pair, A, 2 * (int)N, MPI_INT, rt, MPI_COMM_WORLD));
    for (long i = 0; i < 2 * N; i++)
      if (A[i] != val(rank, i)) { FAIL_AT("scatter pairs into ints", i, A[i], val(rank, i)); break; }
  }
  free(cells);
  CHECK_OK(MPI_Type_free(&pair));
  CHECK_OK(MPI_Type_free(&two));
  /* Scatter in place at the root: recvcount and recvtype are ignored there */
  for (int r = 0; r < size; r++) for (long i = 0; i < N; i++) A[r * N + i] = rank == root ? val(r, i) : -1;
  if (rank == root)
    CHECK_OK(MPI_Scatter(A, (int)N, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
  else
    CHECK_OK(MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, A, (int)N, MPI_INT, root, MPI_COMM_WORLD));
  for (long i = 0; i < N; i++)
    if (A[(rank == root ? rank * N : 0) + i] != val(rank, i)) { FAIL_AT("scatter in place, null types", i, A[i], val(rank, i)); break; }
  free(x); free(y);
}

/* Gatherv and Scatterv at every root with the root's blocks in 12-byte
 * cells holding 2 ints each (the others send or receive plain ints), rank
 * 1's block empty, and the root's own block in place. */
static void test_v_cells(void) {
  MPI_Datatype two, pair;
  CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &two));
  CHECK_OK(MPI_Type_create_resized(two, 0, 12, &pair));
  CHECK_OK(MPI_Type_commit(&pair));
  int *c = malloc(sizeof(int) * 2 * size), *d = c + size, tot = 0;
  for (int r = 0; r < size; r++) { c[r] = r == 1 ? 0 : (int)N + r; d[r] = tot + 1; tot += c[r] + 1; }
  int *cells = malloc(12 * (size_t)tot + 12);
  for (int rt = 0; rt < size; rt++) {
    for (int k = 0; k < 3 * tot; k++) cells[k] = -1;
    if (rank == rt) /* the root's own pairs in place */
      for (long i = 0; i < 2L * c[rt]; i++) cells[(d[rt] + i / 2) * 3 + i % 2] = val(rt, i);
    for (long i = 0; i < 2L * c[rank]; i++) A[i] = val(rank, i);
    if (rank == rt)
      CHECK_OK(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, cells, c, d, pair, rt, MPI_COMM_WORLD));
    else
      CHECK_OK(MPI_Gatherv(A, 2 * c[rank], MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, rt, MPI_COMM_WORLD));
    for (int r = 0; rank == rt && r < size; r++)
      for (long i = 0; i < 2L * c[r]; i++) {
        long at = (d[r] + i / 2) * 3 + i % 2;
        if (cells[at] != val(r, i)) { FAIL_AT("gatherv into pairs", at, cells[at], val(r, i)); r = size; break; }
      }
    for (long i = 0; i < 2L * c[rank] + 2; i++) A[i] = -1;
    if (rank == rt)
      CHECK_OK(MPI_Scatterv(cells, c, d, pair, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rt, MPI_COMM_WORLD));
    else
      CHECK_OK(MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, A, 2 * c[rank], MPI_INT, rt, MPI_COMM_WORLD));
    for (long i = 0; rank != rt && i < 2L * c[rank]; i++)
      if (A[i] != val(rank, i)) { FAIL_AT("scatterv pairs into ints", i, A[i], val(rank, i)); break; }
    if (rank != rt && A[2L * c[rank]] != -1) FAIL_AT("scatterv wrote past its block", 2L * c[rank], A[2L * c[rank]], -1);
  }
  free(cells); free(c);
  CHECK_OK(MPI_Type_free(&pair));
  CHECK_OK(MPI_Type_free(&two));
}

/* Counts that differ while the bytes agree: one item of an empty type
 * against zero MPI_INTs (MPICH's coll/alltoallw_zeros). A side that skips
 * by count would leave a message behind for a later collective. */
static void test_zero_size_type(void) {
  MPI_Datatype empty;
  CHECK_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
  CHECK_OK(MPI_Type_commit(&empty));
  int *one = malloc(sizeof(int) * size * 2), *zero = one + size;
  MPI_Datatype *et = malloc(sizeof(MPI_Datatype) * size * 2), *it = et + size;
  for (int r = 0; r < size; r++) { one[r] = 1; zero[r] = 0; et[r] = empty; it[r] = MPI_INT; }
  int *d0 = calloc((size_t)size, sizeof(int));
  for (int dir = 0; dir < 2; dir++) {
    if (dir == 0) {
      CHECK_OK(MPI_Alltoallw(A, one, d0, et, B, zero, d0, it, MPI_COMM_WORLD));
      CHECK_OK(MPI_Alltoallv(A, one, d0, empty, B, zero, d0, MPI_INT, MPI_COMM_WORLD));
      CHECK_OK(MPI_Gather(A, 1, empty, B, 0, MPI_INT, root, MPI_COMM_WORLD));
      CHECK_OK(MPI_Scatterv(A, zero, d0, MPI_INT, B, 1, empty, root, MPI_COMM_WORLD));
    } else {
      CHECK_OK(MPI_Alltoallw(A, zero, d0, it, B, one, d0, et, MPI_COMM_WORLD));
      CHECK_OK(MPI_Alltoallv(A, zero, d0, MPI_INT, B, one, d0, empty, MPI_COMM_WORLD));
      CHECK_OK(MPI_Gatherv(A, 0, MPI_INT, B, one, d0, empty, root, MPI_COMM_WORLD));
      CHECK_OK(MPI_Scatter(A, 1, empty, B, 0, MPI_INT, root, MPI_COMM_WORLD));
    }
  }
  /* nothing may be left over: a real exchange must see its own data */
  for (long i = 0; i < size; i++) A[i] = val(rank, i);
  CHECK_OK(MPI_Alltoall(A, 1, MPI_INT, B, 1, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; r++)
    if (B[r] != val(r, rank)) { FAIL_AT("alltoall after empty types", r, B[r], val(r, rank)); break; }
  CHECK_OK(MPI_Type_free(&empty));
  free(one); free(et); free(d0);
}

/* Allgatherv whose blocks differ from process to process, the largest
 * above FERRY_COLL_LARGE: every process must pick the same algorithm
 * (MPICH's coll/allgatherv4 hung when the ones with empty blocks chose
 * another). */
static void test_allgatherv_uneven(void) {
  enum { BIG = 80000 }; /* bytes, above the 64 KiB default */
  int *c = malloc(sizeof(int) * size * 2), *d = c + size, tot = 0;
  for (int r = 0; r < size; r++) { c[r] = r < (size + 1) / 2 ? BIG : 0; d[r] = tot; tot += c[r]; }
  char *in = malloc(BIG), *out = malloc((size_t)tot + 1);
  for (int i = 0; i < BIG; i++) in[i] = (char)(rank * 31 + i);
  for (int m = 0; m < 2; m++) {
    memset(out, 0, (size_t)tot + 1);
    if (m == 0) {
      CHECK_OK(MPI_Allgatherv(in, c[rank], MPI_CHAR, out, c, d, MPI_CHAR, MPI_COMM_WORLD));
    } else {
      MPI_Request q;
      CHECK_OK(MPI_Iallgatherv(in, c[rank], MPI_CHAR, out, c, d, MPI_CHAR, MPI_COMM_WORLD, &q));
      CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    }
    for (int r = 0; r < size; r++)
      for (int i = 0; i < c[r]; i++)
        if (out[d[r] + i] != (char)(r * 31 + i)) { FAIL_AT("uneven allgatherv", d[r] + i, out[d[r] + i], (char)(r * 31 + i)); r = size; break; }
  }
  free(c); free(in); free(out);
}

/* _c forms with MPI_Count arguments. */
static void test_large_count(void) {
  MPI_Count n = (MPI_Count)N;
  for (long i = 0; i < N; i++) A[i] = val(rank, i);
  CHECK_OK(MPI_Allreduce_c(A, B, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (long i = 0; i < N; i++) {
    int want = 0;
    for (int r = 0; r < size; r++) want += val(r, i);
    if (B[i] != want) { FAIL_AT("allreduce_c", i, B[i], want); break; }
  }
  MPI_Count *cc = malloc(sizeof(MPI_Count) * size);
  MPI_Aint *dd = malloc(sizeof(MPI_Aint) * size);
  for (int r = 0; r < size; r++) { cc[r] = n; dd[r] = (MPI_Aint)(r * N); }
  CHECK_OK(MPI_Allgatherv_c(A, n, MPI_INT, B, cc, dd, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; r++)
    for (long i = 0; i < N; i++)
      if (B[r * N + i] != val(r, i)) { FAIL_AT("allgatherv_c", r * N + i, B[r * N + i], val(r, i)); r = size; break; }
  MPI_Request q;
  CHECK_OK(MPI_Ibcast_c(A, n, MPI_INT, 0, MPI_COMM_WORLD, &q));
  CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
  for (long i = 0; i < N; i++)
    if (A[i] != val(0, i)) { FAIL_AT("ibcast_c", i, A[i], val(0, i)); break; }
  free(cc); free(dd);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("coll_all");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long sizes[] = {1, 7, 5000};
  long maxn = 5000 + 8;
  A = malloc(sizeof(int) * maxn * (size + 2) * 2);
  B = malloc(sizeof(int) * maxn * (size + 2) * 2);
  cnts = malloc(sizeof(int) * size * 6);
  dsps = cnts + size; sc = dsps + size; sd = sc + size; rc = sd + size; rd = rc + size;
  tys = malloc(sizeof(MPI_Datatype) * size);
  for (int si = 0; si < 3; si++) {
    N = sizes[si];
    for (mode = 0; mode < 3; mode++) {
      for (root = 0; root < size; root++) {
        test_bcast();
        test_reduce();
        test_gather();
        test_gatherv();
        test_scatter();
        test_scatterv();
        if (si < 2 && root != size - 1) break; /* every root only for the large size */
      }
      root = size - 1;
      test_allreduce();
      test_allgather();
      test_allgatherv();
      test_alltoall();
      test_alltoallv();
      test_alltoallw();
      test_reduce_scatter_block();
      test_reduce_scatter();
      test_scan();
      test_barrier();
    }
    root = size / 2;
    mode = 0;
    test_noncontig();
    test_v_cells();
    test_large_count();
    test_zero_size_type();
    test_allgatherv_uneven();
  }
  free(A); free(B); free(cnts); free(tys);
  return fy_finish();
}
