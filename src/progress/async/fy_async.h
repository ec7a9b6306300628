/* Asynchronous progress agents (FERRY_PROGRESS): what makes a nonblocking
 * receive progress while the application computes.
 *
 * Contract
 * - One list of watched requests shared by every mode: a nonblocking
 *   receive that could be a rendezvous (buffer larger than the eager
 *   threshold) and found no rendezvous start when it was posted. A request
 *   leaves the list only when it is triggered (its message matched), waited
 *   on, or released: never given up. All list calls are made under the
 *   progress lock. After fy_async_watch() the caller re-checks the ring
 *   (a rendezvous start may have arrived while it was being registered).
 * - Modes: none; thread (a polling progress thread); interrupt (a helper
 *   thread sleeping on the shm doorbell, with seed 003's selective
 *   interrupts, interrupt suppression and dynamic interrupt requests as
 *   options); pef (the Parasite Execution Flow: a per-thread real-time
 *   signal, sent by the sender of a rendezvous start (kick) or by a
 *   per-thread timer, whose handler, outside the library only, takes in
 *   the ring and triggers the watched receives that matched).
 * - One set of counters for every mode, printed by fy_async_stats(). */
#ifndef FY_ASYNC_H
#define FY_ASYNC_H
#include <stdio.h>
#include <stdint.h>

struct fy_request;

enum { FY_ASYNC_NONE = 0, FY_ASYNC_THREAD, FY_ASYNC_INTERRUPT, FY_ASYNC_PEF };

typedef struct fy_async_counters {
  uint64_t watched;       /* requests added to the watch list */
  uint64_t turns;         /* PEF turns / agent progress passes */
  uint64_t hits;          /* watched requests triggered by an agent */
  uint64_t misses;        /* turns that found nothing */
  uint64_t capped;        /* PEF timers stopped after max futile turns */
  uint64_t kicked;        /* PEF turns started by a sender's kick */
  uint64_t wakeups;       /* interrupt agent wake-ups */
  uint64_t futile;        /* wake-ups with nothing to do (or the lock busy) */
  uint64_t deferred;      /* PEF expiries that hit while the thread was inside Ferry */
  uint64_t pef_inside;    /* PEF turns run while inside Ferry: must stay 0 */
  uint64_t time_ns;       /* time spent in agent turns */
  uint64_t lent;          /* blocking waits that lent their CPU (fy_lend.h) */
  uint64_t lend_wakes;    /* agents of other ranks those woke */
  uint64_t borrowed;      /* fabric agent turns on a CPU another rank lent */
  uint64_t held;          /* fabric agent turns held back for a lend (await_lend) */
} fy_async_counters_t;

extern fy_async_counters_t fy_async_ctr;
/* Counters are bumped from agent threads and signal handlers of several
 * threads at once: relaxed atomic adds (lock-free, signal-safe). */
#define FY_CTR_ADD(field, n) __atomic_fetch_add(&fy_async_ctr.field, (uint64_t)(n), __ATOMIC_RELAXED)
extern int fy_async_mode;
/* Watched requests; written under the progress lock, read anywhere. */
extern int fy_async_nwatched;
/* Watched receives that may be a fabric rendezvous (larger than the
 * fabric's eager limit) or that the fabric agent alone watches
 * (fy_async_watch_net): what it wakes for in trigger mode. */
extern int fy_async_nwatched_net;
/* Of those, the ones of an eager size (the fabric agent takes them in on a
 * CPU another rank lends, fy_lend.h). */
extern int fy_async_nwatched_lend;
/* Ask for a lent CPU, or stop asking, after either of them or the fabric's
 * unattended transfers changed between zero and nonzero. */
void fy_async_lend_update(void);
static inline int fy_async_watching(void) { return __atomic_load_n(&fy_async_nwatched, __ATOMIC_RELAXED); }

int fy_async_start(void);
void fy_async_stop(void);
void fy_async_stats(FILE *f);
const char *fy_async_mode_name(int mode);

/* Watch list (caller holds the progress lock). */
void fy_async_watch(struct fy_request *r);
/* Watched by the fabric agent alone (a receive from a fabric peer that
 * every agent would not watch: fy_pt2pt_net_watch). */
void fy_async_watch_net(struct fy_request *r);
void fy_async_unwatch(struct fy_request *r);
void fy_async_triggered(struct fy_request *r);   /* matched: unwatch + hit */
void fy_async_unwatch_locked(struct fy_request *r); /* takes the lock itself */

/* Collective schedules (src/coll/sched): a nonblocking one started, or
 * none left (progress lock held). The agents advance schedules while any
 * is active: pef by timer turns (and kicks for rendezvous starts), interrupt
 * by waking on any packet, thread by polling anyway. */
void fy_async_sched_started(void);
void fy_async_sched_idle(void);
void fy_pef_on_sched(void);
/* fy_progress_wait brackets a blocking wait (application thread, inside an
 * MPI call): no timer turns while the thread progresses by itself. */
void fy_async_wait_begin(void);
void fy_async_wait_end(void);
void fy_pef_wait_begin(void);
void fy_pef_wait_end(void);

/* Mode hooks, called from the watch list. */
void fy_pef_on_watch(void);
void fy_pef_on_idle(void);
int fy_pef_start(void);
void fy_pef_stop(void);
int fy_intr_start(void);
void fy_intr_stop(void);
void fy_intr_on_watch(void);
/* The fabric agent (agent_thread.c): a thread on the fabric's fd. */
int fy_net_agent_start(void);
void fy_net_agent_stop(void);
/* A blocking wait ended: a fabric agent parked for it looks again, kept
 * off the CPU the thread returns to (fy_net_agent_avoid_caller). */
void fy_net_agent_resume(void);
/* The calling thread is about to compute while the fabric agent watches a
 * receive for it: an agent without a CPU of its own, on a rank that may
 * run on several CPUs, is kept off the CPU this thread is on. */
void fy_net_agent_avoid_caller(void);
/* Relay: a blocking wait of a rank with both shared-memory and fabric
 * peers sleeps on the doorbell (a futex), which no fd can join; while it
 * does, the fabric agent sleeps on the completion queue's fd for it and
 * rings the doorbell when the fd fires or its own turn did work. begin
 * returns 0 where no agent runs (modes none and thread, or a provider
 * without a wait fd): the wait then naps (FERRY_OFI_MIXED_SLEEP_US). Every
 * begin that returned 1 is paired with an end once the sleep is over. */
int fy_net_agent_relay_begin(void);
void fy_net_agent_relay_end(void);
/* fy_progress_listen became nonzero: parked agents look again (at the
 * FERRY_AGENT_QUIET_US period from now on). */
void fy_agents_listen(void);
void fy_listen_stop(void); /* pef mode: the doorbell thread fy_agents_listen started */
int fy_pthread_start(void);
void fy_pthread_stop(void);
uint64_t fy_async_now_ns(void);
#endif
