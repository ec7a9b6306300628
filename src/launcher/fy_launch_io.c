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

static int reserve(fy_outbuf_t *b, size_t need) {
  if (need <= b->cap) return 0;
  size_t nc = b->cap ? b->cap : 256;
  while (nc < need) nc *= 2;
  char *nb = realloc(b->buf, nc);
  if (!nb) return -1;
  b->buf = nb;
  b->cap = nc;
  return 0;
}

/* The complete lines of a chunk, prefixed, go out in one write: mpiexec
 * is the only writer of its stdout, so whole lines in each write keep the
 * ranks' lines apart, and a line per system call made prefixed output
 * cost a write per line (4 million lines: 3.5 s of system time). */
typedef struct obuf {
  char *p;
  size_t len, cap;
  int oom;
} obuf_t;

static void oput(obuf_t *o, const char *s, size_t n) {
  if (o->oom || !n) return;
  if (o->len + n > o->cap) {
    size_t nc = o->cap ? o->cap : 4096;
    while (nc < o->len + n) nc *= 2;
    char *q = realloc(o->p, nc);
    if (!q) {
      o->oom = 1;
      return;
    }
    o->p = q;
    o->cap = nc;
  }
  memcpy(o->p + o->len, s, n);
  o->len += n;
}

/* Writes the batch (all of it, a short write finished piece by piece);
 * out of memory, nothing of it. */
static void oflush(fy_outbuf_t *b, obuf_t *o) {
  if (o->len && !o->oom) fy_write_all(b->dst, o->p, o->len);
  free(o->p);
}

void fy_outbuf_feed(fy_outbuf_t *b, const char *data, size_t n) {
  if (!b->prefix[0]) {
    fy_write_all(b->dst, data, n);
    return;
  }
  obuf_t o = {0};
  size_t plen = strlen(b->prefix);
  while (n > 0) {
    const char *nl = memchr(data, '\n', n);
    if (nl) {
      size_t l = (size_t)(nl - data) + 1;
      oput(&o, b->prefix, plen);
      if (b->len) { /* (the buffered start of this line) */
        oput(&o, b->buf, b->len);
        b->len = 0;
      }
      oput(&o, data, l);
      data += l;
      n -= l;
      continue;
    }
    if (b->len + n > FY_OUTBUF_MAX) {
      /* Too long without a newline: write what we have as a piece. */
      oflush(b, &o);
      if (b->len) write_line(b, b->buf, b->len, 0);
      b->len = 0;
      write_line(b, data, n, 0);
      return;
    }
    if (reserve(b, b->len + n) == 0) {
      memcpy(b->buf + b->len, data, n);
      b->len += n;
    }
    break;
  }
  oflush(b, &o);
}

void fy_outbuf_flush(fy_outbuf_t *b) {
  if (b->len) write_line(b, b->buf, b->len, 1);
  b->len = 0;
}

void fy_outbuf_free(fy_outbuf_t *b) {
  free(b->buf);
  b->buf = NULL;
  b->len = b->cap = 0;
}
