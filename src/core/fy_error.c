/* Error codes and messages: see fy_error.h. */
#include "core/fy_error.h"
#include "core/fy_api.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define RING 256
/* (with the class's text before it, what MPI_Error_string gives must fit
 * MPI_MAX_ERROR_STRING: a mismatch of fabric settings names both ranks'
 * settings, 360 characters and more) */
#define MSGLEN (MPI_MAX_ERROR_STRING - 32)

typedef struct {
  unsigned serial;
  char msg[MSGLEN];
} err_slot_t;

static err_slot_t ring[RING];
static unsigned next_serial = 1;

static const char *const class_text[] = {
  [MPI_SUCCESS] = "No MPI error",
  [MPI_ERR_BUFFER] = "Invalid buffer pointer",
  [MPI_ERR_COUNT] = "Invalid count argument",
  [MPI_ERR_TYPE] = "Invalid datatype argument",
  [MPI_ERR_TAG] = "Invalid tag argument",
  [MPI_ERR_COMM] = "Invalid communicator",
  [MPI_ERR_RANK] = "Invalid rank",
  [MPI_ERR_ROOT] = "Invalid root",
  [MPI_ERR_GROUP] = "Invalid group",
  [MPI_ERR_OP] = "Invalid reduce operation",
  [MPI_ERR_TOPOLOGY] = "Invalid topology",
  [MPI_ERR_DIMS] = "Invalid dimension argument",
  [MPI_ERR_ARG] = "Invalid argument",
  [MPI_ERR_UNKNOWN] = "Unknown error",
  [MPI_ERR_TRUNCATE] = "Message truncated",
  [MPI_ERR_OTHER] = "Other MPI error",
  [MPI_ERR_INTERN] = "Internal MPI error",
  [MPI_ERR_IN_STATUS] = "Error code is in status",
  [MPI_ERR_PENDING] = "Pending request",
  [MPI_ERR_REQUEST] = "Invalid request",
  [MPI_ERR_ACCESS] = "Permission denied",
  [MPI_ERR_AMODE] = "Invalid file access mode",
  [MPI_ERR_BAD_FILE] = "Invalid file name",
  [MPI_ERR_CONVERSION] = "Data conversion failed",
  [MPI_ERR_DUP_DATAREP] = "Duplicate data representation",
  [MPI_ERR_FILE_EXISTS] = "File exists",
  [MPI_ERR_FILE_IN_USE] = "File in use",
  [MPI_ERR_FILE] = "Invalid file handle",
  [MPI_ERR_INFO] = "Invalid info object",
  [MPI_ERR_INFO_KEY] = "Invalid info key",
  [MPI_ERR_INFO_VALUE] = "Invalid info value",
  [MPI_ERR_INFO_NOKEY] = "Info key not defined",
  [MPI_ERR_IO] = "I/O error",
  [MPI_ERR_NAME] = "Service name not published",
  [MPI_ERR_NO_MEM] = "Out of memory",
  [MPI_ERR_NOT_SAME] = "Collective argument not identical on all processes",
  [MPI_ERR_NO_SPACE] = "Not enough space",
  [MPI_ERR_NO_SUCH_FILE] = "No such file",
  [MPI_ERR_PORT] = "Invalid port name",
  [MPI_ERR_QUOTA] = "Quota exceeded",
  [MPI_ERR_READ_ONLY] = "Read-only file or file system",
  [MPI_ERR_SERVICE] = "Invalid service name",
  [MPI_ERR_SPAWN] = "Spawn failed",
  [MPI_ERR_UNSUPPORTED_DATAREP] = "Unsupported data representation",
  [MPI_ERR_UNSUPPORTED_OPERATION] = "Operation not supported",
  [MPI_ERR_WIN] = "Invalid window",
  [MPI_ERR_BASE] = "Invalid base address",
  [MPI_ERR_LOCKTYPE] = "Invalid lock type",
  [MPI_ERR_KEYVAL] = "Invalid keyval",
  [MPI_ERR_RMA_CONFLICT] = "Conflicting RMA accesses",
  [MPI_ERR_RMA_SYNC] = "Wrong RMA synchronization",
  [MPI_ERR_SIZE] = "Invalid size",
  [MPI_ERR_DISP] = "Invalid displacement",
  [MPI_ERR_ASSERT] = "Invalid assert",
  [MPI_ERR_RMA_RANGE] = "Target memory out of window",
  [MPI_ERR_RMA_ATTACH] = "Memory cannot be attached",
  [MPI_ERR_RMA_SHARED] = "Memory cannot be shared",
  [MPI_ERR_RMA_FLAVOR] = "Wrong window flavor",
  [MPI_ERR_SESSION] = "Invalid session",
  [MPI_ERR_PROC_ABORTED] = "Peer process aborted",
  [MPI_ERR_VALUE_TOO_LARGE] = "Value too large for its output argument",
  [MPI_T_ERR_MEMORY] = "Tool interface: out of memory",
  [MPI_T_ERR_NOT_INITIALIZED] = "Tool interface not initialized",
  [MPI_T_ERR_CANNOT_INIT] = "Tool interface cannot be initialized",
  [MPI_T_ERR_INVALID_INDEX] = "Tool interface: invalid index",
  [MPI_T_ERR_INVALID_ITEM] = "Tool interface: invalid item",
  [MPI_T_ERR_INVALID_HANDLE] = "Tool interface: invalid handle",
  [MPI_T_ERR_OUT_OF_HANDLES] = "Tool interface: out of handles",
  [MPI_T_ERR_OUT_OF_SESSIONS] = "Tool interface: out of sessions",
  [MPI_T_ERR_INVALID_SESSION] = "Tool interface: invalid session",
  [MPI_T_ERR_CVAR_SET_NOT_NOW] = "Tool interface: control variable cannot be set now",
  [MPI_T_ERR_CVAR_SET_NEVER] = "Tool interface: control variable cannot be set",
  [MPI_T_ERR_PVAR_NO_STARTSTOP] = "Tool interface: performance variable cannot be started or stopped",
  [MPI_T_ERR_PVAR_NO_WRITE] = "Tool interface: performance variable cannot be written",
  [MPI_T_ERR_PVAR_NO_ATOMIC] = "Tool interface: performance variable cannot be read and written atomically",
  [MPI_T_ERR_INVALID_NAME] = "Tool interface: invalid name",
  [MPI_T_ERR_INVALID] = "Tool interface: invalid use",
  [MPI_T_ERR_NOT_SUPPORTED] = "Tool interface: not supported",
  [80] = "Invalid error handler", /* MPI_ERR_ERRHANDLER (MPI 4.1), MPICH's value; not in the 4.0 header */
};
#define NCLASS ((int)(sizeof class_text / sizeof class_text[0]))

