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
#include "core/fy_init.h"
#include "core/fy_comm.h"
#include "datatype/fy_datatype.h"

/* FY_OBJ_EH_ARG: the handle is an error handler passed as an argument
 * (MPI_Session_init's), invoked with MPI_SESSION_NULL. */
enum { FY_OBJ_NONE = 0, FY_OBJ_COMM, FY_OBJ_WIN, FY_OBJ_FILE, FY_OBJ_SESSION, FY_OBJ_EH_ARG };

/* The checks every communication call makes are inline: a valid argument
 * costs a compare or two; the *_fail functions (fy_check.c) format the
 * error. */
int fy_check_initialized_fail(const char *fname);
int fy_check_comm_fail(MPI_Comm comm, const char *arg);
int fy_check_count_fail(MPI_Count count, const char *arg);
int fy_check_datatype_fail(MPI_Datatype type, const char *arg);
int fy_check_buf_fail(MPI_Count count, MPI_Datatype type, const char *arg); /* buf = NULL */
int fy_check_rank_fail(MPI_Comm comm, int rank, const char *arg, int allow_null, int allow_any);
int fy_check_ptr_fail(const char *arg);
#define FY_LIKELY(x) __builtin_expect(!!(x), 1)

/* MPI_ERR_OTHER before Init / after Finalize */
static inline int fy_check_initialized(const char *fname) {
  if (FY_LIKELY(fy_state.initialized && !fy_state.finalized)) return MPI_SUCCESS;
  return fy_check_initialized_fail(fname);
}
static inline int fy_check_comm(MPI_Comm comm, const char *arg) {
  if (FY_LIKELY(fy_comm_get(comm) != NULL)) return MPI_SUCCESS;
  return fy_check_comm_fail(comm, arg);
}
int fy_check_intracomm(MPI_Comm comm, const char *arg);
static inline int fy_check_count(MPI_Count count, const char *arg) {
  if (FY_LIKELY(count >= 0)) return MPI_SUCCESS;
  return fy_check_count_fail(count, arg);
}
/* A datatype that must also be committed */
static inline int fy_check_datatype(MPI_Datatype type, const char *arg) {
  fy_datatype_t *t = fy_type_get(type);
  if (FY_LIKELY(t && t->committed)) return MPI_SUCCESS;
  return fy_check_datatype_fail(type, arg);
}
int fy_check_datatype_uncommitted(MPI_Datatype type, const char *arg); /* constructors, Type_commit */
static inline int fy_check_buf(const void *buf, MPI_Count count, MPI_Datatype type, const char *arg) {
  if (FY_LIKELY(buf || count == 0)) return MPI_SUCCESS;
  return fy_check_buf_fail(count, type, arg);
}
/* A rank of the communicator's peer group; a NULL communicator passes (the
 * communicator check reports it). */
static inline int fy_check_rank(MPI_Comm comm, int rank, const char *arg, int allow_null, int allow_any) {
  fy_comm_t *c = fy_comm_get(comm);
  if (FY_LIKELY(!c || ((unsigned)rank < (unsigned)fy_comm_peer_size(c)))) return MPI_SUCCESS;
  return fy_check_rank_fail(comm, rank, arg, allow_null, allow_any);
}
/* [0,size) or PROC_NULL */
static inline int fy_check_rank_dest(MPI_Comm comm, int rank, const char *arg) {
  return fy_check_rank(comm, rank, arg, 1, 0);
}
/* also ANY_SOURCE */
static inline int fy_check_rank_source(MPI_Comm comm, int rank, const char *arg) {
  return fy_check_rank(comm, rank, arg, 1, 1);
}
int fy_check_rank_root(MPI_Comm comm, int rank, const char *arg);   /* [0,size) */
int fy_check_tag_fail(int tag, const char *arg);
/* [0, MPI_TAG_UB] (MPI_TAG_UB is INT_MAX) */
static inline int fy_check_tag_send(int tag, const char *arg) {
  if (FY_LIKELY(tag >= 0)) return MPI_SUCCESS;
  return fy_check_tag_fail(tag, arg);
}
/* also MPI_ANY_TAG */
static inline int fy_check_tag_recv(int tag, const char *arg) {
  if (FY_LIKELY(tag >= 0 || tag == MPI_ANY_TAG)) return MPI_SUCCESS;
  return fy_check_tag_fail(tag, arg);
}
/* MPI_ERR_ARG on NULL */
static inline int fy_check_ptr(const void *p, const char *arg) {
  if (FY_LIKELY(p != NULL)) return MPI_SUCCESS;
  return fy_check_ptr_fail(arg);
}
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
