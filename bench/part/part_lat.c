/* Partitioned communication between two ranks (MPI 4.1 ch. 4).
 *
 *   mpiexec -n 2 part_lat [-s SIZES] [-p PARTS] [-w WORK_US] [-i ITERS]
 *
 * For each total size (comma list, k/m suffixes) split into PARTS partitions:
 * - pingpong: rank 0 marks every partition and waits; rank 1 receives, then
 *   answers the same way; half a round trip, the median of 5 samples of
 *   ITERS round trips each.
 * - tail: rank 0 computes WORK_US of fixed work (calibrated once, a loop of
 *   arithmetic, so it is the same amount of work in every library) before
 *   marking each partition; rank 1 waits for the whole message. Reported:
 *   the time from rank 0's last MPI_Pready to rank 1's completion
 *   (the clocks are aligned by a barrier before each iteration and checked
 *   by a pingpong), median over ITERS: what the receiver still waits for
 *   once the sender is done. A library that sends partitions as they become
 *   ready leaves only the last part's transfer; one that sends at the end
 *   leaves the whole message's.
 * Prints one CSV line per size: size,parts,pingpong_us,tail_us. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double work_unit_us;
static volatile double sink;

static void work(double us) {
  long n = (long)(us / work_unit_us);
  double x = 1.0;
  for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9;
  sink = x;
}

static void calibrate(void) {
  long n = 2000000;
  double x = 1.0, t0 = MPI_Wtime();
  for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9;
  sink = x;
  work_unit_us = (MPI_Wtime() - t0) * 1e6 / (double)n;
}

static size_t parse_size(const char *s) {
  char *e;
  double v = strtod(s, &e);
  if (*e == 'k' || *e == 'K') v *= 1024;
  if (*e == 'm' || *e == 'M') v *= 1024 * 1024;
  return (size_t)v;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const char *sizes = "8,64k,1m,4m";
  int parts = 16, iters = 50;
  double work_us = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-s")) sizes = argv[i + 1];
    else if (!strcmp(argv[i], "-p")) parts = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-w")) work_us = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "-i")) iters = atoi(argv[i + 1]);
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (!rank) fprintf(stderr, "part_lat: run with 2 processes\n");
    MPI_Finalize();
    return 1;
  }
  calibrate();
  MPI_Bcast(&work_unit_us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  char *list = strdup(sizes);
  double *t = malloc(sizeof(double) * (size_t)(iters > 5 ? iters : 5));
  if (!rank) printf("size,parts,pingpong_us,tail_us\n");
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    size_t bytes = parse_size(tok);
    int np = bytes < (size_t)parts ? 1 : parts;
    size_t per = bytes / (size_t)np;
    char *a = malloc(per * (size_t)np + 1), *b = malloc(per * (size_t)np + 1);
    memset(a, rank + 1, per * (size_t)np);
    MPI_Request s, r;
    int peer = 1 - rank;
    MPI_Psend_init(a, np, (MPI_Count)per, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
    MPI_Precv_init(b, np, (MPI_Count)per, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    /* pingpong: ITERS round trips per sample, 5 samples */
    for (int it = -1; it < 5; it++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int k = 0; k < iters; k++) {
      MPI_Start(&r);
      if (rank == 0) {
        MPI_Start(&s);
        MPI_Pready_range(0, np - 1, s);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      } else {
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Start(&s);
        MPI_Pready_range(0, np - 1, s);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
      }
      }
      if (it >= 0) t[it] = (MPI_Wtime() - t0) * 1e6 / 2 / iters;
    }
    qsort(t, 5, sizeof *t, cmp);
    double pp = t[2];
    /* tail: offsets of rank 1's clock against rank 0's, from a pingpong */
    double off = 0;
    for (int k = 0; k < 5; k++) {
      double t0 = MPI_Wtime(), t1 = 0;
      if (rank == 0) {
        MPI_Send(&t0, 1, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
        MPI_Recv(&t1, 1, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        off += t1 - (t0 + MPI_Wtime()) / 2; /* rank 1's clock minus ours */
      } else {
        MPI_Recv(&t1, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t1 = MPI_Wtime();
        MPI_Send(&t1, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
      }
    }
    off /= 5;
    for (int it = -3; it < iters; it++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double last = 0, done = 0;
      if (rank == 0) {
        MPI_Start(&s);
        for (int i = 0; i < np; i++) {
          work(work_us);
          if (i == np - 1) last = MPI_Wtime();
          MPI_Pready(i, s);
        }
        MPI_Wait(&s, MPI_STATUS_IGNORE);
        MPI_Recv(&done, 1, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (it >= 0) t[it] = (done - off - last) * 1e6;
      } else {
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        done = MPI_Wtime();
        MPI_Send(&done, 1, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
      }
    }
    if (rank == 0) {
      qsort(t, (size_t)iters, sizeof *t, cmp);
      printf("%zu,%d,%.2f,%.2f\n", per * (size_t)np, np, pp, t[iters / 2]);
      fflush(stdout);
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    free(a);
    free(b);
  }
  free(t);
  free(list);
  MPI_Finalize();
  return 0;
}
