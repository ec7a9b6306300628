/* Nonblocking data access: the transfer is done when the call starts and
 * the request returned is born complete, carrying the status (bytes moved),
 * so MPI_Wait/Test and MPI_Get_count/Get_elements work on it as on any
 * request. See fy_io.h. */
#include "io/fy_io.h"
#include "core/fy_error.h"
#include "core/fy_request.h"
#include "binding/fy_impl.h"

static int done_request(MPI_Status *st, MPI_Request *request) {
  fy_request_t *r = fy_req_alloc(FY_REQ_RECV, 1);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of requests");
  r->status = *st;
  fy_req_complete(r);
  *request = r->handle;
  return MPI_SUCCESS;
}

enum { AT, INDIV, SHARED };

static int start(MPI_File fh, int how, int write, MPI_Offset offset, const void *buf, MPI_Count count,
                 MPI_Datatype dt, MPI_Request *request) {
  MPI_Status st;
  int err;
  if (!request) return fy_err(MPI_ERR_ARG, "request = NULL");
  fy_status_empty(&st);
  st.MPI_ERROR = MPI_SUCCESS;
  void *b = (void *)buf;
  switch (how) {
    case AT:
      err = write ? fy_mpi_file_write_at_c(fh, offset, b, count, dt, &st)
                  : fy_mpi_file_read_at_c(fh, offset, b, count, dt, &st);
      break;
    case INDIV:
      err = write ? fy_mpi_file_write_c(fh, b, count, dt, &st) : fy_mpi_file_read_c(fh, b, count, dt, &st);
      break;
    default:
      err = write ? fy_mpi_file_write_shared_c(fh, b, count, dt, &st)
                  : fy_mpi_file_read_shared_c(fh, b, count, dt, &st);
      break;
  }
  if (err) return err;
  return done_request(&st, request);
}

#define NB(name, how, write, CONST)                                                                     \
  int fy_mpi_file_##name##_c(MPI_File fh, CONST void *buf, MPI_Count count, MPI_Datatype dt,            \
                             MPI_Request *request) {                                                    \
    return start(fh, how, write, 0, buf, count, dt, request);                                           \
  }                                                                                                     \
  int fy_mpi_file_##name(MPI_File fh, CONST void *buf, int count, MPI_Datatype dt, MPI_Request *request) { \
    return start(fh, how, write, 0, buf, count, dt, request);                                           \
  }
#define NB_AT(name, write, CONST)                                                                       \
  int fy_mpi_file_##name##_c(MPI_File fh, MPI_Offset offset, CONST void *buf, MPI_Count count,          \
                             MPI_Datatype dt, MPI_Request *request) {                                   \
    return start(fh, AT, write, offset, buf, count, dt, request);                                       \
  }                                                                                                     \
  int fy_mpi_file_##name(MPI_File fh, MPI_Offset offset, CONST void *buf, int count, MPI_Datatype dt,   \
                         MPI_Request *request) {                                                        \
    return start(fh, AT, write, offset, buf, count, dt, request);                                       \
  }

NB(iread, INDIV, 0, )
NB(iwrite, INDIV, 1, const)
NB(iread_all, INDIV, 0, )
NB(iwrite_all, INDIV, 1, const)
NB(iread_shared, SHARED, 0, )
NB(iwrite_shared, SHARED, 1, const)
NB_AT(iread_at, 0, )
NB_AT(iwrite_at, 1, const)
NB_AT(iread_at_all, 0, )
NB_AT(iwrite_at_all, 1, const)
