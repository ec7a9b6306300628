/*
 * coll_lat: latency of blocking collectives (Barrier, Bcast, Reduce,
 * Allreduce, Allgather, Alltoall; Scatter, Gather on request) from 8 B to
 * 1 MiB, and of their nonblocking forms as start + MPI_Wait with nothing in
 * between (ibcast, ireduce, iallreduce, iallgather, ialltoall, iscatter,
 * igather: the T_lat of the overlap benchmark, back to back).
 *
 * Plain MPI C, so the same source builds against Ferry, MPICH and Open MPI.
 * Size = bytes per process contribution: the Bcast buffer, the Reduce and
 * Allreduce vector (MPI_DOUBLE, MPI_SUM), the block each rank gives to
 * Allgather, the block for each peer of Alltoall, the block each rank
 * receives (Scatter) or sends (Gather; roots rotate). Latency = the slowest
 * rank's mean time per call (roots rotate for Bcast and Reduce, so no rank
 * is always the root). Iterations adapt to a time budget per point.
 *
 * Output: '#' lines for humans, then CSV:  op,np,bytes,iters,lat_us
 * Options: -m MAXBYTES (1 MiB)  -s MINBYTES (8)  -f FACTOR between sizes (8)
 *          -t SECONDS per point (0.05)
 *          -o OPS (comma list; default barrier,bcast,reduce,allreduce,allgather,alltoall;
 *              also scatter, gather, scatterv, gatherv (the v forms with
 *              the same blocks), reduce_scatter (Reduce_scatter_block of
 *              MPI_DOUBLE, MPI_SUM: size = each rank's result) and the i*
 *              forms above)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;
static char *sbuf, *rbuf;
static int *vcnt, *vdsp; /* the v forms: n bytes per rank, in rank order */

enum {
  BARRIER, BCAST, REDUCE, ALLREDUCE, ALLGATHER, ALLTOALL, SCATTER, GATHER,
  IBCAST, IREDUCE, IALLREDUCE, IALLGATHER, IALLTOALL, ISCATTER, IGATHER, REDUCE_SCATTER, SCATTERV, GATHERV,
  NOPS
};
static const char *names[NOPS] = {"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall",
                                  "scatter", "gather", "ibcast", "ireduce", "iallreduce", "iallgather",
                                  "ialltoall", "iscatter", "igather", "reduce_scatter", "scatterv", "gatherv"};

static void one(int op, long bytes, long it) {
  int n = (int)bytes, root = (int)(it % size);
  MPI_Request rq = MPI_REQUEST_NULL;
  switch (op) {
    case BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case BCAST: MPI_Bcast(sbuf, n, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case REDUCE: MPI_Reduce(sbuf, rbuf, n / 8, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD); break;
    case ALLREDUCE: MPI_Allreduce(sbuf, rbuf, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case ALLGATHER: MPI_Allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, MPI_COMM_WORLD); break;
    case ALLTOALL: MPI_Alltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, MPI_COMM_WORLD); break;
    case SCATTER: MPI_Scatter(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case GATHER: MPI_Gather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case IBCAST: MPI_Ibcast(sbuf, n, MPI_BYTE, root, MPI_COMM_WORLD, &rq); break;
    case IREDUCE: MPI_Ireduce(sbuf, rbuf, n / 8, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD, &rq); break;
    case IALLREDUCE: MPI_Iallreduce(sbuf, rbuf, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq); break;
    case IALLGATHER: MPI_Iallgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, MPI_COMM_WORLD, &rq); break;
    case IALLTOALL: MPI_Ialltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, MPI_COMM_WORLD, &rq); break;
    case ISCATTER: MPI_Iscatter(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, root, MPI_COMM_WORLD, &rq); break;
    case IGATHER: MPI_Igather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, root, MPI_COMM_WORLD, &rq); break;
    case SCATTERV: MPI_Scatterv(sbuf, vcnt, vdsp, MPI_BYTE, rbuf, n, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case GATHERV: MPI_Gatherv(sbuf, n, MPI_BYTE, rbuf, vcnt, vdsp, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case REDUCE_SCATTER: MPI_Reduce_scatter_block(sbuf, rbuf, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
  }
  if (rq != MPI_REQUEST_NULL) MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

/* Mean seconds per call over iters calls, the slowest rank's. */
static double timed(int op, long bytes, long iters) {
  for (int i = 0; i < size; i++) { /* the v forms' arrays, outside the timed loop */
    vcnt[i] = (int)bytes;
    vdsp[i] = i * (int)bytes;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < iters; i++) one(op, bytes, i);
  double t = (MPI_Wtime() - t0) / (double)iters, mx;
  MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return mx;
}

int main(int argc, char **argv) {
  long maxbytes = 1 << 20, minbytes = 8, factor = 8;
  double budget = 0.05;
  char ops[256] = "barrier,bcast,reduce,allreduce,allgather,alltoall";
  int opt;
  while ((opt = getopt(argc, argv, "m:s:f:t:o:")) != -1) {
    switch (opt) {
      case 'm': maxbytes = atol(optarg); break;
      case 's': minbytes = atol(optarg); break;
      case 'f': factor = atol(optarg); break;
      case 't': budget = atof(optarg); break;
      case 'o': snprintf(ops, sizeof ops, "%s", optarg); break;
      default:
        fprintf(stderr, "usage: coll_lat [-m maxbytes] [-s minbytes] [-f factor] [-t sec] [-o ops]\n");
        return 2;
    }
  }
  if (minbytes < 8) minbytes = 8;
  if (factor < 2) factor = 2;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t cap = (size_t)maxbytes * (size_t)size;
  sbuf = malloc(cap);
  rbuf = malloc(cap);
  memset(sbuf, 1, cap);
  memset(rbuf, 0, cap);
  vcnt = malloc(sizeof(int) * 2 * (size_t)size);
  vdsp = vcnt + size;
  if (rank == 0) {
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(ver, &len);
    char *nl = strchr(ver, '\n');
    if (nl) *nl = 0;
    printf("# coll_lat: %s\n# %d ranks, budget %.3f s per point\n", ver, size, budget);
    printf("op,np,bytes,iters,lat_us\n");
  }
  for (int op = 0; op < NOPS; op++) {
    char key[32];
    snprintf(key, sizeof key, ",%s,", names[op]);
    char padded[300];
    snprintf(padded, sizeof padded, ",%s,", ops);
    if (!strstr(padded, key)) continue;
    for (long b = minbytes; b <= maxbytes; b *= factor) {
      long bytes = op == BARRIER ? 0 : b;
      /* warm up, probe, then a run that fills the budget */
      timed(op, bytes, 2);
      double probe = timed(op, bytes, 5);
      long iters = probe > 0 ? (long)(budget / probe) : 1000;
      if (iters < 5) iters = 5;
      if (iters > 100000) iters = 100000;
      MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
      double t = timed(op, bytes, iters);
      if (rank == 0) printf("%s,%d,%ld,%ld,%.3f\n", names[op], size, bytes, iters, t * 1e6);
      fflush(stdout);
      if (op == BARRIER) break;
      if (b < maxbytes && b * factor > maxbytes) b = maxbytes / factor; /* end exactly at maxbytes */
    }
  }
  free(sbuf);
  free(rbuf);
  free(vcnt);
  MPI_Finalize();
  return 0;
}
