/* One-sided communication with the standard's blocking synchronization
 * only, as a window that spans nodes runs it (src/rma/am.c: operations are
 * messages its target applies). Run on one node it checks the same results
 * through the node-local engine; with FERRY_NOLOCAL=1 (mpi.net.nolocal.
 * rma_nodes) or across hosts every window spans nodes.
 * - fence: puts with a strided target type, gets into a strided origin
 *   type; a strided origin put into, and got back from, contiguous target
 *   ints (a fabric write or read of a packed copy with native RMA), its
 *   type freed while the operation is pending; accumulates from every
 *   rank onto the same words (atomic per element), get_accumulate with
 *   MPI_NO_OP and MPI_REPLACE; zero-byte puts, gets and accumulates (no-ops);
 * - lock_all: an Rput into and an Rget from a target layout of two
 *   32 KiB blocks, waited before the flush and the unlock;
 * - lock: a fetch_and_op counter under shared locks, compare_and_swap
 *   under exclusive ones, lock_all with flush, flush_local, Rput/Rget;
 * - PSCW around a ring, MPI_Win_test until the exposure ends;
 * - a dynamic window with an attached region, and an address outside it
 *   (MPI_ERR_RMA_RANGE, from the origin's next flush when the window
 *   spans nodes);
 * - a target computing outside MPI serves lock, put, get, fetch_and_op
 *   and unlock (busy_target);
 * - accumulates with flush_local between them pile up toward a target
 *   outside MPI only to FERRY_RMA_AM_INFLIGHT (flood);
 * - epochs that must not mix are MPI_ERR_RMA_SYNC (sync_errors);
 * - spanning nodes only: MPI_Win_allocate_shared is MPI_ERR_RMA_SHARED. */
#include "rma_test.h"
#include <fcntl.h>

#define N 64

static int rank, size, spans;

