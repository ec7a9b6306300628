/* Groups: every constructor and query against results computed by hand,
 * at any process count, and the error class of each kind of bad input. */
#include <mpi.h>
#include "fytest.h"

static int gsize(MPI_Group g) { int s; MPI_Group_size(g, &s); return s; }
static int grank(MPI_Group g) { int r; MPI_Group_rank(g, &r); return r; }
static int cmp(MPI_Group a, MPI_Group b) { int r; MPI_Group_compare(a, b, &r); return r; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("group");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Group world, g, h, u;
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK(gsize(world) == size && grank(world) == rank, "world group %d/%d", grank(world), gsize(world));
  CHECK(gsize(MPI_GROUP_EMPTY) == 0 && grank(MPI_GROUP_EMPTY) == MPI_UNDEFINED, "empty group");

  /* incl in reverse order: rank r becomes size-1-r */
  int rev[8];
  for (int i = 0; i < size; i++) rev[i] = size - 1 - i;
  CHECK_OK(MPI_Group_incl(world, size, rev, &g));
  CHECK(grank(g) == size - 1 - rank, "reversed rank %d", grank(g));
  CHECK(cmp(g, world) == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "reverse compares %d", cmp(g, world));
  int t[8], back[8];
  for (int i = 0; i < size; i++) t[i] = i;
  CHECK_OK(MPI_Group_translate_ranks(g, size, t, world, back));
  for (int i = 0; i < size; i++) CHECK(back[i] == size - 1 - i, "translate %d -> %d", i, back[i]);
  int pn = MPI_PROC_NULL, pr;
  CHECK_OK(MPI_Group_translate_ranks(g, 1, &pn, world, &pr));
  CHECK(pr == MPI_PROC_NULL, "PROC_NULL translates to %d", pr);

  /* excl of rank 0: everyone else in order */
  int zero = 0;
  CHECK_OK(MPI_Group_excl(world, 1, &zero, &h));
  CHECK(gsize(h) == size - 1, "excl size %d", gsize(h));
  CHECK(grank(h) == (rank == 0 ? MPI_UNDEFINED : rank - 1), "excl rank %d", grank(h));
  int r0 = 0, r0t;
  CHECK_OK(MPI_Group_translate_ranks(world, 1, &r0, h, &r0t));
  CHECK(r0t == MPI_UNDEFINED, "rank 0 is not in excl group: %d", r0t);

  /* union(h, world) = h then 0; intersection(world, h) = h; difference(world, h) = {0} */
  CHECK_OK(MPI_Group_union(h, world, &u));
  CHECK(gsize(u) == size, "union size %d", gsize(u));
  CHECK(grank(u) == (rank == 0 ? size - 1 : rank - 1), "union rank %d", grank(u));
  MPI_Group_free(&u);
  CHECK_OK(MPI_Group_intersection(world, h, &u));
  CHECK(cmp(u, h) == MPI_IDENT || (size == 1 && u == MPI_GROUP_EMPTY), "intersection");
  MPI_Group_free(&u);
  CHECK_OK(MPI_Group_difference(world, h, &u));
  CHECK(gsize(u) == 1 && grank(u) == (rank == 0 ? 0 : MPI_UNDEFINED), "difference");
  MPI_Group_free(&u);
  CHECK_OK(MPI_Group_difference(h, h, &u));
  CHECK(u == MPI_GROUP_EMPTY, "difference with itself is MPI_GROUP_EMPTY");
  CHECK(cmp(h, world) == (size == 1 ? MPI_UNEQUAL : MPI_UNEQUAL), "excl vs world unequal");

  /* ranges: even ranks via (0, size-1, 2); odd via excl of the same range;
   * negative stride reverses */
  int even[1][3] = {{0, size - 1, 2}};
  CHECK_OK(MPI_Group_range_incl(world, 1, even, &u));
  CHECK(gsize(u) == (size + 1) / 2, "range_incl size %d", gsize(u));
  CHECK(grank(u) == (rank % 2 ? MPI_UNDEFINED : rank / 2), "range_incl rank %d", grank(u));
  MPI_Group_free(&u);
  CHECK_OK(MPI_Group_range_excl(world, 1, even, &u));
  CHECK(gsize(u) == size / 2, "range_excl size %d", gsize(u));
  CHECK(grank(u) == (rank % 2 ? rank / 2 : MPI_UNDEFINED), "range_excl rank %d", grank(u));
  MPI_Group_free(&u);
  int down[1][3] = {{size - 1, 0, -1}};
  CHECK_OK(MPI_Group_range_incl(world, 1, down, &u));
  CHECK(cmp(u, g) == MPI_IDENT, "descending range equals reversed incl");
  MPI_Group_free(&u);

  /* a group outlives the communicator it came from */
  MPI_Comm dup;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_OK(MPI_Comm_group(dup, &u));
  MPI_Comm_free(&dup);
  CHECK(cmp(u, world) == MPI_IDENT, "group of a freed dup");
  MPI_Group_free(&u);
  CHECK(u == MPI_GROUP_NULL, "free sets MPI_GROUP_NULL");

  /* bad input */
  int bad = size, dupl[2] = {0, 0};
  CHECK_CLASS(MPI_Group_incl(world, 1, &bad, &u), MPI_ERR_RANK);
  /* freeing a null or unknown handle is an error, not a crash (MPICH's
   * threads/init/mult_session frees MPI_GROUP_NULL on an error path) */
  MPI_Group none = MPI_GROUP_NULL, junk = (MPI_Group)12345;
  CHECK_CLASS(MPI_Group_free(&none), MPI_ERR_GROUP);
  CHECK_CLASS(MPI_Group_free(&junk), MPI_ERR_GROUP);
  if (size >= 1) CHECK_CLASS(MPI_Group_incl(world, 2, dupl, &u), size >= 2 ? MPI_ERR_RANK : MPI_ERR_ARG);
  CHECK_CLASS(MPI_Group_excl(world, 1, &bad, &u), MPI_ERR_RANK);
  int zstride[1][3] = {{0, 0, 0}};
  CHECK_CLASS(MPI_Group_range_incl(world, 1, zstride, &u), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Group_translate_ranks(world, 1, &bad, g, t), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Group_size(MPI_GROUP_NULL, t), MPI_ERR_GROUP);
  MPI_Group freed = h;
  MPI_Group_free(&h);
  if (freed != MPI_GROUP_EMPTY) CHECK_CLASS(MPI_Group_size(freed, t), MPI_ERR_GROUP);

  MPI_Group_free(&g);
  MPI_Group_free(&world);
  MPI_Group e = MPI_GROUP_EMPTY;
  CHECK_OK(MPI_Group_free(&e));
  return fy_finish();
}
