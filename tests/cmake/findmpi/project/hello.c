#include <mpi.h>
#include <stdio.h>

int main(void) {
  int version = 0, subversion = 0;
  MPI_Get_version(&version, &subversion);
  printf("C: MPI %d.%d\n", version, subversion);
  return version >= 3 ? 0 : 1;
}
