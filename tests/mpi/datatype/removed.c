/* The MPI-1 functions MPI 3.0 removed, which libmpi.so.12 still exports
 * for binaries built against an older MPICH (src/binding/fy_removed.c).
 * mpi.h does not declare them; mpi1_removed.h has MPI-1's prototypes. */
#include "fytest.h"
#include "mpi1_removed.h"

static int handled;
static void on_error(MPI_Comm *comm, int *code, ...) { (void)comm; (void)code; handled++; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("datatype_removed");
  int x[4];
  MPI_Aint a0, a2;
  CHECK_OK(MPI_Address(&x[0], &a0));
  CHECK_OK(MPI_Address(&x[2], &a2));
  CHECK(a2 - a0 == 2 * (MPI_Aint)sizeof(int), "MPI_Address: %ld apart", (long)(a2 - a0));

  /* MPI_LB and MPI_UB markers set the bounds, as MPI-1 defined them */
  int bl[3] = {1, 2, 1};
  MPI_Aint d[3] = {-4, 0, 20};
  MPI_Datatype ty[3] = {MPI_LB, MPI_INT, MPI_UB}, st, hv, hi;
  CHECK_OK(MPI_Type_struct(3, bl, d, ty, &st));
  MPI_Aint lb, ub, ext;
  CHECK_OK(MPI_Type_lb(st, &lb));
  CHECK_OK(MPI_Type_ub(st, &ub));
  CHECK_OK(MPI_Type_extent(st, &ext));
  CHECK(lb == -4 && ub == 20 && ext == 24, "struct: lb %ld ub %ld extent %ld", (long)lb, (long)ub, (long)ext);

  CHECK_OK(MPI_Type_hvector(3, 1, 12, MPI_INT, &hv));
  CHECK_OK(MPI_Type_extent(hv, &ext));
  CHECK(ext == 28, "hvector extent %ld", (long)ext);
  int hbl[2] = {2, 1};
  MPI_Aint hd[2] = {8, 0};
  CHECK_OK(MPI_Type_hindexed(2, hbl, hd, MPI_INT, &hi));
  CHECK_OK(MPI_Type_lb(hi, &lb));
  CHECK_OK(MPI_Type_ub(hi, &ub));
  CHECK(lb == 0 && ub == 16, "hindexed: lb %ld ub %ld", (long)lb, (long)ub);
  CHECK_OK(MPI_Type_commit(&hi));
  int src[4] = {1, 2, 3, 4}, dst[3] = {0, 0, 0}, pos = 0;
  CHECK_OK(MPI_Pack(src, 1, hi, dst, (int)sizeof dst, &pos, MPI_COMM_SELF));
  CHECK(pos == 12 && dst[0] == 3 && dst[1] == 4 && dst[2] == 1, "hindexed pack: %d %d %d", dst[0], dst[1], dst[2]);
  MPI_Type_free(&st);
  MPI_Type_free(&hv);
  MPI_Type_free(&hi);

  /* error handlers through the old names */
  MPI_Errhandler eh, got;
  MPI_Comm dup;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_OK(MPI_Errhandler_create(on_error, &eh));
  CHECK_OK(MPI_Errhandler_set(dup, eh));
  CHECK_OK(MPI_Errhandler_get(dup, &got));
  CHECK(got == eh, "Errhandler_get returned another handler");
  MPI_Errhandler_free(&got);
  MPI_Send(NULL, 0, MPI_INT, 9999, 0, dup); /* invalid rank: the handler runs */
  CHECK(handled == 1, "handler ran %d times", handled);
  MPI_Errhandler_free(&eh);
  MPI_Comm_free(&dup);
  return fy_finish();
}
