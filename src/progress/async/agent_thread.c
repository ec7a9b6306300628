/* FERRY_PROGRESS=thread and =interrupt: a helper thread per process.
 *   thread:    polls the progress engine continuously (the MPICH/MVAPICH
 *              "async progress thread" baseline; it costs a core).
 *   interrupt: sleeps on the shm doorbell and runs the progress engine when
 *              woken (MVAPICH-ASYNC style), with seed 003's refinements:
 *              selective interrupts (FERRY_INTR_SELECTIVE: only rendezvous
 *              starts wake it), interrupt suppression (FERRY_INTR_SUPPRESS:
 *              one wake-up drains everything pending) and dynamic interrupt
 *              requests (FERRY_INTR_DYNAMIC: the doorbell is armed only
 *              while watched receives exist; otherwise the thread parks).
 * Both only ever try the progress lock: if the application thread holds
 * it, it is progressing already and the wake-up counts as futile.
 * The fabric agent (modes interrupt and pef, when the ofi transport is up):
 *   a second thread that sleeps on the fabric's completion-queue fd
 *   (fi_trywait + poll) and runs the engine when it fires, with the same
 *   suppression and dynamic parking. A futex and an fd cannot be waited on
 *   in one call, hence one thread for each (and while a blocking wait of
 *   a rank with both kinds of peer sleeps on the doorbell, the fabric
 *   agent watches the fd for it and rings: the relay); a PEF kick is a
 *   signal to a local thread and cannot come from another host, so pef
 *   relies on this thread for fabric peers. The fd fires for any completion (the
 *   provider cannot tell a rendezvous start from the rest), so selectivity
 *   is by receive (FERRY_OFI_AGENT): with a CPU of its own the agent
 *   drains (wakes for every watched receive, moves fabric data while the
 *   thread computes); sharing the rank's core it only triggers (wakes for
 *   receives that may be a fabric rendezvous, answers the start, parks
 *   again): on a shared core, eager data it took in and bulk data it
 *   copied came out of the computation's time, with two context switches
 *   on top (64 KiB late sender: -30 % overlap, against +55 % with no
 *   agent, whose wait copies from the socket what the sender's kernel
 *   already put there). "Its own" CPU: one FERRY_PROGRESS_THREAD_CPU
 *   found, or a rank that may run on more CPUs than this machine's ranks
 *   (one is spare); a draining agent also takes in eager messages above
 *   FERRY_OFI_AGENT_EAGER. Where the ranks fill the CPUs, anything more
 *   than triggering takes CPU from some rank: the computing peer's, if
 *   not this rank's (docs/transport-ofi.md, "A full machine"). Either way,
 *   on a rank that may run on several CPUs, the agent is kept off the one
 *   the computing thread is on (fy_net_agent_avoid_caller). A CPU that
 *   another rank of the machine lends while its blocking wait has nothing
 *   to do (fy_lend.h) is free, though: there a trigger-only agent takes in
 *   eager messages and moves its receives' data as a draining one would,
 *   woken by the lender on the futex it parks on (FERRY_OFI_LEND). */
#include "progress/async/fy_async.h"
#include "progress/async/fy_agent_cpu.h"
#include "progress/async/fy_lend.h"
#include "progress/fy_progress.h"
#include "transport/shm/fy_shm.h"
#include "coll/sched/fy_sched.h"
#include "runtime/fy_config.h"
#include "pt2pt/fy_pt2pt.h"
#include "core/fy_init.h"
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sched.h>
#include <stdatomic.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

static pthread_t tid, net_tid;
static atomic_int running, net_running;
static int kind;
static atomic_uint own_word;
/* futex: bumped when watching starts. The process's own word, or with
 * CPU lending its slot's word in the machine's board (fy_lend_word), which
 * ranks that lend a CPU bump too: a shared futex then. */
static _Atomic(atomic_uint *) park_at = &own_word;
/* (read once per use: the fabric agent's start moves it while an agent of
 * mode interrupt may be parking) */
#define park_word atomic_load_explicit(&park_at, memory_order_relaxed)
static int park_op(atomic_uint *w, int op) { return w == &own_word ? op | FUTEX_PRIVATE_FLAG : op; }
/* Sleep on w while it still holds v, at most ns: what park() and the pace
 * sleep share (a bump of w before the call makes it return at once). */
