/* Error handlers: see fy_errhandler.h. */
#include "core/fy_errhandler.h"
#include "core/fy_check.h"
#include "core/fy_error.h"
#include "core/fy_comm.h"
#include "core/fy_handle.h"
#include "core/fy_init.h"
#include "core/fy_api.h"
#include "binding/fy_impl.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The four C handler types share one shape (int handles, MPICH ABI). */
typedef void eh_fn_t(int *, int *, ...);

typedef struct {
  int handle;
  int refcount;
  int kind;          /* FY_OBJ_COMM, _WIN, _FILE or _SESSION */
  eh_fn_t *fn;
} fy_errhandler_t;

static const char *const obj_name[] = {"", "communicator", "window", "file", "session"};
/* Without src/io only MPI_FILE_NULL exists: its handler is the default for
 * new files (MPI_ERRORS_RETURN, MPI 4.1 14.7). */
static MPI_Errhandler file_null_eh = MPI_ERRORS_RETURN;

__attribute__((weak)) MPI_Errhandler *fy_win_errhandler_slot(MPI_Win win) { (void)win; return NULL; }
__attribute__((weak)) MPI_Errhandler *fy_session_errhandler_slot(MPI_Session s) { (void)s; return NULL; }
__attribute__((weak)) MPI_Errhandler *fy_file_errhandler_slot(MPI_File f) {
  return f == MPI_FILE_NULL ? &file_null_eh : NULL;
}

static MPI_Errhandler *slot_of(int obj_kind, int handle) {
  fy_comm_t *c;
  switch (obj_kind) {
    case FY_OBJ_COMM: return (c = fy_comm_get(handle)) ? &c->errhandler : NULL;
    case FY_OBJ_WIN: return fy_win_errhandler_slot(handle);
    case FY_OBJ_FILE: return fy_file_errhandler_slot((MPI_File)(intptr_t)handle); /* fy_file_key() */
    case FY_OBJ_SESSION: return fy_session_errhandler_slot(handle);
    case FY_OBJ_EH_ARG: {
      static __thread MPI_Errhandler given;
      given = handle;
      return fy_errhandler_valid(handle) ? &given : NULL;
    }
  }
  return NULL;
}

static fy_htab_t eh_tab = {.obj = FY_OK_ERRHANDLER};
static __thread MPI_Comm err_obj = MPI_COMM_NULL;

void fy_err_set_obj(MPI_Comm comm) { err_obj = comm; }

int fy_errhandler_valid(MPI_Errhandler eh) {
  if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT) return 1;
  return fy_htab_get(&eh_tab, eh) != NULL;
}

int fy_err_raise(int err, int obj_kind, int handle, const char *fname) {
  /* MPI_T calls return their errors and never invoke a handler (MPI 4.1 15.3.2). */
  if (!strncmp(fname, "MPI_T_", 6)) return err;
  MPI_Errhandler eh = MPI_ERRORS_ARE_FATAL, *slot = NULL;
  int h = MPI_COMM_WORLD;
  if (obj_kind != FY_OBJ_NONE && obj_kind != FY_OBJ_COMM) {
    slot = slot_of(obj_kind, handle);
    if (slot) h = obj_kind == FY_OBJ_EH_ARG ? MPI_SESSION_NULL : handle;
    /* an invalid file handle: the default file error handler (MPI_FILE_NULL's) */
    if (!slot && obj_kind == FY_OBJ_FILE && (slot = slot_of(FY_OBJ_FILE, 0))) h = 0;
  }
  if (!slot) {
    fy_comm_t *c = NULL;
    if (obj_kind == FY_OBJ_COMM) c = fy_comm_get(handle);
    if (!c && err_obj != MPI_COMM_NULL) c = fy_comm_get(err_obj);
    if (!c && fy_state.initialized && !fy_state.finalized) c = &fy_comm_world;
    if (c) {
      slot = &c->errhandler;
      h = c->handle;
    }
  }
  err_obj = MPI_COMM_NULL;
  if (slot) eh = *slot;
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
  fy_errhandler_t *eo = fy_htab_get(&eh_tab, eh);
  if (eo && eo->fn) {
    /* The user's handler may call MPI: it runs as user code. */
    int in = fy_tls.in_mpi;
    fy_tls.in_mpi = 0;
    int code = err;
    /* a communicator handler given to the call that was to make the
     * communicator (Comm_create_from_group): there is none to name */
    if (obj_kind == FY_OBJ_EH_ARG && eo->kind == FY_OBJ_COMM) h = MPI_COMM_NULL;
    if (eo->kind == FY_OBJ_FILE) {
      MPI_File f = (MPI_File)(intptr_t)h;
      ((void (*)(MPI_File *, int *, ...))eo->fn)(&f, &code);
    } else {
      eo->fn(&h, &code);
    }
    fy_tls.in_mpi = in;
    /* the handler's second argument is the code the call returns (MPI 4.1
     * 9.3): a handler may change it, as MPICH and Open MPI let it */
    return code;
  }
  return err;
}

int fy_err_unsupported(const char *fname) {
  return fy_err(MPI_ERR_UNSUPPORTED_OPERATION, "%s is not implemented in Ferry yet", fname);
}

static int create(int kind, void *fn, MPI_Errhandler *errhandler) {
  if (!fn) return fy_err(MPI_ERR_ARG, "the %s error handler function is NULL", obj_name[kind]);
  fy_errhandler_t *h = calloc(1, sizeof *h);
  if (!h) return fy_err(MPI_ERR_NO_MEM, "out of memory creating an error handler");
  h->fn = (eh_fn_t *)fn;
  h->kind = kind;
  h->refcount = 1;
  h->handle = fy_htab_add(&eh_tab, h);
  if (!h->handle) {
    free(h);
    return fy_err(MPI_ERR_NO_MEM, "out of error handler handles");
  }
  *errhandler = h->handle;
  return MPI_SUCCESS;
}

