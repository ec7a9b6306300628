/* The progress engine: the one entry point that advances every transport,
 * protocol state machine and (later) collective schedule and RMA epoch.
 *
 * Contract
 * - fy_progress_poll() runs one pass: drain the shm ring, retry queued
 *   packets, advance rendezvous transfers, run registered hooks. It takes
 *   the progress lock (recursive for the owning thread); an agent thread
 *   uses fy_progress_try_poll(), which returns -1 without waiting when the
 *   lock is held (the holder is progressing anyway: the seeds' "progress-lock
 *   status").
 * - fy_progress_wait() blocks until done(arg) is true (the first true
 *   answer ends the wait: done may consume what it found): it polls, spins
 *   FERRY_SPIN times (when unset: 500, or 0 when this machine's ranks
 *   outnumber its CPUs: fy_progress_spin_polls), then yields FERRY_YIELD
 *   times, then sleeps on the doorbell for at most FERRY_SLEEP_US per
 *   round; while it sleeps or
 *   yields it releases the MPI_THREAD_MULTIPLE API lock. While inside, this
 *   process advertises "waiting in MPI" to its peers, so they let it move
 *   rendezvous data, and the PEF timer is off (fy_async_wait_begin/end).
 * - Hooks (fy_progress_hook_add) run on every pass under the lock. */
#ifndef FY_PROGRESS_H
#define FY_PROGRESS_H
#include <stdint.h>
#include <stdatomic.h>

/* Set at MPI_Init when no other thread can run the engine (see progress.c). */
extern int fy_plock_elide;
int fy_ptrylock(void);
void fy_plock_slow(void);
/* The lock's state (progress.c): owner thread id and depth. Taking and
 * releasing it is inline, as every call takes it a few times: the
 * uncontended first take is one compare-and-swap; a recursive take, a
 * thread that has not taken it yet and a busy lock go through
 * fy_plock_slow. */
extern atomic_uintptr_t fy_plock_owner;
extern int fy_plock_depth;
extern __thread uintptr_t fy_plock_self __attribute__((tls_model("initial-exec")));
static inline void fy_plock(void) {
  if (fy_plock_elide) return;
  uintptr_t expect = 0, self = fy_plock_self;
  if (__builtin_expect(self != 0, 1) &&
      atomic_compare_exchange_strong_explicit(&fy_plock_owner, &expect, self, memory_order_acquire,
                                              memory_order_relaxed)) {
    fy_plock_depth = 1;
    return;
  }
  fy_plock_slow();
}
static inline void fy_punlock(void) {
  if (fy_plock_elide) return;
  if (--fy_plock_depth == 0) atomic_store_explicit(&fy_plock_owner, 0, memory_order_release);
}

/* Sleep us microseconds (any length: a second or more is split into
 * seconds, which nanosleep requires). For the naps of waits and agents. */
void fy_sleep_us(long us);

int fy_progress_poll(void);
int fy_progress_poll_locked(void);   /* caller holds the progress lock */
int fy_progress_try_poll(void);      /* -1 if the lock was busy */
void fy_progress_wait(int (*done)(void *), void *arg);
/* The polls a blocking wait spins before it yields (see above). */
long fy_progress_spin_polls(void);
/* This thread is a progress agent (thread/interrupt modes): like a PEF
 * turn, it triggers transfers and never copies bulk data itself. */
extern __thread int fy_progress_agent;

/* Work a hook has pending that no packet will announce (RMA epochs waiting
 * for a grant that a peer publishes in shared memory and rings the doorbell
 * for): while nonzero, the interrupt agent does not park and runs the
 * engine on every doorbell wake-up, packet or not. Hooks adjust it with
 * fy_progress_background_add(). */
extern _Atomic int fy_progress_background;
/* Threads inside fy_progress_wait (polling the engine themselves): the
 * fabric agent stays parked meanwhile instead of taking turns on the same
 * core (agent_thread.c). */
extern _Atomic int fy_progress_waiting;
/* Set while the fabric agent runs (its only reader): without it, a wait
 * skips the two locked updates of fy_progress_waiting, one of them between
 * a message's arrival and the return of the receive. Changes only at
 * start-up and shutdown, when no thread waits. */
extern int fy_progress_count_waits;
void fy_progress_background_add(int delta);
/* Hooks that take in messages no receive is posted for, whatever the
 * application does (the targets of RMA windows across nodes apply the
 * operations that arrive): while nonzero, the agents wake for every
 * arriving message (the fabric agent on its fd, the interrupt agent on any
 * doorbell ring) and run the engine once the application has made no
 * progress pass for FERRY_AGENT_QUIET_US, so such a target serves while it
 * computes. Adjusted with fy_progress_listen_add(). */
extern _Atomic int fy_progress_listen;
void fy_progress_listen_add(int delta);
/* Progress passes by application threads, counted while fy_progress_listen
 * is nonzero: an agent that sees it move knows the application is inside
 * MPI and serves arrivals itself (relaxed loads and stores: only a change
 * matters). */
extern uint64_t fy_progress_app_passes;

typedef int (*fy_progress_hook_t)(void);
int fy_progress_hook_add(fy_progress_hook_t hook); /* any thread, lock held or not; -1: no room */

typedef struct fy_progress_counters {
  uint64_t polls, waits, spins, yields, sleeps, wakeups;
  uint64_t wake_cost_ns; /* the waits' estimate of a wake-up's cost (not a count) */
} fy_progress_counters_t;
extern fy_progress_counters_t fy_progress_stats;
/* bumped by every application thread that waits: relaxed atomic adds */
#define FY_PSTAT_ADD(field) __atomic_fetch_add(&fy_progress_stats.field, 1, __ATOMIC_RELAXED)
#endif
