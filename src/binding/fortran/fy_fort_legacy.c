/* libmpifort: MPI-1 Fortran procedures removed from the standard (MPI 3.0)
 * that MPICH's libmpichfort still exports and old Fortran programs still
 * call, mapped onto their replacements. Addresses and extents are INTEGER
 * here: a value that does not fit is reported (MPI_ERR_ARG), never
 * truncated. */
#include "fy_fort.h"
#include <limits.h>

#define FY_F_LEGACY_ALIASES(l, U)                                              \
  FY_F_ALIAS(mpi_##l##_, pmpi_##l##_) FY_F_ALIAS(mpi_##l##__, pmpi_##l##_)     \
  FY_F_ALIAS(mpi_##l, pmpi_##l##_) FY_F_ALIAS(MPI_##U, pmpi_##l##_)            \
  FY_F_ALIAS(pmpi_##l##__, pmpi_##l##_) FY_F_ALIAS(pmpi_##l, pmpi_##l##_)      \
  FY_F_ALIAS(PMPI_##U, pmpi_##l##_)

static int to_fint(MPI_Aint a, MPI_Fint *out) {
  if (a < INT_MIN || a > INT_MAX)
    return MPI_ERR_ARG;
  *out = (MPI_Fint)a;
  return MPI_SUCCESS;
}

FY_F_API void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierror);
void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierror) {
  MPI_Aint a = 0;
  *ierror = MPI_Get_address(FY_F_BUF(location), &a);
  if (*ierror == MPI_SUCCESS)
    *ierror = to_fint(a, address);
}
FY_F_LEGACY_ALIASES(address, ADDRESS)

FY_F_API void pmpi_type_extent_(MPI_Datatype *t, MPI_Fint *extent, MPI_Fint *ierror);
void pmpi_type_extent_(MPI_Datatype *t, MPI_Fint *extent, MPI_Fint *ierror) {
  MPI_Aint lb = 0, ext = 0;
  *ierror = MPI_Type_get_extent(*t, &lb, &ext);
  if (*ierror == MPI_SUCCESS)
    *ierror = to_fint(ext, extent);
}
FY_F_LEGACY_ALIASES(type_extent, TYPE_EXTENT)

FY_F_API void pmpi_type_lb_(MPI_Datatype *t, MPI_Fint *lb, MPI_Fint *ierror);
void pmpi_type_lb_(MPI_Datatype *t, MPI_Fint *lb, MPI_Fint *ierror) {
  MPI_Aint l = 0, ext = 0;
  *ierror = MPI_Type_get_extent(*t, &l, &ext);
  if (*ierror == MPI_SUCCESS)
    *ierror = to_fint(l, lb);
}
FY_F_LEGACY_ALIASES(type_lb, TYPE_LB)

FY_F_API void pmpi_type_ub_(MPI_Datatype *t, MPI_Fint *ub, MPI_Fint *ierror);
void pmpi_type_ub_(MPI_Datatype *t, MPI_Fint *ub, MPI_Fint *ierror) {
  MPI_Aint l = 0, ext = 0;
  *ierror = MPI_Type_get_extent(*t, &l, &ext);
  if (*ierror == MPI_SUCCESS)
    *ierror = to_fint(l + ext, ub);
}
FY_F_LEGACY_ALIASES(type_ub, TYPE_UB)

FY_F_API void pmpi_type_hvector_(MPI_Fint *count, MPI_Fint *blen, MPI_Fint *stride,
                                 MPI_Datatype *old, MPI_Datatype *newtype, MPI_Fint *ierror);
void pmpi_type_hvector_(MPI_Fint *count, MPI_Fint *blen, MPI_Fint *stride, MPI_Datatype *old,
                        MPI_Datatype *newtype, MPI_Fint *ierror) {
  *ierror = MPI_Type_create_hvector(*count, *blen, (MPI_Aint)*stride, *old, newtype);
}
FY_F_LEGACY_ALIASES(type_hvector, TYPE_HVECTOR)

/* INTEGER displacements widened to MPI_Aint. */
static MPI_Aint *widen(const MPI_Fint *d, MPI_Fint n) {
  MPI_Aint *a = malloc(sizeof *a * (size_t)(n > 0 ? n : 1));
  if (a)
    for (MPI_Fint i = 0; i < n; i++)
      a[i] = d[i];
  return a;
}

FY_F_API void pmpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blens, MPI_Fint *disps,
                                  MPI_Datatype *old, MPI_Datatype *newtype, MPI_Fint *ierror);
void pmpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blens, MPI_Fint *disps, MPI_Datatype *old,
                         MPI_Datatype *newtype, MPI_Fint *ierror) {
  MPI_Aint *a = widen(disps, *count);
  if (!a) {
    *ierror = MPI_ERR_NO_MEM;
    return;
  }
  *ierror = MPI_Type_create_hindexed(*count, blens, a, *old, newtype);
  free(a);
}
FY_F_LEGACY_ALIASES(type_hindexed, TYPE_HINDEXED)

FY_F_API void pmpi_type_struct_(MPI_Fint *count, MPI_Fint *blens, MPI_Fint *disps,
                                MPI_Datatype *types, MPI_Datatype *newtype, MPI_Fint *ierror);
void pmpi_type_struct_(MPI_Fint *count, MPI_Fint *blens, MPI_Fint *disps, MPI_Datatype *types,
                       MPI_Datatype *newtype, MPI_Fint *ierror) {
  MPI_Aint *a = widen(disps, *count);
  if (!a) {
    *ierror = MPI_ERR_NO_MEM;
    return;
  }
  *ierror = MPI_Type_create_struct(*count, blens, a, types, newtype);
  free(a);
}
FY_F_LEGACY_ALIASES(type_struct, TYPE_STRUCT)

FY_F_API void pmpi_errhandler_create_(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh,
                                      MPI_Fint *ierror);
void pmpi_errhandler_create_(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh,
                             MPI_Fint *ierror) {
  *ierror = MPI_Comm_create_errhandler(fn, eh);
}
FY_F_LEGACY_ALIASES(errhandler_create, ERRHANDLER_CREATE)

FY_F_API void pmpi_errhandler_get_(MPI_Comm *comm, MPI_Errhandler *eh, MPI_Fint *ierror);
void pmpi_errhandler_get_(MPI_Comm *comm, MPI_Errhandler *eh, MPI_Fint *ierror) {
  *ierror = MPI_Comm_get_errhandler(*comm, eh);
}
FY_F_LEGACY_ALIASES(errhandler_get, ERRHANDLER_GET)

FY_F_API void pmpi_errhandler_set_(MPI_Comm *comm, MPI_Errhandler *eh, MPI_Fint *ierror);
void pmpi_errhandler_set_(MPI_Comm *comm, MPI_Errhandler *eh, MPI_Fint *ierror) {
  *ierror = MPI_Comm_set_errhandler(*comm, *eh);
}
FY_F_LEGACY_ALIASES(errhandler_set, ERRHANDLER_SET)
