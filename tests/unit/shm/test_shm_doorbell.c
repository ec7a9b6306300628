/* shm doorbell: ANY wake, selective RNDV wake, non-selective mode, explicit
 * ring, timeout, and a ping-pong stress in which both sides always sleep, so
 * a single lost wake-up shows as a timeout. */
#include "shm_harness.h"
#include "transport/shm/fy_shm_internal.h"
#include <sched.h>

static void wait_armed(int rank, int kind) {
  while (!atomic_load(&fy_shm_rank(rank)->armed[kind])) sched_yield();
}
static int drop_cb(void *a, int s, const void *p, size_t l) { return 0; }
static void drain(void) { while (fy_shm_poll(drop_cb, NULL, 0)) {} }

static int t_any(int me, int n, void *arg) {
  _Atomic int *go = (_Atomic int *)h_sh->scratch;
  if (me == 0) {
    uint32_t v = fy_shm_doorbell_arm(FY_SHM_WAIT_ANY);
    CHECK(!fy_shm_pending());
    atomic_store(go, 1);   /* rank 1 sends only now */
    CHECK(fy_shm_doorbell_sleep(v, 30 * 1000000L) == 0);
    fy_shm_doorbell_disarm(FY_SHM_WAIT_ANY);
    CHECK(fy_shm_pending());
    drain();
  } else {
    while (!atomic_load(go)) sched_yield();
    wait_armed(0, FY_SHM_WAIT_ANY);
    uint64_t w0 = fy_shm_wakeups_sent();
    CHECK(fy_shm_send(0, "x", 1, NULL, 0, 0) == 0);
    CHECK(fy_shm_wakeups_sent() == w0 + 1);
  }
  h_barrier();
  /* nobody armed: no system call */
  if (me == 1) {
    uint64_t w0 = fy_shm_wakeups_sent();
    CHECK(fy_shm_send(0, "y", 1, NULL, 0, FY_SHM_F_RNDV) == 0);
    CHECK(fy_shm_wakeups_sent() == w0);
  }
  return 0;
}

static int t_selective(int me, int n, void *arg) {
  uint32_t v = 0;
  if (me == 0) v = fy_shm_doorbell_arm(FY_SHM_WAIT_RNDV);
  h_barrier();
  if (me == 1) {   /* an eager packet must not wake a RNDV sleeper */
    CHECK(fy_shm_send(0, "e", 1, NULL, 0, 0) == 0);
    CHECK(fy_shm_wakeups_sent() == 0);
  }
  h_barrier();
  if (me == 0) {
    CHECK(fy_shm_pending());
    CHECK(fy_shm_doorbell_sleep(v, 100000) == 1);   /* times out: not rung */
  }
  h_barrier();
  if (me == 1) {
    CHECK(fy_shm_send(0, "r", 1, NULL, 0, FY_SHM_F_RNDV) == 0);
    CHECK(fy_shm_wakeups_sent() == 1);
  }
  if (me == 0) {
    CHECK(fy_shm_doorbell_sleep(v, 30 * 1000000L) == 0);
    fy_shm_doorbell_disarm(FY_SHM_WAIT_RNDV);
    drain();
  }
  h_barrier();
  /* FERRY_INTR_SELECTIVE=0: every packet wakes RNDV sleepers */
  if (me == 0) v = fy_shm_doorbell_arm(FY_SHM_WAIT_RNDV);
  h_barrier();
  if (me == 1) {
    fy_shm_set_selective(false);
    CHECK(fy_shm_send(0, "e", 1, NULL, 0, 0) == 0);
    CHECK(fy_shm_wakeups_sent() == 2);
  }
  if (me == 0) {
    CHECK(fy_shm_doorbell_sleep(v, 30 * 1000000L) == 0);
    fy_shm_doorbell_disarm(FY_SHM_WAIT_RNDV);
    drain();
  }
  h_barrier();
  /* an ANY sleeper is woken by RNDV packets too */
  if (me == 0) v = fy_shm_doorbell_arm(FY_SHM_WAIT_ANY);
  h_barrier();
  if (me == 1) CHECK(fy_shm_send(0, "r", 1, NULL, 0, FY_SHM_F_RNDV) == 0);
  if (me == 0) {
    CHECK(fy_shm_doorbell_sleep(v, 30 * 1000000L) == 0);
    fy_shm_doorbell_disarm(FY_SHM_WAIT_ANY);
  }
  return 0;
}

