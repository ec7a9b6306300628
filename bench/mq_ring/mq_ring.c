/* mq_ring: build a long posted-receive queue (PRQ) or unexpected-message
 * queue (UMQ) at rank 0 with a token ring, then match it in forward or
 * reverse order, with X % ANY_SOURCE receives, over 1, 10 or 50
 * communicators (seed 002 section 4.6.2). Plain MPI C.
 *
 * Rank 0 receives; ranks 1..n-1 each send P messages per communicator.
 *  prq: rank 0 posts every receive, then passes the token; senders send in
 *       token order. Timed: from the first post to the last completion.
 *  umq: the token visits every sender first, so everything arrives
 *       unexpected (rank 0 probes the last message of each sender, untimed);
 *       rank 0 then posts. Timed: the posting loop (each post searches the UMQ).
 *  forward: receives are posted in arrival order (matches at the head);
 *  reverse: in the opposite order (each search walks the whole queue).
 *
 * usage: mq_ring [-m prq|umq|all] [-o forward|reverse|all] [-a any%]
 *                [-c comms] [-p msgs] [-i iterations]
 * Without -m/-o/-a/-c it runs the thesis's matrix. One line per case:
 *   mq_ring np=.. mode=.. order=.. any=.. comms=.. msgs=.. items=..
 *           queue_seconds=.. per_item_us=.. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN_TAG 1

static int rank, size;

static void ring_case(MPI_Comm ctrl, MPI_Comm *comms, int ncomm, int umq, int reverse, int any,
                      int P, int iters)
{
  int nsend = size - 1;
  long items = (long)nsend * P * ncomm;
  double best = 1e300, sum = 0;
  int errors = 0;
  MPI_Request *req = rank == 0 ? malloc(sizeof *req * (size_t)(items ? items : 1)) : NULL;
  int *buf = rank == 0 ? malloc(sizeof *buf * (size_t)(items ? items : 1)) : NULL;
  /* a status array rather than MPI_STATUSES_IGNORE: gcc 12 misreads the latter */
  MPI_Status *st = rank == 0 ? malloc(sizeof *st * (size_t)(items ? items : 1)) : NULL;
  for (int it = 0; it < iters; it++) {
    int token = 0;
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      if (umq) {
        if (nsend > 0) {
          MPI_Send(&token, 1, MPI_INT, 1, TOKEN_TAG, ctrl);
          MPI_Recv(&token, 1, MPI_INT, size - 1, TOKEN_TAG, ctrl, MPI_STATUS_IGNORE);
        }
        /* every message has arrived before the timed posts (probe does not match) */
        for (int c = 0; c < ncomm; c++)
          for (int s = 1; s < size; s++)
            MPI_Probe(s, s * P + P - 1, comms[c], MPI_STATUS_IGNORE);
      }
      double t0 = MPI_Wtime();
      /* arrival order: sender-major, then communicator, then message */
      for (long j = 0; j < items; j++) {
        long k = reverse ? items - 1 - j : j;
        int s = 1 + (int)(k / ((long)P * ncomm));
        int c = (int)(k / P % ncomm), m = (int)(k % P);
        int src = (int)((k * 37) % 100) < any ? MPI_ANY_SOURCE : s;
        MPI_Irecv(&buf[k], 1, MPI_INT, src, s * P + m, comms[c], &req[k]);
      }
      if (umq)
        t = MPI_Wtime() - t0;
      else if (nsend > 0)
        MPI_Send(&token, 1, MPI_INT, 1, TOKEN_TAG, ctrl);
      MPI_Waitall((int)items, req, st);
      if (!umq)
        t = MPI_Wtime() - t0;
      for (long k = 0; k < items; k++) {
        int s = 1 + (int)(k / ((long)P * ncomm)), m = (int)(k % P);
        if (buf[k] != s * P + m)
          errors++;
      }
    } else {
      MPI_Recv(&token, 1, MPI_INT, rank - 1, TOKEN_TAG, ctrl, MPI_STATUS_IGNORE);
      for (int c = 0; c < ncomm; c++)
        for (int m = 0; m < P; m++) {
          int v = rank * P + m;
          MPI_Send(&v, 1, MPI_INT, 0, v, comms[c]);
        }
      if (rank + 1 < size)
        MPI_Send(&token, 1, MPI_INT, rank + 1, TOKEN_TAG, ctrl);
      else if (umq)
        MPI_Send(&token, 1, MPI_INT, 0, TOKEN_TAG, ctrl);
    }
    if (t < best)
      best = t;
    sum += t;
  }
  if (rank == 0) {
    printf("mq_ring np=%d mode=%s order=%s any=%d comms=%d msgs=%d items=%ld "
           "queue_seconds=%.6f best_seconds=%.6f per_item_us=%.3f%s\n",
           size, umq ? "umq" : "prq", reverse ? "reverse" : "forward", any, ncomm, P, items,
           sum / iters, best, items ? sum / iters / (double)items * 1e6 : 0.0,
           errors ? " WRONG_MATCHES" : "");
    fflush(stdout);
  }
  free(req);
  free(buf);
  free(st);
}

int main(int argc, char **argv)
{
  int mode = -1, order = -1, any = -1, ncomm = -1, P = 5, iters = 5;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *o = argv[i], *v = argv[i + 1];
    if (!strcmp(o, "-m"))
      mode = !strcmp(v, "all") ? -1 : !strcmp(v, "umq");
    else if (!strcmp(o, "-o"))
      order = !strcmp(v, "all") ? -1 : !strcmp(v, "reverse");
    else if (!strcmp(o, "-a"))
      any = atoi(v);
    else if (!strcmp(o, "-c"))
      ncomm = atoi(v);
    else if (!strcmp(o, "-p"))
      P = atoi(v);
    else if (!strcmp(o, "-i"))
      iters = atoi(v);
    else {
      if (rank == 0)
        fprintf(stderr, "mq_ring: unknown option %s\n", o);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (P < 1 || iters < 1 || size < 2) {
    if (rank == 0)
      fprintf(stderr, "mq_ring: needs at least 2 processes, -p >= 1, -i >= 1\n");
    MPI_Finalize();
    return size < 2 ? 0 : 2;
  }
  static const int anys[] = {0, 50, 100}, ncs[] = {1, 10, 50};
  MPI_Comm ctrl, comms[50];
  MPI_Comm_dup(MPI_COMM_WORLD, &ctrl);
  int maxc = ncomm > 0 ? ncomm : 50;
  if (maxc > 50)
    maxc = 50;
  for (int c = 0; c < maxc; c++)
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]);
  for (int ci = 0; ci < 3; ci++) {
    int nc = ncomm > 0 ? maxc : ncs[ci];
    if (ncomm > 0 && ci > 0)
      break;
    for (int mo = 0; mo < 2; mo++) {
      if ((mode >= 0 && mo != mode) || (mode < 0 && ncomm < 0 && nc > 1 && mo == 1))
        continue; /* the thesis's multi-communicator runs are PRQ only */
      for (int ro = 0; ro < 2; ro++) {
        if (order >= 0 && ro != order)
          continue;
        for (int ai = 0; ai < 3; ai++) {
          int a = any >= 0 ? any : anys[ai];
          if (any >= 0 && ai > 0)
            break;
          if (any < 0 && nc > 1 && a > 0)
            continue; /* ... and without ANY_SOURCE */
          ring_case(ctrl, comms, nc, mo, ro, a, P, iters);
        }
      }
    }
  }
  for (int c = 0; c < maxc; c++)
    MPI_Comm_free(&comms[c]);
  MPI_Comm_free(&ctrl);
  MPI_Finalize();
  return 0;
}
