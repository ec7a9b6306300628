/* test_ofi: the ofi transport on its own, one process as rank 0 of 1
 * sending to itself: ordered delivery of many messages of every size (more
 * than the send pool holds, so some queue), an empty flush marker that is
 * never delivered, RMA read and write between two registered buffers,
 * pieces larger than one message, the registration cache (and which
 * providers get one by default), an idle wait fd that does not wake a
 * sleeper, and a failed transfer's message (rank and operation named). */
#include "transport/ofi/fy_ofi.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static char kvs_key[64], kvs_val[1024];
static int put(const char *k, const char *v) { snprintf(kvs_key, sizeof kvs_key, "%s", k); snprintf(kvs_val, sizeof kvs_val, "%s", v); return 0; }
static int barrier(void) { return 0; }
static int get(int r, const char *k, char *v, size_t n) { if (strcmp(k, kvs_key)) return -1; snprintf(v, n, "%s", kvs_val); return 0; }

#define NMSG 300
#define MSGMAX 2048
static int got, rma_done;
static void on_msg(int src, const void *data, size_t len) {
  CHECK(src == 0, "source %d", src);
  CHECK(len >= 4, "message of %zu bytes", len);
  int k;
  memcpy(&k, data, 4);
  CHECK(k == got, "message %d arrived when %d was due", k, got);
  size_t want = 4 + (size_t)(k * 37) % (MSGMAX - 4);
  CHECK(len == want, "message %d: %zu bytes, expected %zu", k, len, want);
  for (size_t i = 4; i < len; i++)
    if (((const unsigned char *)data)[i] != (unsigned char)(k + i)) { CHECK(0, "message %d byte %zu", k, i); break; }
  got++;
}
static void on_rma(void *ctx) { rma_done += ctx == (void *)&rma_done; }

static void send_k(int k) {
  static unsigned char msg[MSGMAX];
  size_t len = 4 + (size_t)(k * 37) % (MSGMAX - 4);
  memcpy(msg, &k, 4);
  for (size_t i = 4; i < len; i++) msg[i] = (unsigned char)(k + i);
  fy_ofi_send(0, msg, 4, msg + 4, len - 4);
}

static void drain(int *flag, int want) {
  for (long spins = 0; *flag < want && spins < 50000000L; spins++) fy_ofi_poll();
}

/* A transfer the provider fails ends the job with a message naming the
 * operation and the rank: here an RMA read with a key nobody registered
 * (on a cluster, more often a peer gone). Run in a child, which must
 * abort with that message; 0 when it did, 77 where the provider does not
 * check keys, -1 (a failed CHECK) when the test could not run. */
static int failed_read(const fy_ofi_boot_t *b, const fy_ofi_cb_t *cb) {
  int fds[2];
  if (pipe(fds)) {
    CHECK(0, "a failed RMA read: no pipe to read the child's message through");
    return -1;
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    if (fy_ofi_init(b, cb) != 0) _exit(3);
    static char x[4096], y[4096];
    fy_ofi_mr_t *mx = fy_ofi_mr_get(x, sizeof x), *my = fy_ofi_mr_get(y, sizeof y);
    fy_ofi_rma(0, 0, y, sizeof y, my, fy_ofi_mr_raddr(mx, x), fy_ofi_mr_key(mx) + 7777, &rma_done);
    drain(&rma_done, 1);
    _exit(rma_done == 1 ? 77 : 4); /* the provider let it through */
  }
  close(fds[1]);
  char out[4096] = "";
  size_t have = 0;
  ssize_t k;
  while (have < sizeof out - 1 && (k = read(fds[0], out + have, sizeof out - 1 - have)) > 0) have += (size_t)k;
  out[have] = 0;
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  if (WIFEXITED(st) && WEXITSTATUS(st) == 77) return 77;
  CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "a failed RMA read: child status %#x", st);
  CHECK(strstr(out, "rank 0: libfabric completion error on an RDMA read of 4096 bytes from rank 0"),
        "a failed RMA read said: %s", out);
  printf("%s", out);
  return 0;
}

