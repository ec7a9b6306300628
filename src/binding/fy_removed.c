/* The MPI-1 functions that MPI 3.0 removed, exported as MPICH's
 * libmpi.so.12 still exports them, so that a binary built against an older
 * MPICH (whose mpi.h declared them) loads and runs on Ferry. Each is its
 * MPI-2 replacement under the old signature; mpi.h does not declare them,
 * as MPICH 4's does not: new code must use the replacements. Errors are
 * reported under the replacement's name. */
#include <mpi.h>

#define FY_REMOVED(name, params, ...)                       \
  FERRY_API_PUBLIC int P##name params;                      \
  FERRY_API_PUBLIC int P##name params { __VA_ARGS__ }       \
  _Pragma(FY_STR(weak name = P##name))
#define FY_STR(x) #x

FY_REMOVED(MPI_Address, (void *location, MPI_Aint *address),
           return PMPI_Get_address(location, address);)

FY_REMOVED(MPI_Type_hindexed,
           (int count, int blocklens[], MPI_Aint displs[], MPI_Datatype old, MPI_Datatype *newtype),
           return PMPI_Type_create_hindexed(count, blocklens, displs, old, newtype);)

FY_REMOVED(MPI_Type_hvector,
           (int count, int blocklen, MPI_Aint stride, MPI_Datatype old, MPI_Datatype *newtype),
           return PMPI_Type_create_hvector(count, blocklen, stride, old, newtype);)

FY_REMOVED(MPI_Type_struct,
           (int count, int blocklens[], MPI_Aint displs[], MPI_Datatype types[], MPI_Datatype *newtype),
           return PMPI_Type_create_struct(count, blocklens, displs, types, newtype);)

/* MPI_LB and MPI_UB markers are part of the lower bound and extent the
 * replacement reports, so lb, ub and extent are what MPI-1 defined. */
FY_REMOVED(MPI_Type_extent, (MPI_Datatype type, MPI_Aint *extent),
           MPI_Aint lb;
           return PMPI_Type_get_extent(type, &lb, extent);)

FY_REMOVED(MPI_Type_lb, (MPI_Datatype type, MPI_Aint *displacement),
           MPI_Aint extent;
           return PMPI_Type_get_extent(type, displacement, &extent);)

FY_REMOVED(MPI_Type_ub, (MPI_Datatype type, MPI_Aint *displacement),
           MPI_Aint lb, extent;
           /* (a null argument reported as the replacement's) */
           int err = PMPI_Type_get_extent(type, &lb, displacement ? &extent : (MPI_Aint *)0);
           if (err == MPI_SUCCESS) *displacement = lb + extent;
           return err;)

FY_REMOVED(MPI_Errhandler_create, (MPI_Handler_function *fn, MPI_Errhandler *errhandler),
           return PMPI_Comm_create_errhandler(fn, errhandler);)

FY_REMOVED(MPI_Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler),
           return PMPI_Comm_get_errhandler(comm, errhandler);)

FY_REMOVED(MPI_Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler),
           return PMPI_Comm_set_errhandler(comm, errhandler);)
