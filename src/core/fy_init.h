/* Library state and start-up/tear-down.
 *
 * Contract
 * - The runtime (PMI, transports, objects, progress agents) is brought up
 *   by whichever comes first, MPI_Init(_thread) or an MPI_Session_init.
 *   With the world model it shuts down at MPI_Finalize, or at the last
 *   open session's MPI_Session_finalize after it; without, it stays up
 *   and leaves at process exit (agents stopped, the process manager told;
 *   no barrier). fy_state.initialized is set while it comes up and stays
 *   set; fy_state.finalized once it shut down (both mean the runtime, not
 *   the world model: internal code reads them).
 * - fy_state.world_init / world_fini: MPI_Init(_thread) / MPI_Finalize
 *   were called (what MPI_Initialized / MPI_Finalized report).
 * - Start-up order: config, PMI, shm transport, objects, point-to-point,
 *   progress agents; tear-down in reverse after a barrier over all the
 *   job's processes. The runtime does not start a second time in one
 *   process. */
#ifndef FY_INIT_H
#define FY_INIT_H
#include <pthread.h>

typedef struct fy_state {
  int initialized, finalized; /* the runtime is up / has shut down */
  int world_init, world_fini; /* MPI_Init / MPI_Finalize were called */
  int sessions;               /* open sessions */
  int thread_level;
  pthread_t main_thread;
  int world_rank, world_size;
  int appnum;
  int local_rank, local_size;
  int node_size;         /* ranks on this node as the process manager says
                          * (local_size before FERRY_NOLOCAL makes it 1) */
  int *local_of_world;   /* world rank -> local rank, -1 if remote */
} fy_state_t;

extern fy_state_t fy_state;
/* "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE" for a level 0..3 (info
 * values: MPI_INFO_ENV's and a session's thread_level); NULL for another
 * number. */
const char *fy_thread_level_name(int level);
/* Bring the runtime up at thread level `required` (caller names the MPI
 * call for messages). A failure aborts the job: nothing can report it. */
void fy_runtime_start(int required, const char *caller);
/* The same for MPI_Session_init, which also arranges the exit of a
 * process that never initializes the world model. */
void fy_runtime_start_for_session(int required);
/* Shut the runtime down (collective over the job's processes). */
void fy_runtime_stop(void);
/* Abort the job: tell the launcher, then exit. Never returns. */
void fy_abort(int code, const char *msg) __attribute__((noreturn));
#endif
