/* CPU lending between the ranks of one machine: see fy_lend.h. */
#include "progress/async/fy_lend.h"
#include "runtime/fy_config.h"
#include "progress/async/fy_async.h"
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <unistd.h>

/* Slots the board has room for: ranks of one job on one machine beyond it
 * do not take part. The file is sparse: only used slots take memory. */
#define LEND_SLOTS 4096

typedef struct {
  _Atomic uint32_t wanting; /* slots with want set (a hint: lenders skip the scan at 0) */
  char pad[60];
} lend_hdr_t;

typedef struct {
  _Atomic int32_t cpu1;  /* the CPU this rank lends, plus one; 0: none */
  _Atomic uint32_t want; /* its agent would borrow one: WANT_WATCH | WANT_TURN */
  _Atomic uint32_t word; /* its agents' futex (fy_lend_word) */
  char pad[52];
} lend_slot_t;

static lend_hdr_t *hdr;
static lend_slot_t *slots;
static int me = -1, n;
static char name[300];
static atomic_int lending; /* threads of this process in a lent wait */
static int borrower;       /* fy_lend_borrow called: this rank's agent borrows */

static long futex_wake(_Atomic uint32_t *w) { return syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0); }

void fy_lend_open(const char *job) {
  /* (a board of an earlier start of the runtime stays mapped: an agent's
   * park word may still point into it) */
  hdr = NULL;
  slots = NULL;
  me = -1;
  borrower = 0;
  if (!fy_config.ofi_lend || !job || !*job) return;
  int k = snprintf(name, sizeof name, "/fy-%s-lend", job);
  if (k < 0 || (size_t)k >= sizeof name) goto off;
  for (char *p = name + 1; *p; p++)
    if (*p == '/') *p = '_';
  int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
  if (fd < 0) goto off;
  size_t len = sizeof(lend_hdr_t) + LEND_SLOTS * sizeof(lend_slot_t);
  struct stat st;
  /* (every rank sets the same length; one that finds it set leaves it) */
  if (fstat(fd, &st) != 0 || ((size_t)st.st_size < len && ftruncate(fd, (off_t)len) != 0)) goto close_fd;
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) goto close_fd;
  close(fd);
  hdr = p;
  slots = (lend_slot_t *)(hdr + 1);
  return;
close_fd:
  close(fd);
  shm_unlink(name);
off:
  name[0] = 0;
}

void fy_lend_setup(int index, int count) {
  if (name[0]) shm_unlink(name); /* (every rank opened it before the exchange's barrier) */
  if (!hdr) return;
  if (count < 2 || index < 0 || index >= LEND_SLOTS) {
    fy_lend_close();
    return;
  }
  n = count < LEND_SLOTS ? count : LEND_SLOTS;
  atomic_store(&slots[index].cpu1, 0);
  atomic_store(&slots[index].want, 0);
  me = index;
}

void fy_lend_close(void) {
  if (hdr && me >= 0) {
    atomic_store(&slots[me].cpu1, 0);
    if (atomic_exchange(&slots[me].want, 0)) atomic_fetch_sub(&hdr->wanting, 1);
  }
  /* (not unmapped: the process's agents may park on its word until they
   * stop, which may come later) */
  me = -1;
}

int fy_lend_on(void) { return me >= 0; }

_Atomic uint32_t *fy_lend_word(void) { return me >= 0 ? &slots[me].word : NULL; }

void fy_lend_borrow(void) { borrower = 1; }

enum { WANT_WATCH = 1, WANT_TURN = 2 }; /* (the watch list's reason, the agent's) */

static void want_bit(uint32_t bit, int on) {
  if (me < 0 || !borrower) return;
  if (on) {
    if (!atomic_fetch_or(&slots[me].want, bit)) atomic_fetch_add(&hdr->wanting, 1);
    /* (before the caller looks for a lender: a rank that lends after this
     * sees want set, one that lent before is seen) */
    atomic_thread_fence(memory_order_seq_cst);
  } else if ((atomic_load_explicit(&slots[me].want, memory_order_relaxed) & bit) &&
             atomic_fetch_and(&slots[me].want, ~bit) == bit) {
    /* (a bit already clear, as at every blocking wait's start and end,
     * costs no locked operation on the shared line) */
    atomic_fetch_sub(&hdr->wanting, 1);
  }
}

void fy_lend_want(int on) { want_bit(WANT_WATCH, on); }
void fy_lend_want_turn(int on) { want_bit(WANT_TURN, on); }

int fy_lend_begin(void) {
  if (me < 0) return 0;
  if (atomic_fetch_add(&lending, 1) != 0) return 1;
  int cpu = sched_getcpu();
  if (cpu < 0) return 1;
  atomic_store(&slots[me].cpu1, cpu + 1);
  FY_CTR_ADD(lent, 1);
  /* (seq_cst, against fy_lend_want then fy_lend_cpu on the other side:
   * one of the two sees the other) */
  if (atomic_load(&hdr->wanting) == 0) return 1;
  for (int i = 0; i < n; i++) {
    if (i == me || !atomic_load_explicit(&slots[i].want, memory_order_relaxed)) continue;
    atomic_fetch_add(&slots[i].word, 1);
    FY_CTR_ADD(lend_wakes, 1);
    futex_wake(&slots[i].word);
  }
  return 1;
}

void fy_lend_end(void) {
  /* (release is enough: a borrower that still reads the CPU as lent moves
   * there and finds no lender, which it handles as it handles a lend
   * that ended while it moved) */
  if (atomic_fetch_sub(&lending, 1) == 1 && me >= 0)
    atomic_store_explicit(&slots[me].cpu1, 0, memory_order_release);
}

int fy_lend_cpu(void) {
  if (me < 0) return -1;
  for (int i = 0; i < n; i++) {
    if (i == me) continue;
    int c = atomic_load_explicit(&slots[i].cpu1, memory_order_relaxed);
    if (c > 0) return c - 1;
  }
  return -1;
}
