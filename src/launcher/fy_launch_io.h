/* mpiexec output forwarding: copies a rank's stdout/stderr to mpiexec's,
 * either as it comes or line by line with a "[rank] " prefix; and the byte
 * buffer and fd helpers the launcher's streams share.
 *
 * Contract: fy_outbuf_feed() writes every complete line (prefixed), all
 * those of one call in one write (whole lines only, so that the ranks'
 * lines never mix inside a line), and keeps a partial one; lines longer than FY_OUTBUF_MAX are written in
 * pieces. fy_outbuf_flush() writes what is left, ending it with '\n' when
 * prefixing so the next rank's line starts on its own line. Without a
 * prefix the data is written through unchanged. Writes retry on EINTR and
 * partial writes; a failing destination drops the data.
 * fy_buf_t: bytes appended at the end (fy_buf_put: 0, or -1 out of memory,
 * the buffer then unchanged and oom set) and consumed from the front
 * (fy_buf_drop); a zeroed one is empty. */
#ifndef FY_LAUNCH_IO_H
#define FY_LAUNCH_IO_H
#include <stddef.h>
#include <sys/types.h>

#define FY_OUTBUF_MAX 65536

typedef struct fy_buf {
  char *p;
  size_t len, cap;
  int oom; /* a put failed */
} fy_buf_t;

int fy_buf_put(fy_buf_t *b, const void *p, size_t n);
void fy_buf_drop(fy_buf_t *b, size_t n);
void fy_buf_free(fy_buf_t *b);

typedef struct fy_outbuf {
  int dst;          /* destination fd */
  char prefix[24];  /* "" for none */
  fy_buf_t line;    /* the partial line kept */
} fy_outbuf_t;

void fy_outbuf_init(fy_outbuf_t *b, int dst, const char *prefix);
void fy_outbuf_feed(fy_outbuf_t *b, const char *data, size_t n);
void fy_outbuf_flush(fy_outbuf_t *b);
void fy_outbuf_free(fy_outbuf_t *b);
/* Reads what the non-blocking *fd has now into buf: > 0 bytes; 0 when
 * nothing more is there now; -1 at its end (EOF or an error), *fd then
 * closed and set to -1 (also when it is -1 already). */
ssize_t fy_read_ready(int *fd, char *buf, size_t cap);
/* Write all of buf to fd; 0 or -1. */
int fy_write_all(int fd, const char *buf, size_t len);
#endif
