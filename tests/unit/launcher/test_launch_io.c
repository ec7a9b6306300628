/* Unit tests of mpiexec's output forwarding (src/launcher/fy_launch_io.c):
 * prefixing, partial lines, pass-through without prefix. */
#include "launcher/fy_launch_io.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/fy_expect.h"

static char got[1 << 20];

/* Feed chunks through a pipe-backed outbuf, return what came out. */
static const char *run(const char *prefix, const char **chunks) {
  FILE *tmp = tmpfile();
  fy_outbuf_t b;
  fy_outbuf_init(&b, fileno(tmp), prefix);
  for (int i = 0; chunks[i]; i++) fy_outbuf_feed(&b, chunks[i], strlen(chunks[i]));
  fy_outbuf_flush(&b);
  fy_outbuf_free(&b);
  rewind(tmp);
  size_t n = fread(got, 1, sizeof got - 1, tmp);
  got[n] = '\0';
  fclose(tmp);
  return got;
}

int main(void) {
  const char *c1[] = {"hel", "lo\nwor", "ld\n", "\n", "tail", NULL};
  EXPECT(!strcmp(run("[3] ", c1), "[3] hello\n[3] world\n[3] \n[3] tail\n"));
  EXPECT(!strcmp(run("", c1), "hello\nworld\n\ntail"));
  const char *c2[] = {"a\nb\nc\n", NULL};
  EXPECT(!strcmp(run("[0] ", c2), "[0] a\n[0] b\n[0] c\n"));
  /* A line longer than the buffer comes out whole, in pieces. */
  static char big[FY_OUTBUF_MAX * 2 + 2];
  memset(big, 'x', sizeof big - 2);
  big[sizeof big - 2] = '\n';
  const char *c3[] = {big, NULL};
  run("[1] ", c3);
  size_t xs = 0;
  for (char *p = got; *p; p++) xs += *p == 'x';
  EXPECT(xs == sizeof big - 2 && !strncmp(got, "[1] x", 5));
  if (failures) return 1;
  printf("test_launch_io: ok\n");
  return 0;
}
