/* The Parasite Execution Flow (seed 001/004, thesis ch. 3): a signal that
 * borrows the application thread for one "turn" while a nonblocking
 * receive waits for its rendezvous start:
 *   - if the thread is inside Ferry (fy_tls.in_mpi, a flag rather than a
 *     sigprocmask syscall) the turn is skipped and taken as the MPI call
 *     returns;
 *   - otherwise it takes in what the shm ring holds (without the C heap:
 *     see fy_pt2pt_signal_poll) and, if a watched receive matched, tells the
 *     sender to move the data (the trigger); it never copies bulk data,
 *     never calls malloc, never blocks (trylock only), never does I/O, and
 *     preserves errno.
 * Two sources of turns (FERRY_PEF_TRIGGER):
 *   kick   the sender of a rendezvous start signals the registered thread
 *          of a receiver that computes (fy_shm_kick_register): one signal
 *          per transfer, nothing to guess, nothing to give up;
 *   timer  the seeds' schedule: a one-shot per-thread timer (timer_create +
 *          SIGEV_THREAD_ID, so the application keeps SIGALRM) at phase, then
 *          period, then period*decay^k; a new watched receive resets it;
 *          after FERRY_PEF_MAX_TURNS consecutive futile turns outside the
 *          library the timer stops (a cap on futile work: the receive stays
 *          watched, and a kick still triggers it).
 * Both use the same real-time signal and the same turn. A turn that cannot
 * take the progress lock (another thread is in the engine) retries by
 * timer in either mode. */
#include "progress/async/fy_async.h"
#include "progress/fy_progress.h"
#include "pt2pt/fy_pt2pt.h"
#include "transport/shm/fy_shm.h"
#include "core/fy_api.h"
#include "runtime/fy_config.h"
#include "coll/sched/fy_sched.h"
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

typedef struct pef_flow {
  timer_t timer;
  int created;
  int armed;
  int armed_long;   /* armed for FERRY_COLL_PEF_FIRST_US: left armed by waits and idleness */
  double next_us;   /* interval to the turn after the coming one */
  double sched_us;  /* interval between turns while a collective schedule runs */
  long futile;      /* consecutive signal turns outside the library that found nothing */
  int paused;       /* the timer was disarmed for a blocking wait (fy_pef_wait_begin) */
  pid_t tid;
} pef_flow_t;

static __thread pef_flow_t flow __attribute__((tls_model("initial-exec")));
static int signo;
static int installed;
static int use_timer, use_kick;

/* Kick registration; the caller of kick_on() re-checks the ring
 * (fy_shm_kick_register's contract). */
static void kick_on(void) {
  fy_tls.kick_reg = 1;
  fy_shm_kick_register(flow.tid, signo);
}
static void kick_off(void) {
  fy_tls.kick_reg = 0;
  fy_shm_kick_unregister();
}
/* Register as an MPI call returns, then the re-check. Packets found by it
 * are taken in unregistered (the pass may copy data: a kick meanwhile
 * would be a signal into the library), a few times at most. */
static void kick_on_recheck(void) {
  for (int i = 0; fy_sched_pending() || (use_kick && fy_async_watching()); i++) {
    kick_on();
    if (!fy_shm_pending()) return;
    if (i == 3) {
      fy_progress_poll_locked();
      return;
    }
    kick_off();
    fy_progress_poll_locked();
  }
}

/* Have a turn taken as the current MPI call returns. */
static void defer_turn(void) { fy_tls.pef_pending = 1; }

static void arm(double us) {
  flow.armed_long = 0;
  struct itimerspec it;
  memset(&it, 0, sizeof it);
  long ns = (long)(us * 1000.0);
  if (ns < 1000) ns = 1000;
  it.it_value.tv_sec = ns / 1000000000L;
  it.it_value.tv_nsec = ns % 1000000000L;
  /* Set before the syscall: a short expiry may run the handler (which
   * clears it) before timer_settime even returns. */
  flow.armed = 1;
  if (timer_settime(flow.timer, 0, &it, NULL) != 0) flow.armed = 0;
}

/* One turn: take in what arrived, trigger watched receives that matched,
 * and (timer mode) schedule the next turn: the interval decays after a turn
 * that found nothing, and the timer stops after max_turns consecutive such
 * turns in the signal handler. A turn called as an MPI call returns (the
 * signal came while the thread was inside) runs the full engine and never
 * counts as futile: the library was busy, not idle. */
