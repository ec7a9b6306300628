/* PMI-1 wire format: see fy_pmi_wire.h. */
#include "runtime/fy_pmi_wire.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int is_sep(char c) { return c == ' ' || c == '\t'; }

int fy_pmi_msg_parse(fy_pmi_msg_t *m, const char *line, size_t len) {
  m->n = 0;
  while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
  if (len > FY_PMI_LINE_MAX) return -1;
  memcpy(m->buf, line, len);
  m->buf[len] = '\0';
  char *p = m->buf, *end = m->buf + len;
  while (p < end) {
    while (p < end && is_sep(*p)) p++;
    if (p >= end) break;
    char *word = p;
    while (p < end && !is_sep(*p)) p++;
    char *word_end = p;
    char *eq = memchr(word, '=', (size_t)(word_end - word));
    if (!eq || eq == word) {
      /* A word without '=' continues the previous value: rejoin it by
       * turning the separators between them back into spaces. */
      if (m->n == 0 || eq == word) return -1;
      char *prev_end = m->f[m->n - 1].val + strlen(m->f[m->n - 1].val);
      for (char *q = prev_end; q < word; q++) *q = ' ';
      if (p < end) *p++ = '\0';
      continue;
    }
    if (m->n == FY_PMI_FIELDS_MAX) return -1;
    *eq = '\0';
    if (p < end) *p++ = '\0';
    m->f[m->n].key = word;
    m->f[m->n].val = eq + 1;
    m->n++;
  }
  return m->n > 0 ? 0 : -1;
}

const char *fy_pmi_msg_get(const fy_pmi_msg_t *m, const char *key) {
  for (int i = 0; i < m->n; i++)
    if (!strcmp(m->f[i].key, key)) return m->f[i].val;
  return NULL;
}

int fy_pmi_msg_get_int(const fy_pmi_msg_t *m, const char *key, long *out) {
  const char *v = fy_pmi_msg_get(m, key);
  if (!v || !*v) return -1;
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (*end || errno) return -1;
  *out = x;
  return 0;
}

int fy_pmi_value_ok(const char *s) {
  return strpbrk(s, " \t\r\n") == NULL;
}

int fy_pmi_msg_format(char *buf, size_t cap, ...) {
  va_list ap;
  size_t n = 0;
  int first = 1, rc = -1;
  va_start(ap, cap);
  for (;;) {
    const char *k = va_arg(ap, const char *);
    if (!k) break;
    const char *v = va_arg(ap, const char *);
    if (!v || !*k || strchr(k, '=') || !fy_pmi_value_ok(k) || !fy_pmi_value_ok(v)) goto out;
    size_t kl = strlen(k), vl = strlen(v);
    if (n + !first + kl + 1 + vl + 2 > cap) goto out; /* + '\n' + NUL */
    if (!first) buf[n++] = ' ';
    memcpy(buf + n, k, kl);
    n += kl;
    buf[n++] = '=';
    memcpy(buf + n, v, vl);
    n += vl;
    first = 0;
  }
  if (first || n + 2 > cap || n + 1 > FY_PMI_LINE_MAX) goto out;
  buf[n++] = '\n';
  buf[n] = '\0';
  rc = (int)n;
out:
  va_end(ap);
  return rc;
}

void fy_pmi_reader_init(fy_pmi_reader_t *r) { r->start = r->len = 0; }

char *fy_pmi_reader_space(fy_pmi_reader_t *r, size_t *avail) {
  if (r->start > 0) {
    memmove(r->buf, r->buf + r->start, r->len);
    r->start = 0;
  }
  *avail = sizeof r->buf - r->len;
  return r->buf + r->len;
}

void fy_pmi_reader_commit(fy_pmi_reader_t *r, size_t n) { r->len += n; }

int fy_pmi_reader_next(fy_pmi_reader_t *r, const char **line, size_t *len) {
  char *s = r->buf + r->start;
  char *nl = memchr(s, '\n', r->len);
  if (!nl) return r->len > FY_PMI_LINE_MAX ? -1 : 0;
  size_t l = (size_t)(nl - s);
  if (l > FY_PMI_LINE_MAX) return -1;
  *line = s;
  *len = l;
  r->start += l + 1;
  r->len -= l + 1;
  return 1;
}

size_t fy_pmi_reader_pending(const fy_pmi_reader_t *r) { return r->len; }

/* PMI_process_mapping "(vector,(start,nodes,ranks),...)": blocks of `nodes`
 * consecutive nodes from `start`, each holding `ranks` consecutive ranks;
 * the list repeats until every rank is placed. */
int fy_pmi_parse_mapping(const char *s, int *node, int size) {
  struct { long start, nodes, ranks; } blk[256];
  int nblk = 0;
  while (*s == ' ') s++;
  if (strncmp(s, "(vector", 7)) return -1;
  s += 7;
  for (;;) {
    while (*s == ' ' || *s == ',') s++;
    if (*s == ')') break;
    if (*s != '(' || nblk == 256) return -1;
    char *end;
    long v[3];
    s++;
    for (int i = 0; i < 3; i++) {
      while (*s == ' ') s++;
      v[i] = strtol(s, &end, 10);
      if (end == s || v[i] < 0) return -1;
      s = end;
      while (*s == ' ') s++;
      if (*s != (i < 2 ? ',' : ')')) return -1;
      s++;
    }
    blk[nblk].start = v[0];
    blk[nblk].nodes = v[1];
    blk[nblk].ranks = v[2];
    nblk++;
  }
  long placed = 0, per_round = 0;
  for (int b = 0; b < nblk; b++) per_round += blk[b].nodes * blk[b].ranks;
  if (per_round == 0) return -1;
  while (placed < size)
    for (int b = 0; b < nblk && placed < size; b++)
      for (long n = 0; n < blk[b].nodes && placed < size; n++)
        for (long r = 0; r < blk[b].ranks && placed < size; r++)
          node[placed++] = (int)(blk[b].start + n);
  return 0;
}
