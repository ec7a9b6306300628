/* mpiexec output forwarding: see fy_launch_io.h. */
#include "launcher/fy_launch_io.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

ssize_t fy_read_ready(int *fd, char *buf, size_t cap) {
  while (*fd >= 0) {
    ssize_t n = read(*fd, buf, cap);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return 0;
    if (n > 0) return n;
    close(*fd);
    *fd = -1;
  }
  return -1;
}

int fy_write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

void fy_outbuf_init(fy_outbuf_t *b, int dst, const char *prefix) {
  memset(b, 0, sizeof *b);
  b->dst = dst;
  snprintf(b->prefix, sizeof b->prefix, "%s", prefix ? prefix : "");
}

/* One prefixed line, written with a single writev so that lines of
 * different ranks do not interleave inside a line. */
static void write_line(fy_outbuf_t *b, const char *s, size_t n, int add_nl) {
  char nl = '\n';
  struct iovec iov[3] = {{b->prefix, strlen(b->prefix)}, {(void *)s, n}, {&nl, add_nl ? 1u : 0u}};
  size_t total = iov[0].iov_len + iov[1].iov_len + iov[2].iov_len;
  ssize_t w;
  do w = writev(b->dst, iov, 3); while (w < 0 && errno == EINTR);
  if (w < 0 || (size_t)w == total) return;
  /* Short write (a full pipe): finish piece by piece. */
  size_t done = (size_t)w;
  for (int i = 0; i < 3; i++) {
    if (done >= iov[i].iov_len) {
      done -= iov[i].iov_len;
      continue;
    }
    if (fy_write_all(b->dst, (char *)iov[i].iov_base + done, iov[i].iov_len - done) < 0) return;
    done = 0;
  }
}

int fy_buf_put(fy_buf_t *b, const void *p, size_t n) {
  if (!n) return 0;
  if (b->len + n > b->cap) {
    size_t nc = b->cap ? b->cap : 256;
    while (nc < b->len + n) nc *= 2;
    char *q = realloc(b->p, nc);
    if (!q) {
      b->oom = 1;
      return -1;
    }
    b->p = q;
    b->cap = nc;
  }
  memcpy(b->p + b->len, p, n);
  b->len += n;
  return 0;
}

void fy_buf_drop(fy_buf_t *b, size_t n) {
  if (n > b->len) n = b->len;
  memmove(b->p, b->p + n, b->len - n);
  b->len -= n;
}

void fy_buf_free(fy_buf_t *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

/* The complete lines of a chunk, prefixed, go out in one write: mpiexec
 * is the only writer of its stdout, so whole lines in each write keep the
 * ranks' lines apart, and a line per system call made prefixed output
 * cost a write per line (4 million lines: 3.5 s of system time). Out of
 * memory, the batch is not written. */
void fy_outbuf_feed(fy_outbuf_t *b, const char *data, size_t n) {
  if (!b->prefix[0]) {
    fy_write_all(b->dst, data, n);
    return;
  }
  fy_buf_t o = {0};
  size_t plen = strlen(b->prefix);
  while (n > 0) {
    const char *nl = memchr(data, '\n', n);
    if (nl) {
      size_t l = (size_t)(nl - data) + 1;
      fy_buf_put(&o, b->prefix, plen);
      fy_buf_put(&o, b->line.p, b->line.len); /* (the buffered start of this line) */
      b->line.len = 0;
      fy_buf_put(&o, data, l);
      data += l;
      n -= l;
      continue;
    }
    if (b->line.len + n > FY_OUTBUF_MAX) {
      /* Too long without a newline: write what we have as a piece. */
      if (o.len && !o.oom) fy_write_all(b->dst, o.p, o.len);
      o.len = 0;
      if (b->line.len) write_line(b, b->line.p, b->line.len, 0);
      b->line.len = 0;
      write_line(b, data, n, 0);
      break;
    }
    fy_buf_put(&b->line, data, n);
    break;
  }
  if (o.len && !o.oom) fy_write_all(b->dst, o.p, o.len);
  fy_buf_free(&o);
}

void fy_outbuf_flush(fy_outbuf_t *b) {
  if (b->line.len) write_line(b, b->line.p, b->line.len, 1);
  b->line.len = 0;
}

void fy_outbuf_free(fy_outbuf_t *b) { fy_buf_free(&b->line); }
