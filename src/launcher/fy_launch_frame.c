/* The proxy's stream to mpiexec: see fy_launch_frame.h. */
#include "launcher/fy_launch_frame.h"
#include "launcher/fy_launch_io.h"
#include <stdlib.h>
#include <string.h>

static void le32(unsigned char *d, uint32_t v) {
  for (int k = 0; k < 4; k++) d[k] = (unsigned char)(v >> (8 * k));
}
static uint32_t get32(const unsigned char *s) {
  return (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
}

void fy_frame_hdr(unsigned char *h, int type, int rank, size_t n) {
  h[0] = (unsigned char)type;
  le32(h + 1, (uint32_t)rank);
  le32(h + 5, (uint32_t)n);
}

int fy_frame_put(int fd, int type, int rank, const void *p, size_t n) {
  unsigned char h[FY_FRAME_HDR];
  if (n > FY_FRAME_MAX) return -1;
  fy_frame_hdr(h, type, rank, n);
  /* (one write when it fits a pipe's atomic size: nothing else writes to
   * this fd, but fewer system calls) */
  if (n <= 4096) {
    unsigned char one[FY_FRAME_HDR + 4096];
    memcpy(one, h, sizeof h);
    if (n) memcpy(one + sizeof h, p, n);
    return fy_write_all(fd, (const char *)one, sizeof h + n);
  }
  if (fy_write_all(fd, (const char *)h, sizeof h) != 0) return -1;
  return fy_write_all(fd, p, n);
}

int fy_frame_put_int(int fd, int type, int rank, int32_t v) {
  unsigned char b[4];
  le32(b, (uint32_t)v);
  return fy_frame_put(fd, type, rank, b, sizeof b);
}

int fy_frame_int(const char *p, size_t n, int32_t *v) {
  if (n != 4) return -1;
  *v = (int32_t)get32((const unsigned char *)p);
  return 0;
}

static int known(int t) { return t && strchr("oepxasim", t) != NULL; }

int fy_frame_feed(fy_frame_rx_t *rx, const char *p, size_t n, fy_frame_raw_fn raw, fy_frame_fn frame, void *ctx,
                  const char **why) {
  fy_buf_t *b = &rx->b;
  if (fy_buf_put(b, p, n) != 0) {
    *why = "out of memory";
    return -1;
  }
  const unsigned char *buf = (const unsigned char *)b->p;
  size_t off = 0;
  int rc = 0;
  if (!rx->synced) {
    const unsigned char *m = memmem(buf, b->len, FY_FRAME_MAGIC, FY_FRAME_MAGIC_LEN);
    if (m) {
      if (m > buf) raw(ctx, (const char *)buf, (size_t)(m - buf));
      off = (size_t)(m - buf) + FY_FRAME_MAGIC_LEN;
      rx->synced = 1;
    } else {
      /* (the end may be the start of a magic split across chunks) */
      size_t keep = b->len < FY_FRAME_MAGIC_LEN - 1 ? b->len : FY_FRAME_MAGIC_LEN - 1;
      if (b->len > keep) raw(ctx, (const char *)buf, b->len - keep);
      off = b->len - keep;
    }
  }
  while (rx->synced && b->len - off >= FY_FRAME_HDR) {
    const unsigned char *h = buf + off;
    uint32_t len = get32(h + 5);
    if (!known(h[0]) || len > FY_FRAME_MAX) {
      *why = "not a frame of this mpiexec's proxy (a different version on that host?)";
      rc = -1;
      break;
    }
    if (b->len - off < FY_FRAME_HDR + (size_t)len) break;
    if (frame(ctx, h[0], (int)get32(h + 1), (const char *)h + FY_FRAME_HDR, len) != 0) {
      *why = "a frame for a rank this proxy does not run";
      rc = -1;
      break;
    }
    off += FY_FRAME_HDR + (size_t)len;
  }
  fy_buf_drop(b, off);
  return rc;
}

int fy_frame_end(fy_frame_rx_t *rx, fy_frame_raw_fn raw, void *ctx) {
  int cut = rx->synced && rx->b.len > 0;
  if (!rx->synced && rx->b.len) raw(ctx, rx->b.p, rx->b.len);
  rx->b.len = 0;
  return cut;
}

void fy_frame_rx_free(fy_frame_rx_t *rx) { fy_buf_free(&rx->b); }
