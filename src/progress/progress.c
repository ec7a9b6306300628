/* The progress engine: see fy_progress.h. */
#include "progress/fy_progress.h"
#include "pt2pt/fy_pt2pt.h"
#include "transport/shm/fy_shm.h"
#include "runtime/fy_config.h"
#include "core/fy_api.h"
#include "progress/async/fy_async.h"
#include "progress/async/fy_lend.h"
#include "core/fy_init.h"
#include <sched.h>
#include <time.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

void fy_sleep_us(long us) {
  struct timespec ts = {us / 1000000, us % 1000000 * 1000};
  nanosleep(&ts, NULL);
}

fy_progress_counters_t fy_progress_stats;

/* Recursive progress lock: owner thread id + depth (fy_progress.h). */
atomic_uintptr_t fy_plock_owner;
int fy_plock_depth;
__thread int fy_progress_agent;
__thread uintptr_t fy_plock_self;

static inline uintptr_t me(void) {
  if (!fy_plock_self) fy_plock_self = (uintptr_t)pthread_self();
  return fy_plock_self;
}

/* Without an agent thread or MPI_THREAD_MULTIPLE only the application
 * thread runs the engine, and the PEF handler runs only while that thread
 * is outside the library (and takes the lock itself): the lock is then
 * elided, saving atomic operations on every call. */
int fy_plock_elide;

int fy_ptrylock(void) {
  if (fy_plock_elide) return 1;
  uintptr_t self = me();
  if (atomic_load_explicit(&fy_plock_owner, memory_order_relaxed) == self) {
    fy_plock_depth++;
    return 1;
  }
  uintptr_t expect = 0;
  if (atomic_compare_exchange_strong_explicit(&fy_plock_owner, &expect, self,
                                              memory_order_acquire, memory_order_relaxed)) {
    fy_plock_depth = 1;
    return 1;
  }
  return 0;
}

void fy_plock_slow(void) {
  int n = 0;
  while (!fy_ptrylock()) {
    if (++n > 100) {
      sched_yield();
      n = 0;
    } else {
      __builtin_ia32_pause();
    }
  }
}


_Atomic int fy_progress_background;
_Atomic int fy_progress_waiting;
int fy_progress_count_waits;
void fy_progress_background_add(int delta) {
  if (atomic_fetch_add(&fy_progress_background, delta) == 0 && delta > 0) fy_intr_on_watch();
}
_Atomic int fy_progress_listen;
uint64_t fy_progress_app_passes;
void fy_progress_listen_add(int delta) {
  if (atomic_fetch_add(&fy_progress_listen, delta) == 0 && delta > 0) fy_agents_listen();
}

#define MAX_HOOKS 16 /* (six add one each, lazily, today; a pass runs only those added) */
/* Layers add their hook on first use, often outside the progress lock
 * (MPI_Win_free, MPI_Comm_idup...) while an agent's pass reads the array:
 * adders take hook_mu, write the slot, then publish the count (release);
 * a pass reads the count (acquire) and the slots below it. Hooks are
 * never removed. */
static fy_progress_hook_t hooks[MAX_HOOKS];
static _Atomic int nhooks;
static pthread_mutex_t hook_mu = PTHREAD_MUTEX_INITIALIZER;

int fy_progress_hook_add(fy_progress_hook_t hook) {
  int rc = -1;
  pthread_mutex_lock(&hook_mu);
  int n = atomic_load_explicit(&nhooks, memory_order_relaxed);
  if (n < MAX_HOOKS) {
    hooks[n] = hook;
    atomic_store_explicit(&nhooks, n + 1, memory_order_release);
    rc = 0;
  }
  pthread_mutex_unlock(&hook_mu);
  return rc;
}

