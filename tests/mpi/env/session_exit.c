/* A process that used sessions only leaves at exit, without MPI_Finalize.
 * A standard send of a small message completes once the message is queued
 * (a full ring, a socket the provider cannot write yet), so a sender can
 * finalize its session and leave main while its last messages are still
 * in Ferry's hands: they must reach the receiver all the same.
 *
 * Even ranks send N messages of 4000 bytes to the next odd rank and return
 * at once; the odd rank starts receiving only after 300 ms and checks every
 * message. With the exit handler that did not send what was queued, the
 * receiver waited for ever (the watchdog ends it); over the fabric a peer
 * could also write to the socket of a process that had closed it (EPIPE). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "fytest.h"

enum { N = 4000, LEN = 1000 }; /* 4000 messages of 1000 ints: far more than a ring or a socket holds */

static int value(int rank, int i, int j) { return rank * 1000003 + i * 1009 + j; }

int main(void) {
  fy_name = "session_exit";
  signal(SIGALRM, fy_watchdog); /* fy_init() needs MPI_COMM_WORLD */
  alarm(FYTEST_DEFAULT_TIMEOUT);
  MPI_Session s = MPI_SESSION_NULL;
  MPI_Group g = MPI_GROUP_NULL;
  MPI_Comm c = MPI_COMM_NULL;
  CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  CHECK_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  CHECK_OK(MPI_Comm_create_from_group(g, "ferry.test.session_exit", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  MPI_Group_free(&g);
  if (c == MPI_COMM_NULL) return 1;
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  fy_rank_ = rank;
  fy_size_ = size;
  int *buf = malloc(LEN * sizeof *buf);
  if (!buf) return 1;

  if (rank % 2 == 0 && rank + 1 < size) {
    for (int i = 0; i < N; i++) {
      for (int j = 0; j < LEN; j++) buf[j] = value(rank, i, j);
      CHECK_OK(MPI_Send(buf, LEN, MPI_INT, rank + 1, 5, c));
    }
  } else if (rank % 2 == 1) {
    struct timespec pause = {0, 300 * 1000 * 1000}; /* the sender is gone or leaving by then */
    nanosleep(&pause, NULL);
    int bad = 0;
    for (int i = 0; i < N; i++) {
      MPI_Status st;
      memset(buf, 0, LEN * sizeof *buf);
      CHECK_OK(MPI_Recv(buf, LEN, MPI_INT, rank - 1, 5, c, &st));
      int n = -1;
      MPI_Get_count(&st, MPI_INT, &n);
      CHECK(n == LEN, "message %d: %d ints", i, n);
      for (int j = 0; j < LEN && bad < 5; j++)
        if (buf[j] != value(rank - 1, i, j)) {
          CHECK(0, "message %d, int %d: %d, expected %d", i, j, buf[j], value(rank - 1, i, j));
          bad++;
        }
    }
  }
  free(buf);
  CHECK_OK(MPI_Comm_free(&c));
  CHECK_OK(MPI_Session_finalize(&s));
  /* Each receiver speaks for its pair; the job fails if any rank does. */
  if (rank % 2 == 1) {
    if (fy_errs) printf("FAIL %s: %d failure(s) at rank %d\n", fy_name, fy_errs, rank);
    else printf("PASS %s (rank %d received all %d messages of rank %d)\n", fy_name, rank, N, rank - 1);
  }
  return fy_errs ? 1 : 0;
}
