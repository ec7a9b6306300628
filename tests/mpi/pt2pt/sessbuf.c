/* MPI 4.1 session buffers and MPI_BUFFER_AUTOMATIC: a Bsend on a
 * communicator derived from a session (group from "mpi://WORLD", then
 * MPI_Comm_create_from_group, then a dup of that) uses the session's
 * buffer when the communicator has none of its own; a communicator
 * buffer wins over the session's; MPI_COMM_WORLD (not derived from the
 * session) does not see it; MPI_BUFFER_AUTOMATIC takes any number of
 * messages of any size; Session_finalize with messages still buffered
 * delivers them. */
#include <mpi.h>
#include <stdlib.h>
#include "fytest.h"

enum { N = 1000, MANY = 64 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("sessbuf");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int peer = rank ^ 1;
  int *msg = malloc(sizeof(int) * N), *in = malloc(sizeof(int) * N);
  for (int i = 0; i < N; i++) msg[i] = rank * 7 + i;

  MPI_Session s;
  CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  MPI_Group g;
  CHECK_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  MPI_Comm sc, sc2;
  CHECK_OK(MPI_Comm_create_from_group(g, "fy.sessbuf", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
  CHECK_OK(MPI_Comm_dup(sc, &sc2)); /* derived from the session too */
  MPI_Group_free(&g);

  int sz = (int)(N * sizeof(int)) + MPI_BSEND_OVERHEAD;
  char *sbuf = malloc((size_t)sz);
  CHECK_OK(MPI_Session_attach_buffer(s, sbuf, sz));
  CHECK_CLASS(MPI_Session_attach_buffer(s, sbuf, sz), MPI_ERR_BUFFER);
  if (peer < size) {
    CHECK_OK(MPI_Bsend(msg, N, MPI_INT, peer, 1, sc2));
    /* the world communicator does not derive from the session */
    CHECK_CLASS(MPI_Bsend(msg, N, MPI_INT, peer, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    MPI_Request fr;
    CHECK_OK(MPI_Session_iflush_buffer(s, &fr));
    CHECK_OK(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Session_flush_buffer(s));
    CHECK_OK(MPI_Recv(in, N, MPI_INT, peer, 1, sc2, MPI_STATUS_IGNORE));
    CHECK(in[0] == peer * 7 && in[N - 1] == peer * 7 + N - 1, "data %d", in[0]);
    /* a communicator's own buffer is used first: the session's stays free */
    int csz = (int)(2 * N * sizeof(int)) + 2 * MPI_BSEND_OVERHEAD;
    char *cbuf = malloc((size_t)csz);
    CHECK_OK(MPI_Comm_attach_buffer(sc, cbuf, csz));
    CHECK_OK(MPI_Bsend(msg, N, MPI_INT, peer, 2, sc));
    CHECK_OK(MPI_Bsend(msg, N, MPI_INT, peer, 3, sc2)); /* the session's */
    CHECK_OK(MPI_Recv(in, N, MPI_INT, peer, 2, sc, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Recv(in, N, MPI_INT, peer, 3, sc2, MPI_STATUS_IGNORE));
    void *back;
    int bsz;
    CHECK_OK(MPI_Comm_detach_buffer(sc, &back, &bsz));
    CHECK(back == cbuf && bsz == csz, "comm detach %p/%d", back, bsz);
    free(cbuf);
  }
  void *back;
  int bsz;
  CHECK_OK(MPI_Session_detach_buffer(s, &back, &bsz));
  CHECK(back == sbuf && bsz == sz, "session detach gave %p/%d", back, bsz);
  CHECK_OK(MPI_Session_detach_buffer(s, &back, &bsz));
  CHECK(back == NULL && bsz == 0, "second detach %p/%d", back, bsz);

  /* automatic buffering: many messages, far more than any fixed buffer */
  CHECK_OK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
  CHECK_CLASS(MPI_Session_attach_buffer(s, sbuf, sz), MPI_ERR_BUFFER);
  if (peer < size) {
    for (int k = 0; k < MANY; k++) {
      msg[0] = k;
      CHECK_OK(MPI_Bsend(msg, N, MPI_INT, peer, 10 + k, sc2));
    }
    for (int k = 0; k < MANY; k++) {
      CHECK_OK(MPI_Recv(in, N, MPI_INT, peer, 10 + k, sc2, MPI_STATUS_IGNORE));
      CHECK(in[0] == k && in[N - 1] == peer * 7 + N - 1, "auto msg %d: %d", k, in[0]);
    }
  }
  CHECK_OK(MPI_Session_detach_buffer(s, &back, &bsz));
  CHECK(back == MPI_BUFFER_AUTOMATIC && bsz == 0, "automatic detach %p/%d", back, bsz);

  /* the process's automatic buffer serves MPI_COMM_WORLD */
  CHECK_OK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
  if (peer < size) {
    CHECK_OK(MPI_Bsend(msg, N, MPI_INT, peer, 5, MPI_COMM_WORLD));
    CHECK_OK(MPI_Recv(in, N, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  CHECK_OK(MPI_Buffer_detach(&back, &bsz));
  CHECK(back == MPI_BUFFER_AUTOMATIC && bsz == 0, "process automatic detach %p/%d", back, bsz);

  /* finalize with the buffer still attached: it is detached there */
  CHECK_OK(MPI_Session_attach_buffer(s, sbuf, sz));
  if (peer < size) {
    CHECK_OK(MPI_Bsend(msg, N, MPI_INT, peer, 6, sc2));
    CHECK_OK(MPI_Recv(in, N, MPI_INT, peer, 6, sc2, MPI_STATUS_IGNORE));
  }
  MPI_Comm_free(&sc2);
  MPI_Comm_free(&sc);
  CHECK_OK(MPI_Session_finalize(&s));
  CHECK(s == MPI_SESSION_NULL, "session handle not reset");
  free(sbuf);
  free(msg);
  free(in);
  return fy_finish();
}
