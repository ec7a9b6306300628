/* CPU binding and segment cleanup shared by mpiexec and its proxy. */
#include "launcher/fy_launch_place.h"
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Binding. Spinning ranks that the scheduler happens to stack on one
 * core (futex wake-ups pull the wakee to the waker's CPU) otherwise take
 * turns by time slice; a hybrid rank's threads need cores of their own. */

enum { K_HWTHREAD, K_CORE, K_SOCKET, K_NUMA, K_NONE, K_AUTO };

/* spec into kind and width; -1 when it is none of the forms. */
static int parse(const char *spec, int *kind, int *width) {
  static const struct { const char *name; int kind; } kinds[] = {
      {"hwthread", K_HWTHREAD}, {"core", K_CORE}, {"socket", K_SOCKET}, {"package", K_SOCKET},
      {"numa", K_NUMA}, {"none", K_NONE}, {"auto", K_AUTO}};
  *width = 1;
  for (size_t k = 0; spec && k < sizeof kinds / sizeof kinds[0]; k++) {
    size_t l = strlen(kinds[k].name);
    if (strncmp(spec, kinds[k].name, l)) continue;
    *kind = kinds[k].kind;
    if (!spec[l]) return 0;
    if (spec[l] != ':' || *kind >= K_NONE) return -1;
    char *end;
    long w = strtol(spec + l + 1, &end, 10);
    if (end == spec + l + 1 || *end || w < 1 || w > CPU_SETSIZE) return -1;
    *width = (int)w;
    return 0;
  }
  return -1;
}

int fy_bind_check(const char *spec) {
  int k, w;
  return parse(spec, &k, &w);
}

static int read_int(const char *fmt, int cpu) {
  char path[128], buf[32];
  snprintf(path, sizeof path, fmt, cpu);
  int fd = open(path, O_RDONLY | O_CLOEXEC), v = -1;
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n > 0) {
    buf[n] = 0;
    v = atoi(buf);
  }
  return v;
}

/* The NUMA node of cpu: its /sys directory holds a link nodeN. */
static int numa_of(int cpu) {
  char path[96];
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d", cpu);
  DIR *d = opendir(path);
  int node = 0;
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));)
    if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9') {
      node = atoi(e->d_name + 4);
      break;
    }
  closedir(d);
  return node;
}

void fy_topo_read(fy_topo_t *t) {
  cpu_set_t allowed;
  t->n = 0;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &allowed)) continue;
    int core = read_int("/sys/devices/system/cpu/cpu%d/topology/core_id", c);
    int sock = read_int("/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
    t->cpu[t->n] = c;
    t->socket[t->n] = sock < 0 ? 0 : sock;
    /* (core ids repeat on each socket; unreadable: a core of its own) */
    t->core[t->n] = core < 0 ? -1 - c : t->socket[t->n] * 65536 + core;
    t->numa[t->n] = numa_of(c);
    t->n++;
  }
}

/* Per CPU of t, the index of its object of kind (in order of first
 * appearance); returns the number of objects. */
static int objects(const fy_topo_t *t, int kind, int *obj) {
  int nobj = 0;
  int *key = malloc((size_t)(t->n ? t->n : 1) * sizeof *key);
  if (!key) return 0;
  for (int c = 0; c < t->n; c++) {
    int k = kind == K_HWTHREAD ? t->cpu[c] : kind == K_CORE ? t->core[c] : kind == K_SOCKET ? t->socket[c] : t->numa[c];
    int o = 0;
    while (o < nobj && key[o] != k) o++;
    if (o == nobj) key[nobj++] = k;
    obj[c] = o;
  }
  free(key);
  return nobj;
}

int fy_bind_cpus(const fy_topo_t *t, const char *spec, int i, int nlocal, int omp, cpu_set_t *out) {
  int kind, width, *obj = malloc((size_t)(t->n ? t->n : 1) * sizeof *obj), bound = 0;
  if (!obj || parse(spec, &kind, &width) != 0 || kind == K_NONE || t->n == 0 || i < 0) goto out;
  if (kind == K_AUTO) {
    width = omp > 0 ? omp : 1;
    long need = (long)(nlocal > 0 ? nlocal : 1) * width;
    if (need <= objects(t, K_CORE, obj)) kind = K_CORE;
    else if (need <= t->n) kind = K_HWTHREAD;
    else goto out;
  }
  int nobj = objects(t, kind, obj);
  if (!nobj) goto out;
  long first = ((long)i * width) % nobj;
  CPU_ZERO(out);
  for (int c = 0; c < t->n; c++) {
    long d = (obj[c] - first + nobj) % nobj; /* (its distance from the rank's first object) */
    if (d < width) CPU_SET(t->cpu[c], out);
  }
  bound = 1;
out:
  free(obj);
  return bound;
}

void fy_launch_bind(const char *spec, int i, int nlocal) {
  static fy_topo_t t; /* (in a child about to exec: no other thread) */
  const char *o = getenv("OMP_NUM_THREADS");
  cpu_set_t set;
  fy_topo_read(&t);
  if (fy_bind_cpus(&t, spec, i, nlocal, o ? atoi(o) : 1, &set)) sched_setaffinity(0, sizeof set, &set);
}

void fy_launch_cleanup_shm(const char *kvsname) {
  char pfx[300];
  int pl = snprintf(pfx, sizeof pfx, "fy-%s-", kvsname);
  DIR *d = opendir("/dev/shm");
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, pfx, (size_t)pl)) unlinkat(dirfd(d), e->d_name, 0);
  closedir(d);
}
