/* Unit tests of the proxy's stream to mpiexec (src/launcher/fy_launch_frame.c):
 * frames split anywhere, a login banner before the magic, a magic split
 * across chunks, a garbled stream, a stream cut inside a frame. */
#include "launcher/fy_launch_frame.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/fy_expect.h"

static char raw[4096], log_[4096];
static size_t nraw;

static void on_raw(void *ctx, const char *p, size_t n) {
  (void)ctx;
  memcpy(raw + nraw, p, n);
  nraw += n;
}
static int on_frame(void *ctx, int type, int rank, const char *p, size_t n) {
  int *bad_rank = ctx;
  if (rank == *bad_rank) return -1;
  int32_t v;
  char one[256];
  if (type == FY_FRAME_PID || type == FY_FRAME_EXIT || type == FY_FRAME_ACK || type == FY_FRAME_SIG) {
    if (fy_frame_int(p, n, &v) != 0) return -1;
    snprintf(one, sizeof one, "%c%d=%d;", type, rank, (int)v);
  } else {
    snprintf(one, sizeof one, "%c%d:%.*s;", type, rank, (int)n, p);
  }
  strcat(log_, one);
  return 0;
}

/* The stream the proxy would write: through a temporary file. */
static size_t stream(char *buf, size_t cap) {
  FILE *t = tmpfile();
  int fd = fileno(t);
  fputs("Welcome to node7\n", t);
  fflush(t);
  fy_frame_put(fd, 0, 0, NULL, 0); /* (not sent by a proxy: a raw NUL-led header before the magic) */
  if (write(fd, FY_FRAME_MAGIC, FY_FRAME_MAGIC_LEN) != FY_FRAME_MAGIC_LEN) return 0;
  fy_frame_put_int(fd, FY_FRAME_PID, 3, 4242);
  fy_frame_put(fd, FY_FRAME_OUT, 3, "hello\n", 6);
  fy_frame_put(fd, FY_FRAME_ERR, 7, "", 0);
  static char big[5000];
  memset(big, 'b', sizeof big);
  fy_frame_put(fd, FY_FRAME_OUT, 7, big, sizeof big);
  fy_frame_put_int(fd, FY_FRAME_ACK, 3, 300);
  fy_frame_put_int(fd, FY_FRAME_SIG, 0, 10);
  fy_frame_put(fd, FY_FRAME_IN, 3, "in", 2);
  fy_frame_put_int(fd, FY_FRAME_EXIT, 3, 3 << 8);
  rewind(t);
  size_t n = fread(buf, 1, cap, t);
  fclose(t);
  return n;
}

int main(void) {
  static char s[16384];
  size_t n = stream(s, sizeof s);
  EXPECT(n > 5000);
  int none = -1;
  /* Every chunk size, so that magic, headers and payloads split everywhere. */
  for (size_t chunk = 1; chunk <= n; chunk = chunk < 16 ? chunk + 1 : chunk * 3) {
    fy_frame_rx_t rx = {0};
    const char *why = NULL;
    nraw = 0;
    log_[0] = 0;
    int rc = 0;
    for (size_t off = 0; off < n && !rc; off += chunk)
      rc = fy_frame_feed(&rx, s + off, off + chunk > n ? n - off : chunk, on_raw, on_frame, &none, &why);
    EXPECT(rc == 0);
    EXPECT(fy_frame_end(&rx, on_raw, NULL) == 0);
    EXPECT(nraw == 17 + FY_FRAME_HDR && !memcmp(raw, "Welcome to node7\n", 17));
    EXPECT(!strncmp(log_, "p3=4242;o3:hello\n;e7:;o7:bbb", 28));
    EXPECT(strstr(log_, "ba3=300;s0=10;i3:in;x3=768;") != NULL); /* (the long payload is cut in the log) */
    fy_frame_rx_free(&rx);
  }
  /* No magic at all (a launcher that failed before the proxy ran): all raw. */
  {
    fy_frame_rx_t rx = {0};
    const char *why = NULL;
    nraw = 0;
    EXPECT(fy_frame_feed(&rx, "ssh: connect refused\n", 21, on_raw, on_frame, &none, &why) == 0);
    EXPECT(fy_frame_end(&rx, on_raw, NULL) == 0);
    EXPECT(nraw == 21 && !memcmp(raw, "ssh: connect refused\n", 21));
    fy_frame_rx_free(&rx);
  }
  /* A stream cut inside a frame; then an unknown type; then a rank the
   * receiver refuses. */
  {
    fy_frame_rx_t rx = {0};
    const char *why = NULL;
    size_t cut = 17 + FY_FRAME_HDR + FY_FRAME_MAGIC_LEN + FY_FRAME_HDR + 2;
    EXPECT(fy_frame_feed(&rx, s, cut, on_raw, on_frame, &none, &why) == 0);
    EXPECT(fy_frame_end(&rx, on_raw, NULL) == 1);
    fy_frame_rx_free(&rx);
    char bad[FY_FRAME_MAGIC_LEN + FY_FRAME_HDR] = {0};
    memcpy(bad, FY_FRAME_MAGIC, FY_FRAME_MAGIC_LEN);
    bad[FY_FRAME_MAGIC_LEN] = 'Z';
    EXPECT(fy_frame_feed(&rx, bad, sizeof bad, on_raw, on_frame, &none, &why) == -1 && why);
    fy_frame_rx_free(&rx);
    int refuse = 3;
    why = NULL;
    EXPECT(fy_frame_feed(&rx, s, n, on_raw, on_frame, &refuse, &why) == -1 && why);
    fy_frame_rx_free(&rx);
  }
  return failures != 0;
}