const char *fy_err_class_text(int cls) {
  if (cls >= 0 && cls < NCLASS && class_text[cls]) return class_text[cls];
  return NULL;
}

/* User error classes and codes (MPI_Add_error_class/code) are numbered
 * from FY_DYN_BASE, above MPI_ERR_LASTCODE as MPICH numbers them (the
 * standard wants MPI_LASTUSEDCODE >= MPI_ERR_LASTCODE); codes with a
 * recorded message stay below MPI_ERR_LASTCODE, so the two never meet. */
#define FY_DYN_BASE 0x40000000
#define FY_DYN_MAX 4096
typedef struct {
  int cls;      /* its class: itself for a class, -1 once removed */
  int is_class;
  int ncodes;   /* a class: codes still added to it */
  char *text;
} dyn_t;
static dyn_t dyn[FY_DYN_MAX];
static int ndyn;

static dyn_t *dyn_of(int code) {
  if (code < FY_DYN_BASE || code >= FY_DYN_BASE + ndyn) return NULL;
  dyn_t *d = &dyn[code - FY_DYN_BASE];
  return d->cls == -1 ? NULL : d;
}

int fy_err_last_used(void) { return ndyn ? FY_DYN_BASE + ndyn - 1 : MPI_ERR_LASTCODE; }

int fy_err_class_of(int code) {
  if (code < 0) return MPI_ERR_UNKNOWN;
  if (code >= FY_DYN_BASE) {
    dyn_t *d = dyn_of(code);
    return d ? d->cls : MPI_ERR_UNKNOWN;
  }
  return code & 0x7f;
}

int fy_err_valid_code(int code) {
  if (code < 0) return 0;
  if (code >= FY_DYN_BASE) return dyn_of(code) != NULL;
  int cls = code & 0x7f;
  return cls < NCLASS && class_text[cls];
}

static int dyn_add(int cls, int is_class, int *out) {
  if (ndyn == FY_DYN_MAX)
    return fy_err(MPI_ERR_OTHER, "no more user error classes and codes (at most %d)", FY_DYN_MAX);
  int code = FY_DYN_BASE + ndyn;
  dyn[ndyn++] = (dyn_t){.cls = is_class ? code : cls, .is_class = is_class};
  *out = code;
  return MPI_SUCCESS;
}

int fy_mpi_add_error_class(int *errorclass) { return dyn_add(0, 1, errorclass); }

