/* shm segment: nothing left in /dev/shm once init returns, per-rank state
 * (pid, in-MPI word, rank area) shared, stale segment reported, bad boot
 * parameters refused, memory linear in local ranks. */
#include "shm_harness.h"
#include "transport/shm/fy_shm_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static int t_state(int me, int n, void *arg) {
  char path[200];
  snprintf(path, sizeof path, "/dev/shm/fy-%s-0", h_job);
  CHECK(access(path, F_OK) != 0 && errno == ENOENT);
  CHECK(fy_shm_local_rank() == me && fy_shm_local_size() == n);
  CHECK(fy_shm_pid(me) == getpid());
  for (int r = 0; r < n; r++)
    for (int q = r + 1; q < n; q++) CHECK(fy_shm_pid(r) != fy_shm_pid(q));
  unsigned char *area = fy_shm_rank_area(me);
  CHECK(((uintptr_t)area & 63) == 0);
  for (int i = 0; i < 200; i++) CHECK(area[i] == 0);
  area[0] = (unsigned char)(me + 1);
  area[199] = (unsigned char)(me + 100);
  fy_shm_set_in_mpi((uint32_t)me + 7);
  h_barrier();
  for (int r = 0; r < n; r++) {
    CHECK(atomic_load(fy_shm_in_mpi_word(r)) == (uint32_t)r + 7);
    unsigned char *ra = fy_shm_rank_area(r);
    CHECK(ra[0] == r + 1 && ra[199] == r + 100);
  }
  /* hot words of different ranks on different lines */
  CHECK((char *)fy_shm_in_mpi_word(0) - (char *)&fy_shm_rank(0)->armed[0] >= FY_SHM_LINE);
  return 0;
}

static int t_nothing(int me, int n, void *arg) { return 0; }

int main(void) {
  int bad = 0;
  fy_shm_boot_t b = {.rank_area = 200};
  int ns[3] = {1, 2, 4};
  for (int i = 0; i < 3; i++) {
    char name[64];
    snprintf(name, sizeof name, "segment state, %d procs", ns[i]);
    bad |= h_run(name, ns[i], &b, t_state, NULL);
  }
  /* stale segment: created by hand, init fails on every rank with a message */
  char job[64], path[128];
  snprintf(job, sizeof job, "ut-stale-%d", (int)getpid());
  snprintf(path, sizeof path, "/fy-%s-0", job);
  int fd = shm_open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) { perror("shm_open"); return 1; }
  if (ftruncate(fd, 1 << 16)) { perror("ftruncate"); return 1; }
  close(fd);
  bad |= h_run_ex("stale segment refused", 3, NULL, t_nothing, NULL, 1, job);
  shm_unlink(path);
  /* bad parameters */
  fy_shm_boot_t nb = {.job_id = "x", .local_rank = 0, .local_size = 1, .ring_cells = 6};
  int r = fy_shm_init(&nb);
  printf("%-40s %s\n", "ring_cells not a power of two refused", r ? "ok" : "FAIL");
  bad |= !r;
  /* memory linear in ranks: rank 0 alone (no barrier) lays out n ranks */
  size_t s[5];
  for (int k = 1; k <= 4; k++) {
    char j[64];
    snprintf(j, sizeof j, "ut-lin-%d-%d", (int)getpid(), k);
    fy_shm_boot_t g = {.job_id = j, .local_rank = 0, .local_size = k, .rank_area = 100};
    if (fy_shm_init(&g)) { fprintf(stderr, "%s\n", fy_shm_error()); return 1; }
    s[k] = fy_shm_g.size;
    fy_shm_finalize();
  }
  r = s[2] - s[1] == s[3] - s[2] && s[4] - s[3] == s[3] - s[2];
  printf("%-40s %s (%zu + %zu per rank bytes)\n", "segment size linear in ranks", r ? "ok" : "FAIL",
         s[1] - (s[2] - s[1]), s[2] - s[1]);
  bad |= !r;
  return bad;
}
