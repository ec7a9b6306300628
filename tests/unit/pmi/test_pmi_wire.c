/* Unit tests of the PMI-1 wire format (runtime/fy_pmi_wire.c). */
#include "runtime/fy_pmi_wire.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fy_expect.h"

static fy_pmi_msg_t m;

static int parse(const char *s) { return fy_pmi_msg_parse(&m, s, strlen(s)); }
static const char *get(const char *k) { return fy_pmi_msg_get(&m, k); }
static int streq(const char *a, const char *b) { return a && b && !strcmp(a, b); }

static void well_formed(void) {
  EXPECT(parse("cmd=put kvsname=kvs_1 key=k value=v\n") == 0);
  EXPECT(m.n == 4);
  EXPECT(streq(get("cmd"), "put") && streq(get("kvsname"), "kvs_1"));
  EXPECT(streq(get("key"), "k") && streq(get("value"), "v"));
  EXPECT(get("missing") == NULL);
  /* '=' inside a value, empty value, extra spaces, CRLF. */
  EXPECT(parse("  cmd=get_result  rc=0   value=a=b=c msg= \r\n") == 0);
  EXPECT(streq(get("value"), "a=b=c") && streq(get("msg"), "") && streq(get("rc"), "0"));
  long v;
  EXPECT(fy_pmi_msg_get_int(&m, "rc", &v) == 0 && v == 0);
  EXPECT(fy_pmi_msg_get_int(&m, "value", &v) == -1);
  EXPECT(fy_pmi_msg_get_int(&m, "msg", &v) == -1);
  EXPECT(parse("cmd=get_result rc=-1 msg=key not found") == 0);
  EXPECT(fy_pmi_msg_get_int(&m, "rc", &v) == 0 && v == -1);
  EXPECT(streq(get("msg"), "key not found"));
  EXPECT(parse("cmd=get_result rc=0 value=(vector,(0,1,4))") == 0);
  EXPECT(streq(get("value"), "(vector,(0,1,4))"));
}

static void malformed(void) {
  EXPECT(parse("") == -1);
  EXPECT(parse("   \n") == -1);
  EXPECT(parse("nokey") == -1);
  EXPECT(parse("=value cmd=x") == -1);
  EXPECT(parse("cmd=x =y") == -1);
  char big[FY_PMI_LINE_MAX + 10];
  memset(big, 'a', sizeof big);
  memcpy(big, "cmd=", 4);
  EXPECT(fy_pmi_msg_parse(&m, big, sizeof big) == -1);
  /* Too many fields. */
  char many[FY_PMI_LINE_MAX];
  size_t n = 0;
  for (int i = 0; i <= FY_PMI_FIELDS_MAX; i++) n += (size_t)sprintf(many + n, "k%d=v ", i);
  EXPECT(fy_pmi_msg_parse(&m, many, n) == -1);
}

static void format(void) {
  char buf[256];
  int n = fy_pmi_msg_format(buf, sizeof buf, "cmd", "put", "key", "k", "value", "x=y", (char *)NULL);
  EXPECT(n > 0 && streq(buf, "cmd=put key=k value=x=y\n") && n == (int)strlen(buf));
  EXPECT(fy_pmi_msg_format(buf, sizeof buf, "cmd", "put", "value", "a b", (char *)NULL) == -1);
  EXPECT(fy_pmi_msg_format(buf, sizeof buf, "cmd", "put", "value", "a\nb", (char *)NULL) == -1);
  EXPECT(fy_pmi_msg_format(buf, sizeof buf, "k=x", "v", (char *)NULL) == -1);
  EXPECT(fy_pmi_msg_format(buf, sizeof buf, (char *)NULL) == -1);
  EXPECT(fy_pmi_msg_format(buf, 10, "cmd", "barrier_in", (char *)NULL) == -1); /* no truncation */
  EXPECT(fy_pmi_msg_format(buf, 16, "cmd", "barrier_in", (char *)NULL) == 15);
  /* Round trip of a long value. */
  static char val[FY_PMI_VAL_MAX], line[FY_PMI_LINE_MAX + 2];
  memset(val, 'v', sizeof val - 1);
  val[sizeof val - 1] = '\0';
  n = fy_pmi_msg_format(line, sizeof line, "cmd", "put", "value", val, (char *)NULL);
  EXPECT(n > 0 && parse(line) == 0 && streq(get("value"), val));
}

