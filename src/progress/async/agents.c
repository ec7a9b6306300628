/* Agent selection, the shared watch list and the shared counters: see
 * fy_async.h. */
#include "progress/async/fy_async.h"
#include "progress/fy_progress.h"
#include "core/fy_request.h"
#include "runtime/fy_config.h"
#include "core/fy_init.h"
#include "transport/shm/fy_shm.h"
#include "pt2pt/fy_pt2pt.h"
#include "progress/async/fy_lend.h"
#include <string.h>
#include <time.h>

fy_async_counters_t fy_async_ctr;
int fy_async_mode;
int fy_async_nwatched;
int fy_async_nwatched_net;
int fy_async_nwatched_lend;

#define WATCH_MAX 4096
static struct fy_request *watch[WATCH_MAX];

uint64_t fy_async_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

const char *fy_async_mode_name(int mode) {
  switch (mode) {
    case FY_ASYNC_THREAD: return "thread";
    case FY_ASYNC_INTERRUPT: return "interrupt";
    case FY_ASYNC_PEF: return "pef";
    default: return "none";
  }
}

/* The default mode. docs/progress.md has the measurements behind it. */
#define FY_ASYNC_DEFAULT FY_ASYNC_PEF

int fy_async_start(void) {
  const char *m = fy_config.progress;
  if (!strcmp(m, "none")) fy_async_mode = FY_ASYNC_NONE;
  else if (!strcmp(m, "thread")) fy_async_mode = FY_ASYNC_THREAD;
  else if (!strcmp(m, "interrupt")) fy_async_mode = FY_ASYNC_INTERRUPT;
  else if (!strcmp(m, "pef")) fy_async_mode = FY_ASYNC_PEF;
  else {
    if (strcmp(m, "auto"))
      fprintf(stderr, "ferry: FERRY_PROGRESS=%s is not one of none, thread, interrupt, pef, auto; using auto\n", m);
    fy_async_mode = FY_ASYNC_DEFAULT;
  }
  extern int fy_thread_multiple;
  /* With the fabric up, interrupt and pef add a thread that sleeps on the
   * completion queue's fd, or polls at a pace where the provider has none
   * (agent_thread.c): then the lock is needed. */
  int net_agent = fy_pt2pt_net_active() && (fy_async_mode == FY_ASYNC_INTERRUPT || fy_async_mode == FY_ASYNC_PEF);
  fy_plock_elide = !fy_thread_multiple && fy_async_mode != FY_ASYNC_THREAD &&
                   fy_async_mode != FY_ASYNC_INTERRUPT && !net_agent;
  int rc;
  switch (fy_async_mode) {
    case FY_ASYNC_THREAD: rc = fy_pthread_start(); break;
    case FY_ASYNC_INTERRUPT: rc = fy_intr_start(); break;
    case FY_ASYNC_PEF: rc = fy_pef_start(); break;
    default: rc = 0;
  }
  if (rc == 0 && net_agent) rc = fy_net_agent_start();
  return rc;
}

void fy_async_stop(void) {
  fy_net_agent_stop();
  switch (fy_async_mode) {
    case FY_ASYNC_THREAD: fy_pthread_stop(); break;
    case FY_ASYNC_INTERRUPT: fy_intr_stop(); break;
    case FY_ASYNC_PEF:
      fy_listen_stop();
      fy_pef_stop();
      break;
    default: break;
  }
}

/* The list holds nslots requests: those watched by every agent (counted
 * in fy_async_nwatched) and those watched for the fabric agent alone
 * (watch_net, counted only in fy_async_nwatched_net). */
static int nslots;

static int watch_add(struct fy_request *r) {
  if (fy_async_mode == FY_ASYNC_NONE || r->watch_idx || nslots == WATCH_MAX) return 0;
  watch[nslots++] = r;
  __atomic_store_n(&r->watch_idx, nslots, __ATOMIC_RELAXED);
  r->watch_turns = 0;
  FY_CTR_ADD(watched, 1);
  return 1;
}

static void net_watched(int delta) {
  __atomic_store_n(&fy_async_nwatched_net, fy_async_nwatched_net + delta, __ATOMIC_RELAXED);
}

void fy_async_watch(struct fy_request *r) {
  if (!watch_add(r)) return;
  r->watch_net = 0;
  __atomic_store_n(&fy_async_nwatched, fy_async_nwatched + 1, __ATOMIC_RELAXED);
  /* (counted again at unwatch from the same, unchanging capacity) */
  int net = fy_pt2pt_net_may_rndv(r->bytes);
  if (net) {
    net_watched(1);
    fy_net_agent_avoid_caller();
  }
  if (fy_async_mode == FY_ASYNC_PEF) fy_pef_on_watch();
  /* (a parked agent) */
  if (fy_async_nwatched == 1 || (net && fy_async_nwatched_net == 1)) fy_intr_on_watch();
}