int fy_progress_poll_locked(void) {
  int n = fy_pt2pt_progress();
  for (int i = 0, k = atomic_load_explicit(&nhooks, memory_order_acquire); i < k; i++) n += hooks[i]();
  FY_PSTAT_ADD(polls);
  if (!fy_progress_agent && atomic_load_explicit(&fy_progress_listen, memory_order_relaxed))
    __atomic_store_n(&fy_progress_app_passes, __atomic_load_n(&fy_progress_app_passes, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
  return n;
}

int fy_progress_poll(void) {
  fy_plock();
  int n = fy_progress_poll_locked();
  fy_punlock();
  return n;
}

int fy_progress_try_poll(void) {
  if (!fy_ptrylock()) return -1;
  int n = fy_progress_poll_locked();
  fy_punlock();
  return n;
}


/* Polls a wait spins before yielding. When this machine's ranks outnumber
 * the CPUs they share, a spinning rank holds the core its peer needs to
 * make the progress it waits for: then yield at once (unless FERRY_SPIN is
 * set explicitly). The machine, not the node's shared-memory group: ranks
 * that talk through the fabric (FERRY_NOLOCAL, or test hosts in network
 * namespaces of one machine) share the CPUs too, and a fabric poll costs
 * system calls, so 500 of them held the core for milliseconds (a token
 * passed around 3 such ranks on 2 cores took 425-500 us a round, 43
 * after). The CPUs: this process's affinity mask, or the online CPUs when
 * that mask is one CPU (mpiexec binds each rank to its own core when they
 * fit). Computed once, after MPI_Init. */
long fy_progress_spin_polls(void) {
  static long spin = -1;
  if (spin >= 0) return spin;
  long s = fy_config.spin_count;
  long ranks = fy_state.local_size, machine = fy_pt2pt_net_machine_ranks();
  if (machine > ranks) ranks = machine;
  if (!getenv("FERRY_SPIN") && ranks > 1) {
    cpu_set_t set;
    long ncpu = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    if (ncpu <= 1) ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu > 0 && ranks > ncpu) s = 0;
  }
  if (fy_state.initialized) spin = s;
  return s;
}

/* Sleep convoys. A wait that sleeps on the doorbell costs its peer's
 * answer a wake-up, about 100 us on a VM (the sleeper's CPU halts), longer
 * than the spin and yield polls last: the peer, waiting for that answer,
 * then sleeps too, and two ranks that answer each other go on paying a
 * wake-up per message (make demo: runs of 8-512 B ping-pongs at 90-175 us
 * per message, 0.23 otherwise). So once a peer has woken one of our
 * sleeps, waits yield for at least FERRY_WAKE_YIELD_US before they sleep,
 * until one sleeps anyway (the peer went off to compute). Not when the
 * ranks outnumber the CPUs (the spin count is 0 then): there a yielding
 * rank holds a core its peers need.
 *
 * A wake-up's cost is the machine's, and it moves: on another VM a 1 ms
 * poll returned 0.1-0.13 ms late at the median but 0.7-1.3 ms late at the
 * 90th percentile (2026-12-03), so answers that came 1.3-1.4 ms after the
 * question slipped past a 1 ms window every time, and small-message
 * ping-pongs across test hosts ran at 1.3-1.4 ms a message through whole
 * benchmark sizes. The window is therefore at least twice the cost the
 * waits measure themselves: how late a sleep that timed out returned, an
 * estimate kept on the high side (a later sample moves it a quarter of the
 * way up, or a thirty-second of the way down), at most WAKE_COST_MAX_NS. */
static int woken_lately; /* (a hint shared by the threads: relaxed atomics) */
#define WAKE_COST_MAX_NS 5000000ull

static void wake_cost_sample(uint64_t late_ns) {
  if (late_ns > WAKE_COST_MAX_NS) late_ns = WAKE_COST_MAX_NS;
  uint64_t e = __atomic_load_n(&fy_progress_stats.wake_cost_ns, __ATOMIC_RELAXED);
  e = late_ns > e ? e + (late_ns - e) / 4 : e - (e - late_ns) / 32;
  __atomic_store_n(&fy_progress_stats.wake_cost_ns, e, __ATOMIC_RELAXED); /* (a racing sample may be lost) */
}

static uint64_t hot_window_ns(void) {
  uint64_t w = (uint64_t)fy_config.wake_yield_us * 1000u,
           c = 2 * __atomic_load_n(&fy_progress_stats.wake_cost_ns, __ATOMIC_RELAXED);
  return c > w ? c : w;
}

void fy_progress_wait(int (*done)(void *), void *arg) {
  if (done(arg)) return;
  long spin = fy_progress_spin_polls(), yield = fy_config.yield_count;
  long sleep_us = fy_config.sleep_us;
  int hot = __atomic_load_n(&woken_lately, __ATOMIC_RELAXED) && spin > 0 && fy_config.wake_yield_us > 0;
  uint64_t yield_until = 0; /* hot: set when the yield polls are spent */
  fy_shm_set_in_mpi(1);
  int counted = __atomic_load_n(&fy_progress_count_waits, __ATOMIC_RELAXED);
  if (counted && atomic_fetch_add(&fy_progress_waiting, 1) == 0) fy_async_lend_update();
  fy_async_wait_begin(); /* no PEF timer signals while we poll ourselves */
  FY_PSTAT_ADD(waits);
  long idle = 0;
  int lent = -1; /* (not yet tried) */
  for (;;) {
    int n = fy_progress_poll();
    if (done(arg)) break;
    if (n > 0) {
      if (lent < 0 && fy_pt2pt_net_queued_only()) lent = fy_lend_begin();
      idle = 0;
      continue;
    }
    /* Nothing to do: our CPU is free for a computing rank's fabric agent
     * on this machine (fy_lend.h) until the wait ends. */
    if (lent < 0) lent = fy_lend_begin();
    idle++;
    if (idle <= spin) {
      FY_PSTAT_ADD(spins);
      __builtin_ia32_pause();
      continue;
    }
    fy_api_unlock_for_wait();
    int yielding = idle <= spin + yield || fy_rndv_busy();
    if (!yielding && hot) {
      uint64_t now = fy_async_now_ns();
      if (!yield_until) yield_until = now + hot_window_ns();
      yielding = now < yield_until;
    }
    int finished = 0;
    if (yielding) {
      FY_PSTAT_ADD(yields);
      sched_yield();
    } else {
      /* Sleep on the doorbell: arm, re-check, sleep. A packet that arrives
       * between the check and the sleep rings the doorbell we armed. */
      hot = 0;
      __atomic_store_n(&woken_lately, 0, __ATOMIC_RELAXED);
      uint32_t v = fy_shm_doorbell_arm(FY_SHM_WAIT_ANY);
      /* A true answer here ends the wait: done() may take what it found
       * (Mprobe's predicate dequeues the message), so asking again would
       * lose it. (An agent thread, or another application thread, may
       * have matched the arrival since our last poll.) */
      if (!fy_shm_pending() && !(finished = done(arg))) {
        FY_PSTAT_ADD(sleeps);
        /* (with the fabric up, its completion queue's fd as well) */
        uint64_t t0 = fy_async_now_ns(), full = (uint64_t)sleep_us * 1000u;
        if (fy_pt2pt_sleep(v, sleep_us) == 0) {
          FY_PSTAT_ADD(wakeups);
          __atomic_store_n(&woken_lately, 1, __ATOMIC_RELAXED);
        } else {
          /* (a return before the full time did not sleep it out: a nap,
           * a yield, or work found) */
          uint64_t slept = fy_async_now_ns() - t0;
          if (slept >= full) wake_cost_sample(slept - full);
        }
      }
      fy_shm_doorbell_disarm(FY_SHM_WAIT_ANY);
    }
    fy_api_relock_after_wait();
    if (finished) break;
  }
  fy_shm_set_in_mpi(0);
  if (lent > 0) fy_lend_end();
  /* the fabric agent parked for this wait resumes if work remains */
  if (counted && atomic_fetch_sub(&fy_progress_waiting, 1) == 1) {
    fy_async_lend_update();
    fy_net_agent_resume();
  }
  fy_async_wait_end();
  /* Senders do not kick a rank that waits in MPI; one that came in as we
   * stopped waiting is taken in here, before we go back to computing (the
   * store above is seq_cst, the sender fences before it reads it). */
  if (fy_async_watching() && fy_shm_pending()) fy_progress_poll();
}
