/* Unit tests of rank binding (src/launcher/fy_launch_place.c) on
 * topologies written by hand: which CPUs local rank i gets for each kind
 * and width, round the node's objects, and what auto makes of
 * OMP_NUM_THREADS. */
#include "launcher/fy_launch_place.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fy_expect.h"

static fy_topo_t t;

/* sockets x cores x threads, numbered as Linux does on x86: the first
 * thread of every core, then the second ones; a NUMA node per socket. */
static void machine(int sockets, int cores, int threads) {
  t.n = 0;
  for (int th = 0; th < threads; th++)
    for (int s = 0; s < sockets; s++)
      for (int c = 0; c < cores; c++) {
        t.cpu[t.n] = t.n;
        t.socket[t.n] = s;
        t.core[t.n] = s * 65536 + c;
        t.numa[t.n] = s;
        t.n++;
      }
}

/* The CPUs rank i gets, as "a,b,c" ("-" for no binding). */
static const char *cpus(const char *spec, int i, int nlocal, int omp) {
  static char buf[4096];
  cpu_set_t set;
  if (!fy_bind_cpus(&t, spec, i, nlocal, omp, &set)) return "-";
  size_t l = 0;
  buf[0] = 0;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set)) l += (size_t)snprintf(buf + l, sizeof buf - l, "%s%d", l ? "," : "", c);
  return buf;
}

#define IS(spec, i, nl, omp, want) EXPECT(!strcmp(cpus(spec, i, nl, omp), want))

int main(void) {
  EXPECT(fy_bind_check("core") == 0 && fy_bind_check("numa:2") == 0 && fy_bind_check("package") == 0);
  EXPECT(fy_bind_check("core:0") < 0 && fy_bind_check("auto:2") < 0 && fy_bind_check("") < 0 &&
         fy_bind_check(NULL) < 0 && fy_bind_check("core:2x") < 0);

  /* 2 sockets x 4 cores x 2 threads: CPUs 0-7 first threads, 8-15 second. */
  machine(2, 4, 2);
  IS("hwthread", 0, 4, 1, "0");
  IS("hwthread", 9, 16, 1, "9");
  IS("core", 0, 4, 1, "0,8");   /* a core with both its threads */
  IS("core", 5, 8, 1, "5,13");
  IS("core", 9, 10, 1, "1,9");  /* round the 8 cores */
  IS("core:2", 1, 4, 1, "2,3,10,11");
  IS("socket", 0, 2, 1, "0,1,2,3,8,9,10,11");
  IS("socket", 1, 2, 1, "4,5,6,7,12,13,14,15");
  IS("socket", 2, 4, 1, "0,1,2,3,8,9,10,11"); /* ranks spread over the sockets */
  IS("numa", 3, 4, 1, "4,5,6,7,12,13,14,15");
  IS("core:16", 0, 1, 1, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15");
  IS("none", 0, 1, 1, "-");
  /* auto: a core per rank while they fit, */
  IS("auto", 3, 8, 1, "3,11");
  /* OMP_NUM_THREADS cores per rank (a hybrid rank's threads), */
  IS("auto", 1, 2, 4, "4,5,6,7,12,13,14,15");
  IS("auto", 0, 4, 2, "0,1,8,9");
  /* hardware threads when cores are too few, */
  IS("auto", 11, 16, 1, "11");
  IS("auto", 1, 4, 4, "4,5,6,7");
  /* none when even those are. */
  IS("auto", 0, 17, 1, "-");
  IS("auto", 0, 4, 8, "-");

  /* No hardware threads, one socket (this VM's kind): auto is core. */
  machine(1, 2, 1);
  IS("auto", 1, 2, 1, "1");
  IS("auto", 0, 1, 2, "0,1");
  IS("auto", 0, 2, 2, "-");
  IS("socket", 1, 2, 1, "0,1");

  /* This process's own topology reads back as CPUs it may use. */
  fy_topo_read(&t);
  EXPECT(t.n >= 1 && strcmp(cpus("hwthread", 0, 1, 1), "-") != 0);
  return failures != 0;
}
