/* MPI 5.0's ABI queries on a library that speaks MPICH's ABI, not the
 * standard one: MPI_Abi_get_version gives -1.-1 (before MPI_Init too, like
 * MPI_Get_version), MPI_Abi_get_info a new info object with the sizes of
 * MPI_Aint, MPI_Count and MPI_Offset, which the caller frees. */
#include "fytest.h"

static void check_info(void) {
  MPI_Info info = MPI_INFO_NULL;
  CHECK_OK(MPI_Abi_get_info(&info));
  CHECK(info != MPI_INFO_NULL, "no info object");
  const char *keys[3] = {"mpi_aint_size", "mpi_count_size", "mpi_offset_size"};
  size_t want[3] = {sizeof(MPI_Aint), sizeof(MPI_Count), sizeof(MPI_Offset)};
  for (int i = 0; i < 3; i++) {
    char v[16];
    int len = sizeof v, flag = 0;
    CHECK_OK(MPI_Info_get_string(info, keys[i], &len, v, &flag));
    CHECK(flag && (size_t)atoi(v) == want[i], "%s = %s, want %zu", keys[i], flag ? v : "(none)", want[i]);
  }
  CHECK_OK(MPI_Info_free(&info));
}

int main(int argc, char **argv) {
  int major = 0, minor = 0;
  int before = MPI_Abi_get_version(&major, &minor);
  MPI_Init(&argc, &argv);
  fy_init("env_abi");
  CHECK(before == MPI_SUCCESS && major == -1 && minor == -1, "before MPI_Init: rc %d, version %d.%d", before,
        major, minor);
  major = minor = 0;
  CHECK_OK(MPI_Abi_get_version(&major, &minor));
  CHECK(major == -1 && minor == -1, "ABI version %d.%d, want -1.-1 (MPICH's ABI)", major, minor);
  check_info();
  return fy_finish();
}
