/* Sessions within the world model: init/finalize, error handler, the two
 * process sets, a group from each, a communicator from the WORLD group
 * that works like MPI_COMM_WORLD, info, bad input. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "fytest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("session");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* errors of calls on no valid object go to MPI_COMM_SELF's handler */
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Session s;
  CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  MPI_Errhandler eh;
  CHECK_OK(MPI_Session_get_errhandler(s, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "session handler %#x", (unsigned)eh);
  MPI_Errhandler_free(&eh);
  int n;
  CHECK_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
  CHECK(n >= 2, "%d process sets", n);
  int found_world = 0, found_self = 0;
  for (int i = 0; i < n; i++) {
    int len = 0;
    char name[64];
    CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
    CHECK(len > 1 && len <= (int)sizeof name, "pset %d name length %d", i, len);
    CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
    found_world |= strcmp(name, "mpi://WORLD") == 0;
    found_self |= strcmp(name, "mpi://SELF") == 0;
  }
  CHECK(found_world && found_self, "the standard's two process sets");
  MPI_Info info;
  char v[32];
  int flag;
  CHECK_OK(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
  MPI_Info_get(info, "mpi_size", sizeof v - 1, v, &flag);
  CHECK(flag && atoi(v) == size, "WORLD size %s", flag ? v : "(unset)");
  MPI_Info_free(&info);

  MPI_Group g;
  CHECK_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  int gs, gr;
  MPI_Group_size(g, &gs);
  MPI_Group_rank(g, &gr);
  CHECK(gs == size && gr == rank, "world group %d/%d", gr, gs);
  MPI_Comm c;
  CHECK_OK(MPI_Comm_create_from_group(g, "ferry.test.session", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  int sum = 0, one = 1;
  for (int p = 0; p < size; p++) { /* a ring of sends on the new communicator */
    int got;
    CHECK_OK(MPI_Sendrecv(&one, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size, 0,
                          c, MPI_STATUS_IGNORE));
    sum += got;
  }
  CHECK(sum == size, "ring sum %d", sum);
  MPI_Comm_free(&c);
  MPI_Group_free(&g);
  CHECK_OK(MPI_Group_from_session_pset(s, "mpi://SELF", &g));
  MPI_Group_size(g, &gs);
  CHECK(gs == 1, "self group size %d", gs);
  MPI_Group_free(&g);

  CHECK_CLASS(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), MPI_ERR_ARG);
  /* names in any case, as in MPICH */
  CHECK_OK(MPI_Group_from_session_pset(s, "mpi://world", &g));
  MPI_Group_size(g, &gs);
  CHECK(gs == size, "mpi://world group size %d", gs);
  MPI_Group_free(&g);
  /* the empty group gives MPI_COMM_NULL, as Comm_create does */
  c = MPI_COMM_WORLD;
  CHECK_OK(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "ferry.test.empty", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  CHECK(c == MPI_COMM_NULL, "a communicator from the empty group");
  CHECK_OK(MPI_Session_get_info(s, &info));
  CHECK(info != MPI_INFO_NULL, "session info");
  MPI_Info_free(&info);
  CHECK_OK(MPI_Session_finalize(&s));
  CHECK(s == MPI_SESSION_NULL, "finalize resets the handle");
  MPI_Session bad = s;
  CHECK(MPI_Session_get_num_psets(bad, MPI_INFO_NULL, &n) != MPI_SUCCESS, "a finalized session is refused");
  return fy_finish();
}
