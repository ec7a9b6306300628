/* PMI-1 wire format, shared by the client (fy_pmi.c) and mpiexec's server.
 *
 * Contract
 * - A message is one line "k1=v1 k2=v2 ...\n". Fields are separated by
 *   spaces; a field splits at its first '=' (so a value may contain '=').
 *   A space-separated word without '=' continues the previous value (some
 *   servers send "msg=key not found"); a leading word without '=' is an error.
 * - fy_pmi_msg_parse() copies the line into the message, so the message
 *   owns its strings. Lines are at most FY_PMI_LINE_MAX bytes, fields at
 *   most FY_PMI_FIELDS_MAX.
 * - fy_pmi_msg_format() builds a line from key/value pairs (NULL-terminated
 *   list); it refuses values that contain a space or a line break, and lines
 *   that do not fit, returning -1 (never truncates).
 * - fy_pmi_reader_t turns a byte stream into lines: reads may end anywhere
 *   (partial lines, several lines at once). Lines longer than the buffer are
 *   an error. */
#ifndef FY_PMI_WIRE_H
#define FY_PMI_WIRE_H
#include <stddef.h>

#define FY_PMI_LINE_MAX 4096
#define FY_PMI_FIELDS_MAX 32
/* Limits the server announces and the client enforces. */
#define FY_PMI_KVSNAME_MAX 256
#define FY_PMI_KEY_MAX 64
#define FY_PMI_VAL_MAX 1024

typedef struct fy_pmi_msg {
  int n;
  struct { char *key, *val; } f[FY_PMI_FIELDS_MAX];
  char buf[FY_PMI_LINE_MAX + 1];
} fy_pmi_msg_t;

/* Parse one line (without or with its trailing '\n'). 0 or -1 (malformed:
 * empty, too long, too many fields, word before any key). */
int fy_pmi_msg_parse(fy_pmi_msg_t *m, const char *line, size_t len);
/* Value of key, or NULL. */
const char *fy_pmi_msg_get(const fy_pmi_msg_t *m, const char *key);
/* Integer value of key: 0, or -1 if absent or not an integer. */
int fy_pmi_msg_get_int(const fy_pmi_msg_t *m, const char *key, long *out);

/* buf <- "k1=v1 k2=v2\n" from (k1, v1, k2, v2, ..., NULL). Returns the
 * length (without the terminating NUL) or -1. */
int fy_pmi_msg_format(char *buf, size_t cap, ...) __attribute__((sentinel));
/* 1 if s may be sent as a value (no space, tab, CR, LF), else 0. */
int fy_pmi_value_ok(const char *s);

/* PMI_process_mapping "(vector,(start,nodes,ranks),...)" -> node[r], the
 * node index of every rank r < size (blocks repeat cyclically, as MPICH
 * reads them). 0, or -1 if the string is not in that form. */
int fy_pmi_parse_mapping(const char *s, int *node, int size);

typedef struct fy_pmi_reader {
  char buf[FY_PMI_LINE_MAX * 2];
  size_t start, len; /* unconsumed bytes are buf[start .. start+len) */
} fy_pmi_reader_t;

void fy_pmi_reader_init(fy_pmi_reader_t *r);
/* Where to read into and how much fits (compacts first); 0 space means the
 * buffered line is too long. */
char *fy_pmi_reader_space(fy_pmi_reader_t *r, size_t *avail);
void fy_pmi_reader_commit(fy_pmi_reader_t *r, size_t n);
/* Next complete line: 1 and (*line, *len) without the '\n' (valid until
 * the next space() call), 0 if none yet, -1 if a line exceeds
 * FY_PMI_LINE_MAX. */
int fy_pmi_reader_next(fy_pmi_reader_t *r, const char **line, size_t *len);
/* Bytes buffered but not yet returned as a line. */
size_t fy_pmi_reader_pending(const fy_pmi_reader_t *r);
#endif
