/* mpiexec's host list and rank placement: see fy_launch_hosts.h. */
#include "launcher/fy_launch_hosts.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int add_host(fy_hosts_t *h, const char *spec, size_t len, const char *where, FILE *err) {
  while (len && isspace((unsigned char)*spec)) spec++, len--;
  while (len && isspace((unsigned char)spec[len - 1])) len--;
  if (!len) return 0;
  const char *colon = memchr(spec, ':', len);
  size_t nl = colon ? (size_t)(colon - spec) : len;
  long slots = 1;
  if (colon) {
    char num[32];
    size_t sl = len - nl - 1;
    char *end;
    if (sl == 0 || sl >= sizeof num) goto bad;
    memcpy(num, colon + 1, sl);
    num[sl] = '\0';
    errno = 0;
    slots = strtol(num, &end, 10);
    if (*end || errno || slots < 1 || slots > 100000) goto bad;
  }
  if (nl == 0 || nl > 255) goto bad;
  for (size_t i = 0; i < nl; i++)
    if (isspace((unsigned char)spec[i])) goto bad;
  fy_host_t *n = realloc(h->h, (size_t)(h->n + 1) * sizeof *n);
  if (!n) {
    fprintf(err, "mpiexec: out of memory\n");
    return -1;
  }
  h->h = n;
  memset(&h->h[h->n], 0, sizeof h->h[0]);
  h->h[h->n].name = strndup(spec, nl);
  if (!h->h[h->n].name) {
    fprintf(err, "mpiexec: out of memory\n");
    return -1;
  }
  h->h[h->n].slots = (int)slots;
  h->n++;
  return 0;
bad:
  fprintf(err, "mpiexec: %s: \"%.*s\" is not host[:slots] (slots 1..100000)\n", where, (int)len, spec);
  return -1;
}

int fy_hosts_add_list(fy_hosts_t *h, const char *list, FILE *err) {
  const char *p = list;
  if (!*p) {
    fprintf(err, "mpiexec: -hosts: empty host list\n");
    return -1;
  }
  for (;;) {
    const char *c = strchr(p, ',');
    size_t l = c ? (size_t)(c - p) : strlen(p);
    if (add_host(h, p, l, "-hosts", err) < 0) return -1;
    if (!c) return 0;
    p = c + 1;
  }
}

int fy_hosts_add_file(fy_hosts_t *h, const char *path, FILE *err) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(err, "mpiexec: cannot open host file \"%s\": %s\n", path, strerror(errno));
    return -1;
  }
  char line[1024], where[1100];
  int lineno = 0, before = h->n, rc = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    snprintf(where, sizeof where, "%s line %d", path, lineno);
    if (add_host(h, line, strlen(line), where, err) < 0) {
      rc = -1;
      break;
    }
  }
  fclose(f);
  if (rc == 0 && h->n == before) {
    fprintf(err, "mpiexec: host file \"%s\" names no host\n", path);
    rc = -1;
  }
  return rc;
}

int fy_host_is_local(const char *name) {
  if (!strcmp(name, "localhost") || !strncmp(name, "127.", 4) || !strcmp(name, "::1") ||
      !strcmp(name, "localhost.localdomain"))
    return 1;
  char me[256];
  if (gethostname(me, sizeof me - 1) != 0) return 0;
  me[sizeof me - 1] = '\0';
  if (!strcmp(name, me)) return 1;
  /* "node1" and "node1.cluster": the same machine when the short names agree
   * and one of them is short. */
  size_t a = strcspn(name, "."), b = strcspn(me, ".");
  if (a == b && !strncmp(name, me, a) && (!name[a] || !me[b])) return 1;
  return 0;
}

int fy_hosts_place(fy_hosts_t *h, int np, int ppn, FILE *err) {
  int first = 0, count = 0;
  return fy_hosts_place_apps(h, h->n, 1, &np, &first, &count, ppn, err);
}

