/* Where the progress agents' threads run (FERRY_PROGRESS_THREAD_CPU=auto,
 * the default; src/progress/async/fy_agent_cpu.h): when the launcher
 * offers a CPU that no rank of the node is bound to, every agent thread is
 * bound to exactly one such CPU; otherwise the agents keep their rank's
 * CPUs (also under FERRY_NOLOCAL, where a rank does not know its host's
 * other ranks). Run in the modes that have agent threads (thread,
 * interrupt). */
#include <mpi.h>
#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fytest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("agent_cpu");
  cpu_set_t mine, offered, used, m;
  CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0, "own affinity");
  CHECK(sched_getaffinity(getppid(), sizeof offered, &offered) == 0, "the launcher's affinity");
  /* The union of every rank's CPUs (one node: the test runs on one host). */
  cpu_set_t *all = malloc((size_t)fy_size_ * sizeof *all);
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
  CPU_ZERO(&used);
  for (int i = 0; i < fy_size_; i++) CPU_OR(&used, &used, &all[i]);
  free(all);
  int nfree = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) nfree += CPU_ISSET(c, &offered) && !CPU_ISSET(c, &used);
  const char *nl = getenv("FERRY_NOLOCAL");
  if (nl && atoi(nl)) nfree = 0; /* ranks cannot see each other: no binding */

  /* Every thread but this one is an agent. */
  DIR *d = opendir("/proc/self/task");
  CHECK(d != NULL, "/proc/self/task");
  int agents = 0;
  struct dirent *e;
  while (d && (e = readdir(d))) {
    pid_t tid = (pid_t)atoi(e->d_name);
    if (tid <= 0 || tid == gettid()) continue;
    agents++;
    CHECK(sched_getaffinity(tid, sizeof m, &m) == 0, "agent %d affinity", (int)tid);
    if (nfree > 0) {
      int ok = CPU_COUNT(&m) == 1;
      for (int c = 0; c < CPU_SETSIZE && ok; c++)
        if (CPU_ISSET(c, &m)) ok = CPU_ISSET(c, &offered) && !CPU_ISSET(c, &used);
      CHECK(ok, "agent %d: bound to %d CPU(s), not to one free CPU (%d free)", (int)tid, CPU_COUNT(&m), nfree);
    } else {
      CHECK(CPU_EQUAL(&m, &mine), "agent %d: no free CPU, but its CPUs differ from its rank's", (int)tid);
    }
  }
  if (d) closedir(d);
  const char *mode = getenv("FERRY_PROGRESS");
  if (mode && (!strcmp(mode, "thread") || !strcmp(mode, "interrupt")))
    CHECK(agents >= 1, "no agent thread in mode %s", mode);
  return fy_finish();
}
