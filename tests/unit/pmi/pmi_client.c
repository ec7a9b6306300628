/* PMI client test: init, put, barrier, get every other rank's value,
 * local ranks, a missing key, finalize. Run as a singleton, under Ferry's
 * mpiexec and under MPICH's mpiexec.hydra. Exit 0 when every check holds. */
#include "runtime/fy_pmi.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(c, ...)                                                   \
  do {                                                                  \
    if (!(c)) {                                                         \
      fprintf(stderr, "pmi_client rank %d: check failed: %s: ", rank, #c); \
      fprintf(stderr, __VA_ARGS__);                                     \
      fprintf(stderr, " (pmi: %s)\n", fy_pmi_error());                  \
      return 1;                                                         \
    }                                                                   \
  } while (0)

static void value_for(int r, char *buf, size_t len) {
  /* A long value (800 bytes) with '=' and ',' inside, distinct per rank. */
  int n = snprintf(buf, len, "rank=%d,", r);
  for (int i = n; i < 800 && (size_t)i < len - 1; i++) buf[i] = (char)('a' + (i + r) % 26);
  buf[800 < len - 1 ? 800 : len - 1] = '\0';
}

int main(int argc, char **argv) {
  int rank = -1, size = 0, appnum = -1;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CHECK(fy_pmi_init(&rank, &size, &appnum) == 0, "init");
  CHECK(size >= 1 && rank >= 0 && rank < size, "rank %d size %d", rank, size);
  CHECK(appnum == 0, "appnum %d", appnum);
  if (argc > 1) CHECK(size == atoi(argv[1]), "size %d, expected %s", size, argv[1]);
  int no_pm = !getenv("PMI_FD") && !getenv("PMI_PORT");
  CHECK(fy_pmi_is_singleton() == no_pm, "singleton %d without a process manager %d", fy_pmi_is_singleton(), no_pm);
  CHECK(fy_pmi_kvsname()[0] != '\0', "empty kvsname");
  char key[64], val[1024], got[1024];
  snprintf(key, sizeof key, "test-%d", rank);
  value_for(rank, val, sizeof val);
  CHECK(fy_pmi_put(key, val) == 0, "put");
  CHECK(fy_pmi_barrier() == 0, "barrier");
  clock_gettime(CLOCK_MONOTONIC, &t1);
  for (int r = 0; r < size; r++) {
    snprintf(key, sizeof key, "test-%d", r);
    CHECK(fy_pmi_get(r, key, got, sizeof got) == 0, "get %s", key);
    value_for(r, val, sizeof val);
    CHECK(!strcmp(got, val), "value of %s differs: %.40s...", key, got);
  }
  /* A missing key fails with a message naming it; the connection survives. */
  CHECK(fy_pmi_get(0, "no-such-key", got, sizeof got) == -1, "missing key found");
  CHECK(strstr(fy_pmi_error(), "no-such-key") != NULL, "message does not name the key");
  /* A value with a space is refused before it reaches the wire. */
  CHECK(fy_pmi_put("bad", "a b") == -1, "value with a space accepted");
  /* Too small a buffer is an error, not a truncation. */
  snprintf(key, sizeof key, "test-%d", rank);
  CHECK(fy_pmi_get(rank, key, got, 10) == -1, "short buffer accepted");

  int *local = calloc((size_t)size, sizeof *local), nlocal = -1, my_local = -1;
  CHECK(fy_pmi_local_ranks(local, &nlocal, &my_local) == 0, "local_ranks");
  CHECK(nlocal == size, "nlocal %d, size %d (one node)", nlocal, size);
  for (int i = 0; i < nlocal; i++) CHECK(local[i] == i, "local[%d] = %d", i, local[i]);
  CHECK(my_local == rank, "my_local %d", my_local);
  free(local);
  CHECK(fy_pmi_barrier() == 0, "second barrier");
  int singleton = fy_pmi_is_singleton();
  CHECK(fy_pmi_finalize() == 0, "finalize");
  if (rank == 0)
    printf("pmi_client: %d rank(s) ok%s, init+put+barrier %.2f ms\n", size,
           singleton ? " (singleton)" : "",
           (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
  return 0;
}
