/*
 * coll_overlap: how much of a nonblocking collective a computation hides
 * (the seeds' collective template): every rank starts the operation,
 * computes a fixed amount of work, then waits.
 *
 *   T_lat   median over iterations of start..Wait with no computation
 *           (the slowest rank's);
 *   T_comp  the work alone: calibrated once to last 2*T_lat + 20 us;
 *   T_tot   median of start..Wait-end with the work in between (slowest rank);
 *   overlap % = 100 * (T_lat + T_comp - T_tot) / T_lat, clipped to 0..100:
 *           100 = the collective completed entirely during the work, 0 =
 *           none of it did (or the work was slowed by as much).
 * Operations: ialltoall, ibcast, iscatter, igather, iallreduce, and
 * naive_igather (the root posts N-1 MPI_Irecv, the others MPI_Isend).
 * Sizes: bytes per process contribution, 64 KiB to 1 MiB (x4).
 * Output: '#' lines, then CSV: op,np,bytes,tlat_us,tcomp_us,ttot_us,overlap_pct
 * Options: -n ITERS (20)  -o OPS  -m MAXBYTES (1 MiB)  -s MINBYTES (64 KiB)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, size;
static char *sbuf, *rbuf;
static double per_us; /* work loop iterations per microsecond */

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void work(long iters) {
  volatile double x = 1.0;
  for (long i = 0; i < iters; i++) x = x * 1.0000001 + 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

enum { ALLTOALL, BCAST, SCATTER, GATHER, ALLREDUCE, NAIVE_GATHER, NOPS };
static const char *names[NOPS] = {"ialltoall", "ibcast", "iscatter", "igather", "iallreduce", "naive_igather"};

static int start(int op, long bytes, MPI_Request *rq) {
  int n = (int)bytes;
  switch (op) {
    case ALLTOALL: MPI_Ialltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, MPI_COMM_WORLD, rq); return 1;
    case BCAST: MPI_Ibcast(sbuf, n, MPI_BYTE, 0, MPI_COMM_WORLD, rq); return 1;
    case SCATTER: MPI_Iscatter(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, MPI_COMM_WORLD, rq); return 1;
    case GATHER: MPI_Igather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, MPI_COMM_WORLD, rq); return 1;
    case ALLREDUCE: MPI_Iallreduce(sbuf, rbuf, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, rq); return 1;
    case NAIVE_GATHER:
      if (rank == 0) {
        int k = 0;
        for (int r = 1; r < size; r++) MPI_Irecv(rbuf + (size_t)r * n, n, MPI_BYTE, r, 5, MPI_COMM_WORLD, &rq[k++]);
        return k;
      }
      MPI_Isend(sbuf, n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, rq);
      return 1;
  }
  return 0;
}

/* Median over iters of the slowest rank's start..end time, with `w` work
 * iterations between start and wait. */
static double run(int op, long bytes, long w, int iters) {
  double *t = malloc(sizeof(double) * iters);
  MPI_Request rq[64];
  static MPI_Status st[64];
  for (int it = 0; it < iters; it++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_us();
    int k = start(op, bytes, rq);
    if (w) work(w);
    MPI_Waitall(k, rq, st);
    double d = now_us() - t0, mx;
    MPI_Allreduce(&d, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t[it] = mx;
  }
  qsort(t, iters, sizeof(double), cmp);
  double m = t[iters / 2];
  free(t);
  return m;
}

int main(int argc, char **argv) {
  int iters = 20;
  long maxb = 1 << 20, minb = 64 << 10;
  char ops[256] = "ialltoall,ibcast,iscatter,igather,iallreduce,naive_igather";
  int opt;
  while ((opt = getopt(argc, argv, "n:o:m:s:")) != -1) {
    switch (opt) {
      case 'n': iters = atoi(optarg); break;
      case 'o': snprintf(ops, sizeof ops, "%s", optarg); break;
      case 'm': maxb = atol(optarg); break;
      case 's': minb = atol(optarg); break;
      default: fprintf(stderr, "usage: coll_overlap [-n iters] [-o ops] [-m max] [-s min]\n"); return 2;
    }
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
  sbuf = malloc((size_t)maxb * size);
  rbuf = malloc((size_t)maxb * size);
  memset(sbuf, 1, (size_t)maxb * size);
  memset(rbuf, 0, (size_t)maxb * size);
  /* calibrate the work loop (no communication in flight) */
  long cal = 1000000;
  double t0 = now_us();
  work(cal);
  per_us = cal / (now_us() - t0);
  MPI_Allreduce(MPI_IN_PLACE, &per_us, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) {
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(ver, &len);
    char *nl = strchr(ver, '\n');
    if (nl) *nl = 0;
    printf("# coll_overlap: %s\n# %d ranks, %d iterations, medians\n", ver, size, iters);
    printf("op,np,bytes,tlat_us,tcomp_us,ttot_us,overlap_pct\n");
  }
  char padded[300];
  snprintf(padded, sizeof padded, ",%s,", ops);
  for (int op = 0; op < NOPS; op++) {
    char key[32];
    snprintf(key, sizeof key, ",%s,", names[op]);
    if (!strstr(padded, key)) continue;
    for (long b = minb; b <= maxb; b *= 4) {
      run(op, b, 0, 3); /* warm up */
      double tlat = run(op, b, 0, iters);
      long w = (long)((2 * tlat + 20) * per_us);
      MPI_Bcast(&w, 1, MPI_LONG, 0, MPI_COMM_WORLD);
      MPI_Barrier(MPI_COMM_WORLD);
      double c0 = now_us();
      work(w);
      double tcomp = now_us() - c0, mx;
      MPI_Allreduce(&tcomp, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      tcomp = mx;
      double ttot = run(op, b, w, iters);
      double ov = 100.0 * (tlat + tcomp - ttot) / tlat;
      if (ov < 0) ov = 0;
      if (ov > 100) ov = 100;
      if (rank == 0) printf("%s,%d,%ld,%.1f,%.1f,%.1f,%.1f\n", names[op], size, b, tlat, tcomp, ttot, ov);
      fflush(stdout);
    }
  }
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
