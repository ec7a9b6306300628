/* mpiexec output forwarding: see fy_launch_io.h. */
#include "launcher/fy_launch_io.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

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

void fy_outbuf_feed(fy_outbuf_t *b, const char *data, size_t n) {
  if (!b->prefix[0]) {
    fy_write_all(b->dst, data, n);
    return;
  }
  while (n > 0) {
    const char *nl = memchr(data, '\n', n);
    if (nl) {
      size_t l = (size_t)(nl - data);
      if (b->len) {
        /* Complete the buffered partial line. */
        if (reserve(b, b->len + l) == 0) {
          memcpy(b->buf + b->len, data, l);
          write_line(b, b->buf, b->len + l, 1);
        }
        b->len = 0;
      } else {
        write_line(b, data, l, 1);
      }
      data += l + 1;
      n -= l + 1;
      continue;
    }
    if (b->len + n > FY_OUTBUF_MAX) {
      /* Too long without a newline: write what we have as a piece. */
      if (b->len) write_line(b, b->buf, b->len, 0);
      b->len = 0;
      write_line(b, data, n, 0);
      return;
    }
    if (reserve(b, b->len + n) < 0) return;
    memcpy(b->buf + b->len, data, n);
    b->len += n;
    return;
  }
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
