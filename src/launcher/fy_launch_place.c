/* CPU binding and segment cleanup shared by mpiexec and its proxy. */
#include "launcher/fy_launch_place.h"
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Spinning ranks that the scheduler happens to stack on one core (futex
 * wake-ups pull the wakee to the waker's CPU) otherwise take turns by time
 * slice. */
void fy_launch_bind_cpu(int i) {
  cpu_set_t allowed, one;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  int n = CPU_COUNT(&allowed), k = i % (n ? n : 1);
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &allowed) || k--) continue;
    CPU_ZERO(&one);
    CPU_SET(c, &one);
    sched_setaffinity(0, sizeof one, &one);
    return;
  }
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