int fy_mpi_comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler) {
  return create(FY_OBJ_COMM, (void *)fn, errhandler);
}
int fy_mpi_win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler) {
  return create(FY_OBJ_WIN, (void *)fn, errhandler);
}
int fy_mpi_file_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler) {
  return create(FY_OBJ_FILE, (void *)fn, errhandler);
}
int fy_mpi_session_create_errhandler(MPI_Session_errhandler_function *fn, MPI_Errhandler *errhandler) {
  return create(FY_OBJ_SESSION, (void *)fn, errhandler);
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

static int set_eh(int kind, int handle, MPI_Errhandler errhandler) {
  MPI_Errhandler *slot = slot_of(kind, handle);
  if (!slot)
    return fy_err(kind == FY_OBJ_WIN ? MPI_ERR_WIN : kind == FY_OBJ_FILE ? MPI_ERR_FILE : MPI_ERR_SESSION,
                  "%#x is not a valid %s", (unsigned)handle, obj_name[kind]);
  if (!fy_errhandler_valid(errhandler))
    return fy_err(MPI_ERR_ARG, "errhandler = %#x is not a valid error handler", (unsigned)errhandler);
  fy_errhandler_t *h = fy_htab_get(&eh_tab, errhandler);
  if (h && h->kind != kind)
    return fy_err(MPI_ERR_ARG, "errhandler = %#x was created for a %s, not a %s", (unsigned)errhandler,
                  obj_name[h->kind], obj_name[kind]);
  fy_errhandler_retain(errhandler);
  fy_errhandler_release(*slot);
  *slot = errhandler;
  return MPI_SUCCESS;
}

static int get_eh(int kind, int handle, MPI_Errhandler *errhandler) {
  MPI_Errhandler *slot = slot_of(kind, handle);
  if (!slot)
    return fy_err(kind == FY_OBJ_WIN ? MPI_ERR_WIN : kind == FY_OBJ_FILE ? MPI_ERR_FILE : MPI_ERR_SESSION,
                  "%#x is not a valid %s", (unsigned)handle, obj_name[kind]);
  fy_errhandler_retain(*slot);
  *errhandler = *slot;
  return MPI_SUCCESS;
}

static int call_eh(int kind, int handle, int errorcode, const char *fname) {
  if (!slot_of(kind, handle))
    return fy_err(kind == FY_OBJ_COMM ? MPI_ERR_COMM : kind == FY_OBJ_WIN ? MPI_ERR_WIN
                  : kind == FY_OBJ_FILE ? MPI_ERR_FILE : MPI_ERR_SESSION,
                  "%#x is not a valid %s", (unsigned)handle, obj_name[kind]);
  /* The handler's return is not an error of this call (MPI 4.1, 9.3). */
  fy_err_raise(errorcode, kind, handle, fname);
  return MPI_SUCCESS;
}

int fy_mpi_comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return set_eh(FY_OBJ_COMM, comm, errhandler);
}
int fy_mpi_comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) {
  return get_eh(FY_OBJ_COMM, comm, errhandler);
}
int fy_mpi_win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  return set_eh(FY_OBJ_WIN, win, errhandler);
}
int fy_mpi_win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler) {
  return get_eh(FY_OBJ_WIN, win, errhandler);
}
/* Files: the handle is the MPI_File's value (src/io); MPI_FILE_NULL holds
 * the default file error handler. */
int fy_mpi_file_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  return set_eh(FY_OBJ_FILE, fy_file_key(file), errhandler);
}
int fy_mpi_file_get_errhandler(MPI_File file, MPI_Errhandler *errhandler) {
  return get_eh(FY_OBJ_FILE, fy_file_key(file), errhandler);
}
int fy_mpi_session_set_errhandler(MPI_Session s, MPI_Errhandler errhandler) {
  return set_eh(FY_OBJ_SESSION, s, errhandler);
}
int fy_mpi_session_get_errhandler(MPI_Session s, MPI_Errhandler *errhandler) {
  return get_eh(FY_OBJ_SESSION, s, errhandler);
}

int fy_mpi_errhandler_free(MPI_Errhandler *errhandler) {
  if (!fy_errhandler_valid(*errhandler))
    return fy_err(MPI_ERR_ARG, "errhandler = %#x is not a valid error handler", (unsigned)*errhandler);
  fy_errhandler_release(*errhandler);
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int fy_mpi_comm_call_errhandler(MPI_Comm comm, int errorcode) {
  return call_eh(FY_OBJ_COMM, comm, errorcode, "MPI_Comm_call_errhandler");
}
int fy_mpi_win_call_errhandler(MPI_Win win, int errorcode) {
  return call_eh(FY_OBJ_WIN, win, errorcode, "MPI_Win_call_errhandler");
}
int fy_mpi_file_call_errhandler(MPI_File fh, int errorcode) {
  return call_eh(FY_OBJ_FILE, fy_file_key(fh), errorcode, "MPI_File_call_errhandler");
}
int fy_mpi_session_call_errhandler(MPI_Session s, int errorcode) {
  return call_eh(FY_OBJ_SESSION, s, errorcode, "MPI_Session_call_errhandler");
}

int fy_mpi_errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return fy_mpi_comm_set_errhandler(comm, errhandler);
}

int fy_mpi_errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler) {
  return fy_mpi_comm_get_errhandler(comm, errhandler);
}
