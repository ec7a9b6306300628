/* MPI 4.1 per-communicator buffers: Bsend on a communicator with its own
 * buffer uses it (the process has none attached), another communicator
 * without one fails with MPI_ERR_BUFFER, Comm_flush_buffer and Buffer_flush
 * return once the messages left the buffer, detach gives the buffer back. */
#include <mpi.h>
#include <stdlib.h>
#include "fytest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("commbuf");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm c;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_dup(MPI_COMM_WORLD, &c); /* inherits MPI_ERRORS_RETURN */
  int peer = rank ^ 1, n = 1000;
  int sz = (int)(n * sizeof(int)) + MPI_BSEND_OVERHEAD;
  char *buf = malloc((size_t)sz);
  int *msg = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) msg[i] = rank + i;
  CHECK_OK(MPI_Comm_attach_buffer(c, buf, sz));
  CHECK_CLASS(MPI_Comm_attach_buffer(c, buf, sz), MPI_ERR_BUFFER);
  if (peer < size) {
    CHECK_OK(MPI_Bsend(msg, n, MPI_INT, peer, 1, c));
    CHECK_CLASS(MPI_Bsend(msg, n, MPI_INT, peer, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    MPI_Request fr;
    CHECK_OK(MPI_Comm_iflush_buffer(c, &fr));
    CHECK_OK(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Comm_flush_buffer(c));
    CHECK_OK(MPI_Buffer_flush());
    int *in = malloc(sizeof(int) * (size_t)n);
    CHECK_OK(MPI_Recv(in, n, MPI_INT, peer, 1, c, MPI_STATUS_IGNORE));
    CHECK(in[0] == peer && in[n - 1] == peer + n - 1, "data %d", in[0]);
    /* the buffer is free again after the flush: another full-size send fits */
    CHECK_OK(MPI_Bsend(msg, n, MPI_INT, peer, 2, c));
    CHECK_OK(MPI_Recv(in, n, MPI_INT, peer, 2, c, MPI_STATUS_IGNORE));
    free(in);
  }
  void *back;
  int bsz;
  CHECK_OK(MPI_Comm_detach_buffer(c, &back, &bsz));
  CHECK(back == buf && bsz == sz, "detach gave %p/%d", back, bsz);
  CHECK_OK(MPI_Comm_detach_buffer(c, &back, &bsz)); /* nothing attached: no error */
  CHECK(bsz == 0, "second detach size %d", bsz);
  MPI_Comm_free(&c);
  free(buf);
  free(msg);
  return fy_finish();
}
