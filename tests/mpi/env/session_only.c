/* The sessions model without the world model: MPI_Session_init before any
 * MPI_Init brings the library up, communicators built from the session's
 * process sets work (point-to-point and collectives), a second session can
 * outlive the first, MPI_Initialized/MPI_Finalized stay false, a new
 * session opens after the last one closed, and the process ends without
 * MPI_Finalize.
 * The failure counts are gathered over the session's communicator, since
 * fytest.h's fy_finish() needs MPI_COMM_WORLD. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "fytest.h"

int main(void) {
  fy_name = "session_only";
  signal(SIGALRM, fy_watchdog); /* fy_init() needs MPI_COMM_WORLD */
  alarm(120);
  int flag = -1;
  CHECK_OK(MPI_Initialized(&flag));
  CHECK(flag == 0, "MPI_Initialized before anything: %d", flag);

  MPI_Info req;
  CHECK_OK(MPI_Info_create(&req));
  /* a bad thread level is an info error, returned through the handler given */
  CHECK_OK(MPI_Info_set(req, "thread_level", "MPI_THREAD_SOMETIMES"));
  MPI_Session s1 = MPI_SESSION_NULL, s2 = MPI_SESSION_NULL;
  CHECK_CLASS(MPI_Session_init(req, MPI_ERRORS_RETURN, &s1), MPI_ERR_INFO);
  CHECK_OK(MPI_Info_delete(req, "thread_level"));
  CHECK_OK(MPI_Info_set(req, "mpi_thread_support_level", "MPI_THREAD_FUNNELED")); /* the old key */
  CHECK_OK(MPI_Session_init(req, MPI_ERRORS_RETURN, &s1));
  MPI_Info_free(&req);
  CHECK_OK(MPI_Initialized(&flag));
  CHECK(flag == 0, "a session does not initialize the world model: %d", flag);

  MPI_Info used;
  char v[MPI_MAX_INFO_VAL + 1];
  int len = MPI_MAX_INFO_VAL;
  CHECK_OK(MPI_Session_get_info(s1, &used));
  CHECK_OK(MPI_Info_get_string(used, "thread_level", &len, v, &flag));
  CHECK(flag && strcmp(v, "MPI_THREAD_FUNNELED") == 0, "thread level %s", flag ? v : "(unset)");
  len = MPI_MAX_INFO_VAL;
  CHECK_OK(MPI_Info_get_string(used, "mpi_thread_support_level", &len, v, &flag));
  CHECK(flag && strcmp(v, "MPI_THREAD_FUNNELED") == 0, "thread level (old key) %s", flag ? v : "(unset)");
  MPI_Info_free(&used);

  MPI_Group g;
  MPI_Comm c;
  CHECK_OK(MPI_Group_from_session_pset(s1, "mpi://WORLD", &g));
  CHECK_OK(MPI_Comm_create_from_group(g, "ferry.test.session_only", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  MPI_Group_free(&g);
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  fy_rank_ = rank;
  fy_size_ = size;
  int sum = 0, one = 1;
  for (int p = 0; p < size; p++) { /* a ring of sends */
    int got = 0;
    CHECK_OK(MPI_Sendrecv(&one, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size, 0,
                          c, MPI_STATUS_IGNORE));
    sum += got;
  }
  CHECK(sum == size, "ring sum %d", sum);
  int r = 0;
  CHECK_OK(MPI_Allreduce(&rank, &r, 1, MPI_INT, MPI_SUM, c));
  CHECK(r == size * (size - 1) / 2, "allreduce %d", r);

  /* A second session; the first one closes, the second's communicator still works. */
  MPI_Comm c2;
  CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
  CHECK_OK(MPI_Group_from_session_pset(s2, "mpi://WORLD", &g));
  CHECK_OK(MPI_Comm_create_from_group(g, "ferry.test.session_only.2", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c2));
  MPI_Group_free(&g);
  MPI_Comm_free(&c);
  CHECK_OK(MPI_Session_finalize(&s1));
  long big[1000], back[1000];
  for (int i = 0; i < 1000; i++) big[i] = rank * 1000 + i;
  CHECK_OK(MPI_Bcast(big, 1000, MPI_LONG, size - 1, c2));
  for (int i = 0; i < 1000; i++) CHECK(big[i] == (long)(size - 1) * 1000 + i, "bcast [%d] = %ld", i, big[i]);
  CHECK_OK(MPI_Sendrecv(big, 1000, MPI_LONG, (rank + 1) % size, 1, back, 1000, MPI_LONG, (rank + size - 1) % size, 1,
                        c2, MPI_STATUS_IGNORE));
  CHECK(memcmp(big, back, sizeof big) == 0, "8000-byte ring");
  CHECK_OK(MPI_Finalized(&flag));
  CHECK(flag == 0, "MPI_Finalized with sessions only: %d", flag);

  MPI_Comm_free(&c2);
  CHECK_OK(MPI_Session_finalize(&s2));

  /* No session open: a library's next init/finalize cycle works again. */
  MPI_Session s3 = MPI_SESSION_NULL;
  MPI_Comm c3;
  CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s3));
  CHECK_OK(MPI_Group_from_session_pset(s3, "mpi://WORLD", &g));
  CHECK_OK(MPI_Comm_create_from_group(g, "ferry.test.session_only.3", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c3));
  MPI_Group_free(&g);
  CHECK_OK(MPI_Initialized(&flag));
  CHECK(flag == 0, "MPI_Initialized in the second cycle: %d", flag);
  /* Results to rank 0 over the last communicator, then the session closes
   * and the process exits without MPI_Finalize (the sessions model). */
  int total = 0, early = fy_errs;
  MPI_Reduce(&early, &total, 1, MPI_INT, MPI_SUM, 0, c3);
  MPI_Comm_free(&c3);
  CHECK_OK(MPI_Session_finalize(&s3));
  if (rank == 0) {
    total += fy_errs - early; /* rank 0's checks after the reduce */
    if (total) printf("FAIL %s: %d failure(s) on %d rank(s)\n", fy_name, total, size);
    else printf("PASS %s (%d rank(s))\n", fy_name, size);
    fflush(stdout);
  }
  return fy_errs || (rank == 0 && total) ? 1 : 0;
}