static int t_ring_timeout(int me, int n, void *arg) {
  if (me == 0) {
    uint32_t v = fy_shm_doorbell_arm(FY_SHM_WAIT_RNDV);
    CHECK(fy_shm_doorbell_sleep(v, 20000) == 1);
    CHECK(fy_shm_doorbell_sleep(v, 0) == 1);
    h_barrier();
    CHECK(fy_shm_doorbell_sleep(v, 30 * 1000000L) == 0);  /* rung by rank 1 */
    fy_shm_doorbell_disarm(FY_SHM_WAIT_RNDV);
  } else {
    h_barrier();
    fy_shm_doorbell_ring(0);
    CHECK(fy_shm_wakeups_sent() == 1);
  }
  return 0;
}

/* Each side waits for the other's packet by: poll; arm; re-check; sleep. */
static int got;
static int got_cb(void *a, int s, const void *p, size_t l) { got++; return 0; }
static int wait_one(int kind, long *timeouts) {
  got = 0;
  while (!got) {
    if (fy_shm_poll(got_cb, NULL, 1)) break;
    uint32_t v = fy_shm_doorbell_arm(kind);
    if (fy_shm_pending()) { fy_shm_doorbell_disarm(kind); continue; }
    if (fy_shm_doorbell_sleep(v, 10 * 1000000L) == 1) (*timeouts)++;
    fy_shm_doorbell_disarm(kind);
    if (*timeouts) return -1;
  }
  return 0;
}

static int t_stress(int me, int n, void *arg) {
  const int iters = *(int *)arg;
  long timeouts = 0;
  int kind = me == 0 ? FY_SHM_WAIT_RNDV : FY_SHM_WAIT_ANY;
  unsigned fl = me == 1 ? FY_SHM_F_RNDV : 0;   /* rank 1 sends RNDV packets to the RNDV sleeper */
  for (int i = 0; i < iters; i++) {
    if ((i + me) % 2 == 0) {
      CHECK(fy_shm_send(1 - me, &i, sizeof i, NULL, 0, fl) == 0);
      CHECK(wait_one(kind, &timeouts) == 0);
    } else {
      CHECK(wait_one(kind, &timeouts) == 0);
      CHECK(fy_shm_send(1 - me, &i, sizeof i, NULL, 0, fl) == 0);
    }
  }
  CHECK(timeouts == 0);
  return 0;
}

/* Several threads of rank 0 sleep at once (ANY and RNDV); rank 1 wakes all. */
static void *sleeper(void *a) {
  int kind = (int)(intptr_t)a;
  uint32_t v = fy_shm_doorbell_arm(kind);
  int r = fy_shm_doorbell_sleep(v, 30 * 1000000L);
  fy_shm_doorbell_disarm(kind);
  return (void *)(intptr_t)r;
}
static int t_threads(int me, int n, void *arg) {
  if (me == 0) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, sleeper, (void *)(intptr_t)(i & 1));
    for (int i = 0; i < 4; i++) {
      void *r;
      pthread_join(t[i], &r);
      CHECK(r == 0);
    }
  } else {
    while (atomic_load(&fy_shm_rank(0)->armed[0]) < 2 || atomic_load(&fy_shm_rank(0)->armed[1]) < 2)
      sched_yield();
    CHECK(fy_shm_send(0, "r", 1, NULL, 0, FY_SHM_F_RNDV) == 0);
    CHECK(fy_shm_wakeups_sent() == 2);
  }
  return 0;
}

int main(void) {
  int bad = 0, iters = 20000;
  bad |= h_run("doorbell ANY wake", 2, NULL, t_any, NULL);
  bad |= h_run("doorbell selective RNDV", 2, NULL, t_selective, NULL);
  bad |= h_run("doorbell ring and timeout", 2, NULL, t_ring_timeout, NULL);
  bad |= h_run("doorbell threads", 2, NULL, t_threads, NULL);
  bad |= h_run("doorbell stress (no lost wake-ups)", 2, NULL, t_stress, &iters);
  return bad;
}