/* Of the receives the fabric agent alone watches, those of an eager size
 * (fy_async_nwatched_lend): a trigger-only agent takes them in only on a
 * CPU another rank lends, and so moves the data of unattended fabric
 * rendezvous there; it asks for a CPU while there is either (fy_lend.h). */
void fy_async_lend_update(void) {
  /* (not while a thread of ours waits: it polls the fabric itself, and a
   * lender's wake-up would find nothing for the agent) */
  fy_lend_want((__atomic_load_n(&fy_async_nwatched_lend, __ATOMIC_RELAXED) > 0 || fy_pt2pt_net_busy_in()) &&
               !atomic_load(&fy_progress_waiting));
}

static void lend_watched(struct fy_request *r, int delta) {
  if (fy_pt2pt_net_may_rndv(r->bytes)) return;
  int n = fy_async_nwatched_lend + delta;
  __atomic_store_n(&fy_async_nwatched_lend, n, __ATOMIC_RELAXED);
  if (n == (delta > 0)) fy_async_lend_update();
}

void fy_async_watch_net(struct fy_request *r) {
  if (!watch_add(r)) return;
  r->watch_net = 1;
  lend_watched(r, 1);
  net_watched(1);
  fy_net_agent_avoid_caller();
  if (fy_async_nwatched_net == 1) fy_intr_on_watch();
}

void fy_async_unwatch(struct fy_request *r) {
  int i = r->watch_idx - 1;
  if (i < 0) return;
  struct fy_request *last = watch[--nslots];
  watch[i] = last;
  __atomic_store_n(&last->watch_idx, i + 1, __ATOMIC_RELAXED);
  __atomic_store_n(&r->watch_idx, 0, __ATOMIC_RELAXED);
  if (r->watch_net) {
    net_watched(-1);
    lend_watched(r, -1);
    return;
  }
  __atomic_store_n(&fy_async_nwatched, fy_async_nwatched - 1, __ATOMIC_RELAXED);
  if (fy_pt2pt_net_may_rndv(r->bytes)) net_watched(-1);
  if (fy_async_watching() == 0 && fy_async_mode == FY_ASYNC_PEF) fy_pef_on_idle();
}

void fy_async_unwatch_locked(struct fy_request *r) {
  /* A peek without the lock: only this request's owner watches it, so a
   * zero here stays zero. */
  if (!__atomic_load_n(&r->watch_idx, __ATOMIC_RELAXED)) return;
  fy_plock();
  fy_async_unwatch(r);
  fy_punlock();
}

void fy_async_triggered(struct fy_request *r) {
  if (!r->watch_idx) return;
  fy_async_unwatch(r);
  FY_CTR_ADD(hits, 1);
}

void fy_async_stats(FILE *f) {
  fy_async_counters_t *c = &fy_async_ctr;
  fprintf(f,
          "ferry-stats rank=%d async: mode=%s watched=%llu turns=%llu hits=%llu misses=%llu kicked=%llu "
          "kicks_sent=%llu capped=%llu wakeups=%llu futile=%llu deferred=%llu pef_inside=%llu time_us=%.1f "
          "lent=%llu lend_wakes=%llu borrowed=%llu held=%llu\n",
          fy_state.world_rank, fy_async_mode_name(fy_async_mode), (unsigned long long)c->watched,
          (unsigned long long)c->turns, (unsigned long long)c->hits, (unsigned long long)c->misses,
          (unsigned long long)c->kicked, (unsigned long long)fy_shm_kicks_sent(),
          (unsigned long long)c->capped, (unsigned long long)c->wakeups, (unsigned long long)c->futile,
          (unsigned long long)c->deferred, (unsigned long long)c->pef_inside, (double)c->time_ns / 1e3,
          (unsigned long long)c->lent, (unsigned long long)c->lend_wakes, (unsigned long long)c->borrowed,
          (unsigned long long)c->held);
}

void fy_async_sched_started(void) {
  if (fy_async_mode == FY_ASYNC_PEF) fy_pef_on_sched();
  else if (fy_async_mode == FY_ASYNC_INTERRUPT) fy_intr_on_watch(); /* unpark */
}

void fy_async_sched_idle(void) {
  if (fy_async_mode == FY_ASYNC_PEF && fy_async_watching() == 0) fy_pef_on_idle();
}

void fy_async_wait_begin(void) {
  if (fy_async_mode == FY_ASYNC_PEF) fy_pef_wait_begin();
}

void fy_async_wait_end(void) {
  if (fy_async_mode == FY_ASYNC_PEF) fy_pef_wait_end();
}
