/* Argument checks and error raising used by the generated bindings
 * (src/binding/c/). Contract:
 * - Every fy_check_* returns MPI_SUCCESS or an error code whose class is the
 *   standard one for that argument and whose MPI_Error_string names the
 *   argument (`arg`) and the offending value.
 * - fy_err_raise() invokes the error handler that the standard designates:
 *   the communicator's (obj_kind FY_OBJ_COMM), window's or file's; with
 *   FY_OBJ_NONE the object the implementation recorded for this error
 *   (e.g. a request's communicator), else MPI_COMM_WORLD's. It returns the
 *   code to hand back to the caller (ERRORS_ARE_FATAL does not return).
 * - fy_err_unsupported() returns MPI_ERR_UNSUPPORTED_OPERATION with a message
 *   naming the function.
 * - Implementations of MPI functions are named fy_mpi_<name in lower case>
 *   (MPI_Comm_rank -> fy_mpi_comm_rank) with the MPI signature; the
 *   generated code provides weak defaults that return fy_err_unsupported(),
 *   so an unimplemented function exists and says so. */
#ifndef FY_CHECK_H
#define FY_CHECK_H
#include <mpi.h>
#include <stdint.h>

/* FY_OBJ_EH_ARG: the handle is an error handler passed as an argument
 * (MPI_Session_init's), invoked with MPI_SESSION_NULL. */
enum { FY_OBJ_NONE = 0, FY_OBJ_COMM, FY_OBJ_WIN, FY_OBJ_FILE, FY_OBJ_SESSION, FY_OBJ_EH_ARG };

int fy_check_initialized(const char *fname); /* MPI_ERR_OTHER before Init / after Finalize */
int fy_check_comm(MPI_Comm comm, const char *arg);
int fy_check_intracomm(MPI_Comm comm, const char *arg);
int fy_check_count(MPI_Count count, const char *arg);
int fy_check_datatype(MPI_Datatype type, const char *arg); /* also must be committed */
int fy_check_datatype_uncommitted(MPI_Datatype type, const char *arg); /* constructors, Type_commit */
int fy_check_buf(const void *buf, MPI_Count count, MPI_Datatype type, const char *arg);
int fy_check_rank_dest(MPI_Comm comm, int rank, const char *arg);   /* [0,size) or PROC_NULL */
int fy_check_rank_source(MPI_Comm comm, int rank, const char *arg); /* also ANY_SOURCE */
int fy_check_rank_root(MPI_Comm comm, int rank, const char *arg);   /* [0,size) */
int fy_check_tag_send(int tag, const char *arg);  /* [0, MPI_TAG_UB] */
int fy_check_tag_recv(int tag, const char *arg);  /* also MPI_ANY_TAG */
int fy_check_ptr(const void *p, const char *arg); /* MPI_ERR_ARG on NULL */
int fy_check_op(MPI_Op op, const char *arg);
int fy_check_group(MPI_Group group, const char *arg);
int fy_check_info(MPI_Info info, const char *arg);       /* MPI_INFO_NULL allowed */
int fy_check_errhandler(MPI_Errhandler eh, const char *arg);
int fy_check_win(MPI_Win win, const char *arg);

int fy_err_raise(int err, int obj_kind, int handle, const char *fname);
/* A file's int handle: an MPI_File's value is its handle (src/io/fy_io.h). */
static inline int fy_file_key(MPI_File f) { return (int)(intptr_t)f; }
int fy_err_unsupported(const char *fname);
#endif