int fy_mpi_add_error_code(int errorclass, int *errorcode) {
  dyn_t *d = dyn_of(errorclass);
  int predefined = errorclass >= 0 && errorclass < NCLASS && class_text[errorclass];
  if (!predefined && !(d && d->is_class))
    return fy_err(MPI_ERR_ARG, "errorclass = %d is not an error class", errorclass);
  int err = dyn_add(errorclass, 0, errorcode);
  if (!err && d) d->ncodes++;
  return err;
}

int fy_mpi_add_error_string(int errorcode, const char *string) {
  dyn_t *d = dyn_of(errorcode);
  if (!d)
    return fy_err(MPI_ERR_ARG, "errorcode = %d is not a user error class or code (predefined strings cannot be changed)", errorcode);
  if (!string) return fy_err(MPI_ERR_ARG, "string = NULL");
  if (strlen(string) >= MPI_MAX_ERROR_STRING)
    return fy_err(MPI_ERR_ARG, "string is %zu characters long, longer than MPI_MAX_ERROR_STRING - 1", strlen(string));
  char *t = strdup(string);
  if (!t) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  free(d->text);
  d->text = t;
  return MPI_SUCCESS;
}

static int dyn_remove(int code, int want_class) {
  dyn_t *d = dyn_of(code);
  if (!d || d->is_class != want_class)
    return fy_err(MPI_ERR_ARG, "%s = %d is not a user error %s", want_class ? "errorclass" : "errorcode", code,
                  want_class ? "class" : "code");
  if (want_class && d->ncodes)
    return fy_err(MPI_ERR_ARG, "errorclass = %d still has %d error code(s)", code, d->ncodes);
  if (d->text)
    return fy_err(MPI_ERR_ARG, "%s = %d still has an error string (MPI_Remove_error_string first)",
                  want_class ? "errorclass" : "errorcode", code);
  if (!want_class) {
    dyn_t *c = dyn_of(d->cls);
    if (c) c->ncodes--;
  }
  free(d->text);
  d->text = NULL;
  d->cls = -1;
  return MPI_SUCCESS;
}

int fy_mpi_remove_error_class(int errorclass) { return dyn_remove(errorclass, 1); }
int fy_mpi_remove_error_code(int errorcode) { return dyn_remove(errorcode, 0); }
int fy_mpi_remove_error_string(int errorcode) {
  dyn_t *d = dyn_of(errorcode);
  if (!d) return fy_err(MPI_ERR_ARG, "errorcode = %d is not a user error class or code", errorcode);
  free(d->text);
  d->text = NULL;
  return MPI_SUCCESS;
}

int fy_mpi_error_class(int errorcode, int *errorclass) {
  if (!fy_err_valid_code(errorcode))
    return fy_err(MPI_ERR_ARG, "errorcode = %d is not a valid error code", errorcode);
  *errorclass = fy_err_class_of(errorcode);
  return MPI_SUCCESS;
}

int fy_mpi_error_string(int errorcode, char *string, int *resultlen) {
  if (!fy_err_valid_code(errorcode))
    return fy_err(MPI_ERR_ARG, "errorcode = %d is not a valid error code", errorcode);
  fy_err_string(errorcode, string, resultlen);
  return MPI_SUCCESS;
}

int fy_err(int cls, const char *fmt, ...) {
  unsigned s = __atomic_fetch_add(&next_serial, 1, __ATOMIC_RELAXED);
  s &= 0x3fffffu; /* keep code below MPI_ERR_LASTCODE */
  if (s == 0) s = 1;
  err_slot_t *slot = &ring[s % RING];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(slot->msg, sizeof slot->msg, fmt, ap);
  va_end(ap);
  slot->serial = s;
  return cls | (int)(s << 8);
}

void fy_err_string(int code, char *buf, int *len) {
  int cls = fy_err_class_of(code);
  const char *ct = fy_err_class_text(cls);
  dyn_t *d = dyn_of(code);
  const char *user = d ? (d->text ? d->text : "") : NULL;
  unsigned s = (unsigned)code >> 8;
  const char *msg = NULL;
  if (s && ring[s % RING].serial == s) msg = ring[s % RING].msg;
  if (user)
    snprintf(buf, MPI_MAX_ERROR_STRING, "%s", user);
  else if (msg)
    snprintf(buf, MPI_MAX_ERROR_STRING, "%s: %s", ct ? ct : "Unknown error class", msg);
  else if (ct)
    snprintf(buf, MPI_MAX_ERROR_STRING, "%s", ct);
  else
    snprintf(buf, MPI_MAX_ERROR_STRING, "Unknown error code %d", code);
  *len = (int)strlen(buf);
}
