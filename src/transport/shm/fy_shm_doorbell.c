/* shm doorbell: per-rank futex words in the segment. See fy_shm.h.
 *
 * Protocol (Dekker): the sleeper increments armed[kind] (seq_cst), reads
 * futex[kind], the caller re-checks fy_shm_pending(), and the sleep itself
 * re-checks the ring's claim counter (tail) before it waits. A sender claims
 * its cell with a seq_cst CAS on tail and reads armed[] right after it,
 * before writing the cell: either it sees the sleeper armed (and bumps the
 * futex word once the packet is published), or the sleeper's tail check sees
 * the claim. The claim is a locked instruction anyway, so the send path
 * needs no extra fence. Rendezvous starts, which wake selective RNDV
 * sleepers (who must sleep through unconsumed eager packets, so cannot use
 * the claim check), follow the classic order: publish, fence, read armed. The futex words are process-shared (no
 * FUTEX_PRIVATE_FLAG). ANY and RNDV sleepers use different words, so a
 * packet that should not wake RNDV sleepers does not even change theirs;
 * ANY's word holds even values and RNDV's odd ones (both step by 2), so the
 * armed value alone says which word to sleep on. */
#include "transport/shm/fy_shm_internal.h"
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts,
                  uint32_t bitset) {
  return syscall(SYS_futex, (uint32_t *)w, op, val, ts, NULL, bitset);
}

static void wake_word(fy_shm_rank_t *rk, int kind) {
  atomic_fetch_add_explicit(&rk->futex[kind], 2, memory_order_seq_cst);
  futex(&rk->futex[kind], FUTEX_WAKE, INT_MAX, NULL, 0);
  atomic_fetch_add_explicit(&fy_shm_g.wakeups, 1, memory_order_relaxed);
}

