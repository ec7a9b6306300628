/* shm cross-memory attach: read and write of many sizes between two
 * processes, errno on a bad address, turning it off. Skips (passes) when the
 * kernel does not allow it, after checking the probe said so. */
#include "shm_harness.h"
#include <errno.h>
#include <sys/uio.h>

typedef struct { void *src, *dst; } addrs_t;
static const size_t sizes[] = {0, 1, 7, 4096, 65537, (1u << 22) + 3};
#define MAXSZ ((1u << 22) + 3)

static int t_cma(int me, int n, void *arg) {
  addrs_t *a = (addrs_t *)h_sh->scratch;
  if (!fy_shm_cma_available()) {
    /* the probe must agree with the kernel */
    uint64_t v = 0, w = 1;
    struct iovec l = {&v, 8}, r = {&w, 8};
    pid_t peer = fy_shm_pid(1 - me);
    CHECK(process_vm_readv(peer, &l, 1, &r, 1, 0) < 0);
    if (me == 0) printf("  CMA not available here (%s): skipped\n", strerror(errno));
    return 0;
  }
  if (me == 1) {
    unsigned char *src = malloc(MAXSZ), *dst = calloc(1, MAXSZ);
    for (size_t i = 0; i < MAXSZ; i++) src[i] = h_byte(1, i);
    a->src = src;
    a->dst = dst;
    h_barrier();   /* addresses published */
    h_barrier();   /* rank 0 done */
    for (size_t i = 0; i < MAXSZ; i++) CHECK(dst[i] == h_byte(2, i));
    return 0;
  }
  h_barrier();
  unsigned char *buf = malloc(MAXSZ), *out = malloc(MAXSZ);
  for (size_t i = 0; i < MAXSZ; i++) out[i] = h_byte(2, i);
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    size_t len = sizes[k];
    memset(buf, 0xee, MAXSZ);
    CHECK(fy_shm_cma_read(1, buf, a->src, len) == 0);
    for (size_t i = 0; i < len; i++) CHECK(buf[i] == h_byte(1, i));
    if (len < MAXSZ) CHECK(buf[len] == 0xee);
  }
  /* write the whole buffer in two unaligned pieces */
  CHECK(fy_shm_cma_write(1, a->dst, out, 12345) == 0);
  CHECK(fy_shm_cma_write(1, (char *)a->dst + 12345, out + 12345, MAXSZ - 12345) == 0);
  /* bad peer address: -1 with errno */
  errno = 0;
  CHECK(fy_shm_cma_read(1, buf, (void *)8, 64) == -1);
  CHECK(errno == EFAULT);
  fy_shm_set_cma(false);
  CHECK(!fy_shm_cma_available());
  fy_shm_set_cma(true);
  CHECK(fy_shm_cma_available());
  h_barrier();
  return 0;
}

int main(void) { return h_run("cma read/write", 2, NULL, t_cma, NULL); }
