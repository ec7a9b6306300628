/* Process topologies: Dims_create, Cart_create/get/rank/coords/shift/sub/
 * map/dim_get, Graph_create/get/neighbors(_count)/map/dims_get,
 * Dist_graph_create(_adjacent)/neighbors(_count), Topo_test, topologies
 * survive Comm_dup, and the error classes of bad input. */
#include "fytest.h"
#include <string.h>

static void dims_case(int nnodes, int ndims, const int *in, const int *expect) {
  int d[8];
  memcpy(d, in, (size_t)ndims * sizeof *d);
  CHECK_OK(MPI_Dims_create(nnodes, ndims, d));
  for (int i = 0; i < ndims; i++)
    CHECK(d[i] == expect[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes, ndims, i, d[i], expect[i]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("topo");
  int rank, size, rc, st;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  dims_case(6, 2, (int[]){0, 0}, (int[]){3, 2});
  dims_case(7, 2, (int[]){0, 0}, (int[]){7, 1});
  dims_case(6, 3, (int[]){0, 3, 0}, (int[]){2, 3, 1});
  dims_case(24, 3, (int[]){0, 0, 0}, (int[]){4, 3, 2});
  dims_case(16, 2, (int[]){0, 0}, (int[]){4, 4});
  dims_case(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
  /* the closest factors, not a greedy split (12 x 6); ties go to the
   * largest smallest factors, as in MPICH (its topo/dims5 table) */
  dims_case(72, 2, (int[]){0, 0}, (int[]){9, 8});
  dims_case(1620, 3, (int[]){0, 0, 0}, (int[]){15, 12, 9});
  dims_case(10800, 3, (int[]){0, 0, 0}, (int[]){27, 20, 20});
  dims_case(414480, 4, (int[]){0, 0, 0, 0}, (int[]){157, 16, 15, 11});
  dims_case(162288, 5, (int[]){0, 0, 0, 0, 0}, (int[]){23, 14, 9, 8, 7});
  dims_case(72, 3, (int[]){0, 3, 0}, (int[]){6, 3, 4});
  dims_case(1073741824, 3, (int[]){0, 0, 0}, (int[]){1024, 1024, 1024});
  dims_case(2147483647, 2, (int[]){0, 0}, (int[]){2147483647, 1});
  int bad[2] = {0, 4};
  rc = MPI_Dims_create(6, 2, bad);
  CHECK_CLASS(rc, MPI_ERR_DIMS);
  rc = MPI_Dims_create(6, -1, bad);
  CHECK_CLASS(rc, MPI_ERR_DIMS);

  MPI_Topo_test(MPI_COMM_WORLD, &st);
  CHECK(st == MPI_UNDEFINED, "world has topology %d", st);

  /* Cartesian: size x 1, periodic in dimension 0 */
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart;
  CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  MPI_Topo_test(cart, &st);
  CHECK(st == MPI_CART, "topo_test %d", st);
  int nd, gd[2], gp[2], gc[2], cr;
  MPI_Cartdim_get(cart, &nd);
  CHECK(nd == 2, "cartdim %d", nd);
  MPI_Comm_rank(cart, &cr);
  MPI_Cart_get(cart, 2, gd, gp, gc);
  CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0, "cart_get");
  CHECK(gc[0] == cr / dims[1] && gc[1] == cr % dims[1], "coords (%d,%d) for rank %d", gc[0], gc[1], cr);
  int back;
  MPI_Cart_rank(cart, gc, &back);
  CHECK(back == cr, "cart_rank(coords) = %d", back);
  int wrap[2] = {gc[0] + dims[0], gc[1]};
  MPI_Cart_rank(cart, wrap, &back);
  CHECK(back == cr, "periodic wrap gave %d", back);
  int co[2];
  MPI_Cart_coords(cart, size - 1, 2, co);
  CHECK(co[0] == dims[0] - 1 && co[1] == dims[1] - 1, "coords of the last rank");
  int src, dst;
  MPI_Cart_shift(cart, 0, 1, &src, &dst);
  CHECK(dst == ((gc[0] + 1) % dims[0]) * dims[1] + gc[1], "shift dst %d", dst);
  CHECK(src == ((gc[0] - 1 + dims[0]) % dims[0]) * dims[1] + gc[1], "shift src %d", src);
  MPI_Cart_shift(cart, 1, 1, &src, &dst);
  CHECK((gc[1] == dims[1] - 1) == (dst == MPI_PROC_NULL), "non-periodic border dst %d", dst);
  /* a message along the ring of dimension 0 */
  MPI_Cart_shift(cart, 0, 1, &src, &dst);
  int v = cr, got = -1;
  CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, dst, 0, &got, 1, MPI_INT, src, 0, cart, MPI_STATUS_IGNORE));
  CHECK(got == src, "ring got %d from %d", got, src);
  /* sub: keep dimension 0 */
  MPI_Comm sub;
  CHECK_OK(MPI_Cart_sub(cart, (int[]){1, 0}, &sub));
  int ss, sr, snd;
  MPI_Comm_size(sub, &ss);
  MPI_Comm_rank(sub, &sr);
  MPI_Cartdim_get(sub, &snd);
  CHECK(ss == dims[0] && sr == gc[0] && snd == 1, "sub: size %d rank %d ndims %d", ss, sr, snd);
  MPI_Comm_free(&sub);
  CHECK_OK(MPI_Cart_sub(cart, (int[]){0, 0}, &sub));
  MPI_Comm_size(sub, &ss);
  MPI_Cartdim_get(sub, &snd);
  CHECK(ss == 1 && snd == 0, "sub of no dimension: size %d ndims %d", ss, snd);
  MPI_Comm_free(&sub);
  /* dup keeps the topology */
  MPI_Comm cd;
  MPI_Comm_dup(cart, &cd);
  MPI_Topo_test(cd, &st);
  CHECK(st == MPI_CART, "dup lost the topology");
  MPI_Comm_free(&cd);
  int nr;
  CHECK_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, (int[]){1}, (int[]){0}, &nr));
  CHECK(nr == (rank == 0 ? 0 : MPI_UNDEFINED), "cart_map %d", nr);
  rc = MPI_Cart_coords(cart, size, 2, co);
  CHECK_CLASS(rc, MPI_ERR_RANK);
  rc = MPI_Cart_shift(cart, 2, 1, &src, &dst);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  rc = MPI_Cart_rank(cart, (int[]){0, dims[1]}, &back);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  MPI_Comm_free(&cart);
  /* a grid smaller than the communicator leaves the others out */
  MPI_Comm small;
  CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, (int[]){1}, (int[]){0}, 0, &small));
  CHECK((rank == 0) == (small != MPI_COMM_NULL), "1-point grid");
  if (small != MPI_COMM_NULL) MPI_Comm_free(&small);
  rc = MPI_Cart_create(MPI_COMM_WORLD, 1, (int[]){size + 1}, (int[]){0}, 0, &small);
  CHECK_CLASS(rc, MPI_ERR_DIMS);
  rc = MPI_Cart_create(MPI_COMM_WORLD, 1, (int[]){-1}, (int[]){0}, 0, &small);
  CHECK_CLASS(rc, MPI_ERR_DIMS);
  rc = MPI_Cartdim_get(MPI_COMM_WORLD, &nd);
  CHECK_CLASS(rc, MPI_ERR_TOPOLOGY);

  /* graph: a ring (each node's neighbours: previous and next) */
  int index[64], edges[128], ne = 0;
  for (int i = 0; i < size; i++) {
    edges[ne++] = (i + size - 1) % size;
    edges[ne++] = (i + 1) % size;
    index[i] = ne;
  }
  MPI_Comm g;
  CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
  MPI_Topo_test(g, &st);
  CHECK(st == MPI_GRAPH, "graph topo_test %d", st);
  int nn, nedges, cnt, nb[2];
  MPI_Graphdims_get(g, &nn, &nedges);
  CHECK(nn == size && nedges == 2 * size, "graphdims %d %d", nn, nedges);
  MPI_Graph_neighbors_count(g, rank, &cnt);
  CHECK(cnt == 2, "neighbors_count %d", cnt);
  MPI_Graph_neighbors(g, rank, 2, nb);
  CHECK(nb[0] == (rank + size - 1) % size && nb[1] == (rank + 1) % size, "neighbors %d %d", nb[0], nb[1]);
  int gi[64], ge[128];
  MPI_Graph_get(g, size, 2 * size, gi, ge);
  CHECK(gi[size - 1] == 2 * size && ge[1] == 1 % size, "graph_get");
  rc = MPI_Graph_neighbors_count(g, size, &cnt);
  CHECK_CLASS(rc, MPI_ERR_RANK);
  CHECK_OK(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &nr));
  CHECK(nr == rank, "graph_map %d", nr);
  MPI_Comm_free(&g);
  int badedge[2] = {size, 0}, bidx[1] = {1};
  rc = MPI_Graph_create(MPI_COMM_WORLD, 1, bidx, badedge, 0, &g);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  rc = MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &g);
  CHECK_CLASS(rc, MPI_ERR_ARG);

  /* dist graph, adjacent: in from the previous rank (weight 2), out to the next (weight 3) */
  MPI_Comm dg;
  int prev = (rank + size - 1) % size, next = (rank + 1) % size, w2 = 2, w3 = 3;
  CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, &w2, 1, &next, &w3, MPI_INFO_NULL, 0, &dg));
  MPI_Topo_test(dg, &st);
  CHECK(st == MPI_DIST_GRAPH, "dist graph topo_test %d", st);
  int indeg, outdeg, weighted, s1, sw, d1, dw;
  MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
  CHECK(indeg == 1 && outdeg == 1 && weighted, "dist counts %d %d %d", indeg, outdeg, weighted);
  MPI_Dist_graph_neighbors(dg, 1, &s1, &sw, 1, &d1, &dw);
  CHECK(s1 == prev && sw == 2 && d1 == next && dw == 3, "dist neighbors");
  MPI_Comm_free(&dg);
  /* dist graph, general: rank 0 names every edge i -> i+1 */
  int n0 = rank == 0 ? size : 0, srcs[64], degs[64], dsts[64];
  for (int i = 0; i < n0; i++) {
    srcs[i] = i;
    degs[i] = 1;
    dsts[i] = (i + 1) % size;
  }
  CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n0, srcs, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
  MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
  CHECK(indeg == 1 && outdeg == 1 && !weighted, "general dist counts %d %d %d", indeg, outdeg, weighted);
  MPI_Dist_graph_neighbors(dg, 1, &s1, MPI_UNWEIGHTED, 1, &d1, MPI_UNWEIGHTED);
  CHECK(s1 == prev && d1 == next, "general dist neighbors %d %d", s1, d1);
  MPI_Comm_free(&dg);
  rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, (int[]){size}, MPI_UNWEIGHTED, 0, NULL,
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg);
  CHECK_CLASS(rc, MPI_ERR_RANK);
  rc = MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &indeg, &outdeg, &weighted);
  CHECK_CLASS(rc, MPI_ERR_TOPOLOGY);
  return fy_finish();
}