unsigned fy_shm_doorbell_armed(fy_shm_rank_t *rk) {
  uint32_t any = atomic_load_explicit(&rk->armed[FY_SHM_WAIT_ANY], memory_order_seq_cst);
  uint32_t rndv = atomic_load_explicit(&rk->armed[FY_SHM_WAIT_RNDV], memory_order_seq_cst);
  int32_t kick = atomic_load_explicit(&rk->kick_tid, memory_order_seq_cst);
  return (any ? 1u : 0u) | (rndv ? 2u : 0u) | (kick ? FY_SHM_ARMED_KICK : 0u);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether the registered thread leaves our packet (ring position pos;
 * UINT64_MAX: none) alone for the grace period. It needs no signal if it
 * takes the packet in meanwhile (its published head passes pos: a thread
 * re-checking its ring as an MPI call returns does so while registered),
 * or enters an MPI call (it unregisters, fy_async_kick_pause, and
 * re-checks its ring as the call returns). A thread posting a window of
 * receives is registered only between and at the end of its calls; a kick
 * that caught it there arrived inside the library, to be deferred, and
 * cost each side 10-13 us of a system call and a signal delivery. */
static bool leaves_it(fy_shm_rank_t *rk, uint64_t pos) {
  if (!fy_shm_g.kick_grace_ns) return true;
  uint64_t t0 = now_ns();
  do {
    for (int i = 0; i < 32; i++) {
      if (!atomic_load_explicit(&rk->kick_tid, memory_order_acquire) ||
          atomic_load_explicit(&rk->in_mpi, memory_order_acquire) ||
          (pos != UINT64_MAX && atomic_load_explicit(&rk->head, memory_order_acquire) > pos))
        return false;
      __builtin_ia32_pause();
    }
  } while (now_ns() - t0 < fy_shm_g.kick_grace_ns);
  return true;
}

static int kick(fy_shm_rank_t *rk, uint64_t pos) {
  /* A rank waiting inside MPI polls its ring: no signal needed. */
  if (atomic_load_explicit(&rk->in_mpi, memory_order_seq_cst)) return 0;
  if (!leaves_it(rk, pos)) return 0;
  int32_t tid = atomic_load_explicit(&rk->kick_tid, memory_order_relaxed);
  int32_t sig = atomic_load_explicit(&rk->kick_sig, memory_order_relaxed);
  if (!tid || !sig) return 0;
  int saved = errno;
  /* ESRCH (the thread exited) or EAGAIN (signal queue full: one is
   * pending anyway) need nothing more. */
  long r = syscall(SYS_tgkill, (pid_t)rk->pid, (pid_t)tid, sig);
  errno = saved;
  if (r != 0) return 0;
  atomic_fetch_add_explicit(&fy_shm_g.kicks, 1, memory_order_relaxed);
  return 1;
}

void fy_shm_doorbell_wake(int dst, unsigned flags, unsigned armed, uint64_t pos) {
  fy_shm_rank_t *rk = fy_shm_rank(dst);
  if (armed & 1u) wake_word(rk, FY_SHM_WAIT_ANY);
  if ((armed & 2u) && ((flags & FY_SHM_F_RNDV) || !fy_shm_g.selective)) wake_word(rk, FY_SHM_WAIT_RNDV);
  if ((armed & FY_SHM_ARMED_KICK) && (flags & FY_SHM_F_RNDV)) kick(rk, pos);
}

bool fy_shm_rndv_watched(int dst) {
  return (fy_shm_doorbell_armed(fy_shm_rank(dst)) & (2u | FY_SHM_ARMED_KICK)) != 0;
}

void fy_shm_kick_register(pid_t tid, int sig) {
  fy_shm_rank_t *rk = fy_shm_rank(fy_shm_g.me);
  atomic_store_explicit(&rk->kick_sig, sig, memory_order_relaxed);
  atomic_store_explicit(&rk->kick_tid, (int32_t)tid, memory_order_seq_cst);
  atomic_thread_fence(memory_order_seq_cst);
}

void fy_shm_kick_unregister(void) {
  atomic_store_explicit(&fy_shm_rank(fy_shm_g.me)->kick_tid, 0, memory_order_relaxed);
}

int fy_shm_kick(int dst) {
  fy_shm_rank_t *rk = fy_shm_rank(dst);
  if (!atomic_load_explicit(&rk->kick_tid, memory_order_seq_cst)) return 0;
  return kick(rk, UINT64_MAX);
}

uint64_t fy_shm_kicks_sent(void) { return atomic_load_explicit(&fy_shm_g.kicks, memory_order_relaxed); }

void fy_shm_set_selective(bool selective) { fy_shm_g.selective = selective; }
void fy_shm_set_kick_grace(double us) { fy_shm_g.kick_grace_ns = us > 0 ? (uint64_t)(us * 1000.0) : 0; }

uint32_t fy_shm_doorbell_arm(int kind) {
  fy_shm_rank_t *rk = fy_shm_rank(fy_shm_g.me);
  kind = kind == FY_SHM_WAIT_RNDV ? FY_SHM_WAIT_RNDV : FY_SHM_WAIT_ANY;
  atomic_fetch_add_explicit(&rk->armed[kind], 1, memory_order_seq_cst);
  atomic_thread_fence(memory_order_seq_cst);
  return atomic_load_explicit(&rk->futex[kind], memory_order_seq_cst);
}

void fy_shm_doorbell_disarm(int kind) {
  fy_shm_rank_t *rk = fy_shm_rank(fy_shm_g.me);
  kind = kind == FY_SHM_WAIT_RNDV ? FY_SHM_WAIT_RNDV : FY_SHM_WAIT_ANY;
  atomic_fetch_sub_explicit(&rk->armed[kind], 1, memory_order_seq_cst);
}

int fy_shm_doorbell_sleep(uint32_t armed_value, long timeout_us) {
  fy_shm_rank_t *rk = fy_shm_rank(fy_shm_g.me);
  _Atomic uint32_t *w = &rk->futex[armed_value & 1u];
  struct timespec dl, *pdl = NULL;
  if (timeout_us >= 0) {
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += timeout_us / 1000000;
    dl.tv_nsec += (timeout_us % 1000000) * 1000;
    if (dl.tv_nsec >= 1000000000) { dl.tv_sec++; dl.tv_nsec -= 1000000000; }
    pdl = &dl;
  }
  for (;;) {
    if (atomic_load_explicit(w, memory_order_acquire) != armed_value) return 0;
    /* A packet claimed but not yet published: its sender may have read
     * "nobody armed" before we armed; it will be here in a moment. (A
     * selective RNDV sleeper is covered by the fenced path of rendezvous
     * starts instead, and must sleep through unconsumed eager packets.) */
    if (((armed_value & 1u) == 0 || !fy_shm_g.selective) && fy_shm_incoming()) {
      /* Its sender is between claim and publish (a copy at most): wait for
       * the packet rather than return before it is there. */
      while (!fy_shm_pending() && fy_shm_incoming()) __builtin_ia32_pause();
      return 0;
    }
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline, so a
     * retry after EINTR keeps the original timeout */
    long r = futex(w, FUTEX_WAIT_BITSET, armed_value, pdl, FUTEX_BITSET_MATCH_ANY);
    if (r == 0 || errno == EAGAIN) return 0;
    if (errno == ETIMEDOUT) return 1;
    if (errno != EINTR) return 0;   /* unexpected: let the caller re-poll */
  }
}

/* The caller has published what a sleeper waits for (a release store):
 * fence, then bump and wake only the kinds with sleepers armed. The
 * sleeper arms (seq_cst) before it re-checks, so one of the two sees the
 * other (as with a packet's wake-up). Bumping both futex words on every
 * ring, as before, was two locked operations on the sleeper's line for
 * every step of a shared-memory collective, armed or not (-n 2, 8-512 B,
 * paired: barrier 0.89x, bcast 0.93x, allgather and alltoall 0.93-0.96x). */
void fy_shm_doorbell_ring_kinds(int local, unsigned kinds) {
  fy_shm_rank_t *rk = fy_shm_rank(local);
  atomic_thread_fence(memory_order_seq_cst);
  for (int k = 0; k < 2; k++)
    if ((kinds >> k & 1u) && atomic_load_explicit(&rk->armed[k], memory_order_relaxed)) wake_word(rk, k);
}

void fy_shm_doorbell_ring(int local) { fy_shm_doorbell_ring_kinds(local, 3u); }

uint64_t fy_shm_wakeups_sent(void) {
  return atomic_load_explicit(&fy_shm_g.wakeups, memory_order_relaxed);
}