int fy_hosts_place_apps(fy_hosts_t *h, int njob, int napps, const int *np, const int *first, const int *count,
                        int ppn, FILE *err) {
  int total = 0, here = -1, *cur_i = NULL, *cur_k = NULL, *cnt = NULL;
  for (int a = 0; a < napps; a++) {
    total += np[a];
    if (!count[a] && !njob) here = 0; /* (a program with no host at all) */
  }
  h->np = total;
  h->host_of = calloc((size_t)total, sizeof *h->host_of);
  h->local_rank = calloc((size_t)total, sizeof *h->local_rank);
  if (!h->host_of || !h->local_rank) goto oom;
  if (here == 0) {
    /* No host given: this host, every rank of those programs. */
    int slots = 0;
    for (int a = 0; a < napps; a++)
      if (!count[a]) slots += np[a];
    here = h->n;
    if (add_host(h, "localhost", 9, "", err) < 0) return -1;
    h->h[here].slots = slots;
  }
  /* Node ids: every local entry is node of the first local entry; other
   * names are equal by string. */
  int nodes = 0, local_node = -1;
  for (int i = 0; i < h->n; i++) {
    fy_host_t *e = &h->h[i];
    e->local = fy_host_is_local(e->name);
    e->node = -1;
    if (e->local && local_node >= 0) e->node = local_node;
    for (int j = 0; j < i && e->node < 0; j++)
      if (!e->local && !h->h[j].local && !strcmp(h->h[j].name, e->name)) e->node = h->h[j].node;
    if (e->node < 0) e->node = nodes++;
    if (e->local && local_node < 0) local_node = e->node;
    e->round = ppn > 0 ? ppn : e->slots;
    if (!e->local) h->any_remote = 1;
  }
  /* One walk per range, kept by its first entry: the programs on the
   * job's list continue one another's. */
  cnt = calloc((size_t)nodes, sizeof *cnt);
  cur_i = calloc((size_t)h->n, sizeof *cur_i);
  cur_k = calloc((size_t)h->n, sizeof *cur_k);
  if (!cnt || !cur_i || !cur_k) goto oom;
  h->own_ranges = 0;
  for (int a = 0, r = 0; a < napps; a++) {
    int f = count[a] ? first[a] : njob ? 0 : here, c = count[a] ? count[a] : njob ? njob : 1;
    if (count[a]) h->own_ranges = 1;
    for (int placed = 0; placed < np[a]; placed++, r++) {
      while (cur_k[f] >= h->h[f + cur_i[f]].round) {
        cur_k[f] = 0;
        cur_i[f] = (cur_i[f] + 1) % c;
      }
      int e = f + cur_i[f];
      cur_k[f]++;
      h->host_of[r] = e;
      h->local_rank[r] = cnt[h->h[e].node]++;
    }
  }
  for (int i = 0; i < h->n; i++) h->h[i].nranks = cnt[h->h[i].node];
  free(cnt);
  free(cur_i);
  free(cur_k);
  return 0;
oom:
  free(cnt);
  free(cur_i);
  free(cur_k);
  fprintf(err, "mpiexec: out of memory for the placement of %d ranks\n", total);
  return -1;
}

int fy_hosts_node_size(const fy_hosts_t *h, int r) { return h->h[h->host_of[r]].nranks; }

/* Appends block (node, count) to the mapping, merged into the previous
 * one when it continues it: nodes in a row with the same count are one
 * triple (start, nodes, count), as Hydra writes them, so a job on hundreds
 * of hosts still fits one PMI value (else every rank compares host
 * names, a get per rank per rank). */
typedef struct mapw {
  char *buf;
  size_t cap, len;
  int start, nodes, count; /* the block being built (nodes 0: none) */
} mapw_t;

static void map_flush(mapw_t *w) {
  if (w->nodes && w->len < w->cap)
    w->len += (size_t)snprintf(w->buf + w->len, w->cap - w->len, ",(%d,%d,%d)", w->start, w->nodes, w->count);
  w->nodes = 0;
}

static void map_add(mapw_t *w, int node, int count) {
  if (w->nodes && node == w->start + w->nodes && count == w->count) {
    w->nodes++;
    return;
  }
  map_flush(w);
  w->start = node;
  w->nodes = 1;
  w->count = count;
}

int fy_hosts_mapping(const fy_hosts_t *h, char *buf, size_t cap) {
  mapw_t w = {.buf = buf, .cap = cap};
  w.len = (size_t)snprintf(buf, cap, "(vector");
  if (h->own_ranges) {
    /* (programs on hosts of their own: every run of ranks on one node, in
     * rank order, covering the job once) */
    for (int r = 0, run = 1; r < h->np; r++, run++)
      if (r + 1 == h->np || h->h[h->host_of[r + 1]].node != h->h[h->host_of[r]].node) {
        map_add(&w, h->h[h->host_of[r]].node, run);
        run = 0;
      }
  } else {
    for (int i = 0; i < h->n; i++) map_add(&w, h->h[i].node, h->h[i].round);
  }
  map_flush(&w);
  if (w.len + 2 > cap) return -1;
  buf[w.len++] = ')';
  buf[w.len] = '\0';
  return 0;
}

void fy_hosts_free(fy_hosts_t *h) {
  for (int i = 0; i < h->n; i++) free(h->h[i].name);
  free(h->h);
  free(h->host_of);
  free(h->local_rank);
  memset(h, 0, sizeof *h);
}
