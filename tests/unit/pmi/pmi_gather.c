/* fy_pmi_gather test: every rank publishes a value of its own length,
 * then gathers them all, through the PMI calls counted, four times:
 *   plain     every rank reads its node's share: rank r % nlocal
 *   getfail   local rank 1's gets of its share fail: its slots stay empty
 *             and every rank of the node reads them itself
 *   noattach  local rank 1 looks for another file (cannot attach): it
 *             reads everything, the others its share too
 *   nofile    local rank 0 cannot create the file (name too long for
 *             shm_open): the whole node reads rank by rank
 * checking the values and each rank's gets, then once through
 * fy_pmi_gather itself. The same barriers on every rank whatever failed:
 * else the next gather or the final barrier would hang (time limit).
 * Run as a singleton, under Ferry's mpiexec on one node and on fake hosts
 * (-launcher fork: nodes of 4, 2 and 1 ranks), and under Hydra. Prints
 *   pmi_gather rank R of N: K local, gets P/G/A/F ok
 * Exit 0 when every check holds. */
#include "runtime/fy_pmi.h"
#include "runtime/fy_pmi_gather.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VLEN 1024

#define CHECK(c, ...)                                                      \
  do {                                                                     \
    if (!(c)) {                                                            \
      fprintf(stderr, "pmi_gather rank %d: check failed: %s: ", rank, #c); \
      fprintf(stderr, __VA_ARGS__);                                        \
      fprintf(stderr, " (pmi: %s)\n", fy_pmi_error());                     \
      return 1;                                                            \
    }                                                                      \
  } while (0)

static int rank, gets, fail_first; /* fail_first: this many next gets fail */

static int counted_get(int r, const char *key, char *val, size_t len) {
  gets++;
  if (fail_first > 0) {
    fail_first--;
    return -1;
  }
  return fy_pmi_get(r, key, val, len);
}

/* Distinct per rank, 6 to about 900 bytes, with '=' and ',' inside. */
static void value_for(int r, char *buf) {
  int n = snprintf(buf, VLEN, "v=%d,", r), len = 6 + (r * 377) % 900;
  for (int i = n; i < len; i++) buf[i] = (char)('a' + (i + r) % 26);
  buf[len > n ? len : n] = 0;
}

static int share(int size, int nlocal, int i) { /* ranks r < size with r % nlocal == i */
  return nlocal <= 1 ? size : size / nlocal + (i < size % nlocal);
}

static int check_values(const char *out, int size, const char *mode) {
  char want[VLEN];
  for (int r = 0; r < size; r++) {
    value_for(r, want);
    CHECK(!strcmp(out + (size_t)r * VLEN, want), "%s: value of rank %d is \"%.30s...\"", mode, r,
          out + (size_t)r * VLEN);
  }
  return 0;
}

/* No file of this job's gathers is left in /dev/shm. */
static int leftovers(const char *kvs) {
  char pfx[300];
  int n = 0;
  snprintf(pfx, sizeof pfx, "fy-%s-n", kvs);
  DIR *d = opendir("/dev/shm");
  for (struct dirent *e; d && (e = readdir(d));)
    if (!strncmp(e->d_name, pfx, strlen(pfx)) && strstr(e->d_name, "-g")) n++;
  if (d) closedir(d);
  return n;
}

int main(void) {
  int size = 0, appnum = 0;
  CHECK(fy_pmi_init(&rank, &size, &appnum) == 0, "init");
  char key[64], val[VLEN];
  snprintf(key, sizeof key, "gt-%d", rank);
  value_for(rank, val);
  CHECK(fy_pmi_put(key, val) == 0, "put");
  CHECK(fy_pmi_barrier() == 0, "barrier");
  int *local = calloc((size_t)size, sizeof *local), nlocal = 0, me = -1;
  char *out = malloc((size_t)size * VLEN);
  CHECK(local && out, "out of memory");
  CHECK(fy_pmi_local_ranks(local, &nlocal, &me) == 0, "local_ranks");
  int split = !fy_pmi_is_singleton() && !fy_pmi_is_pmix();
  fy_pmi_gather_ops_t base = {.get = counted_get, .barrier = fy_pmi_barrier, .job = fy_pmi_kvsname(),
                              .size = size, .split = split, .local = local, .nlocal = nlocal, .my_local = me};
  /* gets of a node's ranks when all goes well, and those of the others when
   * local rank 1's share must be read again by every rank */
  int mine = split ? share(size, nlocal, me) : size, again = nlocal > 1 ? share(size, nlocal, 1) : 0;
  const char *modes[] = {"plain", "getfail", "noattach", "nofile"};
  int got[4];
  char longjob[261]; /* (the name fits the gather's buffer, not NAME_MAX) */
  memset(longjob, 'x', sizeof longjob - 1);
  longjob[sizeof longjob - 1] = 0;
  for (int m = 0; m < 4; m++) {
    fy_pmi_gather_ops_t ops = base;
    int want = mine;
    gets = fail_first = 0;
    if (m == 1 && split && nlocal > 1) {
      if (me == 1) fail_first = again;
      want = me == 1 ? 2 * again : mine + again;
    } else if (m == 2 && split && nlocal > 1) {
      if (me == 1) ops.job = "fy-gather-test-elsewhere";
      want = me == 1 ? size : mine + again;
    } else if (m == 3 && split && nlocal > 1) {
      if (me == 0) ops.job = longjob;
      want = size;
    }
    CHECK(fy_pmi_gather_ops(&ops, "gt-", VLEN, out) == 0, "%s: gather", modes[m]);
    if (check_values(out, size, modes[m])) return 1;
    CHECK(gets == want, "%s: %d gets, expected %d (local rank %d of %d)", modes[m], gets, want, me, nlocal);
    got[m] = gets;
  }
  CHECK(fy_pmi_gather("gt-", VLEN, out) == 0, "fy_pmi_gather");
  if (check_values(out, size, "fy_pmi_gather")) return 1;
  /* a key nobody put: every slot "" and -1, and the barriers still match */
  base.get = fy_pmi_get;
  CHECK(fy_pmi_gather_ops(&base, "no-such-", VLEN, out) == -1, "missing keys read");
  for (int r = 0; r < size; r++) CHECK(out[(size_t)r * VLEN] == 0, "missing key of rank %d not empty", r);
  CHECK(fy_pmi_barrier() == 0, "final barrier");
  CHECK(leftovers(fy_pmi_kvsname()) == 0, "a gather's file is left in /dev/shm");
  CHECK(fy_pmi_finalize() == 0, "finalize");
  printf("pmi_gather rank %d of %d: %d local, gets %d/%d/%d/%d ok\n", rank, size, nlocal, got[0], got[1], got[2],
         got[3]);
  free(local);
  free(out);
  return 0;
}
