/* shm rings: multi-producer FIFO with payload checks, full ring, refused
 * packets, packet size limit, pending(), sending to oneself. */
#include "shm_harness.h"
#include <errno.h>

#define NMSG 20000

typedef struct { uint32_t src, i; } phdr_t;

static size_t plen(uint32_t src, uint32_t i) { return (i * 7919u + src * 31u) % 301u; }

typedef struct { uint32_t next[16]; int bad; long got; } rx_t;

static int rx_cb(void *arg, int src, const void *pkt, size_t len) {
  rx_t *rx = arg;
  phdr_t h;
  if (len < sizeof h) { rx->bad = 1; return 0; }
  memcpy(&h, pkt, sizeof h);
  if ((int)h.src != src || h.i != rx->next[src] || len != sizeof h + plen(h.src, h.i)) rx->bad = 1;
  const unsigned char *d = (const unsigned char *)pkt + sizeof h;
  for (size_t k = 0; k < len - sizeof h; k++)
    if (d[k] != h_byte(((uint64_t)src << 32) | h.i, k)) { rx->bad = 1; break; }
  rx->next[src] = h.i + 1;
  rx->got++;
  return 0;
}

static int t_fifo(int me, int n, void *arg) {
  if (me == 0) {
    rx_t rx = {0};
    long want = (long)(n - 1) * NMSG;
    while (rx.got < want && !rx.bad) fy_shm_poll(rx_cb, &rx, (int)(rx.got & 3));
    CHECK(!rx.bad);
    CHECK(!fy_shm_pending());
    return 0;
  }
  unsigned char buf[512];
  long eagain = 0;
  for (uint32_t i = 0; i < NMSG; i++) {
    phdr_t h = {(uint32_t)me, i};
    size_t l = plen(me, i);
    for (size_t k = 0; k < l; k++) buf[k] = h_byte(((uint64_t)me << 32) | i, k);
    int r;
    while ((r = fy_shm_send(0, &h, sizeof h, buf, l, 0)) == FY_SHM_EAGAIN) eagain++;
    CHECK(r == 0);
  }
  return 0;
}

static uint64_t full_expect;
static int full_bad;
static int full_cb(void *a, int src, const void *pkt, size_t len) {
  uint64_t x;
  memcpy(&x, pkt, 8);
  if (src != 1 || len != 8 || x != full_expect) full_bad = 1;
  full_expect++;
  return 0;
}

static int t_full(int me, int n, void *arg) {
  long cells = *(long *)arg;
  if (me == 1) {
    long sent = 0;
    uint64_t v;
    for (v = 0;; v++) {
      int r = fy_shm_send(0, &v, sizeof v, NULL, 0, 0);
      if (r == FY_SHM_EAGAIN) break;
      CHECK(r == 0);
      sent++;
    }
    CHECK(sent == cells);
    CHECK(fy_shm_send(0, &v, sizeof v, NULL, 0, 0) == FY_SHM_EAGAIN);
  }
  h_barrier();
  if (me == 0) {
    CHECK(fy_shm_pending());
    CHECK(fy_shm_poll(full_cb, NULL, 1) == 1);
    CHECK(fy_shm_poll(full_cb, NULL, 0) == cells - 1);
    CHECK(!full_bad);
    CHECK(!fy_shm_pending());
  }
  h_barrier();
  if (me == 1) {  /* the ring wrapped: all cells usable again */
    for (long i = 0; i < cells; i++) CHECK(fy_shm_send(0, &i, sizeof i, NULL, 0, 0) == 0);
    CHECK(fy_shm_send(0, NULL, 0, NULL, 0, 0) == FY_SHM_EAGAIN);
  }
  return 0;
}

typedef struct { int calls; int refused_once[64]; long next; int bad; } rf_t;
static int refuse_cb(void *arg, int src, const void *pkt, size_t len) {
  rf_t *r = arg;
  long x;
  memcpy(&x, pkt, sizeof x);
  r->calls++;
  if (x != r->next) r->bad = 1;
  if (x % 3 == 1 && !r->refused_once[x]) { r->refused_once[x] = 1; return 1; }
  r->next++;
  return 0;
}

static int t_refuse(int me, int n, void *arg) {
  if (me == 1)
    for (long i = 0; i < 40; i++) CHECK(fy_shm_send(0, &i, sizeof i, NULL, 0, 0) == 0);
  h_barrier();
  if (me == 0) {
    rf_t r = {0};
    int total = 0, polls = 0;
    while (total < 40 && polls < 1000) { total += fy_shm_poll(refuse_cb, &r, 0); polls++; }
    CHECK(total == 40);
    CHECK(!r.bad);
    CHECK(r.next == 40);
    CHECK(r.calls == 40 + 13);   /* 1,4,...,37 were each refused once */
    CHECK(!fy_shm_pending());
  }
  return 0;
}

static int count_cb(void *arg, int src, const void *pkt, size_t len) {
  size_t *l = arg;
  *l = len;
  const unsigned char *p = pkt;
  for (size_t i = 0; i < len; i++) if (p[i] != (unsigned char)i) { *l = (size_t)-1; break; }
  return 0;
}

static int t_limits_self(int me, int n, void *arg) {
  size_t max = fy_shm_max_packet();
  CHECK(max >= 16384);
  unsigned char *b = malloc(max + 1);
  for (size_t i = 0; i <= max; i++) b[i] = (unsigned char)i;
  CHECK(!fy_shm_pending());
  CHECK(fy_shm_send(me, b, max + 1, NULL, 0, 0) != 0);   /* too big: refused */
  CHECK(!fy_shm_pending());
  CHECK(fy_shm_send(me, b, 10, b + 10, max - 10, 0) == 0);
  CHECK(fy_shm_pending());
  size_t got = 0;
  CHECK(fy_shm_poll(count_cb, &got, 0) == 1);
  CHECK(got == max);
  CHECK(fy_shm_send(me, NULL, 0, NULL, 0, 0) == 0);      /* empty packet */
  got = 99;
  CHECK(fy_shm_poll(count_cb, &got, 0) == 1);
  CHECK(got == 0);
  CHECK(!fy_shm_pending());
  free(b);
  return 0;
}

int main(void) {
  int bad = 0;
  bad |= h_run("ring fifo 4 procs (3 producers)", 4, NULL, t_fifo, NULL);
  fy_shm_boot_t small = {.ring_cells = 8, .cell_payload = 64};
  long cells = 8;
  bad |= h_run("ring full -> EAGAIN", 2, &small, t_full, &cells);
  fy_shm_boot_t tiny = {.ring_cells = 4, .cell_payload = 512};
  bad |= h_run("ring fifo 3 procs, 4-cell ring", 3, &tiny, t_fifo, NULL);
  bad |= h_run("ring refused packets redelivered", 2, NULL, t_refuse, NULL);
  bad |= h_run("ring limits, self send", 1, NULL, t_limits_self, NULL);
  return bad;
}
