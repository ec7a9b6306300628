/* Where the progress agents' threads run: see fy_agent_cpu.h. Why: an
 * agent that shares its rank's only CPU can move data only by taking that
 * CPU from the computation it should overlap (docs/progress.md); a CPU the
 * job was given but no rank uses is what MPICH's and MVAPICH's async
 * progress threads are told to use by hand. */
#include "progress/async/fy_agent_cpu.h"
#include "core/fy_init.h"
#include "runtime/fy_config.h"
#include "transport/shm/fy_shm.h"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int free_cpu(void) {
  cpu_set_t offered, used, m;
  /* FERRY_NOLOCAL hides this host's other ranks: a "free" CPU would be a
   * peer's (measured: the agent then doubles a 64 KiB late-sender latency). */
  if (fy_config.nolocal) return -1;
  /* What the launcher may run us on: its own affinity (ranks narrow theirs). */
  if (sched_getaffinity(getppid(), sizeof offered, &offered) != 0) return -1;
  CPU_ZERO(&used);
  for (int i = 0; i < fy_state.local_size; i++) {
    pid_t p = i == fy_state.local_rank ? 0 : fy_shm_pid(i);
    if (p < 0 || (p == 0 && i != fy_state.local_rank)) return -1;
    if (sched_getaffinity(p, sizeof m, &m) != 0) return -1; /* cannot tell: do not guess */
    CPU_OR(&used, &used, &m);
  }
  int nfree = 0;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &offered) && !CPU_ISSET(c, &used)) nfree++;
  if (nfree == 0) return -1;
  int k = fy_state.local_rank % nfree;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &offered) && !CPU_ISSET(c, &used) && k-- == 0) return c;
  return -1;
}

static int cpu = -1; /* decided once (decide_cpu); every agent thread of the process shares it */

/* Once per process: the interrupt agent's thread and the main thread
 * (starting the fabric agent) may ask at the same moment. */
static void decide_cpu(void) {
  const char *v = fy_config.thread_cpu ? fy_config.thread_cpu : "auto";
  if (!strcmp(v, "auto")) {
    cpu = free_cpu();
  } else if (!strcmp(v, "none") || !strcmp(v, "-1")) {
    cpu = -1;
  } else {
    char *end;
    long c = strtol(v, &end, 10);
    if (*v && !*end && c >= 0 && c < CPU_SETSIZE) {
      cpu = (int)c;
    } else {
      fprintf(stderr, "ferry: FERRY_PROGRESS_THREAD_CPU=%s is not auto, none or a CPU number; not binding\n", v);
      cpu = -1;
    }
  }
}

int fy_agent_cpu(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, decide_cpu);
  return cpu;
}
