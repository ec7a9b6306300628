/* The C half of f08_attrlang: reads and sets attributes on a communicator
 * from C, as a C library called from a Fortran program would. */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* 1 when C finds the attribute under keyval on comm and it points to an
 * MPI_Aint equal to expected (an attribute Fortran set: MPI 4.1 19.3.7). */
int fyt_c_attr_is(MPI_Fint comm, MPI_Fint keyval, MPI_Aint expected);
int fyt_c_attr_is(MPI_Fint comm, MPI_Fint keyval, MPI_Aint expected) {
  MPI_Aint *val = NULL;
  int flag = 0;
  if (MPI_Comm_get_attr(MPI_Comm_f2c(comm), keyval, &val, &flag) != MPI_SUCCESS || !flag || !val) return 0;
  return *val == expected;
}

/* Sets the attribute under keyval on comm from C, to the address of a
 * static variable, and returns that address (what Fortran must get). */
static int target;
MPI_Aint fyt_c_attr_set(MPI_Fint comm, MPI_Fint keyval);
MPI_Aint fyt_c_attr_set(MPI_Fint comm, MPI_Fint keyval) {
  if (MPI_Comm_set_attr(MPI_Comm_f2c(comm), keyval, &target) != MPI_SUCCESS) return 0;
  return (MPI_Aint)(intptr_t)&target;
}