static void fence_ops(int flavor) {
  void *base;
  MPI_Win w = make_win(flavor, (MPI_Aint)(4 * N * sizeof(int)), sizeof(int), &base);
  int *mem = base, right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Datatype every2;
  MPI_Type_vector(N, 1, 2, MPI_INT, &every2);
  MPI_Type_commit(&every2);
  int src[N], got[2 * N];
  for (int i = 0; i < N; i++) src[i] = 1000 * rank + i;
  CHECK_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w));
  /* my N ints into every second int of my right neighbour's first 2N */
  CHECK_OK(MPI_Put(src, N, MPI_INT, right, 0, 1, every2, w));
  /* every second int of src2 into N contiguous ints at 2N of my right neighbour */
  int src2[2 * N], got2[2 * N];
  for (int i = 0; i < 2 * N; i++) src2[i] = i % 2 ? -7 : 5000 * rank + i / 2;
  MPI_Datatype dup;
  CHECK_OK(MPI_Type_dup(every2, &dup));
  CHECK_OK(MPI_Put(src2, 1, dup, right, 2 * N, N, MPI_INT, w));
  CHECK_OK(MPI_Type_free(&dup));
  /* everyone adds rank+1 to word 3N of rank 0, 10 times */
  for (int k = 0; k < 10; k++) {
    int v = rank + 1;
    CHECK_OK(MPI_Accumulate(&v, 1, MPI_INT, 0, 3 * N, 1, MPI_INT, MPI_SUM, w));
  }
  /* operations that move no bytes (zero counts, a zero-size type) are
   * no-ops, accumulates included (MPICH's rma/badrma) */
  MPI_Datatype empty;
  MPI_Type_contiguous(0, MPI_INT, &empty);
  MPI_Type_commit(&empty);
  double dz = 1;
  CHECK_OK(MPI_Accumulate(&dz, 1, empty, right, 3 * N, 1, empty, MPI_SUM, w));
  CHECK_OK(MPI_Accumulate(&dz, 0, MPI_DOUBLE, right, 3 * N, 0, MPI_DOUBLE, MPI_SUM, w));
  CHECK_OK(MPI_Get_accumulate(&dz, 1, empty, &dz, 2, empty, right, 3 * N, 1, empty, MPI_SUM, w));
  CHECK_OK(MPI_Put(&dz, 0, MPI_DOUBLE, right, 3 * N, 1, empty, w));
  CHECK_OK(MPI_Get(&dz, 1, empty, right, 3 * N, 0, MPI_INT, w));
  MPI_Type_free(&empty);
  CHECK(dz == 1, "flavor %d: a zero-byte operation wrote its buffer", flavor);
  CHECK_OK(MPI_Win_fence(0, w));
  for (int i = 0; i < N; i++) {
    CHECK(mem[2 * i] == 1000 * left + i, "flavor %d: put: int %d = %d, expected %d", flavor, 2 * i, mem[2 * i],
          1000 * left + i);
    CHECK(mem[2 * i + 1] == 0, "flavor %d: put wrote the gap at %d", flavor, 2 * i + 1);
    CHECK(mem[2 * N + i] == 5000 * left + i, "flavor %d: strided origin put: int %d = %d, expected %d", flavor,
          2 * N + i, mem[2 * N + i], 5000 * left + i);
  }
  if (rank == 0)
    CHECK(mem[3 * N] == 10 * size * (size + 1) / 2, "flavor %d: accumulated %d, expected %d", flavor, mem[3 * N],
          10 * size * (size + 1) / 2);
  CHECK_OK(MPI_Win_fence(0, w));
  /* get the left neighbour's strided ints back into a strided buffer */
  for (int i = 0; i < 2 * N; i++) got[i] = -1;
  CHECK_OK(MPI_Get(got, 1, every2, left, 0, 1, every2, w));
  /* the left neighbour's contiguous ints at 2N back into every second int */
  for (int i = 0; i < 2 * N; i++) got2[i] = -1;
  CHECK_OK(MPI_Type_dup(every2, &dup));
  CHECK_OK(MPI_Get(got2, 1, dup, left, 2 * N, N, MPI_INT, w));
  CHECK_OK(MPI_Type_free(&dup));
  /* fetch word 3N of rank 0 without changing it, then replace word 3N+1 */
  int old = -1, mine = rank + 7, prev = -1;
  CHECK_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, &old, 1, MPI_INT, 0, 3 * N, 1, MPI_INT, MPI_NO_OP, w));
  CHECK_OK(MPI_Win_fence(0, w));
  int lleft = (left + size - 1) % size;
  for (int i = 0; i < N; i++) CHECK(got[2 * i] == 1000 * lleft + i, "flavor %d: get: int %d = %d", flavor, 2 * i, got[2 * i]);
  for (int i = 0; i < N; i++) CHECK(got[2 * i + 1] == -1, "flavor %d: get wrote the gap at %d", flavor, 2 * i + 1);
  for (int i = 0; i < N; i++) {
    CHECK(got2[2 * i] == 5000 * lleft + i, "flavor %d: strided origin get: int %d = %d", flavor, 2 * i, got2[2 * i]);
    CHECK(got2[2 * i + 1] == -1, "flavor %d: strided origin get wrote the gap at %d", flavor, 2 * i + 1);
  }
  CHECK(old == 10 * size * (size + 1) / 2, "flavor %d: get_accumulate(NO_OP) gave %d", flavor, old);
  if (rank == 0) CHECK_OK(MPI_Get_accumulate(&mine, 1, MPI_INT, &prev, 1, MPI_INT, 0, 3 * N + 1, 1, MPI_INT, MPI_REPLACE, w));
  CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
  if (rank == 0) {
    CHECK(prev == 0, "get_accumulate(REPLACE) fetched %d", prev);
    CHECK(mem[3 * N + 1] == 7, "get_accumulate(REPLACE) left %d", mem[3 * N + 1]);
  }
  MPI_Type_free(&every2);
  free_win(flavor, &w, base);
}

/* A strided target layout of blocks (one fabric operation per block with
 * native RMA where FERRY_RMA_NATIVE_BLOCK allows: rma_nodes_blocks): under lock_all, an Rput from a
 * contiguous buffer and an Rget into a strided one, each waited on its
 * own, then the data checked before the unlock. */
