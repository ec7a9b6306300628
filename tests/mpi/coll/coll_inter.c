/* Intercommunicator collectives: the world split in two groups (even and
 * odd world ranks) joined by MPI_Intercomm_create; every collective that
 * the standard defines on intercommunicators, blocking and nonblocking,
 * with the root in either group; Scan must fail with MPI_ERR_COMM. */
#include "../common/fytest.h"

static int wrank, wsize, color, lrank, lsize, rsize, mode;
static MPI_Comm inter;

static int val(int group, int r, int i) { return group * 1000 + r * 10 + i + 1; }

#define RUN(B, I, ...)                                                     \
  do {                                                                     \
    if (mode == 0) CHECK_OK(MPI_##B(__VA_ARGS__));                         \
    else {                                                                 \
      MPI_Request r_;                                                      \
      CHECK_OK(MPI_##I(__VA_ARGS__, &r_));                                 \
      CHECK_OK(MPI_Wait(&r_, MPI_STATUS_IGNORE));                          \
    }                                                                      \
  } while (0)

enum { N = 3 };

static void rooted(int rgroup, int rroot) {
  int a[N * 8], b[N * 8];
  int in_root_group = color == rgroup;
  int root = in_root_group ? (lrank == rroot ? MPI_ROOT : MPI_PROC_NULL) : rroot;
  int am_root = root == MPI_ROOT;
  /* bcast */
  for (int i = 0; i < N; i++) a[i] = am_root ? val(rgroup, rroot, i) : -1;
  RUN(Bcast, Ibcast, a, N, MPI_INT, root, inter);
  if (!in_root_group)
    for (int i = 0; i < N; i++) CHECK(a[i] == val(rgroup, rroot, i), "bcast [%d] = %d", i, a[i]);
  /* reduce: the other group's sum at the root */
  for (int i = 0; i < N; i++) { a[i] = val(color, lrank, i); b[i] = -1; }
  RUN(Reduce, Ireduce, a, b, N, MPI_INT, MPI_SUM, root, inter);
  if (am_root)
    for (int i = 0; i < N; i++) {
      int want = 0;
      for (int r = 0; r < rsize; r++) want += val(1 - color, r, i);
      CHECK(b[i] == want, "reduce [%d] = %d, expected %d", i, b[i], want);
    }
  /* gather */
  for (int i = 0; i < N * rsize; i++) b[i] = -1;
  RUN(Gather, Igather, a, N, MPI_INT, b, N, MPI_INT, root, inter);
  if (am_root)
    for (int r = 0; r < rsize; r++)
      for (int i = 0; i < N; i++)
        CHECK(b[r * N + i] == val(1 - color, r, i), "gather [%d][%d] = %d", r, i, b[r * N + i]);
  /* scatter */
  if (am_root) for (int r = 0; r < rsize; r++) for (int i = 0; i < N; i++) a[r * N + i] = val(2, r, i);
  for (int i = 0; i < N; i++) b[i] = -1;
  RUN(Scatter, Iscatter, a, N, MPI_INT, b, N, MPI_INT, root, inter);
  if (!in_root_group)
    for (int i = 0; i < N; i++) CHECK(b[i] == val(2, lrank, i), "scatter [%d] = %d", i, b[i]);
}

static void unrooted(void) {
  int a[N * 8], b[N * 8];
  for (int i = 0; i < N; i++) { a[i] = val(color, lrank, i); b[i] = -1; }
  RUN(Allreduce, Iallreduce, a, b, N, MPI_INT, MPI_SUM, inter);
  for (int i = 0; i < N; i++) {
    int want = 0;
    for (int r = 0; r < rsize; r++) want += val(1 - color, r, i);
    CHECK(b[i] == want, "allreduce [%d] = %d, expected %d", i, b[i], want);
  }
  RUN(Allgather, Iallgather, a, N, MPI_INT, b, N, MPI_INT, inter);
  for (int r = 0; r < rsize; r++)
    for (int i = 0; i < N; i++)
      CHECK(b[r * N + i] == val(1 - color, r, i), "allgather [%d][%d] = %d", r, i, b[r * N + i]);
  for (int r = 0; r < rsize; r++) for (int i = 0; i < N; i++) a[r * N + i] = val(color, lrank * 10 + r, i);
  RUN(Alltoall, Ialltoall, a, N, MPI_INT, b, N, MPI_INT, inter);
  for (int r = 0; r < rsize; r++)
    for (int i = 0; i < N; i++)
      CHECK(b[r * N + i] == val(1 - color, r * 10 + lrank, i), "alltoall [%d][%d] = %d", r, i, b[r * N + i]);
  /* reduce_scatter_block: both groups reduce vectors of lsize_A*rsize_A... the
   * same total: lsize * rsize elements, rcount = the other size */
  int total = lsize * rsize, rc = rsize;
  for (int i = 0; i < total; i++) a[i] = val(color, lrank, i);
  RUN(Reduce_scatter_block, Ireduce_scatter_block, a, b, rc, MPI_INT, MPI_SUM, inter);
  for (int i = 0; i < rc; i++) {
    int want = 0;
    for (int r = 0; r < rsize; r++) want += val(1 - color, r, lrank * rc + i);
    CHECK(b[i] == want, "reduce_scatter_block [%d] = %d, expected %d", i, b[i], want);
  }
  RUN(Barrier, Ibarrier, inter);
  int rcs = MPI_Scan(a, b, N, MPI_INT, MPI_SUM, inter);
  CHECK_CLASS(rcs, MPI_ERR_COMM);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("coll_inter");
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2) return fy_finish();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  color = wrank % 2;
  MPI_Comm local;
  int rc = MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local);
  int cls = 0;
  if (rc) MPI_Error_class(rc, &cls);
  if (!rc) {
    rc = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
    if (rc) MPI_Error_class(rc, &cls);
    if (rc) MPI_Comm_free(&local);
  }
  if (cls == MPI_ERR_UNSUPPORTED_OPERATION) {
    /* This build has no intercommunicators yet (the communicator layer is
     * merged separately): nothing to test. */
    if (wrank == 0) printf("SKIP coll_inter: MPI_Comm_split/MPI_Intercomm_create are not implemented in this build\n");
    return fy_finish();
  }
  CHECK_OK(rc);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  for (mode = 0; mode < 2; mode++) {
    for (int g = 0; g < 2; g++) {
      int gsize = g == color ? lsize : rsize;
      for (int r = 0; r < gsize; r++) rooted(g, r);
    }
    unrooted();
  }
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  return fy_finish();
}
