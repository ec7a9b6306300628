/* PMI-level check of a job placed on several hosts: every rank publishes its
 * host name, and after the barrier each rank reads all of them and checks
 * that fy_pmi_local_ranks() (from mpiexec's PMI_process_mapping) names
 * exactly the ranks whose host name equals its own, and that
 * MPI_LOCALRANKID / MPI_LOCALNRANKS agree. Prints one line per rank:
 *   pmi_hosts rank R of N on HOST: K local ok
 * Exit 0 when every check holds. Built on the PMI-1 client alone (no MPI),
 * so it runs where Ferry's MPI_Init refuses a job spanning hosts. */
#include "runtime/fy_pmi.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(c, ...)                                                          \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "pmi_hosts rank %d: check failed: %s: ", rank, #c);      \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, " (pmi: %s)\n", fy_pmi_error());                         \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(void) {
  int rank = -1, size = 0, appnum = 0;
  CHECK(fy_pmi_init(&rank, &size, &appnum) == 0, "init");
  CHECK(!fy_pmi_is_singleton(), "no process manager");
  char host[256] = "", key[64], other[1100];
  gethostname(host, sizeof host - 1);
  snprintf(key, sizeof key, "host-%d", rank);
  CHECK(fy_pmi_put(key, host) == 0, "put");
  CHECK(fy_pmi_barrier() == 0, "barrier");
  int *same = calloc((size_t)size, sizeof *same), nsame = 0, my_idx = -1;
  for (int r = 0; r < size; r++) {
    snprintf(key, sizeof key, "host-%d", r);
    CHECK(fy_pmi_get(r, key, other, sizeof other) == 0, "get %s", key);
    if (!strcmp(other, host)) {
      if (r == rank) my_idx = nsame;
      same[nsame++] = r;
    }
  }
  int *local = calloc((size_t)size, sizeof *local), nlocal = -1, my_local = -1;
  CHECK(fy_pmi_local_ranks(local, &nlocal, &my_local) == 0, "local_ranks");
  CHECK(nlocal == nsame, "%d local ranks, but %d ranks run on %s", nlocal, nsame, host);
  for (int i = 0; i < nlocal; i++) CHECK(local[i] == same[i], "local[%d] = %d, expected %d", i, local[i], same[i]);
  CHECK(my_local == my_idx, "my_local %d, expected %d", my_local, my_idx);
  const char *lr = getenv("MPI_LOCALRANKID"), *ln = getenv("MPI_LOCALNRANKS");
  if (lr && ln) {
    CHECK(atoi(lr) == my_idx, "MPI_LOCALRANKID=%s, expected %d", lr, my_idx);
    CHECK(atoi(ln) == nsame, "MPI_LOCALNRANKS=%s, expected %d", ln, nsame);
  }
  CHECK(fy_pmi_barrier() == 0, "second barrier");
  CHECK(fy_pmi_finalize() == 0, "finalize");
  printf("pmi_hosts rank %d of %d on %s: %d local ok\n", rank, size, host, nlocal);
  free(same);
  free(local);
  return 0;
}
