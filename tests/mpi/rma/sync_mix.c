/* Blocking and nonblocking synchronization calls mixed at random, with
 * results every rank can predict: each rank draws its epochs from a
 * generator seeded by (rank, round), so every rank can replay every other
 * rank's choices and compute what its own window must hold at the end.
 * - passive target: exclusive lock of one rank, shared lock of one rank or
 *   lock_all, each opened and closed blocking or not (MPIX_Win_ilock,
 *   iunlock, _all), accumulates (MPI_SUM) to random words, flushes of every
 *   kind in between, blocking or not, their requests waited only after the
 *   epoch closed; under an exclusive lock a put read back after a flush;
 * - fence epochs, each rank choosing Win_fence or ifence independently
 *   (the two must meet), the ifence's request waited before or after the
 *   next epoch's put;
 * - PSCW around a ring, each of post, start, complete and wait blocking or
 *   not, chosen per rank.
 * It runs on one node (the node-local engine) and, with FERRY_NOLOCAL=1
 * (mpi.net.nolocal.rma_sync_mix), over windows that span nodes
 * (src/rma/am.c). FY_SYNC_MIX_SEED changes the draw. */
#include "rma_test.h"

#define NW 8        /* accumulate words */
#define ROUNDS 40   /* passive-target epochs per rank */
#define FENCES 12
#define PSCWS 12
#define MAXREQ 16

static int rank, size;
static uint64_t seed = 0x5eed;

