/* shm pipelined copy: many sizes around the chunk and pool sizes, with
 * truncation (cap < len) and a larger cap, two senders to one receiver at
 * once (slots shared by transfers), default and tiny slot geometry. */
#include "shm_harness.h"
#include <errno.h>

static size_t sizes[32];
static int nsizes;

static void make_sizes(void) {
  size_t C = fy_shm_pipe_chunk(), K = (size_t)fy_shm_pipe_slots();
  size_t v[] = {0, 1, 100, C - 1, C, C + 1, 2 * C, K * C - 1, K * C, K * C + 1,
                3 * K * C + 17, (3u << 20) + 5};
  nsizes = 0;
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) sizes[nsizes++] = v[i];
}

/* cap used by the receiver of transfer k: equal, truncated, larger */
static size_t cap_of(int k, size_t len) {
  switch (k % 3) {
    case 0: return len;
    case 1: return len / 2;
    default: return len + 1000;
  }
}

/* Ranks 1 and 2 send every size to rank 0; rank 0 pulls both streams
 * alternately. Rank 0 also sends every size to rank 1 meanwhile. */
static int t_pipe(int me, int n, void *arg) {
  make_sizes();
  size_t maxlen = 0;
  for (int k = 0; k < nsizes; k++) if (sizes[k] > maxlen) maxlen = sizes[k];
  unsigned char *src = malloc(maxlen + 1);
  for (int k = 0; k < nsizes; k++) {
    size_t len = sizes[k];
    for (size_t i = 0; i < len; i++) src[i] = h_byte((uint64_t)me * 1000 + k, i);
    if (me == 0) {
      unsigned char *dst[3];
      fy_shm_pipe_t rp[3], sp;
      size_t cap[3];
      int done[3] = {1, 0, 0};
      for (int s = 1; s < n; s++) {
        cap[s] = cap_of(k + s, len);
        dst[s] = malloc(cap[s] + 64);
        memset(dst[s], 0xee, cap[s] + 64);
        fy_shm_pipe_init(&rp[s], s, (uint64_t)k * 10 + s, len);
      }
      for (int s = n; s < 3; s++) done[s] = 1;
      fy_shm_pipe_init(&sp, 1, 1000000 + k, len);
      int sent = 0;
      while (!(done[1] && done[2] && sent)) {
        for (int s = 1; s < 3; s++)
          if (!done[s]) done[s] = fy_shm_pipe_pull(&rp[s], dst[s], cap[s]);
        if (!sent) sent = fy_shm_pipe_push(&sp, src);
      }
      for (int s = 1; s < n; s++) {
        size_t m = cap[s] < len ? cap[s] : len;
        CHECK(rp[s].done == len);
        for (size_t i = 0; i < m; i++) CHECK(dst[s][i] == h_byte((uint64_t)s * 1000 + k, i));
        for (size_t i = m; i < cap[s] + 64; i++) CHECK(dst[s][i] == 0xee);
        free(dst[s]);
      }
    } else {
      fy_shm_pipe_t sp, rp;
      fy_shm_pipe_init(&sp, 0, (uint64_t)k * 10 + me, len);
      unsigned char *dst = NULL;
      if (me == 1) {
        dst = malloc(len + 1);
        fy_shm_pipe_init(&rp, 0, 1000000 + k, len);
      }
      int sent = 0, got = me != 1;
      while (!(sent && got)) {
        if (!sent) sent = fy_shm_pipe_push(&sp, src);
        if (!got) got = fy_shm_pipe_pull(&rp, dst, len);
      }
      CHECK(sp.done == len);
      if (me == 1) {
        for (size_t i = 0; i < len; i++) CHECK(dst[i] == h_byte(k, i));
        free(dst);
      }
    }
    /* the next size reuses xfer ids of others only after everyone finished */
    h_barrier();
  }
  free(src);
  return 0;
}

int main(void) {
  int bad = 0;
  bad |= h_run("pipe 3 procs, default slots", 3, NULL, t_pipe, NULL);
  fy_shm_boot_t tiny = {.pipe_slots = 3, .pipe_chunk = 4096};
  bad |= h_run("pipe 3 procs, 3 slots of 4 KiB", 3, &tiny, t_pipe, NULL);
  fy_shm_boot_t one = {.pipe_slots = 1, .pipe_chunk = 5000};
  bad |= h_run("pipe 2 procs, 1 slot of 8 KiB", 2, &one, t_pipe, NULL);
  return bad;
}