#define B 8192
static void block_ops(void) {
  int *mem;
  MPI_Win w;
  CHECK_OK(MPI_Win_allocate(4 * B * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w));
  for (int i = 0; i < 4 * B; i++) mem[i] = -1;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Datatype blocks; /* ints [0,B) and [2B,3B) */
  CHECK_OK(MPI_Type_vector(2, B, 2 * B, MPI_INT, &blocks));
  CHECK_OK(MPI_Type_commit(&blocks));
  int *src = malloc(2 * B * sizeof(int)), *got = malloc(4 * B * sizeof(int));
  for (int i = 0; i < 2 * B; i++) src[i] = 100000 * rank + i;
  for (int i = 0; i < 4 * B; i++) got[i] = -2;
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(MPI_Win_lock_all(0, w));
  MPI_Request r;
  CHECK_OK(MPI_Rput(src, 2 * B, MPI_INT, right, 0, 1, blocks, w, &r));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Win_flush(right, w));
  MPI_Barrier(MPI_COMM_WORLD);
  /* my left neighbour's blocks (now its left neighbour's src) into mine */
  CHECK_OK(MPI_Rget(got, 1, blocks, left, 0, 1, blocks, w, &r));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  int ll = (left + size - 1) % size;
  for (int i = 0; i < B; i++) {
    CHECK(got[i] == 100000 * ll + i, "blocks: Rget int %d = %d, expected %d", i, got[i], 100000 * ll + i);
    CHECK(got[2 * B + i] == 100000 * ll + B + i, "blocks: Rget int %d = %d", 2 * B + i, got[2 * B + i]);
    CHECK(got[B + i] == -2 && got[3 * B + i] == -2, "blocks: Rget wrote the gap at %d", B + i);
  }
  CHECK_OK(MPI_Win_unlock_all(w));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < B; i++) {
    CHECK(mem[i] == 100000 * left + i, "blocks: put int %d = %d", i, mem[i]);
    CHECK(mem[2 * B + i] == 100000 * left + B + i, "blocks: put int %d = %d", 2 * B + i, mem[2 * B + i]);
    CHECK(mem[B + i] == -1 && mem[3 * B + i] == -1, "blocks: put wrote the gap at %d", B + i);
  }
  free(src);
  free(got);
  MPI_Type_free(&blocks);
  CHECK_OK(MPI_Win_free(&w));
}

static void lock_ops(void) {
  int64_t *mem;
  MPI_Win w;
  CHECK_OK(MPI_Win_allocate(4 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w));
  CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w));
  memset(mem, 0, 4 * sizeof(int64_t));
  CHECK_OK(MPI_Win_unlock(rank, w));
  MPI_Barrier(MPI_COMM_WORLD);
  /* a counter at rank size-1: every rank takes 20 tickets, all distinct */
  int64_t one = 1, ticket, sum = 0, total = 0;
  int last = size - 1;
  for (int k = 0; k < 20; k++) {
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, last, 0, w));
    CHECK_OK(MPI_Fetch_and_op(&one, &ticket, MPI_INT64_T, last, 0, MPI_SUM, w));
    CHECK_OK(MPI_Win_unlock(last, w));
    sum += ticket;
  }
  MPI_Allreduce(&sum, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  int64_t n = 20 * (int64_t)size;
  CHECK(total == n * (n - 1) / 2, "fetch_and_op tickets sum to %lld, expected %lld", (long long)total,
        (long long)(n * (n - 1) / 2));
  /* compare_and_swap: each rank claims word 1 of rank 0 once, in turn */
  for (int turn = 0; turn < size; turn++) {
    if (turn == rank) {
      int64_t expect = turn, next = turn + 1, was = -1;
      CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
      CHECK_OK(MPI_Compare_and_swap(&next, &expect, &was, MPI_INT64_T, 0, 1, w));
      CHECK_OK(MPI_Win_unlock(0, w));
      CHECK(was == turn, "compare_and_swap found %lld, expected %d", (long long)was, turn);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  /* lock_all: Rput my rank into word 2 of my right neighbour, flush, Rget it back */
  int right = (rank + 1) % size;
  int64_t v = 100 + rank, back = -1;
  MPI_Request rq[2];
  CHECK_OK(MPI_Win_lock_all(0, w));
  CHECK_OK(MPI_Rput(&v, 1, MPI_INT64_T, right, 2, 1, MPI_INT64_T, w, &rq[0]));
  CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Win_flush(right, w));
  CHECK_OK(MPI_Rget(&back, 1, MPI_INT64_T, right, 2, 1, MPI_INT64_T, w, &rq[1]));
  CHECK_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
  CHECK(back == 100 + rank, "Rget after flush read %lld", (long long)back);
  back = -1;
  CHECK_OK(MPI_Get(&back, 1, MPI_INT64_T, right, 2, 1, MPI_INT64_T, w));
  CHECK_OK(MPI_Win_flush_local(right, w));
  CHECK(back == 100 + rank, "get after flush_local read %lld", (long long)back);
  CHECK_OK(MPI_Win_flush_all(w));
  CHECK_OK(MPI_Win_unlock_all(w));
  /* errors of the passive calls */
  MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Win_unlock(right, w), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Put(&v, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, w), MPI_ERR_RMA_SYNC);
  CHECK_OK(MPI_Win_fence(0, w));
  CHECK_CLASS(MPI_Rput(&v, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, w, &rq[0]), MPI_ERR_RMA_SYNC);
  CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
  CHECK_OK(MPI_Win_free(&w));
}

