/* MPI_Comm_split of MPI_COMM_WORLD into every colour pattern: each rank
 * takes a colour in {MPI_UNDEFINED, 0, .., size-1} (5^4 = 625 patterns at
 * -n 4), with keys that reverse the order on odd patterns. Each result
 * must hold exactly the ranks of its colour in key order, and carry
 * messages on its own context. */
#include "fytest.h"
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("comm_split_all");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int base = size + 1, npat = 1;
  for (int i = 0; i < size; i++) npat *= base;
  if (size > 5) npat = 200; /* larger runs: a sample */
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  for (int p = 0; p < npat; p++) {
    int color[64], key[64];
    for (int r = 0, x = p; r < size; r++, x /= base) {
      int d = x % base;
      color[r] = d == 0 ? MPI_UNDEFINED : d - 1;
      key[r] = (p % 2) ? -r : r;
    }
    MPI_Comm c;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, color[rank], key[rank], &c));
    if (color[rank] == MPI_UNDEFINED) {
      CHECK(c == MPI_COMM_NULL, "pattern %d: undefined colour got a communicator", p);
      continue;
    }
    int expect[64], n = 0;
    for (int i = 0; i < size; i++) {
      int r = (p % 2) ? size - 1 - i : i;
      if (color[r] == color[rank]) expect[n++] = r;
    }
    int cs, cr;
    MPI_Comm_size(c, &cs);
    MPI_Comm_rank(c, &cr);
    CHECK(cs == n, "pattern %d: size %d, expected %d", p, cs, n);
    MPI_Group g;
    MPI_Comm_group(c, &g);
    int ranks[64], wr[64];
    for (int i = 0; i < cs; i++) ranks[i] = i;
    MPI_Group_translate_ranks(g, cs, ranks, world, wr);
    for (int i = 0; i < cs && i < n; i++) CHECK(wr[i] == expect[i], "pattern %d: rank %d is world %d, expected %d", p, i, wr[i], expect[i]);
    CHECK(cs > cr && expect[cr] == rank, "pattern %d: my rank %d", p, cr);
    MPI_Group_free(&g);
    /* a ring on the new communicator */
    int v = p * 100 + cr, got = -1;
    CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, (cr + 1) % cs, 7, &got, 1, MPI_INT, (cr + cs - 1) % cs, 7, c,
                          MPI_STATUS_IGNORE));
    CHECK(got == p * 100 + (cr + cs - 1) % cs, "pattern %d: ring got %d", p, got);
    CHECK_OK(MPI_Comm_free(&c));
  }
  MPI_Group_free(&world);
  /* A negative colour other than MPI_UNDEFINED is an error on every rank. */
  MPI_Comm c = MPI_COMM_NULL;
  int rc = MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? -5 : 1, 0, &c);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  return fy_finish();
}
