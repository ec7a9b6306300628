/*
 * hidden: how much of a rendezvous transfer a computation hides, receiver
 * first, in the seed-000 arrangement (the measured side computes, its peer
 * waits in MPI). A robust complement to eq. 4.2, whose "largest step with
 * T_diff >= 0" rule flips on a few microseconds of noise.
 *
 * 2 ranks; rank 0 receives, rank 1 sends; the receive is posted before a
 * barrier. For each size:
 *   T_lat    median of post..Wait with no computation (receiver side);
 *   receiver side: rank 0 computes 2*T_lat + 20 us after the barrier, then
 *            waits; rank 1 sends and waits at once. wait_r = median time
 *            rank 0 spends in MPI_Wait after its computation;
 *   sender side: rank 0 waits at once; rank 1 sends, computes the same
 *            time, then waits. wait_s = median of rank 1's MPI_Wait.
 *   hidden % = 100 * (1 - wait / T_lat): 100 = the whole transfer happened
 *            during the computation, 0 = none of it did.
 * Output: '#' comments, then CSV: bytes,tlat_us,wait_recv_us,hidden_recv_pct,
 * wait_send_us,hidden_send_pct. Options: -n ITERS (default 200).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void compute(double us) {
  double t = now_us();
  volatile double x = 0;
  while (now_us() - t < us) x += 1;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* side: 0 = receiver computes, 1 = sender computes; returns this rank's
 * median wait (or the whole post..Wait time when cp == 0). */
static double run(int rank, char *buf, int n, double cp, int side, int iters, double *w) {
  MPI_Request q;
  for (int i = 0; i < iters; i++) {
    if (rank == 0) {
      MPI_Irecv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &q);
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = now_us();
      if (side == 0) compute(cp);
      double t1 = now_us();
      MPI_Wait(&q, MPI_STATUS_IGNORE);
      w[i] = cp > 0 ? now_us() - t1 : now_us() - t0;
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Isend(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &q);
      if (side == 1) compute(cp);
      double t1 = now_us();
      MPI_Wait(&q, MPI_STATUS_IGNORE);
      w[i] = now_us() - t1;
    }
  }
  qsort(w, (size_t)iters, sizeof *w, cmp);
  return w[iters / 2];
}

int main(int argc, char **argv) {
  int rank, size, iters = 200, opt;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  while ((opt = getopt(argc, argv, "n:")) != -1)
    if (opt == 'n') iters = atoi(optarg);
  if (size != 2 || iters < 1) {
    if (rank == 0) fprintf(stderr, "hidden: needs exactly 2 ranks and -n >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  static const int sizes[] = {65536, 262144, 1 << 20, 4 << 20};
  char *buf = malloc(4 << 20);
  double *w = malloc((size_t)iters * sizeof *w);
  if (!buf || !w) MPI_Abort(MPI_COMM_WORLD, 1);
  memset(buf, 1, 4 << 20);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version(lib, &len);
  for (char *p = lib; *p; p++)
    if (*p == '\n' || *p == '\t') *p = ' '; /* one comment line */
  if (rank == 0) {
    printf("# hidden: %.60s\n", lib);
    printf("bytes,tlat_us,wait_recv_us,hidden_recv_pct,wait_send_us,hidden_send_pct\n");
  }
  for (int k = 0; k < 4; k++) {
    int n = sizes[k];
    run(rank, buf, n, 0, 0, 10, w); /* warm-up */
    double tlat = run(rank, buf, n, 0, 0, iters, w);
    /* rank 0's T_lat sets the computation on both sides (point-to-point
     * only, so the program runs on any MPI) */
    if (rank == 0) MPI_Send(&tlat, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
    else MPI_Recv(&tlat, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double cp = 2 * tlat + 20;
    double wr = run(rank, buf, n, cp, 0, iters, w);
    double ws = run(rank, buf, n, cp, 1, iters, w);
    if (rank == 1) MPI_Send(&ws, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    if (rank == 0) {
      MPI_Recv(&ws, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("%d,%.2f,%.2f,%.1f,%.2f,%.1f\n", n, tlat, wr, 100 * (1 - wr / tlat), ws,
             100 * (1 - ws / tlat));
    }
  }
  free(w);
  free(buf);
  MPI_Finalize();
  return 0;
}