static void pscw(void) {
  int *mem;
  MPI_Win w;
  CHECK_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w));
  *mem = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Group from = group_of(&left, 1), to = group_of(&right, 1);
  for (int round = 0; round < 3; round++) {
    pscw_round(w, from, to, right, 10 * round + rank, 0, round == 1);
    CHECK(*mem == 10 * round + left, "round %d: PSCW put left %d, expected %d", round, *mem, 10 * round + left);
  }
  MPI_Group_free(&from);
  MPI_Group_free(&to);
  CHECK_OK(MPI_Win_free(&w));
}

static void dynamic(void) {
  MPI_Win w;
  CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
  MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
  int *region = calloc(N, sizeof(int));
  /* attached as two halves back to back: an access may span both */
  CHECK_OK(MPI_Win_attach(w, region, N / 2 * sizeof(int)));
  CHECK_OK(MPI_Win_attach(w, region + N / 2, (N - N / 2) * sizeof(int)));
  MPI_Aint mine, *addr = malloc(sizeof(MPI_Aint) * (size_t)size);
  MPI_Get_address(region, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
  int right = (rank + 1) % size, v = 50 + rank;
  CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w));
  CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, addr[right] + 5 * (MPI_Aint)sizeof(int), 1, MPI_INT, w));
  CHECK_OK(MPI_Win_unlock(right, w));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(region[5] == 50 + (rank + size - 1) % size, "dynamic window: put left %d", region[5]);
  int four[4] = {1 + rank, 2 + rank, 3 + rank, 4 + rank}, left = (rank + size - 1) % size;
  CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w));
  CHECK_OK(MPI_Put(four, 4, MPI_INT, right, addr[right] + (N / 2 - 2) * (MPI_Aint)sizeof(int), 4, MPI_INT, w));
  CHECK_OK(MPI_Win_unlock(right, w));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < 4; i++)
    CHECK(region[N / 2 - 2 + i] == i + 1 + left, "dynamic window: put across two regions [%d] = %d", i,
          region[N / 2 - 2 + i]);
  /* past the end of the region: refused by the origin (one node) or by
   * the target, reported at the next flush (spanning nodes) */
  CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w));
  int e = MPI_Put(&v, 1, MPI_INT, right, addr[right] + N * (MPI_Aint)sizeof(int), 1, MPI_INT, w);
  if (e == MPI_SUCCESS) e = MPI_Win_flush(right, w);
  int cls;
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_RMA_RANGE, "a put past the attached region gave class %d, expected MPI_ERR_RMA_RANGE", cls);
  CHECK_OK(MPI_Win_unlock(right, w));
  MPI_Barrier(MPI_COMM_WORLD);
  /* many regions (a linked list attaches one per element): 300 more, a
   * put into the last one, then all detached */
  enum { MANY = 300 };
  int *many = calloc(MANY, sizeof(int));
  for (int i = 0; i < MANY; i++) CHECK_OK(MPI_Win_attach(w, many + i, sizeof(int)));
  MPI_Get_address(many + MANY - 1, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
  CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w));
  CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, addr[right], 1, MPI_INT, w));
  CHECK_OK(MPI_Win_unlock(right, w));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(many[MANY - 1] == 50 + left, "dynamic window: put into region %d: %d", MANY, many[MANY - 1]);
  for (int i = 0; i < MANY; i++) CHECK_OK(MPI_Win_detach(w, many + i));
  free(many);
  CHECK_OK(MPI_Win_detach(w, region));
  CHECK_OK(MPI_Win_detach(w, region + N / 2));
  CHECK_OK(MPI_Win_free(&w));
  free(region);
  free(addr);
}

/* A target that computes outside MPI still serves its window: the origins
 * lock it, put, get, count themselves in with fetch_and_op and unlock
 * while it spins on its own memory, calling no MPI function, until every
 * origin's count is there. On one node the engine needs nothing from the
 * target; across nodes the agents take the operations in
 * (FERRY_RMA_AM_AGENT; in mode pef a doorbell thread for the peers on the
 * target's node). Not run where nothing would: mode none, the agent
 * setting off. */
