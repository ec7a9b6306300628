/* Error handlers: see fy_errhandler.h. */
#include "core/fy_errhandler.h"
#include "core/fy_check.h"
#include "core/fy_error.h"
#include "core/fy_comm.h"
#include "core/fy_handle.h"
#include "core/fy_init.h"
#include "core/fy_api.h"
#include "binding/fy_impl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int handle;
  int refcount;
  MPI_Comm_errhandler_function *fn;
} fy_errhandler_t;

static fy_htab_t eh_tab = {.obj = FY_OK_ERRHANDLER};
static __thread MPI_Comm err_obj = MPI_COMM_NULL;

void fy_err_set_obj(MPI_Comm comm) { err_obj = comm; }

int fy_errhandler_valid(MPI_Errhandler eh) {
  if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT) return 1;
  return fy_htab_get(&eh_tab, eh) != NULL;
}

int fy_err_raise(int err, int obj_kind, int handle, const char *fname) {
  MPI_Errhandler eh = MPI_ERRORS_ARE_FATAL;
  MPI_Comm comm = MPI_COMM_WORLD;
  fy_comm_t *c = NULL;
  if (obj_kind == FY_OBJ_COMM) c = fy_comm_get(handle);
  if (!c && err_obj != MPI_COMM_NULL) c = fy_comm_get(err_obj);
  err_obj = MPI_COMM_NULL;
  if (!c && fy_state.initialized && !fy_state.finalized) c = &fy_comm_world;
  if (c) {
    eh = c->errhandler;
    comm = c->handle;
  }
  if (eh == MPI_ERRORS_RETURN) return err;
  if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT) {
    char msg[MPI_MAX_ERROR_STRING + 256];
    char es[MPI_MAX_ERROR_STRING];
    int len;
    fy_err_string(err, es, &len);
    snprintf(msg, sizeof msg, "%s failed on rank %d: %s", fname,
             fy_state.initialized ? fy_state.world_rank : 0, es);
    fy_abort(err & 0x7f ? (err & 0x7f) : 1, msg);
  }
  fy_errhandler_t *h = fy_htab_get(&eh_tab, eh);
  if (h && h->fn) {
    /* The user's handler may call MPI: it runs as user code. */
    int in = fy_tls.in_mpi;
    fy_tls.in_mpi = 0;
    int code = err;
    h->fn(&comm, &code);
    fy_tls.in_mpi = in;
  }
  return err;
}

int fy_err_unsupported(const char *fname) {
  return fy_err(MPI_ERR_UNSUPPORTED_OPERATION, "%s is not implemented in Ferry yet", fname);
}

int fy_mpi_comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler) {
  if (!fn) return fy_err(MPI_ERR_ARG, "comm_errhandler_fn is NULL");
  fy_errhandler_t *h = calloc(1, sizeof *h);
  if (!h) return fy_err(MPI_ERR_NO_MEM, "out of memory creating an error handler");
  h->fn = fn;
  h->refcount = 1;
  h->handle = fy_htab_add(&eh_tab, h);
  if (!h->handle) {
    free(h);
    return fy_err(MPI_ERR_NO_MEM, "out of error handler handles");
  }
  *errhandler = h->handle;
  return MPI_SUCCESS;
}

void fy_errhandler_retain(MPI_Errhandler eh) {
  fy_errhandler_t *h = fy_htab_get(&eh_tab, eh);
  if (h) h->refcount++;
}

void fy_errhandler_release(MPI_Errhandler eh) {
  fy_errhandler_t *h = fy_htab_get(&eh_tab, eh);
  if (h && --h->refcount == 0) {
    fy_htab_remove(&eh_tab, eh);
    free(h);
  }
}

int fy_mpi_comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  fy_comm_t *c = fy_comm_get(comm);
  if (!fy_errhandler_valid(errhandler))
    return fy_err(MPI_ERR_ARG, "errhandler = %#x is not a valid error handler", (unsigned)errhandler);
  fy_errhandler_retain(errhandler);
  fy_errhandler_release(c->errhandler);
  c->errhandler = errhandler;
  return MPI_SUCCESS;
}

int fy_mpi_comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) {
  fy_comm_t *c = fy_comm_get(comm);
  fy_errhandler_retain(c->errhandler);
  *errhandler = c->errhandler;
  return MPI_SUCCESS;
}

int fy_mpi_errhandler_free(MPI_Errhandler *errhandler) {
  if (!fy_errhandler_valid(*errhandler))
    return fy_err(MPI_ERR_ARG, "errhandler = %#x is not a valid error handler", (unsigned)*errhandler);
  fy_errhandler_release(*errhandler);
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int fy_mpi_comm_call_errhandler(MPI_Comm comm, int errorcode) {
  /* The handler's return is not an error of this call (MPI 4.0, 9.3). */
  fy_err_raise(errorcode, FY_OBJ_COMM, comm, "MPI_Comm_call_errhandler");
  return MPI_SUCCESS;
}

int fy_mpi_errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return fy_mpi_comm_set_errhandler(comm, errhandler);
}

int fy_mpi_errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler) {
  return fy_mpi_comm_get_errhandler(comm, errhandler);
}

/* ---- error classes and strings ---- */

#define USER_FIRST 80
#define USER_MAX 48
static char *user_text[USER_MAX];
static int user_last = USER_FIRST - 1; /* last user class allocated */

const char *fy_user_err_string(int code) {
  int cls = code & 0x7f;
  if (code >= 0 && cls >= USER_FIRST && cls <= user_last && (code >> 8) == 0)
    return user_text[cls - USER_FIRST] ? user_text[cls - USER_FIRST] : "";
  return NULL;
}

int fy_mpi_add_error_class(int *errorclass) {
  if (user_last + 1 >= USER_FIRST + USER_MAX)
    return fy_err(MPI_ERR_OTHER, "no more user error classes (at most %d)", USER_MAX);
  *errorclass = ++user_last;
  return MPI_SUCCESS;
}

int fy_mpi_add_error_code(int errorclass, int *errorcode) {
  if (errorclass < USER_FIRST || errorclass > user_last)
    return fy_err(MPI_ERR_ARG, "errorclass = %d is not a user error class", errorclass);
  /* Ferry keeps one code per user class: the class itself. */
  *errorcode = errorclass;
  return MPI_SUCCESS;
}

int fy_mpi_add_error_string(int errorcode, const char *string) {
  int cls = errorcode & 0x7f;
  if (errorcode < USER_FIRST || cls > user_last)
    return fy_err(MPI_ERR_ARG, "errorcode = %d is not a user error code", errorcode);
  free(user_text[cls - USER_FIRST]);
  user_text[cls - USER_FIRST] = strndup(string, MPI_MAX_ERROR_STRING - 1);
  return MPI_SUCCESS;
}

int fy_mpi_error_class(int errorcode, int *errorclass) {
  if (!fy_err_valid_code(errorcode) ||
      ((errorcode & 0x7f) >= USER_FIRST && (errorcode & 0x7f) > user_last))
    return fy_err(MPI_ERR_ARG, "errorcode = %d is not a valid error code", errorcode);
  *errorclass = fy_err_class_of(errorcode);
  return MPI_SUCCESS;
}

int fy_mpi_error_string(int errorcode, char *string, int *resultlen) {
  if (!fy_err_valid_code(errorcode) ||
      ((errorcode & 0x7f) >= USER_FIRST && (errorcode & 0x7f) > user_last))
    return fy_err(MPI_ERR_ARG, "errorcode = %d is not a valid error code", errorcode);
  fy_err_string(errorcode, string, resultlen);
  return MPI_SUCCESS;
}