/* Feed the stream in pieces of `step` bytes; collect the cmd of every line. */
static int feed_in_steps(const char *stream, size_t step, char out[][32], int max) {
  fy_pmi_reader_t r;
  fy_pmi_reader_init(&r);
  size_t len = strlen(stream), off = 0;
  int got = 0;
  while (off < len) {
    size_t avail;
    char *p = fy_pmi_reader_space(&r, &avail);
    size_t n = len - off < step ? len - off : step;
    if (n > avail) n = avail;
    memcpy(p, stream + off, n);
    fy_pmi_reader_commit(&r, n);
    off += n;
    const char *line;
    size_t l;
    int rc;
    while ((rc = fy_pmi_reader_next(&r, &line, &l)) == 1) {
      if (got < max && fy_pmi_msg_parse(&m, line, l) == 0) snprintf(out[got], 32, "%s", get("cmd"));
      got++;
    }
    if (rc < 0) return -1;
  }
  return fy_pmi_reader_pending(&r) ? -2 : got;
}

static void reader(void) {
  const char *stream = "cmd=init pmi_version=1 pmi_subversion=1\ncmd=get_maxes\n\ncmd=barrier_in\ncmd=put key=a value=b\n";
  char cmds[8][32];
  static const char *want[] = {"init", "get_maxes", "", "barrier_in", "put"};
  for (size_t step = 1; step <= strlen(stream); step++) {
    memset(cmds, 0, sizeof cmds);
    int n = feed_in_steps(stream, step, cmds, 8);
    EXPECT(n == 5);
    for (int i = 0; i < 5; i++)
      if (i != 2) EXPECT(streq(cmds[i], want[i]));
  }
  /* A partial line stays pending. */
  fy_pmi_reader_t r;
  fy_pmi_reader_init(&r);
  size_t avail;
  char *p = fy_pmi_reader_space(&r, &avail);
  memcpy(p, "cmd=barr", 8);
  fy_pmi_reader_commit(&r, 8);
  const char *line;
  size_t l;
  EXPECT(fy_pmi_reader_next(&r, &line, &l) == 0);
  EXPECT(fy_pmi_reader_pending(&r) == 8);
  p = fy_pmi_reader_space(&r, &avail);
  memcpy(p, "ier_in\n", 7);
  fy_pmi_reader_commit(&r, 7);
  EXPECT(fy_pmi_reader_next(&r, &line, &l) == 1 && l == 14 && !memcmp(line, "cmd=barrier_in", 14));
  /* An endless line is an error, not a hang. */
  fy_pmi_reader_init(&r);
  int rc = 0;
  for (int i = 0; i < 10 && rc == 0; i++) {
    p = fy_pmi_reader_space(&r, &avail);
    if (!avail) break;
    memset(p, 'x', avail);
    fy_pmi_reader_commit(&r, avail);
    rc = fy_pmi_reader_next(&r, &line, &l);
  }
  EXPECT(rc == -1);
}

static int mapping_is(const char *map, int size, const int *want) {
  int node[16];
  if (fy_pmi_parse_mapping(map, node, size) != 0) return 0;
  for (int i = 0; i < size; i++)
    if (node[i] != want[i]) return 0;
  return 1;
}

static void mapping(void) {
  EXPECT(mapping_is("(vector,(0,1,4))", 4, (int[]){0, 0, 0, 0}));
  /* Two nodes, two ranks each (block). */
  EXPECT(mapping_is("(vector,(0,2,2))", 4, (int[]){0, 0, 1, 1}));
  /* Round robin over two nodes: the list repeats. */
  EXPECT(mapping_is("(vector,(0,2,1))", 5, (int[]){0, 1, 0, 1, 0}));
  /* Several blocks, spaces tolerated. */
  EXPECT(mapping_is("(vector,(0,1,3), (1,2,1))", 6, (int[]){0, 0, 0, 1, 2, 0}));
  int node[4];
  EXPECT(fy_pmi_parse_mapping("", node, 4) == -1);
  EXPECT(fy_pmi_parse_mapping("(vector)", node, 4) == -1);
  EXPECT(fy_pmi_parse_mapping("(vector,(0,1))", node, 4) == -1);
  EXPECT(fy_pmi_parse_mapping("(vector,(0,0,0))", node, 4) == -1);
  EXPECT(fy_pmi_parse_mapping("(vector,(0,1,-2))", node, 4) == -1);
  EXPECT(fy_pmi_parse_mapping("(vector,(0,1,x))", node, 4) == -1);
  EXPECT(fy_pmi_parse_mapping("(list,(0,1,4))", node, 4) == -1);
}

int main(void) {
  well_formed();
  mapping();
  malformed();
  format();
  reader();
  if (failures) {
    fprintf(stderr, "test_pmi_wire: %d failure(s)\n", failures);
    return 1;
  }
  printf("test_pmi_wire: ok\n");
  return 0;
}