/* The target reads its window while operations are applied to it: a
 * conflicting access in MPI's terms, made on purpose to watch progress
 * without an MPI call; kept out of ThreadSanitizer's view (the agent thread
 * applies them). */
__attribute__((noinline, no_sanitize_thread)) static int peek(volatile int *p) { return *p; }

static void busy_target(void) {
  const char *mode = getenv("FERRY_PROGRESS"), *agent = getenv("FERRY_RMA_AM_AGENT");
  int t = 0;
  if (size < 2 || (spans && ((mode && !strcmp(mode, "none")) ||
                             (agent && (!strcmp(agent, "0") || !strcmp(agent, "false") || !strcmp(agent, "no") ||
                                        !strcmp(agent, "off")))))) {
    if (rank == 0) printf("busy_target: not run (%d ranks, spans %d, mode %s)\n", size, spans, mode ? mode : "pef");
    return;
  }
  void *base;
  MPI_Win w = make_win(1, (MPI_Aint)((size + 2) * sizeof(int)), sizeof(int), &base);
  volatile int *mem = base;
  if (rank == t) mem[size + 1] = 4242;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == t) {
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double x = 1;
    for (;;) {
      if (peek(&mem[0]) >= size - 1) break;
      clock_gettime(CLOCK_MONOTONIC, &now);
      if (now.tv_sec - t0.tv_sec > 30) break;
      for (int k = 0; k < 10000; k++) x = x * 1.0000001 + 1e-9; /* the computation */
    }
    int served = peek(&mem[0]);
    CHECK(served == size - 1, "busy target %d: %d of %d origins served in 30 s without an MPI call", t, served,
          size - 1);
    if (x < 0) printf("%g\n", x);
  } else {
    int one = 1, ticket = -1, back = -1, v = 100 + rank;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, t, 1 + rank, 1, MPI_INT, w));
    CHECK_OK(MPI_Get(&back, 1, MPI_INT, t, size + 1, 1, MPI_INT, w));
    CHECK_OK(MPI_Fetch_and_op(&one, &ticket, MPI_INT, t, 0, MPI_SUM, w));
    CHECK_OK(MPI_Win_unlock(t, w));
    CHECK(back == 4242, "busy target: got %d, expected 4242", back);
    CHECK(ticket >= 0 && ticket < size - 1, "busy target: ticket %d", ticket);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == t)
    for (int r = 0; r < size; r++)
      if (r != t) CHECK(mem[1 + r] == 100 + r, "busy target: word %d = %d", 1 + r, mem[1 + r]);
  free_win(1, &w, base);
}

/* Accumulates of 256 KiB, each followed by MPI_Win_flush_local (which
 * returns once the data is packed into the message) and the buffer then
 * changed, from every rank but 0 to rank 0: the sums are right. Under
 * FYTEST_THROTTLE (mpi.net.nolocal.rma_nodes_inflight: a limit of 1 MiB,
 * FERRY_RMA_AM_INFLIGHT, and no agent serving the target,
 * FERRY_RMA_AM_AGENT=0) rank 0 computes outside MPI until rank 1 is about
 * to issue its fourth operation, and 300 ms more: rank 1 can hold only
 * three messages' data, so it must wait in the call (MPI_T counter
 * ferry_rma_am_throttled) until rank 0 enters MPI; without the limit it
 * held them all. */
