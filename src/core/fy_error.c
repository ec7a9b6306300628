/* Error codes and messages: see fy_error.h. */
#include "core/fy_error.h"
#include "core/fy_api.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define RING 256
#define MSGLEN 320

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
  [80] = "Invalid error handler", /* MPI_ERR_ERRHANDLER (MPI 4.1), MPICH's value; not in the 4.0 header */
};
#define NCLASS ((int)(sizeof class_text / sizeof class_text[0]))

const char *fy_err_class_text(int cls) {
  if (cls >= 0 && cls < NCLASS && class_text[cls]) return class_text[cls];
  return NULL;
}

extern int fy_user_err_class(int code); /* user classes/codes: fy_errhandler.c */

int fy_err_class_of(int code) {
  if (code < 0) return MPI_ERR_UNKNOWN;
  if (code > MPI_ERR_LASTCODE) {
    int c = fy_user_err_class(code);
    return c >= 0 ? c : MPI_ERR_UNKNOWN;
  }
  return code & 0x7f;
}

int fy_err_valid_code(int code) {
  if (code < 0) return 0;
  if (code > MPI_ERR_LASTCODE) return fy_user_err_class(code) >= 0;
  int cls = code & 0x7f;
  return cls < NCLASS && class_text[cls];
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

extern const char *fy_user_err_string(int code);

void fy_err_string(int code, char *buf, int *len) {
  int cls = fy_err_class_of(code);
  const char *ct = fy_err_class_text(cls);
  const char *user = fy_user_err_string(code);
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
