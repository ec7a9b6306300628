/* Status conversion between C (MPI_Status), Fortran INTEGER arrays and
 * mpi_f08's TYPE(MPI_Status). With the MPICH ABI the three are the same
 * five ints in the same order (tests/unit/bindings/abi_print.c checks the
 * layouts), so each conversion is a copy. */
#include <string.h>
#include "binding/fy_impl.h"

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), "status layout");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "f08 status layout");

int fy_mpi_status_c2f(const MPI_Status *c_status, MPI_Fint *f_status) {
  memcpy(f_status, c_status, sizeof *c_status);
  return MPI_SUCCESS;
}
int fy_mpi_status_f2c(const MPI_Fint *f_status, MPI_Status *c_status) {
  memcpy(c_status, f_status, sizeof *c_status);
  return MPI_SUCCESS;
}
int fy_mpi_status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status) {
  memcpy(f08_status, c_status, sizeof *c_status);
  return MPI_SUCCESS;
}
int fy_mpi_status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status) {
  memcpy(c_status, f08_status, sizeof *c_status);
  return MPI_SUCCESS;
}
int fy_mpi_status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status) {
  memcpy(f_status, f08_status, sizeof *f08_status);
  return MPI_SUCCESS;
}
int fy_mpi_status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status) {
  memcpy(f08_status, f_status, sizeof *f08_status);
  return MPI_SUCCESS;
}