static void turn(int in_signal) {
  uint64_t t0 = fy_async_now_ns();
  uint64_t hits0 = fy_async_ctr.hits;
  FY_CTR_ADD(turns, 1);
  int sched_ev = 0;
  if (in_signal) {
    /* outside the library: (re-)register first, the poll is the re-check */
    if (fy_sched_pending() || (use_kick && fy_async_watching())) kick_on();
    if (fy_shm_pending()) fy_pt2pt_signal_poll();
    /* (an eager message still being pushed into the pipe slots: it kicked
     * as it was announced; look again shortly, whatever the trigger) */
    if (fy_pt2pt_sig_retry && flow.created && !flow.armed) arm(fy_config.pef_period_us);
    if (fy_sched_pending()) sched_ev = fy_sched_signal_progress();
  } else {
    /* (registered for kicks only at the end: see out) */
    sched_ev = fy_progress_poll_locked();
  }
  int hit = fy_async_ctr.hits != hits0;
  if (sched_ev && in_signal) FY_CTR_ADD(hits, 1);
  if (!hit && !sched_ev) FY_CTR_ADD(misses, 1);
  if (fy_sched_pending()) {
    /* A schedule moves on when its messages arrive, which kick nothing
     * unless they are rendezvous starts: turns by timer, from
     * FERRY_PEF_PERIOD_US doubling while futile up to FERRY_COLL_PEF_MAX_US. */
    if (sched_ev) flow.sched_us = fy_config.pef_period_us;
    else if (flow.sched_us < fy_config.coll_pef_max_us) flow.sched_us *= 2;
    if (flow.sched_us > fy_config.coll_pef_max_us) flow.sched_us = fy_config.coll_pef_max_us;
    /* A turn taken as an MPI call returns (the start of the collective,
     * typically) arms a long first interval (FERRY_COLL_PEF_FIRST_US): the
     * thread usually calls MPI again soon (MPI_Wait disarms the timer), a
     * short expiry lands in that gap whenever the thread is preempted
     * there (a signal into the library for nothing), and arming a timer
     * that expires before the kernel's next tick reprograms the timer
     * device: an arm/disarm pair at 100 us costs ~10 us on a VM, at 5 ms
     * ~1 us. Rendezvous messages kick at once anyway. */
    if (!flow.armed) {
      arm(in_signal ? flow.sched_us : fy_config.coll_pef_first_us);
      flow.armed_long = flow.armed && !in_signal;
    }
    goto out;
  }
  if (!use_timer || fy_async_watching() == 0) goto out;
  if (hit) {
    flow.futile = 0;
  } else if (in_signal && ++flow.futile >= fy_config.pef_max_turns) {
    FY_CTR_ADD(capped, 1);
    goto out;
  }
  if (!flow.armed) {
    double us = flow.next_us;
    if (!hit) flow.next_us *= fy_config.pef_decay;
    arm(us);
  }
out:
  if (!in_signal && (fy_sched_pending() || (use_kick && fy_async_watching()))) {
    /* Register for kicks last, as the call returns (a kick during the
     * progress pass, which may copy data, or during timer_settime, would
     * be a signal into the library), then re-check the ring: the Dekker
     * pair with a sender's kick check. */
    kick_on_recheck();
  }
  FY_CTR_ADD(time_ns, fy_async_now_ns() - t0);
}

static void handler(int sig, siginfo_t *si, void *uc) {
  (void)sig; (void)uc;
  int saved_errno = errno;
  if (si && si->si_code == SI_TIMER) flow.armed = flow.armed_long = 0;
  else FY_CTR_ADD(kicked, 1);
  if (!installed) goto out; /* after MPI_Finalize: a late expiry of another thread */
  if (fy_tls.in_mpi) {
    /* Never inside the library: the turn is taken when the call returns. */
    defer_turn();
    FY_CTR_ADD(deferred, 1);
    goto out;
  }
  if (!fy_ptrylock()) {
    arm(fy_config.pef_period_us); /* another thread is in the engine: retry */
    goto out;
  }
  if (fy_tls.in_mpi) FY_CTR_ADD(pef_inside, 1); /* debug counter: must stay 0 */
  turn(1);
  fy_punlock();
out:
  errno = saved_errno;
}

static int flow_create(void) {
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  flow.tid = (pid_t)syscall(SYS_gettid);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = signo;
  sev._sigev_un._tid = flow.tid;
  if (timer_create(CLOCK_MONOTONIC, &sev, &flow.timer) != 0) return -1;
  flow.created = 1;
  return 0;
}

/* A new watched receive (progress lock held): register this thread for
 * kicks and (re)start the timer at phase. The caller re-checks the ring
 * afterwards (fy_shm_kick_register's contract). */
void fy_pef_on_watch(void) {
  if (!installed) return;
  if (!flow.created && flow_create() != 0) return;
  flow.futile = 0;
  /* Inside a call (always, but for safety): register as the call returns,
   * see fy_pef_on_sched; a kick now would hit the library. */
  if (use_kick) {
    if (fy_tls.in_mpi) defer_turn();
    else kick_on();
  }
  if (use_timer) {
    flow.next_us = fy_config.pef_period_us;
    arm(fy_config.pef_phase_us);
  }
}

/* Nothing is watched any more (progress lock held). */
void fy_pef_on_idle(void) {
  if (fy_sched_pending()) return;
  kick_off();
  /* A turn armed for what has just completed would be a signal for
   * nothing (timer_settime is async-signal-safe: a turn may get here).
   * A long first turn stays: the next schedule would arm it again at
   * once, and an arm/disarm pair per operation cost more (two system
   * calls, 0.4 us of a 0.6 us Ibcast at -n 2) than one signal for
   * nothing per FERRY_COLL_PEF_FIRST_US. */
  if (flow.created && flow.armed && !flow.armed_long) {
    struct itimerspec it;
    memset(&it, 0, sizeof it);
    flow.armed = 0;
    timer_settime(flow.timer, 0, &it, NULL);
  }
  flow.paused = 0;
}

