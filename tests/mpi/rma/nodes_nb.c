/* The nonblocking synchronization calls (MPIX_Win_i*) as a window that
 * spans nodes runs them (src/rma/am.c: what an epoch issues before its
 * grant, post or fence waits at the origin behind a gate). Run on one node
 * it checks the same results through the node-local engine; with
 * FERRY_NOLOCAL=1 (mpi.net.nolocal.rma_nodes_nb) or across hosts every
 * window spans nodes.
 * - an exclusive ilock contended by every rank: operations issued before
 *   the grant, a fetch_and_op counter and a put, closed by iunlock;
 * - ilock_all with Rput/Rget, iflush, iflush_local, then unlock_all and
 *   iunlock_all: every target's lock is released (an exclusive lock of it
 *   is granted next);
 * - three ifence epochs issued back to back, waited at the end: a put
 *   issued after an ifence lands after the target's own store before its
 *   fence, never before;
 * - ipost/istart/icomplete/iwait around a ring, some targets posting late
 *   while their origins' puts are already issued;
 * - a dynamic window's range error, carried by an iflush's request;
 * - blocking calls after nonblocking ones not waited for yet
 *   (MPI_Win_unlock_all after iflush, MPI_Win_fence after MPIX_Win_ifence,
 *   MPI_Win_wait after icomplete, MPI_Win_start after ipost, MPI_Win_test). */
#include "rma_test.h"

#define K 5

static int rank, size;

static void nap_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

static void locks(void) {
  int64_t *mem;
  MPI_Win w;
  CHECK_OK(MPI_Win_allocate((MPI_Aint)((size + 1) * sizeof(int64_t)), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &mem, &w));
  for (int i = 0; i <= size; i++) mem[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  /* every rank locks every rank exclusively K times; each epoch adds 1 to
   * word 0 and stores its ticket into its own word */
  for (int k = 0; k < K; k++)
    for (int i = 0; i < size; i++) {
      int t = (rank + i) % size;
      MPI_Request rq[2];
      int64_t one = 1, ticket = -1;
      CHECK_OK(MPIX_Win_ilock(MPI_LOCK_EXCLUSIVE, t, 0, w, &rq[0]));
      CHECK_OK(MPI_Fetch_and_op(&one, &ticket, MPI_INT64_T, t, 0, MPI_SUM, w));
      CHECK_OK(MPIX_Win_iflush(t, w, &rq[1]));
      CHECK_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE)); /* the grant and the flush */
      CHECK(ticket >= 0 && ticket < K * size, "ilock: ticket %ld from rank %d", (long)ticket, t);
      int64_t mine = 1000 * k + rank;
      CHECK_OK(MPI_Put(&mine, 1, MPI_INT64_T, t, 1 + rank, 1, MPI_INT64_T, w));
      CHECK_OK(MPIX_Win_iunlock(t, w, &rq[0]));
      CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(mem[0] == (int64_t)K * size, "ilock: counter %ld, expected %d", (long)mem[0], K * size);
  for (int r = 0; r < size; r++)
    CHECK(mem[1 + r] == 1000 * (K - 1) + r, "ilock: word %d = %ld", 1 + r, (long)mem[1 + r]);
  /* ops issued before the grant, then the epoch closed at once: a
   * nonblocking lock of each rank, shared, all open together */
  MPI_Request rq[3 * 64];
  int nr = 0;
  int64_t got[64];
  for (int t = 0; t < size && t < 64; t++) {
    CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, t, 0, w, &rq[nr++]));
    CHECK_OK(MPI_Get(&got[t], 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, w));
    CHECK_OK(MPIX_Win_iunlock(t, w, &rq[nr++]));
  }
  CHECK_OK(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
  for (int t = 0; t < size && t < 64; t++)
    CHECK(got[t] == (int64_t)K * size, "ilock shared: rank %d's counter %ld", t, (long)got[t]);
  MPI_Barrier(MPI_COMM_WORLD);
  /* lock_all: Rput/Rget, iflush_local, iflush, then a blocking unlock_all
   * behind the nonblocking calls */
  int right = (rank + 1) % size;
  int64_t v = 77 + rank, back = -1;
  MPI_Request r1, r2, r3, r4, r5;
  CHECK_OK(MPIX_Win_ilock_all(0, w, &r1));
  CHECK_OK(MPI_Rput(&v, 1, MPI_INT64_T, right, 1 + rank, 1, MPI_INT64_T, w, &r2));
  CHECK_OK(MPIX_Win_iflush(right, w, &r3));
  CHECK_OK(MPI_Rget(&back, 1, MPI_INT64_T, right, 1 + rank, 1, MPI_INT64_T, w, &r4));
  CHECK_OK(MPIX_Win_iflush_local_all(w, &r5));
  CHECK_OK(MPI_Wait(&r5, MPI_STATUS_IGNORE));
  CHECK(back == v, "lock_all: Rget after iflush read %ld, expected %ld", (long)back, (long)v);
  CHECK_OK(MPI_Win_unlock_all(w));
  MPI_Request all[4] = {r1, r2, r3, r4};
  CHECK_OK(MPI_Waitall(4, all, MPI_STATUSES_IGNORE));
  /* the unlock_all released every target's shared lock: an exclusive lock
   * of the right neighbour is granted (a lock left held hangs here); the
   * same with iunlock_all */
  for (int round = 0; round < 2; round++) {
    int64_t seen = -1;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w));
    CHECK_OK(MPI_Get(&seen, 1, MPI_INT64_T, right, 1 + rank, 1, MPI_INT64_T, w));
    CHECK_OK(MPI_Win_unlock(right, w));
    CHECK(seen == v, "lock_all round %d: word %d of rank %d = %ld after the unlock_all, expected %ld", round,
          1 + rank, right, (long)seen, (long)v);
    if (round) break;
    v += 100;
    CHECK_OK(MPIX_Win_ilock_all(0, w, &r1));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT64_T, right, 1 + rank, 1, MPI_INT64_T, w));
    CHECK_OK(MPIX_Win_iunlock_all(w, &r2));
    CHECK_OK(MPI_Wait(&r2, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&r1, MPI_STATUS_IGNORE));
  }
  CHECK_OK(MPI_Win_free(&w));
}

