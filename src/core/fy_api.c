/* API lock (MPI_THREAD_MULTIPLE) and per-thread state: see fy_api.h. */
#include "core/fy_api.h"
#include <pthread.h>

__thread fy_tls_t fy_tls __attribute__((tls_model("initial-exec")));
int fy_thread_multiple;

static pthread_mutex_t api_lock;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static __thread int held_depth; /* depth released by unlock_for_wait */

static void init_lock(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&api_lock, &a);
  pthread_mutexattr_destroy(&a);
}

void fy_api_lock(void) {
  pthread_once(&once, init_lock);
  pthread_mutex_lock(&api_lock);
  held_depth++;
}

void fy_api_unlock(void) {
  /* MPI_Init_thread grants MULTIPLE during the call: its exit has no
   * level to release. */
  if (held_depth == 0) return;
  held_depth--;
  pthread_mutex_unlock(&api_lock);
}

/* A blocking wait lets other threads in: release every level we hold. */
static __thread int saved_depth;

void fy_api_unlock_for_wait(void) {
  if (!fy_thread_multiple) return;
  saved_depth = held_depth;
  for (int i = 0; i < saved_depth; i++) fy_api_unlock();
}

void fy_api_relock_after_wait(void) {
  if (!fy_thread_multiple) return;
  int n = saved_depth;
  for (int i = 0; i < n; i++) fy_api_lock();
}

/* The asynchronous agents override this to re-arm a timer whose expiry
 * arrived while the thread was inside the library. */
__attribute__((weak)) void fy_async_on_api_exit(void) {}
__attribute__((weak)) void fy_async_kick_pause(void) {}
__attribute__((weak)) void fy_async_kick_resume(void) {}

void fy_api_exit_slow(void) {
  /* A signal that comes during the deferred turn itself (which runs as
   * library code) is deferred again: take it too, or it would be lost.
   * So is a kick that lands while the registration for kicks is renewed
   * (it runs as library code too, and a sender may kick as soon as it
   * sees it): taken here as well, or a sender that kicked once for its
   * full ring waits for ever on a receiver that computes. */
  do {
    while (fy_tls.pef_pending) {
      fy_tls.pef_pending = 0;
      fy_async_on_api_exit();
    }
    if (fy_tls.kick_paused) fy_async_kick_resume();
  } while (fy_tls.pef_pending);
}
