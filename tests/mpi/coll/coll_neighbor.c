/* Neighbourhood collectives on a periodic 1-D ring (Cartesian: at -n 1 and
 * -n 2 both neighbours are the same process, so directions must not mix),
 * a 2-D Cartesian grid with a non-periodic dimension (MPI_PROC_NULL
 * neighbours) and a distributed graph; blocking, nonblocking and
 * persistent. */
#include "../common/fytest.h"

static int rank, size, mode;

#define RUN(B, I, ...)                                                     \
  do {                                                                     \
    MPI_Request r_;                                                        \
    if (mode == 0) CHECK_OK(MPI_##B(__VA_ARGS__));                         \
    else if (mode == 1) {                                                  \
      CHECK_OK(MPI_##I(__VA_ARGS__, &r_));                                 \
      CHECK_OK(MPI_Wait(&r_, MPI_STATUS_IGNORE));                          \
    } else {                                                               \
      CHECK_OK(MPI_##B##_init(__VA_ARGS__, MPI_INFO_NULL, &r_));           \
      CHECK_OK(MPI_Start(&r_));                                            \
      CHECK_OK(MPI_Wait(&r_, MPI_STATUS_IGNORE));                          \
      CHECK_OK(MPI_Request_free(&r_));                                     \
    }                                                                      \
  } while (0)

/* Check a topology: sources/destinations from the topology queries. */
static void check_topo(MPI_Comm c, const char *what) {
  int ni, no, w;
  int src[16], dst[16];
  int kind;
  MPI_Topo_test(c, &kind);
  if (kind == MPI_CART) {
    int nd;
    MPI_Cartdim_get(c, &nd);
    ni = no = 2 * nd;
    for (int d = 0; d < nd; d++) {
      MPI_Cart_shift(c, d, 1, &src[2 * d], &src[2 * d + 1]);
      dst[2 * d] = src[2 * d];
      dst[2 * d + 1] = src[2 * d + 1];
    }
  } else {
    MPI_Dist_graph_neighbors_count(c, &ni, &no, &w);
    MPI_Dist_graph_neighbors(c, ni, src, MPI_UNWEIGHTED, no, dst, MPI_UNWEIGHTED);
  }
  int me;
  MPI_Comm_rank(c, &me);
  int sb[16], rb[16 * 2];
  /* allgather: from source j comes its rank */
  sb[0] = me * 10 + 1;
  for (int j = 0; j < 2 * ni; j++) rb[j] = -5;
  RUN(Neighbor_allgather, Ineighbor_allgather, sb, 1, MPI_INT, rb, 1, MPI_INT, c);
  for (int j = 0; j < ni; j++) {
    int want = src[j] == MPI_PROC_NULL ? -5 : src[j] * 10 + 1;
    CHECK(rb[j] == want, "%s neighbor_allgather [%d] = %d, expected %d", what, j, rb[j], want);
  }
  /* alltoall: to destination k goes me*100 + k; from source j comes what j
   * sent in the opposite direction (Cartesian) or its k for me (graph). */
  for (int k = 0; k < no; k++) sb[k] = me * 100 + k;
  for (int j = 0; j < ni; j++) rb[j] = -5;
  RUN(Neighbor_alltoall, Ineighbor_alltoall, sb, 1, MPI_INT, rb, 1, MPI_INT, c);
  for (int j = 0; j < ni; j++) {
    if (src[j] == MPI_PROC_NULL) { CHECK(rb[j] == -5, "%s PROC_NULL slot written", what); continue; }
    int k;
    if (kind == MPI_CART) k = j ^ 1;
    else {
      /* the index of me among src[j]'s destinations (first occurrence) */
      k = -1;
      int n2i, n2o, ww, s2[16], d2[16];
      (void)n2i; (void)s2;
      /* ring graph below: destinations of r are r+1, r-1 */
      n2o = 2; d2[0] = (src[j] + 1) % size; d2[1] = (src[j] - 1 + size) % size; (void)ww;
      for (int q = 0; q < n2o; q++) if (d2[q] == me) { k = q; break; }
      /* at -n 2 both destinations are me: the k-th message from a source
       * arrives in the k-th slot naming that source */
      if (size <= 2) { int seen = 0; for (int q = 0; q < j; q++) if (src[q] == src[j]) seen++; k = seen; }
    }
    int want = src[j] * 100 + k;
    CHECK(rb[j] == want, "%s neighbor_alltoall [%d] = %d, expected %d", what, j, rb[j], want);
  }
  /* alltoallv and alltoallw with the same data */
  int cnt[16], dsp[16];
  MPI_Aint adsp[16], rdsp[16];
  MPI_Datatype ty[16];
  for (int k = 0; k < 16; k++) { cnt[k] = 1; dsp[k] = k; adsp[k] = k * (MPI_Aint)sizeof(int); rdsp[k] = adsp[k]; ty[k] = MPI_INT; }
  int rb2[16];
  for (int j = 0; j < ni; j++) rb2[j] = -5;
  RUN(Neighbor_alltoallv, Ineighbor_alltoallv, sb, cnt, dsp, MPI_INT, rb2, cnt, dsp, MPI_INT, c);
  for (int j = 0; j < ni; j++) CHECK(rb2[j] == rb[j], "%s neighbor_alltoallv [%d] = %d, expected %d", what, j, rb2[j], rb[j]);
  for (int j = 0; j < ni; j++) rb2[j] = -5;
  RUN(Neighbor_alltoallw, Ineighbor_alltoallw, sb, cnt, adsp, ty, rb2, cnt, rdsp, ty, c);
  for (int j = 0; j < ni; j++) CHECK(rb2[j] == rb[j], "%s neighbor_alltoallw [%d] = %d, expected %d", what, j, rb2[j], rb[j]);
  for (int j = 0; j < ni; j++) rb2[j] = -5;
  RUN(Neighbor_allgatherv, Ineighbor_allgatherv, sb, 1, MPI_INT, rb2, cnt, dsp, MPI_INT, c);
  for (int j = 0; j < ni; j++) {
    int want = src[j] == MPI_PROC_NULL ? -5 : src[j] * 100;
    CHECK(rb2[j] == want, "%s neighbor_allgatherv [%d] = %d, expected %d", what, j, rb2[j], want);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("coll_neighbor");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm ring, grid, graph;
  int dims[2] = {size, 1}, periods[2] = {1, 0};
  int rc = MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  int cls = 0;
  if (rc) MPI_Error_class(rc, &cls);
  if (cls == MPI_ERR_UNSUPPORTED_OPERATION) {
    if (rank == 0) printf("SKIP coll_neighbor: process topologies are not implemented in this build\n");
    return fy_finish();
  }
  CHECK_OK(rc);
  dims[0] = 0; dims[1] = 0;
  MPI_Dims_create(size, 2, dims);
  periods[0] = 1; periods[1] = 0;
  CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid));
  int srcs[2] = {(rank - 1 + size) % size, (rank + 1) % size};
  int dsts[2] = {(rank + 1) % size, (rank - 1 + size) % size};
  CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED, 2, dsts,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph));
  for (mode = 0; mode < 3; mode++) {
    check_topo(ring, "ring");
    check_topo(grid, "grid");
    check_topo(graph, "graph");
  }
  int x = 0;
  CHECK_CLASS(MPI_Neighbor_allgather(&x, 1, MPI_INT, &x, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
  MPI_Comm_free(&ring);
  MPI_Comm_free(&grid);
  MPI_Comm_free(&graph);
  return fy_finish();
}