static void fences(void) {
  int *mem;
  MPI_Win w;
  CHECK_OK(MPI_Win_allocate((MPI_Aint)(3 * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w));
  mem[0] = mem[1] = mem[2] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request rq[4];
  /* epoch 1: each rank stores into its own word 0 before its fence; a late
   * rank makes the others' epoch-2 puts wait for its fence */
  CHECK_OK(MPIX_Win_ifence(MPI_MODE_NOPRECEDE, w, &rq[0]));
  if (rank == 0) nap_ms(30);
  mem[0] = -5; /* the target's own store, before its closing fence */
  CHECK_OK(MPIX_Win_ifence(0, w, &rq[1]));
  /* epoch 2: must land after the store above */
  int v = 100 + rank;
  CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, w));
  int one = 1;
  CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, w));
  CHECK_OK(MPIX_Win_ifence(0, w, &rq[2]));
  /* epoch 3: read back what epoch 2 wrote */
  int got = -1, cnt = -1;
  CHECK_OK(MPI_Get(&got, 1, MPI_INT, left, 0, 1, MPI_INT, w));
  CHECK_OK(MPI_Get(&cnt, 1, MPI_INT, 0, 1, 1, MPI_INT, w));
  CHECK_OK(MPIX_Win_ifence(MPI_MODE_NOSUCCEED, w, &rq[3]));
  CHECK_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
  CHECK(mem[0] == 100 + left, "ifence: word 0 = %d, expected %d (the put of the next epoch landed first)", mem[0],
        100 + left);
  CHECK(got == 100 + (left + size - 1) % size, "ifence: got %d", got);
  CHECK(cnt == size, "ifence: accumulated %d, expected %d", cnt, size);
  /* a blocking fence right after an ifence not waited for */
  CHECK_OK(MPIX_Win_ifence(MPI_MODE_NOPRECEDE, w, &rq[0]));
  CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 2, 1, MPI_INT, w));
  CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
  CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
  CHECK(mem[2] == 100 + left, "fence after ifence: word 2 = %d", mem[2]);
  CHECK_OK(MPI_Win_free(&w));
}

