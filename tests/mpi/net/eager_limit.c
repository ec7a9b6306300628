/* net_eager_limit LIMIT: over the fabric (FERRY_NOLOCAL=1, 2 ranks), a
 * message of LIMIT bytes goes eagerly and one of LIMIT + 1 by rendezvous,
 * each arriving whole: FERRY_OFI_EAGER as the run sets it, or its auto
 * value (64 KiB, but over ofi_rxm what rxm moves whole, its
 * FI_OFI_RXM_BUFFER_SIZE less Ferry's prefix, padding and header).
 *
 * Read from rank 0's MPI_T counter ferry_net_eager (eager messages sent)
 * around each send: it grows by one for LIMIT bytes and not for LIMIT + 1,
 * which goes by rendezvous (RGET, RPUT or its data ahead, as the provider
 * and the receiver's state choose). */
#include "fytest.h"

enum { EAGER, NCOUNT };
static const char *names[NCOUNT] = {"ferry_net_eager"};

/* The counters' values now (MPI 4.1, 15.3.7: from when the handle started). */
static void counters(MPI_T_pvar_session ses, MPI_T_pvar_handle *ph, unsigned long long *v) {
  for (int i = 0; i < NCOUNT; i++) {
    v[i] = 0;
    CHECK_OK(MPI_T_pvar_read(ses, ph[i], &v[i]));
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("net_eager_limit");
  int rank = fy_rank_, prov;
  long limit = argc > 1 ? atol(argv[1]) : 0;
  CHECK(limit > 0, "usage: net_eager_limit LIMIT");
  CHECK(fy_size_ == 2, "needs 2 ranks, got %d", fy_size_);
  if (limit <= 0 || fy_size_ != 2) return fy_finish();
  CHECK_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
  MPI_T_pvar_session ses;
  MPI_T_pvar_handle ph[NCOUNT];
  CHECK_OK(MPI_T_pvar_session_create(&ses));
  for (int i = 0; i < NCOUNT; i++) {
    int idx, cnt;
    CHECK_OK(MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &idx));
    CHECK_OK(MPI_T_pvar_handle_alloc(ses, idx, NULL, &ph[i], &cnt));
    CHECK_OK(MPI_T_pvar_start(ses, ph[i]));
  }
  unsigned char *buf = malloc((size_t)limit + 1);
  CHECK(buf != NULL, "out of memory");
  for (long extra = 0; buf && extra <= 1; extra++) {
    size_t n = (size_t)limit + (size_t)extra;
    unsigned long long before[NCOUNT], after[NCOUNT];
    MPI_Barrier(MPI_COMM_WORLD);
    counters(ses, ph, before);
    if (rank == 0) {
      for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)(i * 7 + extra);
      CHECK_OK(MPI_Send(buf, (int)n, MPI_BYTE, 1, 5, MPI_COMM_WORLD));
    } else {
      memset(buf, 0, n);
      MPI_Status st;
      CHECK_OK(MPI_Recv(buf, (int)n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st));
      int got;
      MPI_Get_count(&st, MPI_BYTE, &got);
      CHECK(got == (int)n, "%zu bytes: received %d", n, got);
      size_t bad = 0;
      for (size_t i = 0; i < n; i++) bad += buf[i] != (unsigned char)(i * 7 + extra);
      CHECK(bad == 0, "%zu bytes: %zu wrong", n, bad);
    }
    counters(ses, ph, after);
    if (rank == 0)
      CHECK(after[EAGER] - before[EAGER] == (extra ? 0u : 1u),
            "%zu bytes with an eager limit of %ld: %llu eager messages sent, expected %d", n, limit,
            after[EAGER] - before[EAGER], extra ? 0 : 1);
  }
  free(buf);
  for (int i = 0; i < NCOUNT; i++) CHECK_OK(MPI_T_pvar_handle_free(ses, &ph[i]));
  CHECK_OK(MPI_T_pvar_session_free(&ses));
  CHECK_OK(MPI_T_finalize());
  return fy_finish();
}