/* A nonblocking collective schedule started (progress lock held): register
 * for kicks (its rendezvous messages) and start the timer turns that move
 * it from stage to stage while the thread computes. */
void fy_pef_on_sched(void) {
  if (!installed) return;
  if (!flow.created && flow_create() != 0) return;
  flow.sched_us = fy_config.pef_period_us;
  /* Neither a kick nor a timer from inside the starting call: a signal
   * that arrives while the thread is in the library (this call, or the
   * MPI_Wait that often follows at once) costs a delivery (~10 us here,
   * more under load) for a turn the thread's own progress makes anyway.
   * The first turn is taken as the call returns (fy_async_on_api_exit):
   * it registers for kicks, takes in the ring (the re-check the
   * registration needs) and arms the timer. */
  if (fy_tls.in_mpi) {
    defer_turn();
    return;
  }
  kick_on();
  if (!flow.armed) arm(fy_config.pef_phase_us);
}

/* fy_progress_wait is about to block inside the library: the thread
 * progresses everything itself until it returns, so a timer turn would be
 * a signal for nothing. Disarm it; fy_pef_wait_end() has the turn taken as
 * the MPI call returns, which re-arms it if anything is still pending.
 * A signal between the test and timer_settime is deferred as usual. */
void fy_pef_wait_begin(void) {
  /* (a long first turn stays armed: see fy_pef_on_idle; at most one
   * signal lands in the wait, deferred to its return) */
  if (!installed || !flow.created || !flow.armed || flow.armed_long) return;
  struct itimerspec it;
  memset(&it, 0, sizeof it);
  timer_settime(flow.timer, 0, &it, NULL);
  flow.armed = 0;
  flow.paused = 1;
}

void fy_pef_wait_end(void) {
  if (!flow.paused) return;
  flow.paused = 0;
  if (fy_tls.in_mpi) defer_turn();
  else arm(fy_config.pef_period_us);
}

/* The outermost entry of an MPI call on the thread registered for kicks
 * (fy_api.h): a kick now could only be deferred to the exit. A sender may
 * still have read the registration: that signal is deferred as usual. */
void fy_async_kick_pause(void) {
  kick_off();
  fy_tls.kick_paused = 1;
}

/* ... and its exit: register again if anything still needs kicks, with the
 * ring re-check (a rendezvous start that came during the call sent none). */
void fy_async_kick_resume(void) {
  fy_tls.kick_paused = 0;
  if (!installed || !(fy_sched_pending() || (use_kick && fy_async_watching()))) return;
  fy_tls.in_mpi++; /* library code: keep the handler out */
  if (fy_ptrylock()) {
    kick_on_recheck();
    fy_punlock();
  } else {
    kick_on(); /* another thread holds the engine (and polls the ring) */
  }
  fy_tls.in_mpi--;
}

/* A signal arrived while the thread was inside Ferry: take that turn now,
 * as the call returns (a signal costs microseconds; the inline turn costs
 * one progress pass). */
void fy_async_on_api_exit(void) {
  if (fy_async_mode != FY_ASYNC_PEF || !flow.created || (fy_async_watching() == 0 && !fy_sched_pending())) return;
  fy_tls.in_mpi++; /* the turn runs library code: keep the handler out */
  if (fy_ptrylock()) {
    turn(0);
    fy_punlock();
  } else {
    /* Another thread holds the engine (and polls the ring): register now
     * so that a rendezvous start after it lets go still kicks us. */
    if (fy_sched_pending() || (use_kick && fy_async_watching())) kick_on();
    arm(fy_config.pef_period_us);
  }
  fy_tls.in_mpi--;
}

int fy_pef_start(void) {
  long off = fy_config.pef_signal;
  if (off < 0 || SIGRTMIN + off > SIGRTMAX) {
    fprintf(stderr, "ferry: FERRY_PEF_SIGNAL=%ld is outside 0..%d; using 5\n", off, SIGRTMAX - SIGRTMIN);
    off = 5;
  }
  const char *t = fy_config.pef_trigger;
  use_kick = !strcmp(t, "kick") || !strcmp(t, "both");
  use_timer = !strcmp(t, "timer") || !strcmp(t, "both");
  if (!use_kick && !use_timer) {
    fprintf(stderr, "ferry: FERRY_PEF_TRIGGER=%s is not one of kick, timer, both; using kick\n", t);
    use_kick = 1;
  }
  signo = SIGRTMIN + (int)off;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(signo, &sa, NULL) != 0) return -1;
  installed = 1;
  return 0;
}

void fy_pef_stop(void) {
  if (!installed) return;
  kick_off();
  if (flow.created) {
    timer_delete(flow.timer);
    flow.created = 0;
    flow.armed = 0;
  }
  /* The handler stays installed (as a no-op): another thread's timer or a
   * late kick may still arrive, and the default action of a real-time
   * signal kills. */
  installed = 0;
}