static uint64_t rnd(int r, int k, int j) {
  uint64_t x = seed ^ ((uint64_t)r << 40) ^ ((uint64_t)k << 20) ^ (uint64_t)j;
  x += 0x9e3779b97f4a7c15ull; /* splitmix64 */
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Rank r's passive epoch k. */
typedef struct {
  int mode;                 /* 0 exclusive lock of t, 1 shared lock of t, 2 lock_all */
  int t, iopen, iclose, wait_open_early, nops;
  int tt[4], idx[4], flush[4];
  int64_t val[4];
  int iflush_priv;          /* the private word's flush: nonblocking */
} plan_t;

static plan_t plan(int r, int k) {
  plan_t p;
  p.mode = (int)(rnd(r, k, 0) % 3);
  p.t = (int)(rnd(r, k, 1) % (uint64_t)size);
  p.iopen = (int)(rnd(r, k, 2) & 1);
  p.iclose = (int)(rnd(r, k, 3) & 1);
  p.wait_open_early = (int)(rnd(r, k, 4) & 1);
  p.nops = 1 + (int)(rnd(r, k, 5) % 4);
  for (int j = 0; j < p.nops; j++) {
    p.tt[j] = p.mode == 2 ? (int)(rnd(r, k, 10 + j) % (uint64_t)size) : p.t;
    p.idx[j] = (int)(rnd(r, k, 20 + j) % NW);
    p.flush[j] = (int)(rnd(r, k, 30 + j) % 7);
    p.val[j] = (int64_t)(r + 1) * 1000 + k * 4 + j;
  }
  p.iflush_priv = (int)(rnd(r, k, 40) & 1);
  return p;
}

static void take(MPI_Request *rq, int *n, MPI_Request r) {
  if (*n >= MAXREQ) {
    fprintf(stderr, "sync_mix: too many requests\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  rq[(*n)++] = r;
}

static void passive(int64_t *mem, MPI_Win w) {
  for (int k = 0; k < ROUNDS; k++) {
    plan_t p = plan(rank, k);
    MPI_Request rq[MAXREQ], r;
    int nr = 0;
    if (p.mode == 2) {
      if (p.iopen) {
        CHECK_OK(MPIX_Win_ilock_all(0, w, &r));
        if (p.wait_open_early) CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        else take(rq, &nr, r);
      } else {
        CHECK_OK(MPI_Win_lock_all(0, w));
      }
    } else {
      int type = p.mode == 0 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
      if (p.iopen) {
        CHECK_OK(MPIX_Win_ilock(type, p.t, 0, w, &r));
        if (p.wait_open_early) CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        else take(rq, &nr, r);
      } else {
        CHECK_OK(MPI_Win_lock(type, p.t, 0, w));
      }
    }
    for (int j = 0; j < p.nops; j++) {
      CHECK_OK(MPI_Accumulate(&p.val[j], 1, MPI_INT64_T, p.tt[j], p.idx[j], 1, MPI_INT64_T, MPI_SUM, w));
      switch (p.flush[j]) {
        case 3: CHECK_OK(MPI_Win_flush(p.tt[j], w)); break;
        case 4: CHECK_OK(MPIX_Win_iflush(p.tt[j], w, &r)); take(rq, &nr, r); break;
        case 5: CHECK_OK(MPI_Win_flush_local_all(w)); break;
        case 6: CHECK_OK(MPIX_Win_iflush_all(w, &r)); take(rq, &nr, r); break;
        default: break;
      }
    }
    if (p.mode == 0) { /* my private word at t: put, flush, read back */
      int64_t pv = (int64_t)k * size + rank + 1, back = -1;
      CHECK_OK(MPI_Put(&pv, 1, MPI_INT64_T, p.t, NW + rank, 1, MPI_INT64_T, w));
      if (p.iflush_priv) {
        CHECK_OK(MPIX_Win_iflush(p.t, w, &r));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      } else {
        CHECK_OK(MPI_Win_flush(p.t, w));
      }
      CHECK_OK(MPI_Get(&back, 1, MPI_INT64_T, p.t, NW + rank, 1, MPI_INT64_T, w));
      CHECK_OK(MPIX_Win_iflush_local(p.t, w, &r));
      CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      CHECK(back == pv, "round %d: read back %ld from rank %d, put %ld", k, (long)back, p.t, (long)pv);
    }
    if (p.iclose) {
      if (p.mode == 2) CHECK_OK(MPIX_Win_iunlock_all(w, &r));
      else CHECK_OK(MPIX_Win_iunlock(p.t, w, &r));
      take(rq, &nr, r);
    } else if (p.mode == 2) {
      CHECK_OK(MPI_Win_unlock_all(w));
    } else {
      CHECK_OK(MPI_Win_unlock(p.t, w));
    }
    CHECK_OK(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* replay everybody's epochs toward me */
  int64_t sum[NW] = {0};
  int64_t *priv = calloc((size_t)size, sizeof *priv);
  for (int r = 0; r < size; r++)
    for (int k = 0; k < ROUNDS; k++) {
      plan_t p = plan(r, k);
      for (int j = 0; j < p.nops; j++)
        if (p.tt[j] == rank) sum[p.idx[j]] += p.val[j];
      if (p.mode == 0 && p.t == rank) priv[r] = (int64_t)k * size + r + 1;
    }
  CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w));
  CHECK_OK(MPI_Win_sync(w));
  for (int i = 0; i < NW; i++) CHECK(mem[i] == sum[i], "word %d = %ld, expected %ld", i, (long)mem[i], (long)sum[i]);
  for (int r = 0; r < size; r++)
    CHECK(mem[NW + r] == priv[r], "rank %d's private word = %ld, expected %ld", r, (long)mem[NW + r], (long)priv[r]);
  CHECK_OK(MPI_Win_unlock(rank, w));
  free(priv);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Words [base, base + size): one per origin. */
static void fences(int64_t *mem, MPI_Win w, int base) {
  MPI_Request open = MPI_REQUEST_NULL;
  if (rnd(rank, 1000, 0) & 1) CHECK_OK(MPIX_Win_ifence(MPI_MODE_NOPRECEDE, w, &open));
  else CHECK_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w));
  for (int k = 0; k < FENCES; k++) {
    int t = (rank + k) % size;
    int64_t v = 1000 * (int64_t)k + rank;
    int late = (int)(rnd(rank, 1000 + k, 1) & 1); /* wait the opening ifence after the put */
    if (!late) CHECK_OK(MPI_Wait(&open, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT64_T, t, base + rank, 1, MPI_INT64_T, w));
    CHECK_OK(MPI_Wait(&open, MPI_STATUS_IGNORE));
    int last = k == FENCES - 1;
    int assert_ = last ? MPI_MODE_NOSUCCEED : 0;
    MPI_Request close;
    if (rnd(rank, 1000 + k, 2) & 1) {
      CHECK_OK(MPIX_Win_ifence(assert_, w, &close));
      CHECK_OK(MPI_Wait(&close, MPI_STATUS_IGNORE));
    } else {
      CHECK_OK(MPI_Win_fence(assert_, w));
    }
    int o = ((rank - k) % size + size) % size;
    CHECK(mem[base + o] == 1000 * (int64_t)k + o, "fence %d: word of origin %d = %ld", k, o, (long)mem[base + o]);
    if (!last) { /* the closing fence opens the next epoch */
      if (rnd(rank, 1000 + k, 3) & 1) {
        MPI_Request nx;
        CHECK_OK(MPIX_Win_ifence(0, w, &nx)); /* (an empty epoch between, ifence or not) */
        open = nx;
      } else {
        CHECK_OK(MPI_Win_fence(0, w));
      }
    }
  }
}

static void pscw(int64_t *mem, MPI_Win w, int base) {
  MPI_Group world, lg, rg;
  int left = (rank - 1 + size) % size, right = (rank + 1) % size;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &left, &lg);
  MPI_Group_incl(world, 1, &right, &rg);
  for (int k = 0; k < PSCWS; k++) {
    MPI_Request rq[4];
    int nr = 0;
    uint64_t b = rnd(rank, 2000 + k, 0);
    if (b & 1) CHECK_OK(MPIX_Win_ipost(lg, 0, w, &rq[nr++]));
    else CHECK_OK(MPI_Win_post(lg, 0, w));
    if (b & 2) CHECK_OK(MPIX_Win_istart(rg, 0, w, &rq[nr++]));
    else CHECK_OK(MPI_Win_start(rg, 0, w));
    int64_t v = 2000 * (int64_t)k + rank;
    CHECK_OK(MPI_Put(&v, 1, MPI_INT64_T, right, base + rank, 1, MPI_INT64_T, w));
    if (b & 4) CHECK_OK(MPIX_Win_icomplete(w, &rq[nr++]));
    else CHECK_OK(MPI_Win_complete(w));
    if (b & 8) CHECK_OK(MPIX_Win_iwait(w, &rq[nr++]));
    else CHECK_OK(MPI_Win_wait(w));
    CHECK_OK(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
    CHECK(mem[base + left] == 2000 * (int64_t)k + left, "pscw %d: word of rank %d = %ld", k, left,
          (long)mem[base + left]);
    /* (nobody writes the word again before its target read it: the next
     * round's post comes after this check) */
  }
  MPI_Group_free(&lg);
  MPI_Group_free(&rg);
  MPI_Group_free(&world);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("rma_sync_mix");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *s = getenv("FY_SYNC_MIX_SEED");
  if (s) seed = strtoull(s, NULL, 0);
  int64_t *mem;
  MPI_Win w;
  MPI_Aint words = NW + 3 * (MPI_Aint)size;
  CHECK_OK(MPI_Win_allocate(words * (MPI_Aint)sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &mem, &w));
  for (MPI_Aint i = 0; i < words; i++) mem[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  passive(mem, w);
  fences(mem, w, NW + size);
  pscw(mem, w, NW + 2 * size);
  CHECK_OK(MPI_Win_free(&w));
  return fy_finish();
}
