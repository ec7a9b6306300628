/* Data and function symbols that mpi.h (like MPICH's) names directly, so
 * programs built against the MPICH ABI resolve them in libmpi.so.12. */
#include <mpi.h>
#include <string.h>

int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag) {
  (void)oldcomm; (void)keyval; (void)extra_state;
  *(void **)attribute_val_out = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

/* Sentinel addresses: only their identity matters. */
int MPIR_F08_MPI_BOTTOM;
int MPIR_F08_MPI_IN_PLACE;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;
MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
static MPI_Fint f_status_ignore[6], f_statuses_ignore[6];
MPI_Fint *MPI_F_STATUSES_IGNORE = f_statuses_ignore;
MPI_Fint *MPI_F_STATUS_IGNORE = f_status_ignore;
MPI_T_pvar_handle const MPI_T_PVAR_ALL_HANDLES = (MPI_T_pvar_handle)(-1);
static int unweighted_sentinel, weights_empty_sentinel;
int *const MPI_UNWEIGHTED = &unweighted_sentinel;
int *const MPI_WEIGHTS_EMPTY = &weights_empty_sentinel;
