/* Medium messages (above FERRY_DIRECT_MIN, 16 KiB, up to the eager
 * threshold, 64 KiB) on each of their paths: written into a published
 * receive while the receiver computes (the sender a little late), through
 * a ring cell to a receiver that waits (MPI_Isend), and through the pipe
 * (a blocking MPI_Send above 32 KiB). Each whole, and into a receive
 * buffer 1000 bytes too short: MPI_ERR_TRUNCATE, the prefix delivered,
 * the count of what was delivered, nothing written past the buffer.
 * Which path a message takes depends on timing; every one must be right.
 * Ranks pair up (even receives, odd sends); an odd last rank only joins
 * the barriers. */
#include "fytest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("pt2pt_medium");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = fy_rank_, size = fy_size_;
  int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
  if (partner >= size) partner = -1;
  /* (40001: an odd length, which over the fabric is padded, fy_ofi.c) */
  static const int sizes[] = {20000, 40001, 65536};
  enum { PAD = 64 };
  unsigned char *buf = malloc(65536 + PAD);
  CHECK(buf != NULL, "malloc");
  for (int path = 0; path < 3 && buf; path++) {
    for (int k = 0; k < 3; k++) {
      for (int trunc = 0; trunc < 2; trunc++) {
        int n = sizes[k], cap = trunc ? n - 1000 : n;
        unsigned seed = (unsigned)(path * 100 + k * 10 + trunc + 1);
        if (partner >= 0 && rank % 2 == 0) {
          memset(buf, 0xee, (size_t)n + PAD);
          MPI_Status st;
          int rc;
          if (path == 0) { /* published, then computing */
            MPI_Request rq;
            CHECK_OK(MPI_Irecv(buf, cap, MPI_BYTE, partner, 5, MPI_COMM_WORLD, &rq));
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
            fy_spin_us(5000);
            rc = MPI_Wait(&rq, &st);
          } else if (path == 1) { /* waiting in MPI */
            MPI_Request rq;
            CHECK_OK(MPI_Irecv(buf, cap, MPI_BYTE, partner, 5, MPI_COMM_WORLD, &rq));
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
            rc = MPI_Wait(&rq, &st);
          } else { /* a blocking receive of a blocking send */
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
            rc = MPI_Recv(buf, cap, MPI_BYTE, partner, 5, MPI_COMM_WORLD, &st);
          }
          int cls = MPI_SUCCESS, cnt = -1;
          MPI_Error_class(rc, &cls);
          MPI_Get_count(&st, MPI_BYTE, &cnt);
          CHECK(cls == (trunc ? MPI_ERR_TRUNCATE : MPI_SUCCESS), "path %d, %d bytes into %d: error class %d",
                path, n, cap, cls);
          CHECK(cnt == cap, "path %d, %d bytes into %d: count %d", path, n, cap, cnt);
          CHECK(st.MPI_SOURCE == partner && st.MPI_TAG == 5, "path %d: source %d tag %d", path, st.MPI_SOURCE,
                st.MPI_TAG);
          size_t bad = fy_verify(buf, (size_t)cap, seed);
          CHECK(bad == (size_t)-1, "path %d, %d bytes into %d: payload wrong at byte %zu", path, n, cap, bad);
          for (int i = cap; i < n + PAD; i++)
            if (buf[i] != 0xee) {
              CHECK(0, "path %d, %d bytes into %d: byte %d past the buffer written", path, n, cap, i);
              break;
            }
        } else if (partner >= 0) {
          fy_fill(buf, (size_t)n, seed);
          CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
          if (path == 2) {
            CHECK_OK(MPI_Send(buf, n, MPI_BYTE, partner, 5, MPI_COMM_WORLD));
          } else {
            if (path == 0) fy_spin_us(1000); /* the receiver computes by now */
            MPI_Request rq;
            CHECK_OK(MPI_Isend(buf, n, MPI_BYTE, partner, 5, MPI_COMM_WORLD, &rq));
            CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
          }
        } else {
          CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        }
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
      }
    }
  }
  free(buf);
  return fy_finish();
}
