/* mpiexec inside a Slurm allocation: fy_launch_slurm.h. */
#include "launcher/fy_launch_slurm.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int fy_slurm_counts(const char *spec, int *out, int n) {
  int k = 0;
  const char *p = spec;
  while (*p) {
    char *end;
    errno = 0;
    long c = strtol(p, &end, 10), rep = 1;
    if (end == p || errno || c < 1 || c > 100000) return -1;
    p = end;
    if (*p == '(') {
      if (p[1] != 'x') return -1;
      rep = strtol(p + 2, &end, 10);
      if (end == p + 2 || *end != ')' || rep < 1 || rep > 1000000) return -1;
      p = end + 1;
    }
    for (long r = 0; r < rep; r++) {
      if (k >= n) return -1;
      out[k++] = (int)c;
    }
    if (*p == ',') p++;
    else if (*p) return -1;
  }
  return k == n ? 0 : -1;
}

int fy_slurm_hosts(char **list, FILE *err) {
  const char *nl = getenv("SLURM_JOB_NODELIST");
  if (!nl || !*nl) nl = getenv("SLURM_NODELIST");
  if (!getenv("SLURM_JOB_ID") || !nl || !*nl) return 0;
  /* (the names go to a shell: Slurm's own contain none of its specials) */
  for (const char *c = nl; *c; c++)
    if (!isalnum((unsigned char)*c) && !strchr("[]-,._", *c)) {
      fprintf(err, "mpiexec: SLURM_JOB_NODELIST \"%s\": unexpected character '%c'\n", nl, *c);
      return -1;
    }
  char cmd[4096], line[512], *names = NULL;
  int n = 0, rc = -1, *slots = NULL;
  size_t used = 0, cap = 0;
  if (snprintf(cmd, sizeof cmd, "scontrol show hostnames '%s' 2>&1", nl) >= (int)sizeof cmd) {
    fprintf(err, "mpiexec: SLURM_JOB_NODELIST is too long\n");
    return -1;
  }
  FILE *f = popen(cmd, "r");
  if (!f) {
    fprintf(err, "mpiexec: cannot run scontrol to read the Slurm allocation: %s\n", strerror(errno));
    return -1;
  }
  /* the names, one per line, into names ("a\0b\0...") */
  while (fgets(line, sizeof line, f)) {
    size_t l = strcspn(line, "\r\n");
    line[l] = 0;
    if (!l) continue;
    if (used + l + 1 > cap) {
      size_t nc = cap ? 2 * cap + l : 4096 + l;
      char *t = realloc(names, nc);
      if (!t) goto oom;
      names = t;
      cap = nc;
    }
    memcpy(names + used, line, l + 1);
    used += l + 1;
    n++;
  }
  int st = pclose(f);
  f = NULL;
  if (st != 0 || !n) {
    fprintf(err, "mpiexec: \"scontrol show hostnames %s\" failed%s%.*s\n", nl, n ? ": " : "", n ? 200 : 0,
            n ? names : "");
    goto out;
  }
  if (!(slots = calloc((size_t)n, sizeof *slots))) goto oom;
  const char *spec = getenv("SLURM_TASKS_PER_NODE");
  if (!spec || !*spec) spec = getenv("SLURM_JOB_CPUS_PER_NODE");
  if (!spec || fy_slurm_counts(spec, slots, n) != 0)
    for (int i = 0; i < n; i++) slots[i] = 1;
  /* "name:slots,..." */
  size_t len = used + (size_t)n * 12 + 1;
  char *out = malloc(len), *q = out;
  if (!out) goto oom;
  const char *name = names;
  for (int i = 0; i < n; i++, name += strlen(name) + 1)
    q += snprintf(q, len - (size_t)(q - out), "%s%s:%d", i ? "," : "", name, slots[i]);
  *list = out;
  rc = 1;
  goto out;
oom:
  fprintf(err, "mpiexec: out of memory reading the Slurm allocation\n");
out:
  if (f) pclose(f);
  free(names);
  free(slots);
  return rc;
}
