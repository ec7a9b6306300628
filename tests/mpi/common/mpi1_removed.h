/* The MPI-1 functions MPI 3.0 removed, with MPI-1's prototypes: Ferry's
 * libmpi.so.12 exports them, as MPICH's does, but mpi.h does not declare
 * them. For tests/mpi/datatype/removed.c, and scripts/mpich_tests.py
 * copies it for MPICH's test programs that call them. */
int MPI_Address(void *location, MPI_Aint *address);
int MPI_Type_hindexed(int, int[], MPI_Aint[], MPI_Datatype, MPI_Datatype *);
int MPI_Type_hvector(int, int, MPI_Aint, MPI_Datatype, MPI_Datatype *);
int MPI_Type_struct(int, int[], MPI_Aint[], MPI_Datatype[], MPI_Datatype *);
int MPI_Type_extent(MPI_Datatype, MPI_Aint *);
int MPI_Type_lb(MPI_Datatype, MPI_Aint *);
int MPI_Type_ub(MPI_Datatype, MPI_Aint *);
int MPI_Errhandler_create(MPI_Handler_function *, MPI_Errhandler *);
int MPI_Errhandler_get(MPI_Comm, MPI_Errhandler *);
int MPI_Errhandler_set(MPI_Comm, MPI_Errhandler);
