/*
 * waitcpu: the CPU a blocking send (or receive) burns while its peer
 * computes.
 *
 * Plain MPI C, so the same source builds against Ferry, MPICH and Open MPI.
 *
 *   waitcpu [-s BYTES] [-c COMPUTE_MS] [-n ITERS] [-r]     (2 ranks or more)
 *
 * Each iteration: a barrier, then the last rank computes COMPUTE_MS (a
 * loop on the clock, no MPI call) before its MPI_Recv, while rank 0 is in
 * MPI_Send of BYTES (a rendezvous above the eager limit); with -r the last
 * rank computes before its MPI_Send and rank 0 waits in MPI_Recv. Ranks in
 * between take part in the barriers only: launched on rank 0's host with
 * the last rank on another, they make rank 0 a rank with peers of both
 * kinds (shared memory and the network), whose wait cannot sleep on one
 * object for both. Rank 0 prints the wall time and the process CPU time
 * (CLOCK_PROCESS_CPUTIME_ID, every thread of the process) of its call,
 * per iteration, as medians: a wait that sleeps while nothing can move
 * costs little CPU, one that polls costs its whole wall time. Defaults:
 * 1 MiB, 20 ms, 20 iterations.
 * Output: one CSV line, op,bytes,compute_ms,iters,wall_ms,cpu_ms
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  long bytes = 1 << 20, iters = 20;
  double compute_ms = 20;
  int o, rank, size, recv = 0;
  while ((o = getopt(argc, argv, "s:c:n:r")) != -1) {
    switch (o) {
      case 's': bytes = strtol(optarg, NULL, 0); break;
      case 'c': compute_ms = atof(optarg); break;
      case 'n': iters = strtol(optarg, NULL, 0); break;
      case 'r': recv = 1; break;
      default: fprintf(stderr, "usage: waitcpu [-s bytes] [-c compute_ms] [-n iters] [-r]\n"); return 2;
    }
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || bytes <= 0 || iters <= 0 || bytes > 1L << 30) {
    if (rank == 0) fprintf(stderr, "waitcpu: 2 ranks or more, 0 < bytes <= 1 GiB, iters > 0\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *buf = calloc(1, (size_t)bytes);
  double *wall = calloc((size_t)iters, sizeof *wall), *cpu = calloc((size_t)iters, sizeof *cpu);
  if (!buf || !wall || !cpu) MPI_Abort(MPI_COMM_WORLD, 1);
  for (long it = 0; it < iters; it++) {
    MPI_Barrier(MPI_COMM_WORLD);
    int peer = size - 1;
    if (rank == 0) {
      double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
      if (recv)
        MPI_Recv(buf, (int)bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else
        MPI_Send(buf, (int)bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
      cpu[it] = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
      wall[it] = now(CLOCK_MONOTONIC) - w0;
    } else if (rank == peer) {
      double w0 = now(CLOCK_MONOTONIC);
      volatile double x = 0;
      while (now(CLOCK_MONOTONIC) - w0 < compute_ms * 1e-3) x += 1;
      if (recv)
        MPI_Send(buf, (int)bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
      else
        MPI_Recv(buf, (int)bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  if (rank == 0) {
    qsort(wall, (size_t)iters, sizeof *wall, cmp);
    qsort(cpu, (size_t)iters, sizeof *cpu, cmp);
    printf("op,bytes,compute_ms,iters,wall_ms,cpu_ms\n%s,%ld,%.1f,%ld,%.2f,%.2f\n", recv ? "recv" : "send", bytes,
           compute_ms, iters, wall[iters / 2] * 1e3, cpu[iters / 2] * 1e3);
  }
  free(buf);
  free(wall);
  free(cpu);
  MPI_Finalize();
  return 0;
}
