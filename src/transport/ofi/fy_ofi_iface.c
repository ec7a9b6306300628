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

static int cmp(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

int fy_ofi_iface_pick(const char *mine, int n, const char *const *peers, int np) {
  int best = 0, most = 0, hosts = 0;
  if (n <= 1 || np <= 0) return 0;
  /* The other hosts: a list counts once, whoever published it (sorted, so
   * thousands of ranks cost N log N). */
  const char **other = malloc((size_t)np * sizeof *other);
  if (!other) return 0;
  for (int p = 0; p < np; p++)
    if (peers[p] && *peers[p] && strcmp(peers[p], mine)) other[hosts++] = peers[p];
  qsort(other, (size_t)hosts, sizeof *other, cmp);
  int k = 0;
  for (int p = 0; p < hosts; p++)
    if (!k || strcmp(other[k - 1], other[p])) other[k++] = other[p];
  hosts = k;
  char f[128], a[64];
  size_t pos = 0;
  for (int i = 0; hosts && i < n && next_entry(mine, &pos, f, sizeof f, a, sizeof a); i++) {
    int reached = 0;
    for (int p = 0; p < hosts; p++) reached += fy_ofi_iface_reaches(f, a, other[p]);
    if (reached == hosts) {
      best = i;
      break;
    }
    if (reached > most) most = reached, best = i;
  }
  free(other);
  return best;
}