static void word_wait(atomic_uint *w, unsigned v, long ns) {
  struct timespec ts = {ns / 1000000000, ns % 1000000000};
  syscall(SYS_futex, w, park_op(w, FUTEX_WAIT), v, &ts, NULL, 0);
}
static int net_lend;            /* a trigger-only agent that borrows lent CPUs (FERRY_OFI_LEND) */
static atomic_int lent_cpu = -1; /* the lent CPU the agent is pinned to (set by the agent only) */
static atomic_int parked;       /* agents parked on park_word (interrupt mode with the fabric: two) */
static int net_trigger;         /* FERRY_OFI_AGENT resolved: 1 = trigger only */
static int net_nofd;            /* the provider has no wait fd: poll at a pace */
static atomic_int relay_sleepers; /* blocking waits asleep on the doorbell, relayed */
static atomic_uint relay_seq;      /* bumped as each of them goes to sleep */
static unsigned relay_done;        /* (agent only) the last seq it watched the fd for */
static cpu_set_t rank_cpus;  /* the rank's affinity (machine_ranks) */
static int avoid_on;          /* keep the agent off the computing thread's CPU */
static atomic_int avoided = -1; /* the CPU it is kept off (a hint: threads may race on it) */

static void bind_cpu(void) {
  fy_progress_agent = 1;
  int cpu = fy_agent_cpu();
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *poll_main(void *arg) {
  (void)arg;
  bind_cpu();
  while (atomic_load(&running)) {
    uint64_t t0 = fy_async_now_ns();
    int n = fy_progress_try_poll();
    FY_CTR_ADD(turns, 1);
    if (n <= 0) {
      FY_CTR_ADD(misses, 1);
      sched_yield();
    }
    FY_CTR_ADD(time_ns, fy_async_now_ns() - t0);
  }
  return NULL;
}

/* Nothing for the shm interrupt agent to do (dynamic interrupt requests). */
static int intr_idle(void) {
  return fy_async_watching() == 0 && !fy_sched_pending() && !atomic_load(&fy_progress_background);
}

/* Nothing for the fabric agent to do: no watched receive, schedule,
 * background work or fabric transfer (with dynamic requests), or the
 * application thread is in a blocking wait and polls the fabric itself: a
 * turn of ours then only takes its core from it (measured: a 64 KiB
 * pingpong over the fabric at 40 us without the agent, 60-90 us with it
 * taking turns on the rank's core). */
static int lend_due(void);

static int net_no_work(void) {
  if (net_trigger)
    return __atomic_load_n(&fy_async_nwatched_net, __ATOMIC_RELAXED) ==
               __atomic_load_n(&fy_async_nwatched_lend, __ATOMIC_RELAXED) &&
           !fy_pt2pt_net_paced() && !fy_sched_pending() && !atomic_load(&fy_progress_background) && !lend_due();
  return fy_config.intr_dynamic && intr_idle() && __atomic_load_n(&fy_async_nwatched_net, __ATOMIC_RELAXED) == 0 &&
         !fy_pt2pt_net_busy();
}

/* CPU lending (fy_lend.h): a nonblocking fabric receive of an eager size
 * is watched, or an unattended fabric rendezvous brings data in, and
 * another rank of this machine lends its CPU: its blocking wait found
 * nothing to do, so data taken in there comes out of no computation. */
static int lend_due(void) {
  return net_lend && (__atomic_load_n(&fy_async_nwatched_lend, __ATOMIC_RELAXED) > 0 || fy_pt2pt_net_busy_in()) &&
         fy_lend_cpu() >= 0;
}

/* The agent's CPUs when it borrows none: the rank's, less the one its
 * computing thread is on (fy_net_agent_avoid_caller). */
static void home_cpus(cpu_set_t *set) {
  *set = rank_cpus;
  int a = atomic_load(&avoided);
  if (avoid_on && a >= 0 && CPU_COUNT(set) > 1) CPU_CLR(a, set);
}

/* (agent) Run on the CPU another rank lends, if one does and borrow is
 * set; else back home. A system call only when that changes. */
static void place(int borrow) {
  if (!net_lend) return;
  int c = borrow ? fy_lend_cpu() : -1;
  if (c >= 0) FY_CTR_ADD(borrowed, 1);
  if (c == atomic_load(&lent_cpu)) return;
  cpu_set_t set;
  if (c >= 0) {
    CPU_ZERO(&set);
    CPU_SET(c, &set);
  } else if (CPU_COUNT(&rank_cpus) == 1 && atomic_load(&lent_cpu) >= 0) {
    /* Home is the computing thread's own CPU (the rank is bound to it):
     * stay on the CPU last lent, as park() does. Woken there by the fd for
     * the next rendezvous start, the agent waits for no computation of
     * ours (await_lend first waits a while for that CPU, or another, to
     * be lent again); at home the scheduler let it wait about 200 us
     * behind it for every message (one host, FERRY_NOLOCAL=1, bound
     * ranks). */
    return;
  } else {
    home_cpus(&set);
  }
  /* (a CPU outside what the kernel lets this process use: stay, and do not
   * try again for it) */
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  atomic_store(&lent_cpu, c);
}

/* The agent's period where it must look again however pacing is set:
 * FERRY_OFI_PACE_US, or 500 us where that is 0 (pacing off). */
static long period_us(void) { return fy_config.ofi_pace_us > 0 ? (long)fy_config.ofi_pace_us : 500; }

/* (agent) Woken by the fd on a CPU that was lent and is not now (it
 * parks where it last ran): its rank may compute again. Before a turn
 * there, which copies whatever the socket holds, wait up to
 * FERRY_OFI_PACE_US for some rank to lend a CPU (place() then takes it);
 * if none does, the turn runs where the agent woke, as before. In an
 * exchange where both ranks compute 300 us, once a 64 KiB phase had lent
 * the sender's CPU, the receiver's agent took each 1 MiB message in on
 * it while the sender computed: the sender's side took 788 us (median
 * of 8 rounds, 2 test hosts) against 487 us waiting, where the turn
 * comes when the sender's wait lends. Going home instead (the computing
 * thread's CPU, where the rank is bound to one) made a late sender's
 * message wait behind that computation: 36-61 % overlap at 1 MiB, 2-28 %
 * at 4 MiB, against 94-99 % on the sender's CPU. */
static void await_lend(void) {
  if (!net_lend || atomic_load(&lent_cpu) < 0 || fy_lend_cpu() >= 0) return;
  atomic_uint *w = park_word;
  unsigned v = atomic_load(w);
  fy_lend_want_turn(1);
  if (fy_lend_cpu() < 0) {
    FY_CTR_ADD(held, 1);
    word_wait(w, v, period_us() * 1000L);
  }
  fy_lend_want_turn(0);
}

/* (agent) Sleep FERRY_OFI_PACE_US, or until a rank of this machine starts
 * lending its CPU: it wakes the word we park on (our rank wants one while
 * its receives' data is in flight). A plain sleep missed the sender that
 * lends a moment after our answer to its rendezvous start: the 1 MiB read
 * then waited up to a whole pace, most of the transfer (one host,
 * FERRY_NOLOCAL=1, bound ranks: 14-30 % overlap of a late sender). */
static void pace_wait(void) {
  long us = fy_config.ofi_pace_us;
  if (!net_lend) {
    fy_sleep_us(us);
    return;
  }
  atomic_uint *w = park_word;
  unsigned v = atomic_load(w);
  if (lend_due()) return; /* (after the load: a lender from now on bumps w) */
  word_wait(w, v, us * 1000);
}

/* A wait asleep on the doorbell that the agent has not watched the fd for
 * since it went to sleep. */
static int relay_due(void) {
  return atomic_load(&relay_sleepers) > 0 && atomic_load(&relay_seq) != relay_done;
}

static int net_idle(void) { return !relay_due() && (atomic_load(&fy_progress_waiting) || net_no_work()); }

/* Listening (fy_progress_listen) serves a process that computes outside
 * MPI. While its threads make progress passes they take in what arrives
 * themselves, and an agent on the fd or the doorbell would wake with them
 * for every message (an 8-byte pingpong over the fabric went from 5.6 to
 * 13-16 us while a window across nodes existed). So an agent listens only
 * once FERRY_AGENT_QUIET_US passed without a pass by the application; until
 * then it parks for that long and looks again. seen: the count it last saw. */
static int listen_quiet(uint64_t *seen) {
  if (!atomic_load(&fy_progress_listen)) return 0;
  uint64_t p = __atomic_load_n(&fy_progress_app_passes, __ATOMIC_RELAXED);
  if (p == *seen) return 1;
  *seen = p;
  return 0;
}

/* How long a parked agent sleeps before it looks again: a listening one
 * must notice the application going quiet. */
static long park_ns(void) {
  long us = fy_config.agent_quiet_us < 10 ? 10 : (long)fy_config.agent_quiet_us; /* (0 would spin) */
  return atomic_load(&fy_progress_listen) ? us * 1000 : 100 * 1000 * 1000;
}

static void park(int (*idle)(void)) {
  atomic_uint *w = park_word;
  unsigned v = atomic_load(w);
  atomic_fetch_add(&parked, 1);
  /* Re-check after announcing: fy_intr_on_watch and fy_net_agent_resume
   * bump the word. */
  if (idle() && (atomic_load(&running) || atomic_load(&net_running))) {
    word_wait(w, v, park_ns());
  }
  atomic_fetch_sub(&parked, 1);
}

/* Wake every parked agent: with the fabric up in interrupt mode the shm
 * agent and the fabric agent park on the same word, and waking one of
 * them left the other asleep until its 100 ms timeout (a watched fabric
 * rendezvous then waited for the receiver's next MPI call). */
static void wake_parked(void) {
  atomic_uint *w = park_word;
  syscall(SYS_futex, w, park_op(w, FUTEX_WAKE), INT_MAX, NULL, NULL, 0);
}

int fy_net_agent_relay_begin(void) {
  if (!atomic_load(&net_running) || net_nofd) return 0;
  atomic_fetch_add(&relay_sleepers, 1);
  atomic_fetch_add(&relay_seq, 1);
  /* (the agent parks while a wait polls the fabric itself) */
  atomic_fetch_add(park_word, 1);
  if (atomic_load(&parked)) wake_parked();
  FY_NET_STAT_ADD(relayed);
  return 1;
}

void fy_net_agent_relay_end(void) { atomic_fetch_sub(&relay_sleepers, 1); }

/* Wake the relayed waits (kind ANY: not the doorbell agent, which sleeps
 * on rendezvous starts), if any and if there is news (an agent turn that
 * did nothing has none); and a wait asleep on the fabric's fd, whose
 * message the turn may have taken (fy_pt2pt_net_wake_waiters). */
static void relay_ring(int news) {
  if (news <= 0) return;
  /* (pairs with the waiter's increment of fy_progress_waiting before it
   * checks its request: one of the two sees the other) */
  atomic_thread_fence(memory_order_seq_cst);
  if (atomic_load(&fy_progress_waiting)) fy_pt2pt_net_wake_waiters();
  if (atomic_load(&relay_sleepers) == 0) return;
  FY_NET_STAT_ADD(relays);
  fy_shm_doorbell_ring_kinds(fy_shm_local_rank(), 1u << FY_SHM_WAIT_ANY);
}

/* Watch the fd for the sleeping waits, once per sleep: after a ring they
 * poll the queue themselves, and only a new sleep (relay_seq) calls for
 * another watch (else a completion they have yet to take would make
 * every fi_trywait fail, and the agent ring in a loop). */
static void relay(void) {
  unsigned s = atomic_load(&relay_seq);
  if (fy_pt2pt_net_sleep(100000) != 0) return; /* timeout, or the lock was busy: look again */
  relay_done = s;
  relay_ring(1);
}

void fy_net_agent_avoid_caller(void) {
  if (!avoid_on || !atomic_load(&net_running)) return;
  int cpu = sched_getcpu();
  /* (a syscall only when the computing thread moved) */
  if (cpu < 0 || cpu == atomic_load_explicit(&avoided, memory_order_relaxed) || !CPU_ISSET(cpu, &rank_cpus)) return;
  cpu_set_t set = rank_cpus;
  CPU_CLR(cpu, &set);
  /* (while on a lent CPU the agent is off ours already; it comes home to
   * the set avoided names) */
  if (atomic_load(&lent_cpu) >= 0 || pthread_setaffinity_np(net_tid, sizeof set, &set) == 0)
    atomic_store_explicit(&avoided, cpu, memory_order_relaxed);
}

void fy_net_agent_resume(void) {
  /* (a wake-up for nothing would cost a context switch per blocking call) */
  if (!atomic_load(&net_running) || net_no_work()) return;
  /* The thread goes back to computing, maybe on another CPU than the one
   * it posted its receives from: the scheduler places a thread that slept
   * in the wait anew (FERRY_OFI_AGENT=drain, late sender across two test
   * hosts, 256 KiB: the Barrier after MPI_Irecv moved it onto the agent's
   * CPU in most runs, and the agent's turns took 14-35 us from each
   * computation). */
  fy_net_agent_avoid_caller();
  atomic_fetch_add(park_word, 1);
  if (atomic_load(&parked)) wake_parked();
}

static int listen_start(void);

void fy_agents_listen(void) {
  /* (a parked agent otherwise looks again only after its 100 ms timeout) */
  atomic_fetch_add(park_word, 1);
  if (atomic_load(&parked)) wake_parked();
  listen_start();
}

void fy_intr_on_watch(void) {
  if ((kind != FY_ASYNC_INTERRUPT && !atomic_load(&net_running)) || !fy_config.intr_dynamic) return;
  /* (a trigger-only fabric agent, alone, would only park again; so would
   * the fabric agent alone while a blocking wait polls the fabric itself:
   * the wait's end wakes it if work remains, fy_net_agent_resume. Woken
   * anyway, the scheduler put it on the CPU of whatever computed beside:
   * a sender in MPI_Wait whose transfer began to need pacing, paced from
   * 128 KiB, took 14-19 us from each computation of a receiver on the
   * other test host.) */
  if (kind != FY_ASYNC_INTERRUPT && ((net_trigger && net_no_work()) || atomic_load(&fy_progress_waiting))) return;
  atomic_fetch_add(park_word, 1);
  if (atomic_load(&parked)) wake_parked();
}

/* One wake-up's work: progress passes while they find something (with
 * interrupt suppression, while more_pending() says work is queued), then a
 * short back-off when nothing was done: the application thread holds the
 * lock (it is progressing), so do not spin on what it is draining. */
static int agent_turn(int (*more_pending)(void)) {
  FY_CTR_ADD(wakeups, 1);
  uint64_t t0 = fy_async_now_ns();
  int total = 0, n;
  do {
    n = fy_progress_try_poll();
    if (n > 0) total += n;
  } while (n > 0 && fy_config.intr_suppress && (!more_pending || more_pending()));
  FY_CTR_ADD(turns, 1);
  if (total <= 0) {
    FY_CTR_ADD(futile, 1);
    fy_sleep_us(20);
  }
  FY_CTR_ADD(time_ns, fy_async_now_ns() - t0);
  return total;
}

static int shm_more(void) { return fy_shm_pending(); }

/* Sleep on the doorbell for kind's packets (at most a park period), then
 * a turn if one came, or on any wake-up while RMA work is pending
 * (background). 0: the agent is stopping. */
static int doorbell_turn(int kind, int background) {
  uint32_t v = fy_shm_doorbell_arm(kind);
  if (!fy_shm_pending()) fy_shm_doorbell_sleep(v, park_ns() / 1000);
  fy_shm_doorbell_disarm(kind);
  if (!atomic_load(&running)) return 0;
  if (fy_shm_pending() || (background && atomic_load(&fy_progress_background))) agent_turn(shm_more);
  return 1;
}

static void *intr_main(void *arg) {
  (void)arg;
  bind_cpu();
  uint64_t seen = 0;
  while (atomic_load(&running)) {
    /* A collective schedule in progress needs every packet it receives
     * (not only rendezvous starts) to move to its next stage, and so does a
     * listening hook once the application is quiet (listen_quiet); RMA
     * work pending (fy_progress_background) needs the engine on every
     * wake-up. */
    int sched = fy_sched_pending() || listen_quiet(&seen);
    int wait_kind = sched ? FY_SHM_WAIT_ANY : FY_SHM_WAIT_RNDV;
    if (fy_config.intr_dynamic && fy_async_watching() == 0 && !sched && !atomic_load(&fy_progress_background)) {
      park(intr_idle);
      continue;
    }
    if (!doorbell_turn(wait_kind, 1)) break;
  }
  return NULL;
}

/* pef mode: the PEF's signal handler cannot run hooks, so what a listening
 * hook's peers on this node send (an RMA window across nodes that also
 * has processes here) needs a thread on the doorbell, as in mode
 * interrupt; started with the first listener, it sleeps on the doorbell
 * only while the application is quiet (listen_quiet) and parks otherwise. */
static int always(void) { return 1; }

static void *listen_main(void *arg) {
  (void)arg;
  bind_cpu();
  uint64_t seen = 0;
  while (atomic_load(&running)) {
    if (atomic_load(&fy_progress_waiting) || !listen_quiet(&seen)) {
      park(always);
      continue;
    }
    if (!doorbell_turn(FY_SHM_WAIT_ANY, 0)) break;
  }
  return NULL;
}

static void *net_main(void *arg) {
  (void)arg;
  bind_cpu();
  uint64_t seen = 0;
  while (atomic_load(&net_running)) {
    if (relay_due()) {
      relay();
      continue;
    }
    /* (quiet and listening: sleep on the fd below for whatever arrives) */
    if (net_idle() && (atomic_load(&fy_progress_waiting) || !listen_quiet(&seen))) {
      /* (it parks where it is: going home first would move it onto the
       * computing thread's CPU where that is all the rank has, bound) */
      park(net_idle);
      continue;
    }
    if (net_nofd) {
      /* No fd to sleep on (libfabric's shm): look every FERRY_OFI_PACE_US
       * while there is work or the application is quiet and listening,
       * else a window's target that computes outside MPI never served
       * its origins. */
      fy_sleep_us(period_us());
      if (!atomic_load(&net_running)) break;
      relay_ring(agent_turn(NULL));
      continue;
    }
    if (net_trigger && fy_pt2pt_net_paced() && !lend_due()) {
      /* Drain at a pace, not per arrival: each wake-up on the computation's
       * core costs a context switch, and one pass copies whatever the
       * socket holds by then. (On a lent CPU it drains per arrival, below:
       * that costs no computation.) */
      pace_wait();
      if (!atomic_load(&net_running)) break;
      place(1);
      if (!net_idle()) relay_ring(agent_turn(NULL));
      continue;
    }
    if (fy_pt2pt_net_sleep(100000) != 0) continue; /* timeout */
    if (!atomic_load(&net_running)) break;
    /* (what woke a trigger-only agent may be an eager message it watched
     * for a lender that has gone back to work: leave it to the wait; a
     * listening agent serves whatever comes) */
    if (net_trigger && !relay_due() && net_no_work() && !atomic_load(&fy_progress_listen)) continue;
    if (net_trigger && !relay_due()) await_lend();
    place(1);
    /* (the turn may have completed what a wait that went to sleep
     * meanwhile waits for) */
    relay_ring(agent_turn(NULL));
  }
  return NULL;
}

static int spawn(pthread_t *t, void *(*fn)(void *)) {
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setstacksize(&a, 256 * 1024); /* progress needs little stack */
  /* The agent takes none of the application's signals (a process-directed
   * SIGALRM must reach an application thread): it starts with all blocked. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(t, &a, fn, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&a);
  return rc;
}

/* The ranks of the job on this machine, which share the CPUs the rank may
 * run on (read into rank_cpus); 0 when the affinity cannot be read. "This
 * machine", not the host name: test hosts in network namespaces (or
 * containers) of one machine share its CPUs. */
static int machine_ranks(void) {
  if (sched_getaffinity(0, sizeof rank_cpus, &rank_cpus) != 0) return 0;
  int ranks = fy_state.local_size > 0 ? fy_state.local_size : 1;
  int machine = fy_pt2pt_net_machine_ranks();
  return machine > ranks ? machine : ranks;
}

/* Whether the agent would share its rank's core: no CPU of its own
 * (fy_agent_cpu) and the rank may run on no more CPUs than there are
 * ranks here to run on them (measured across two test hosts on 2 cores,
 * late sender at 64 KiB: -88 % overlap draining, +48 % triggering). */
static int shares_core(int ranks) { return fy_agent_cpu() < 0 && ranks > 0 && CPU_COUNT(&rank_cpus) <= ranks; }

int fy_net_agent_start(void) {
  if (!fy_pt2pt_net_active()) return 0;
  net_nofd = fy_pt2pt_net_wait_fd() < 0;
  const char *m = fy_config.ofi_agent ? fy_config.ofi_agent : "auto";
  int ranks = machine_ranks();
  if (!strcmp(m, "trigger")) net_trigger = 1;
  else if (!strcmp(m, "drain")) net_trigger = 0;
  else {
    if (strcmp(m, "auto"))
      fprintf(stderr, "ferry: FERRY_OFI_AGENT=%s is not one of auto, drain, trigger; using auto\n", m);
    net_trigger = shares_core(ranks);
  }
  /* A draining agent also takes in large eager messages; a trigger-only
   * one too, on a CPU another rank of the machine lends (fy_lend.h). Its
   * lenders wake it on the word it parks on, in the machine's board. */
  net_lend = net_trigger && fy_lend_on() && fy_config.ofi_agent_eager > 0;
  if ((!net_trigger || net_lend) && fy_config.ofi_agent_eager > 0)
    fy_pt2pt_net_watch_above((size_t)fy_config.ofi_agent_eager);
  if (net_lend) {
    fy_lend_borrow();
    atomic_store(&park_at, fy_lend_word());
    /* (an agent of mode interrupt parked on the old word parks again) */
    atomic_fetch_add(&own_word, 1);
    syscall(SYS_futex, &own_word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
  } else {
    atomic_store(&park_at, &own_word);
  }
  /* Left to itself the scheduler often wakes the agent on the computing
   * thread's CPU (the one it ran on last), where the wake-up costs more
   * than the work (docs/transport-ofi.md): keep it off that CPU. A
   * trigger-only agent too (late sender across two test hosts: 37-159 us
   * taken from each computation in one run of three, 68 us at 512 KiB in
   * another; kept off, under 8 us in three of three). */
  avoid_on = fy_agent_cpu() < 0 && CPU_COUNT(&rank_cpus) > 1;
  fy_pt2pt_net_wake_init();
  atomic_store(&net_running, 1);
  __atomic_store_n(&fy_progress_count_waits, 1, __ATOMIC_RELAXED);
  if (spawn(&net_tid, net_main) != 0) {
    atomic_store(&net_running, 0);
    __atomic_store_n(&fy_progress_count_waits, 0, __ATOMIC_RELAXED);
    return -1;
  }
  return 0;
}

void fy_net_agent_stop(void) {
  if (!atomic_load(&net_running)) return;
  atomic_store(&net_running, 0);
  atomic_fetch_add(park_word, 1);
  wake_parked();
  pthread_join(net_tid, NULL); /* its poll times out within 100 ms */
  __atomic_store_n(&fy_progress_count_waits, 0, __ATOMIC_RELAXED);
}

static int start(int k, void *(*fn)(void *)) {
  kind = k;
  atomic_store(&running, 1);
  if (k == FY_ASYNC_INTERRUPT) fy_shm_set_selective(fy_config.intr_selective != 0);
  int rc = spawn(&tid, fn);
  if (rc != 0) {
    atomic_store(&running, 0);
    return -1;
  }
  return 0;
}

static void stop(void) {
  if (!atomic_load(&running)) return;
  atomic_store(&running, 0);
  atomic_fetch_add(park_word, 1);
  wake_parked();
  fy_shm_doorbell_ring(fy_shm_local_rank());
  pthread_join(tid, NULL);
}

/* (only where the progress lock is taken: the fabric agent runs too) */
static int listen_start(void) {
  static atomic_int started;
  if (fy_async_mode != FY_ASYNC_PEF || fy_plock_elide || fy_state.local_size < 2 || atomic_exchange(&started, 1))
    return 0;
  return start(FY_ASYNC_PEF, listen_main);
}
void fy_listen_stop(void) { stop(); }

int fy_pthread_start(void) { return start(FY_ASYNC_THREAD, poll_main); }
void fy_pthread_stop(void) { stop(); }
int fy_intr_start(void) { return start(FY_ASYNC_INTERRUPT, intr_main); }
void fy_intr_stop(void) { stop(); }