static void flood(void) {
  enum { FN = 64 * 1024, FOPS = 24 };
  int throttle = spans && size >= 2 && getenv("FYTEST_THROTTLE");
  void *base;
  MPI_Win w = make_win(1, (MPI_Aint)(FN * sizeof(int)), sizeof(int), &base);
  char path[64] = "/tmp/fy_flood_XXXXXX";
  int fd = -1, marks = 0;
  if (throttle) {
    if (rank == 0) CHECK((fd = mkstemp(path)) >= 0, "flood: mkstemp");
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 1) CHECK((fd = open(path, O_WRONLY)) >= 0, "flood: open %s", path);
  }
  fy_counter_t throttled;
  int counting = 0;
  if (throttle && rank == 1) {
    int prov;
    CHECK_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    counting = fy_counter_start(&throttled, "ferry_rma_am_throttled");
    CHECK(counting, "flood: no MPI_T counter ferry_rma_am_throttled");
  }
  if (rank != 0) CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
  MPI_Barrier(MPI_COMM_WORLD); /* (rank 0 grants the locks here, before it leaves MPI) */
  if (rank == 0) {
    if (throttle) {
      double t0 = MPI_Wtime();
      while (marks < 3 && MPI_Wtime() - t0 < 30)
        if (pread(fd, &marks, sizeof marks, 0) != (ssize_t)sizeof marks) marks = 0;
      compute_us(300000);
      CHECK(marks >= 3, "flood: rank 1 did not reach its fourth operation in 30 s");
    }
  } else {
    int *buf = malloc(FN * sizeof *buf);
    for (int i = 0; i < FOPS; i++) {
      for (int k = 0; k < FN; k++) buf[k] = rank * 100 + i;
      if (fd >= 0) CHECK(pwrite(fd, &i, sizeof i, 0) == (ssize_t)sizeof i, "flood: pwrite");
      CHECK_OK(MPI_Accumulate(buf, FN, MPI_INT, 0, 0, FN, MPI_INT, MPI_SUM, w));
      CHECK_OK(MPI_Win_flush_local(0, w));
    }
    CHECK_OK(MPI_Win_unlock(0, w));
    free(buf);
  }
  if (counting) {
    unsigned long long waited = fy_counter_end(&throttled);
    CHECK(waited >= 1, "flood: no operation waited for FERRY_RMA_AM_INFLIGHT");
    printf("flood: %llu operations waited for FERRY_RMA_AM_INFLIGHT\n", waited);
  }
  if (throttle && rank == 1) CHECK_OK(MPI_T_finalize());
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int want = 0;
    for (int r = 1; r < size; r++) want += FOPS * r * 100 + FOPS * (FOPS - 1) / 2;
    int bad = 0;
    for (int k = 0; k < FN; k++) bad += ((int *)base)[k] != want;
    CHECK(!bad, "flood: %d of %d words differ from %d (word 0: %d)", bad, FN, want, ((int *)base)[0]);
  }
  if (fd >= 0) close(fd);
  if (throttle && rank == 0) unlink(path);
  free_win(1, &w, base);
}

/* Epochs that must not mix, refused with MPI_ERR_RMA_SYNC (MPICH's
 * errors/rma/win_sync_lock_at and win_sync_lock_fence): a lock in a start
 * epoch; an operation after a lock and unlock ended the epoch of a fence
 * that had none; across nodes, a lock or start after a fence epoch's
 * operations, which only the next fence completes. */
static void sync_errors(void) {
  void *base;
  MPI_Win w = make_win(1, (MPI_Aint)(4 * sizeof(int)), sizeof(int), &base);
  MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
  MPI_Group g;
  MPI_Comm_group(MPI_COMM_WORLD, &g);
  int v = 0, right = (rank + 1) % size;
  CHECK_OK(MPI_Win_post(g, 0, w));
  CHECK_OK(MPI_Win_start(g, 0, w));
  CHECK_OK(MPI_Get(&v, 1, MPI_INT, right, 0, 1, MPI_INT, w));
  CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, w), MPI_ERR_RMA_SYNC);
  CHECK_OK(MPI_Win_complete(w));
  CHECK_OK(MPI_Win_wait(w));
  CHECK_OK(MPI_Win_fence(0, w));
  CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w));
  CHECK_OK(MPI_Get(&v, 1, MPI_INT, right, 0, 1, MPI_INT, w));
  CHECK_OK(MPI_Win_unlock(right, w));
  CHECK_CLASS(MPI_Get(&v, 1, MPI_INT, right, 0, 1, MPI_INT, w), MPI_ERR_RMA_SYNC);
  CHECK_OK(MPI_Win_fence(0, w));
  CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, w));
  if (spans) { /* (on one node the put is done as it is issued: the lock is let through) */
    CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_start(g, 0, w), MPI_ERR_RMA_SYNC);
  }
  CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
  MPI_Group_free(&g);
  free_win(1, &w, base);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("rma_nodes");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  int nsize;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &nsize);
  MPI_Comm_free(&node);
  spans = nsize < size;
  for (int flavor = 0; flavor <= 3; flavor++)
    if (flavor != 2 || !spans) fence_ops(flavor);
  lock_ops();
  block_ops();
  pscw();
  dynamic();
  busy_target();
  flood();
  sync_errors();
  if (spans) {
    void *b;
    MPI_Win w;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w), MPI_ERR_RMA_SHARED);
  }
  return fy_finish();
}