int main(void) {
  /* the registration cache by default: on where registering pins nothing */
  static const char *copying[] = {"net", "tcp", "tcp;ofi_rxm", "udp;ofi_rxd", "sockets", "shm"};
  static const char *pinning[] = {"verbs;ofi_rxm", "efa", "cxi", "psm3", "psm2", "opx", "verbs;ofi_rxd", "tcpx", "ne"};
  for (size_t i = 0; i < sizeof copying / sizeof *copying; i++)
    CHECK(fy_ofi_mr_cache_auto(copying[i]) > 0, "no cache by default on %s", copying[i]);
  for (size_t i = 0; i < sizeof pinning / sizeof *pinning; i++)
    CHECK(fy_ofi_mr_cache_auto(pinning[i]) == 0, "a cache by default on %s", pinning[i]);
  const char *prov = getenv("FY_TEST_OFI_PROVIDER");
  if (!prov) prov = getenv("FI_PROVIDER") ? "auto" : "tcp;ofi_rxm";
  fy_ofi_boot_t b = {.rank = 0, .size = 1, .provider = prov,
                     .msg_max = MSGMAX, .mr_cache = -1 /* the provider's default */, .put = put, .barrier = barrier, .get = get};
  fy_ofi_cb_t cb = {.on_msg = on_msg, .on_rma = on_rma};
  if (fy_ofi_init(&b, &cb) != 0) {
    printf("SKIP: ofi transport unavailable: %s\n", fy_ofi_error());
    return fails ? 1 : 77;
  }
  printf("provider %s, inject %zu\n", fy_ofi_provider(), fy_ofi_inject_size());
  /* (the child's endpoint is its own: this one is closed first) */
  fy_ofi_finalize();
  int fr = failed_read(&b, &cb);
  if (fr != -1)
    printf("a failed RMA read: %s\n", fr == 0 ? "the job ends with its rank and operation named" : "not checked (the provider does not check keys)");
  CHECK(fy_ofi_init(&b, &cb) == 0, "init again: %s", fy_ofi_error());
  for (int k = 0; k < NMSG; k++) {
    send_k(k);
    if (k == NMSG / 2) fy_ofi_send(0, NULL, 0, NULL, 0); /* a marker: not delivered */
  }
  drain(&got, NMSG);
  CHECK(got == NMSG, "%d of %d messages arrived", got, NMSG);

  size_t n = 3 << 20;
  char *a = malloc(n), *c = malloc(n);
  for (size_t i = 0; i < n; i++) a[i] = (char)(i * 7);
  memset(c, 0, n);
  fy_ofi_mr_t *ma = fy_ofi_mr_get(a, n), *mc = fy_ofi_mr_get(c, n);
  fy_ofi_rma(0, 0, c, n, mc, fy_ofi_mr_raddr(ma, a), fy_ofi_mr_key(ma), &rma_done); /* read a into c */
  drain(&rma_done, 1);
  CHECK(rma_done == 1 && memcmp(a, c, n) == 0, "RMA read");
  for (size_t i = 0; i < n; i++) c[i] = (char)(i * 3 + 1);
  fy_ofi_rma(1, 0, c + 100, n - 200, mc, fy_ofi_mr_raddr(ma, a + 100), fy_ofi_mr_key(ma), &rma_done); /* write */
  drain(&rma_done, 2);
  /* a write's completion promises the data to a message sent after it */
  send_k(NMSG);
  drain(&got, NMSG + 1);
  CHECK(rma_done == 2 && memcmp(a + 100, c + 100, n - 200) == 0 && a[99] == (char)(99 * 7), "RMA write");
  uint64_t hits = fy_ofi_stats.mr_hits;
  fy_ofi_mr_t *again = fy_ofi_mr_get(a + 4096, 1000);
  if (fy_ofi_mr_cache_auto(fy_ofi_provider()) > 0)
    CHECK(again == ma && fy_ofi_stats.mr_hits == hits + 1, "registration cache hit");
  fy_ofi_mr_put(again);
  fy_ofi_mr_put(ma);
  fy_ofi_mr_put(mc);
  fy_ofi_flush();
  for (long s = 0; fy_ofi_busy() && s < 50000000L; s++) fy_ofi_poll();
  CHECK(!fy_ofi_busy(), "sends still in flight after the flush");
  /* Idle now: the fd a wait sleeps on must not wake it (libfabric 1.17's
   * net left its completion queue's fd readable for good: fy_ofi sleeps
   * on the provider's sockets instead). */
  for (int k = 0; k < 1000; k++) fy_ofi_poll();
  int fd = fy_ofi_wait_fd();
  if (fd >= 0 && fy_ofi_trywait()) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    CHECK(poll(&p, 1, 50) == 0, "the wait fd is readable with nothing to take (revents %#x)", p.revents);
  }
  fy_ofi_finalize();
  free(a);
  free(c);
  printf("%s test_ofi: %d messages (%llu injected, %llu queued, %llu early), RMA pieces %llu\n",
         fails ? "FAIL" : "PASS", got, (unsigned long long)fy_ofi_stats.injected,
         (unsigned long long)fy_ofi_stats.queued, (unsigned long long)fy_ofi_stats.early,
         (unsigned long long)fy_ofi_stats.rma_pieces);
  return fails ? 1 : 0;
}
