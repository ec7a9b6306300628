#include <mpi.h>
#include <cstdio>

int main() {
  int version = 0, subversion = 0;
  MPI_Get_version(&version, &subversion);
  std::printf("C++: MPI %d.%d\n", version, subversion);
  return version >= 3 ? 0 : 1;
}
