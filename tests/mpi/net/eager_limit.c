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

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("net_eager_limit");
  int rank = fy_rank_, prov;
  long limit = argc > 1 ? atol(argv[1]) : 0;
  CHECK(limit > 0, "usage: net_eager_limit LIMIT");
  CHECK(fy_size_ == 2, "needs 2 ranks, got %d", fy_size_);
  if (limit <= 0 || fy_size_ != 2) return fy_finish();
  CHECK_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
  fy_counter_t eager;
  int counting = fy_counter_start(&eager, "ferry_net_eager");
  CHECK(counting, "no MPI_T counter ferry_net_eager");
  if (!counting) return MPI_T_finalize(), fy_finish();
  unsigned char *buf = malloc((size_t)limit + 1);
  CHECK(buf != NULL, "out of memory");
  for (long extra = 0; buf && extra <= 1; extra++) {
    size_t n = (size_t)limit + (size_t)extra;
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned long long before = fy_counter_read(&eager);
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
    unsigned long long sent = fy_counter_read(&eager) - before;
    if (rank == 0)
      CHECK(sent == (extra ? 0u : 1u), "%zu bytes with an eager limit of %ld: %llu eager messages sent, expected %d",
            n, limit, sent, extra ? 0 : 1);
  }
  free(buf);
  fy_counter_end(&eager);
  CHECK_OK(MPI_T_finalize());
  return fy_finish();
}
