/* The Parasite Execution Flow (seed 001/004, thesis ch. 3): a one-shot
 * real-time timer per thread (timer_create + SIGEV_THREAD_ID, so the
 * application keeps SIGALRM and other threads are not disturbed) whose
 * handler borrows the application thread for one "turn":
 *   - if the thread is inside Ferry (fy_tls.in_mpi, a flag rather than a
 *     sigprocmask syscall) the turn is skipped and re-armed on API exit;
 *   - otherwise it looks at the shm ring and, if a rendezvous start for a
 *     watched receive is there, matches it and tells the sender to move the
 *     data (the trigger); it never copies the data itself, never allocates,
 *     never locks (trylock only), never does I/O, and preserves errno.
 * Turns come at phase, then period, then period*decay^k; a new watched
 * receive resets the schedule; a receive is given up after max turns; the
 * flow dies (timer left disarmed) when nothing is watched. */
#include "progress/async/fy_async.h"
#include "progress/fy_progress.h"
#include "pt2pt/fy_pt2pt.h"
#include "transport/shm/fy_shm.h"
#include "core/fy_api.h"
#include "runtime/fy_config.h"
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
  double next_us;   /* interval to the turn after the coming one */
} pef_flow_t;

static __thread pef_flow_t flow __attribute__((tls_model("initial-exec")));
static int signo;
static int installed;

static void arm(double us) {
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

/* One turn of the flow: look for rendezvous starts of watched receives and
 * trigger them, age the watched receives, and schedule the next turn (the
 * interval decays after a turn that found nothing). In a signal handler
 * only the allocation-free signal poll runs; called as an MPI call returns
 * (an expiry was deferred while the thread was inside), the full engine. */
static void turn(int in_signal) {
  uint64_t t0 = fy_async_now_ns();
  uint64_t hits0 = fy_async_ctr.hits;
  fy_async_ctr.turns++;
  if (in_signal) {
    if (fy_shm_pending()) fy_pt2pt_signal_poll();
  } else {
    fy_progress_poll_locked();
  }
  int hit = fy_async_ctr.hits != hits0;
  if (!hit) fy_async_ctr.misses++;
  fy_async_age(fy_config.pef_max_turns);
  if (fy_async_nwatched > 0 && !flow.armed) {
    double us = flow.next_us;
    if (!hit) flow.next_us *= fy_config.pef_decay;
    arm(us);
  }
  fy_async_ctr.time_ns += fy_async_now_ns() - t0;
}

static void handler(int sig, siginfo_t *si, void *uc) {
  (void)sig; (void)si; (void)uc;
  int saved_errno = errno;
  flow.armed = 0;
  if (!installed) goto out; /* after MPI_Finalize: a late expiry of another thread */
  if (fy_tls.in_mpi) {
    /* Never inside the library: the turn is taken when the call returns. */
    fy_tls.pef_pending = 1;
    fy_async_ctr.deferred++;
    goto out;
  }
  if (!fy_ptrylock()) {
    arm(flow.next_us);
    goto out;
  }
  if (fy_tls.in_mpi) fy_async_ctr.pef_inside++; /* debug counter: must stay 0 */
  turn(1);
  fy_punlock();
out:
  errno = saved_errno;
}

static int flow_create(void) {
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = signo;
  sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  if (timer_create(CLOCK_MONOTONIC, &sev, &flow.timer) != 0) return -1;
  flow.created = 1;
  return 0;
}

/* A new watched receive: (re)start this thread's flow at phase. */
void fy_pef_on_watch(void) {
  if (!installed) return;
  if (!flow.created && flow_create() != 0) return;
  flow.next_us = fy_config.pef_period_us;
  arm(fy_config.pef_phase_us);
}

/* An expiry arrived while the thread was inside Ferry: take that turn now,
 * as the call returns, instead of arming the timer again for it (a signal
 * costs microseconds; the inline turn costs one progress pass). */
void fy_async_on_api_exit(void) {
  if (fy_async_mode != FY_ASYNC_PEF || !flow.created || flow.armed || fy_async_nwatched == 0) return;
  fy_tls.in_mpi++; /* the turn runs library code: keep the handler out */
  if (fy_ptrylock()) {
    turn(0);
    fy_punlock();
  } else {
    arm(flow.next_us);
  }
  fy_tls.in_mpi--;
}

int fy_pef_start(void) {
  long off = fy_config.pef_signal;
  if (off < 0 || SIGRTMIN + off > SIGRTMAX) {
    fprintf(stderr, "ferry: FERRY_PEF_SIGNAL=%ld is outside 0..%d; using 5\n", off, SIGRTMAX - SIGRTMIN);
    off = 5;
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
  if (flow.created) {
    timer_delete(flow.timer);
    flow.created = 0;
    flow.armed = 0;
  }
  /* The handler stays installed (as a no-op): another thread's timer may
   * still expire, and the default action of a real-time signal kills. */
  installed = 0;
}