static void pscw(void) {
  int *mem;
  MPI_Win w;
  CHECK_OK(MPI_Win_allocate((MPI_Aint)(2 * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w));
  mem[0] = mem[1] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Group world, gr, gl;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &right, &gr);
  MPI_Group_incl(world, 1, &left, &gl);
  for (int round = 0; round < 3; round++) {
    MPI_Request rq[4];
    /* (post before start, as a portable ring must: a start may wait for
     * its post) the left neighbour's put waits for this post, late in
     * round 1 */
    nap_ms(round == 1 && rank % 2 ? 20 : 1);
    CHECK_OK(MPIX_Win_ipost(gl, 0, w, &rq[0]));
    CHECK_OK(MPIX_Win_istart(gr, 0, w, &rq[1]));
    int v = 10 * round + rank;
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, w));
    CHECK_OK(MPIX_Win_icomplete(w, &rq[2]));
    CHECK_OK(MPIX_Win_iwait(w, &rq[3]));
    CHECK_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    CHECK(mem[0] == 10 * round + left, "pscw round %d: word 0 = %d, expected %d", round, mem[0], 10 * round + left);
  }
  /* blocking calls behind nonblocking ones not waited for */
  MPI_Request rq[3];
  CHECK_OK(MPIX_Win_ipost(gl, 0, w, &rq[0]));
  CHECK_OK(MPIX_Win_istart(gr, 0, w, &rq[1]));
  int v = 500 + rank;
  CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, w));
  CHECK_OK(MPIX_Win_icomplete(w, &rq[2]));
  CHECK_OK(MPI_Win_wait(w));
  CHECK(mem[0] == 500 + left, "pscw mixed: word 0 = %d", mem[0]);
  CHECK_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
  CHECK_OK(MPIX_Win_ipost(gl, 0, w, &rq[0]));
  CHECK_OK(MPI_Win_start(gr, 0, w));
  v = 600 + rank;
  CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, w));
  CHECK_OK(MPI_Win_complete(w));
  int flag = 0;
  while (!flag) CHECK_OK(MPI_Win_test(w, &flag));
  CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
  CHECK(mem[1] == 600 + left, "pscw mixed: word 1 = %d", mem[1]);
  MPI_Group_free(&gr);
  MPI_Group_free(&gl);
  MPI_Group_free(&world);
  CHECK_OK(MPI_Win_free(&w));
}

/* A dynamic window: an iflush's request carries the target's range error
 * (spanning nodes; on one node the put itself is refused). */
static void dynamic(void) {
  MPI_Win w;
  CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
  MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* (MPI_Wait's) */
  int region[8] = {0};
  CHECK_OK(MPI_Win_attach(w, region, sizeof region));
  MPI_Aint mine, *addr = malloc(sizeof(MPI_Aint) * (size_t)size);
  MPI_Get_address(region, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
  int right = (rank + 1) % size, v = 9;
  MPI_Request rq[3];
  CHECK_OK(MPIX_Win_ilock(MPI_LOCK_SHARED, right, 0, w, &rq[0]));
  int e = MPI_Put(&v, 1, MPI_INT, right, addr[right] + (MPI_Aint)sizeof region, 1, MPI_INT, w);
  if (e == MPI_SUCCESS) {
    CHECK_OK(MPIX_Win_iflush(right, w, &rq[1]));
    CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    e = MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
  } else {
    CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
  }
  int cls;
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_RMA_RANGE, "a put past the attached region gave class %d, expected MPI_ERR_RMA_RANGE", cls);
  CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, addr[right], 1, MPI_INT, w));
  CHECK_OK(MPIX_Win_iunlock(right, w, &rq[2]));
  CHECK_OK(MPI_Wait(&rq[2], MPI_STATUS_IGNORE)); /* the error was reported once */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(region[0] == 9, "dynamic window: word 0 = %d", region[0]);
  CHECK_OK(MPI_Win_detach(w, region));
  CHECK_OK(MPI_Win_free(&w));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  free(addr);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("rma_nodes_nb");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  locks();
  fences();
  pscw();
  dynamic();
  return fy_finish();
}
