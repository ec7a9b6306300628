/* Communicators from groups and by type: MPI_Comm_create (one group, and
 * disjoint groups per process), MPI_Comm_create_group (only members call),
 * MPI_Comm_split_type (SHARED, HW_GUIDED with mpi_hw_resource_type,
 * UNDEFINED), dup_with_info / idup / set_info / get_info, names, compare,
 * disconnect; error classes for bad input. */
#include "fytest.h"
#include <string.h>

static void ring(MPI_Comm c, int tag) {
  int r, s;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &s);
  int v = r * 10 + tag, got = -1;
  CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % s, tag, &got, 1, MPI_INT, (r + s - 1) % s, tag, c,
                        MPI_STATUS_IGNORE));
  CHECK(got == ((r + s - 1) % s) * 10 + tag, "ring(tag %d) got %d", tag, got);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("comm_create");
  int rank, size, rc, res;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Group world, evens, mine;
  MPI_Comm_group(MPI_COMM_WORLD, &world);

  /* Comm_create with the even ranks */
  int ev[64], nev = 0;
  for (int i = 0; i < size; i += 2) ev[nev++] = i;
  MPI_Group_incl(world, nev, ev, &evens);
  MPI_Comm c;
  CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
  if (rank % 2) {
    CHECK(c == MPI_COMM_NULL, "odd rank got a communicator");
  } else {
    int r, s;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    CHECK(r == rank / 2 && s == nev, "evens: rank %d size %d", r, s);
    ring(c, 1);
    CHECK_OK(MPI_Comm_free(&c));
  }
  /* Comm_create with disjoint groups: each process names its own half */
  int half[64], nh = 0;
  for (int i = 0; i < size; i++)
    if ((i < size / 2) == (rank < size / 2)) half[nh++] = i;
  MPI_Group_incl(world, nh, half, &mine);
  CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, mine, &c));
  CHECK(c != MPI_COMM_NULL, "disjoint create gave MPI_COMM_NULL");
  if (c != MPI_COMM_NULL) {
    int s;
    MPI_Comm_size(c, &s);
    CHECK(s == nh, "half size %d, expected %d", s, nh);
    ring(c, 2);
    MPI_Comm_compare(c, MPI_COMM_WORLD, &res);
    CHECK(res == (nh == size ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(half, world) = %d", res);
    CHECK_OK(MPI_Comm_free(&c));
  }
  /* Comm_create_group: only the evens call it, twice in a row */
  if (rank % 2 == 0) {
    for (int k = 0; k < 2; k++) {
      CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 5 + k, &c));
      CHECK(c != MPI_COMM_NULL, "create_group gave MPI_COMM_NULL");
      if (c != MPI_COMM_NULL) {
        ring(c, 3 + k);
        CHECK_OK(MPI_Comm_free(&c));
      }
    }
  }
  /* a group with a process not in the communicator */
  if (size > 1) {
    MPI_Comm sub;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0, 0, &sub));
    rc = MPI_Comm_create(sub, world, &c);
    CHECK_CLASS(rc, MPI_ERR_GROUP);
    MPI_Comm_free(&sub);
  }
  rc = MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c);
  CHECK_CLASS(rc, MPI_ERR_GROUP);

  /* split_type */
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &c));
  {
    int r, s;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    CHECK(s == size && r == size - 1 - rank, "shared: rank %d size %d", r, s);
    ring(c, 6);
    CHECK_OK(MPI_Comm_free(&c));
  }
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                               MPI_INFO_NULL, &c));
  CHECK((rank == 0) == (c == MPI_COMM_NULL), "split_type UNDEFINED");
  if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  MPI_Info hw;
  MPI_Info_create(&hw);
  MPI_Info_set(hw, "mpi_hw_resource_type", "mpi_shared_memory");
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hw, &c));
  CHECK(c != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory gave MPI_COMM_NULL");
  if (c != MPI_COMM_NULL) {
    int s;
    MPI_Comm_size(c, &s);
    CHECK(s == size, "HW_GUIDED shared memory size %d", s);
    MPI_Comm_free(&c);
  }
  MPI_Info_set(hw, "mpi_hw_resource_type", "Machine");
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hw, &c));
  if (c != MPI_COMM_NULL) {
    ring(c, 7);
    MPI_Comm_free(&c);
  }
  MPI_Info_set(hw, "mpi_hw_resource_type", "no-such-resource");
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hw, &c));
  CHECK(c == MPI_COMM_NULL, "an unknown resource type gave a communicator");
  MPI_Info_free(&hw);
  rc = MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c);
  CHECK_CLASS(rc, MPI_ERR_ARG);

  /* dup_with_info, get_info, idup, names */
  MPI_Info in, out;
  MPI_Info_create(&in);
  MPI_Info_set(in, "mpi_assert_no_any_tag", "true");
  CHECK_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, in, &c));
  MPI_Info_free(&in);
  CHECK_OK(MPI_Comm_get_info(c, &out));
  char v[64];
  int flag = 0, len = sizeof v;
  MPI_Info_get_string(out, "mpi_assert_no_any_tag", &len, v, &flag);
  CHECK(flag && strcmp(v, "true") == 0, "get_info lost the hint");
  MPI_Info_free(&out);
  MPI_Comm d;
  MPI_Request q;
  CHECK_OK(MPI_Comm_idup(c, &d, &q));
  CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
  CHECK(q == MPI_REQUEST_NULL, "idup request not freed by wait");
  ring(d, 8);
  MPI_Comm_compare(c, d, &res);
  CHECK(res == MPI_CONGRUENT, "compare(dup, idup) = %d", res);
  char name[MPI_MAX_OBJECT_NAME];
  CHECK_OK(MPI_Comm_set_name(d, "my comm"));
  MPI_Comm_get_name(d, name, &len);
  CHECK(strcmp(name, "my comm") == 0 && len == 7, "name '%s'", name);
  MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "name '%s'", name);
  CHECK_OK(MPI_Comm_set_info(d, MPI_INFO_ENV));
  CHECK_OK(MPI_Comm_free(&c));
  CHECK_OK(MPI_Comm_disconnect(&d));
  CHECK(d == MPI_COMM_NULL, "disconnect did not null the handle");

  /* errors */
  rc = MPI_Comm_free(&(MPI_Comm){MPI_COMM_WORLD});
  CHECK_CLASS(rc, MPI_ERR_COMM);
  MPI_Comm nul = MPI_COMM_NULL;
  rc = MPI_Comm_free(&nul);
  CHECK_CLASS(rc, MPI_ERR_COMM);
  rc = MPI_Comm_dup(MPI_COMM_NULL, &c);
  CHECK_CLASS(rc, MPI_ERR_COMM);
  int inter = -1;
  MPI_Comm_test_inter(MPI_COMM_WORLD, &inter);
  CHECK(inter == 0, "world is an intercommunicator?");
  rc = MPI_Comm_remote_size(MPI_COMM_WORLD, &res);
  CHECK_CLASS(rc, MPI_ERR_COMM);
  MPI_Group_free(&evens);
  MPI_Group_free(&mine);
  MPI_Group_free(&world);
  return fy_finish();
}
