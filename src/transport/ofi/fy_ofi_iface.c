/* The interface a fabric job spanning hosts takes: fy_ofi_iface.h. */
#include "transport/ofi/fy_ofi_iface.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

int fy_ofi_iface_add(char *list, size_t len, const char *fabric, const char *addr) {
  size_t used = strlen(list), need = strlen(fabric) + 1 + strlen(addr) + (used ? 1 : 0);
  if (strpbrk(fabric, "|;") || strpbrk(addr, "|;") || used + need + 1 > len) return -1;
  if (used) list[used++] = ';';
  strcpy(list + used, fabric);
  strcat(list + used, "|");
  strcat(list + used, addr);
  return 0;
}

static int link_local(const char *addr) {
  unsigned char b[16];
  if (inet_pton(AF_INET, addr, b) == 1) return b[0] == 169 && b[1] == 254;
  if (inet_pton(AF_INET6, addr, b) == 1) return b[0] == 0xfe && (b[1] & 0xc0) == 0x80;
  return 0;
}

/* The entry of list at *pos: fabric and address into the buffers (cut to
 * their size); *pos moves past it. 0 at the end of the list. */
static int next_entry(const char *list, size_t *pos, char *fab, size_t flen, char *addr, size_t alen) {
  const char *s = list + *pos;
  if (!*s) return 0;
  size_t e = strcspn(s, ";"), f = strcspn(s, "|;");
  size_t fl = f < flen - 1 ? f : flen - 1;
  memcpy(fab, s, fl);
  fab[fl] = 0;
  addr[0] = 0;
  if (f < e) {
    size_t al = e - f - 1 < alen - 1 ? e - f - 1 : alen - 1;
    memcpy(addr, s + f + 1, al);
    addr[al] = 0;
  }
  *pos += e + (s[e] == ';');
  return 1;
}

int fy_ofi_iface_reaches(const char *fabric, const char *addr, const char *list) {
  char f[128], a[64];
  if (link_local(addr)) return 0;
  for (size_t pos = 0; next_entry(list, &pos, f, sizeof f, a, sizeof a);)
    if (!strcmp(f, fabric) && strcmp(a, addr)) return 1;
  return 0;
}

/* Peer addresses the route rule does not ask about: every host has them
 * (link-local, loopback), they name no host (unspecified), or they are
 * no address at all. */
static int unroutable(const char *addr) {
  unsigned char b[16];
  static const unsigned char zero[16];
  if (link_local(addr)) return 1;
  if (inet_pton(AF_INET, addr, b) == 1) return b[0] == 127 || !memcmp(b, zero, 4);
  if (inet_pton(AF_INET6, addr, b) == 1)
    return !memcmp(b, zero, 15) && (b[15] == 0 || b[15] == 1); /* (::, ::1) */
  return 1;
}

static int cmp(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

struct cand {
  char fab[128], addr[64];
};

/* The route rule for one host: adds 1 to got[i] for every candidate i
 * that is the kernel's source toward one of the host's addresses (once
 * per candidate however many addresses lead to it). */
static void by_route(const struct cand *c, int n, const char *list, fy_ofi_iface_route_fn route, void *arg,
                     int *got) {
  char f[128], a[64], src[64];
  unsigned char *hit = calloc((size_t)n, 1);
  if (!hit) return;
  for (size_t pos = 0; next_entry(list, &pos, f, sizeof f, a, sizeof a);) {
    int own = 0;
    for (int i = 0; i < n && !own; i++) own = !strcmp(c[i].addr, a);
    /* (own: a bridge every host has at one address leads back here) */
    if (own || unroutable(a) || route(a, src, sizeof src, arg) != 0) continue;
    for (int i = 0; i < n; i++)
      if (!strcmp(c[i].addr, src)) hit[i] = 1;
  }
  for (int i = 0; i < n; i++) got[i] += hit[i];
  free(hit);
}

/* The first candidate that reaches all hosts, else the first that reaches
 * most, else 0; -1 for "none reaches all" when all_only. */
static int best_of(const int *got, int n, int hosts, int all_only) {
  int best = 0, most = 0;
  for (int i = 0; i < n; i++) {
    if (got[i] == hosts) return i;
    if (got[i] > most) most = got[i], best = i;
  }
  return all_only ? -1 : best;
}

int fy_ofi_iface_pick(const char *mine, int n, const char *const *peers, int np, fy_ofi_iface_route_fn route,
                      void *arg) {
  int best = 0, hosts = 0;
  if (n <= 1 || np <= 0) return 0;
  /* The other hosts: a list counts once, whoever published it (sorted, so
   * thousands of ranks cost N log N). */
  const char **other = malloc((size_t)np * sizeof *other);
  struct cand *c = malloc((size_t)n * sizeof *c);
  int *got = calloc((size_t)n, sizeof *got);
  unsigned char *unreached = calloc((size_t)np, 1);
  if (!other || !c || !got || !unreached) goto out;
  for (int p = 0; p < np; p++)
    if (peers[p] && *peers[p] && strcmp(peers[p], mine)) other[hosts++] = peers[p];
  qsort(other, (size_t)hosts, sizeof *other, cmp);
  int k = 0;
  for (int p = 0; p < hosts; p++)
    if (!k || strcmp(other[k - 1], other[p])) other[k++] = other[p];
  hosts = k;
  if (!hosts) goto out;
  size_t pos = 0;
  int nc = 0;
  while (nc < n && next_entry(mine, &pos, c[nc].fab, sizeof c[nc].fab, c[nc].addr, sizeof c[nc].addr)) nc++;
  /* The subnet rule, and the hosts it leaves unreached. */
  int left = 0;
  for (int p = 0; p < hosts; p++) {
    int any = 0;
    for (int i = 0; i < nc; i++)
      if (fy_ofi_iface_reaches(c[i].fab, c[i].addr, other[p])) got[i]++, any = 1;
    if (!any) unreached[p] = 1, left++;
  }
  if ((best = best_of(got, nc, hosts, 1)) >= 0 || !route || !left) {
    if (best < 0) best = best_of(got, nc, hosts, 0);
    goto out;
  }
  /* The route rule for those hosts, added to the subnet rule's counts. */
  for (int p = 0; p < hosts; p++)
    if (unreached[p]) by_route(c, nc, other[p], route, arg, got);
  best = best_of(got, nc, hosts, 0);
out:
  free(other);
  free(c);
  free(got);
  free(unreached);
  return best;
}
