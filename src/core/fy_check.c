/* Argument checks for the generated bindings: see fy_check.h. */
#include "core/fy_check.h"
#include "core/fy_group.h"
#include "core/fy_error.h"
#include "core/fy_comm.h"
#include "datatype/fy_datatype.h"
#include "core/fy_errhandler.h"
#include "core/fy_init.h"
#include "core/fy_handle.h"

int fy_check_initialized_fail(const char *fname) {
  if (!fy_state.initialized)
    return fy_err(MPI_ERR_OTHER, "%s called before MPI_Init (or MPI_Session_init)", fname);
  if (fy_state.finalized)
    return fy_err(MPI_ERR_OTHER, "%s called after MPI_Finalize", fname);
  return MPI_SUCCESS;
}

int fy_check_comm_fail(MPI_Comm comm, const char *arg) {
  if (comm == MPI_COMM_NULL) return fy_err(MPI_ERR_COMM, "%s = MPI_COMM_NULL", arg);
  return fy_err(MPI_ERR_COMM, "%s = %#x is not a valid communicator", arg, (unsigned)comm);
}

int fy_check_intracomm(MPI_Comm comm, const char *arg) {
  int err = fy_check_comm(comm, arg);
  if (err) return err;
  if (fy_comm_get(comm)->is_inter)
    return fy_err(MPI_ERR_COMM, "%s = %s is an intercommunicator", arg, fy_comm_get(comm)->name);
  return MPI_SUCCESS;
}

int fy_check_count_fail(MPI_Count count, const char *arg) {
  return fy_err(MPI_ERR_COUNT, "%s = %lld is negative", arg, (long long)count);
}

int fy_check_datatype_uncommitted(MPI_Datatype type, const char *arg) {
  if (type == MPI_DATATYPE_NULL) return fy_err(MPI_ERR_TYPE, "%s = MPI_DATATYPE_NULL", arg);
  if (!fy_type_get(type))
    return fy_err(MPI_ERR_TYPE, "%s = %#x is not a valid datatype", arg, (unsigned)type);
  return MPI_SUCCESS;
}

int fy_check_datatype_fail(MPI_Datatype type, const char *arg) {
  if (!fy_type_get(type)) return fy_check_datatype_uncommitted(type, arg); /* NULL or invalid: its message */
  return fy_err(MPI_ERR_TYPE, "%s = %#x has not been committed (MPI_Type_commit)", arg,
                (unsigned)type);
}

int fy_check_buf_fail(MPI_Count count, MPI_Datatype type, const char *arg) {
  /* NULL is MPI_BOTTOM: legal only when the type carries absolute addresses,
   * which no type of this release does unless its true lower bound moves it. */
  fy_datatype_t *t = fy_type_get(type);
  if (t && t->true_lb != 0) return MPI_SUCCESS;
  if (t && t->size == 0) return MPI_SUCCESS;
  return fy_err(MPI_ERR_BUFFER, "%s = NULL with count = %lld", arg, (long long)count);
}

int fy_check_rank_fail(MPI_Comm comm, int rank, const char *arg, int allow_null, int allow_any) {
  fy_comm_t *c = fy_comm_get(comm);
  if (!c) return MPI_SUCCESS; /* the communicator check reports it */
  int n = fy_comm_peer_size(c); /* an intercommunicator addresses its remote group */
  if (rank >= 0 && rank < n) return MPI_SUCCESS;
  if (allow_null && rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (allow_any && rank == MPI_ANY_SOURCE) return MPI_SUCCESS;
  return fy_err(MPI_ERR_RANK, "%s = %d is not a rank of %s (%s %d)", arg, rank, c->name,
                c->is_inter ? "remote size" : "size", n);
}


int fy_check_rank_root(MPI_Comm comm, int rank, const char *arg) {
  fy_comm_t *c = fy_comm_get(comm);
  if (!c || (rank >= 0 && rank < fy_comm_peer_size(c))) return MPI_SUCCESS;
  /* intercommunicator collectives: the root's group says MPI_ROOT, its peers PROC_NULL */
  if (c->is_inter && (rank == MPI_ROOT || rank == MPI_PROC_NULL)) return MPI_SUCCESS;
  return fy_err(MPI_ERR_ROOT, "%s = %d is not a rank of %s (size %d)", arg, rank, c->name, c->size);
}

int fy_check_tag_fail(int tag, const char *arg) {
  return fy_err(MPI_ERR_TAG, "%s = %d is negative", arg, tag);
}

int fy_check_ptr_fail(const char *arg) {
  return fy_err(MPI_ERR_ARG, "%s = NULL", arg);
}

int fy_check_op(MPI_Op op, const char *arg) {
  if (op == MPI_OP_NULL) return fy_err(MPI_ERR_OP, "%s = MPI_OP_NULL", arg);
  if (fy_h_obj(op) != FY_OK_OP)
    return fy_err(MPI_ERR_OP, "%s = %#x is not a valid operation", arg, (unsigned)op);
  return MPI_SUCCESS;
}

int fy_check_group(MPI_Group group, const char *arg) {
  if (group == MPI_GROUP_NULL) return fy_err(MPI_ERR_GROUP, "%s = MPI_GROUP_NULL", arg);
  if (fy_h_obj(group) != FY_OK_GROUP || !fy_group_get(group))
    return fy_err(MPI_ERR_GROUP, "%s = %#x is not a valid group", arg, (unsigned)group);
  return MPI_SUCCESS;
}

int fy_check_info(MPI_Info info, const char *arg) {
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  if (fy_h_obj(info) != FY_OK_INFO)
    return fy_err(MPI_ERR_INFO, "%s = %#x is not a valid info object", arg, (unsigned)info);
  return MPI_SUCCESS;
}

int fy_check_errhandler(MPI_Errhandler eh, const char *arg) {
  if (eh == MPI_ERRHANDLER_NULL) return fy_err(MPI_ERR_ARG, "%s = MPI_ERRHANDLER_NULL", arg);
  if (!fy_errhandler_valid(eh))
    return fy_err(MPI_ERR_ARG, "%s = %#x is not a valid error handler", arg, (unsigned)eh);
  return MPI_SUCCESS;
}

/* The RMA layer (src/rma/win.c) defines the strong version. */
__attribute__((weak)) int fy_win_exists(MPI_Win win) {
  (void)win;
  return 0;
}

int fy_check_win(MPI_Win win, const char *arg) {
  if (fy_h_obj(win) != FY_OK_WIN || fy_h_kind(win) == FY_HK_INVALID || !fy_win_exists(win))
    return fy_err(MPI_ERR_WIN, "%s = %#x is not a valid window", arg, (unsigned)win);
  return MPI_SUCCESS;
}
