/* API entry and exit, wrapped around every MPI_ function by the generated
 * bindings. Contract:
 * - FY_API_ENTER() marks the calling thread as inside Ferry (the flag the PEF
 *   signal handler tests instead of a sigprocmask syscall) and, at
 *   MPI_THREAD_MULTIPLE, takes the library's coarse lock (recursive: user
 *   callbacks may call MPI).
 * - FY_API_EXIT() undoes it and gives asynchronous agents a chance to re-arm
 *   (an expiry that hit while the thread was inside Ferry is not lost).
 * - A thread registered for PEF kicks (senders signal it when a rendezvous
 *   start arrives while it computes) is unregistered by its outermost entry
 *   and registered again, with a look at the ring, by the exit: a signal
 *   into the library would only be deferred to the exit, at the cost of its
 *   delivery (a receiver posting a window of MPI_Irecv took one per message).
 * - Blocking waits release the coarse lock while they yield or sleep
 *   (fy_api_unlock_for_wait / fy_api_relock_after_wait).
 * - The outermost entry and exit also write this process's "inside an MPI
 *   call" word in shared memory (fy_tls.call_word, set for the thread that
 *   initialized MPI by src/pt2pt/direct.c; NULL when not kept): a sender
 *   reads it to leave the copies of an exchange to each side. A plain
 *   store to a line of our own; peers only read it. */
#ifndef FY_API_H
#define FY_API_H
#include <signal.h>

typedef struct fy_tls {
  volatile sig_atomic_t in_mpi;   /* depth of Ferry calls on this thread */
  volatile sig_atomic_t pef_pending; /* a PEF expiry was skipped while in_mpi */
  volatile sig_atomic_t kick_reg; /* this thread is registered for PEF kicks */
  volatile sig_atomic_t kick_paused; /* ... and unregistered for the current call */
  unsigned *call_word;            /* shared "inside an MPI call" word, or NULL */
} fy_tls_t;

/* initial-exec: the PEF signal handler reads it, and must not allocate. */
extern __thread fy_tls_t fy_tls __attribute__((tls_model("initial-exec")));
extern int fy_thread_multiple;   /* MPI_THREAD_MULTIPLE was granted */

void fy_api_lock(void);
void fy_api_unlock(void);
void fy_api_exit_slow(void);     /* deferred agent work on exit */
/* (progress/async/pef.c) unregister kicks for this call / register again */
void fy_async_kick_pause(void);
void fy_async_kick_resume(void);
void fy_api_unlock_for_wait(void);
void fy_api_relock_after_wait(void);

static inline void fy_api_enter(void) {
  if (fy_tls.in_mpi++ == 0) {
    if (fy_tls.call_word) __atomic_store_n(fy_tls.call_word, 1u, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* (the handler defers from here on) */
    if (fy_tls.kick_reg) fy_async_kick_pause();
  }
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (fy_thread_multiple) fy_api_lock();
}

static inline void fy_api_exit(void) {
  if (fy_thread_multiple) fy_api_unlock();
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (--fy_tls.in_mpi == 0) {
    if (fy_tls.pef_pending | fy_tls.kick_paused) fy_api_exit_slow();
    if (fy_tls.call_word) __atomic_store_n(fy_tls.call_word, 0u, __ATOMIC_RELAXED);
  }
}

#define FY_API_ENTER() fy_api_enter()
#define FY_API_EXIT() fy_api_exit()
#endif
