/* mpiexec output forwarding: copies a rank's stdout/stderr to mpiexec's,
 * either as it comes or line by line with a "[rank] " prefix.
 *
 * Contract: fy_outbuf_feed() writes every complete line (prefixed), all
 * those of one call in one write (whole lines only, so that the ranks'
 * lines never mix inside a line), and keeps a partial one; lines longer than FY_OUTBUF_MAX are written in
 * pieces. fy_outbuf_flush() writes what is left, ending it with '\n' when
 * prefixing so the next rank's line starts on its own line. Without a
 * prefix the data is written through unchanged. Writes retry on EINTR and
 * partial writes; a failing destination drops the data. */
#ifndef FY_LAUNCH_IO_H
#define FY_LAUNCH_IO_H
#include <stddef.h>
#include <sys/types.h>

#define FY_OUTBUF_MAX 65536

typedef struct fy_outbuf {
  int dst;          /* destination fd */
  char prefix[24];  /* "" for none */
  char *buf;
  size_t len, cap;
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
