/* bench/postcost: the time of posting one small nonblocking operation,
 * the per-call cost behind the message rate of small messages.
 *
 *   postcost [-b bytes] [-w window] [-i iterations]
 *
 * Rank 1 posts a window of MPI_Irecv (timed), then tells rank 0, which
 * posts the matching MPI_Isend (timed) and both wait. The receives are
 * posted before any send starts, so neither side finds a match in its
 * posting calls: what is timed is the post itself. Prints, for each side,
 * the median over iterations of the time per post and of the MPI_Waitall
 * of the window (ns). Two ranks; others wait at the barriers. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "../overlap/bench_util.h"

static double median(double *v, int n) {
  double med, mean;
  bu_stats(v, n, &med, &mean);
  return med;
}

int main(int argc, char **argv) {
  int bytes = 8, window = 64, iters = 20000, opt;
  while ((opt = getopt(argc, argv, "b:w:i:")) != -1) {
    switch (opt) {
      case 'b': bytes = atoi(optarg); break;
      case 'w': window = atoi(optarg); break;
      case 'i': iters = atoi(optarg); break;
      default:
        fprintf(stderr, "usage: postcost [-b bytes] [-w window] [-i iterations]\n");
        return 2;
    }
  }
  if (window < 1) window = 1;
  if (iters < 1) iters = 1;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "postcost needs 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  char *buf = calloc((size_t)window, (size_t)(bytes > 0 ? bytes : 1));
  MPI_Request *rq = malloc(sizeof *rq * (size_t)window);
  double *tpost = malloc(sizeof *tpost * (size_t)iters), *twait = malloc(sizeof *twait * (size_t)iters);
  if (!buf || !rq || !tpost || !twait) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < iters && rank < 2; it++) {
    double t0 = 0, t1 = 0;
    if (rank == 1) {
      t0 = MPI_Wtime();
      for (int w = 0; w < window; w++)
        MPI_Irecv(buf + (size_t)w * bytes, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[w]);
      t1 = MPI_Wtime();
      MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    } else {
      MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t0 = MPI_Wtime();
      for (int w = 0; w < window; w++)
        MPI_Isend(buf + (size_t)w * bytes, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &rq[w]);
      t1 = MPI_Wtime();
    }
    MPI_Waitall(window, rq, MPI_STATUSES_IGNORE);
    tpost[it] = (t1 - t0) / window * 1e9;
    twait[it] = (MPI_Wtime() - t1) * 1e9;
  }
  double mine[2] = {rank < 2 ? median(tpost, iters) : 0, rank < 2 ? median(twait, iters) : 0}, other[2];
  if (rank == 1) MPI_Send(mine, 2, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Recv(other, 2, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("# postcost: %d B, window %d, %d iterations; medians in ns\n", bytes, window, iters);
    printf("side,post_ns,waitall_ns\n");
    printf("send,%.1f,%.0f\n", mine[0], mine[1]);
    printf("recv,%.1f,%.0f\n", other[0], other[1]);
  }
  free(buf);
  free(rq);
  free(tpost);
  free(twait);
  MPI_Finalize();
  return 0;
}
