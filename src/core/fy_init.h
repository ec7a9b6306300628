/* Library state and start-up/tear-down.
 *
 * Contract
 * - fy_state.initialized is set once MPI_Init(_thread) succeeded and
 *   fy_state.finalized once MPI_Finalize returned; both stay set.
 * - Start-up order: config, PMI, shm transport, objects, point-to-point,
 *   progress agents; tear-down in reverse after a barrier. */
#ifndef FY_INIT_H
#define FY_INIT_H
#include <pthread.h>

typedef struct fy_state {
  int initialized, finalized;
  int thread_level;
  pthread_t main_thread;
  int world_rank, world_size;
  int appnum;
  int local_rank, local_size;
  int *local_of_world;   /* world rank -> local rank, -1 if remote */
} fy_state_t;

extern fy_state_t fy_state;
/* Abort the job: tell the launcher, then exit. Never returns. */
void fy_abort(int code, const char *msg) __attribute__((noreturn));
#endif
