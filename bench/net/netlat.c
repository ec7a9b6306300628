/*
 * netlat: latency and streaming bandwidth between 2 ranks at chosen sizes,
 * for A/B comparisons of the fabric path (bench/net/ab.sh).
 *
 * Plain MPI C, so the same source builds against Ferry, MPICH and Open MPI.
 *
 *   netlat [-s 0,16K,1M] [-n ITERS] [-b] [-w WINDOW] [-B WINDOWS]
 *
 * latency  : MPI_Send/MPI_Recv pingpong, every round trip timed; prints the
 *            median and the minimum half round trip (us). The median of a
 *            run's iterations is robust to the odd preempted trip.
 * -b       : also streaming bandwidth (rank 0 keeps WINDOW MPI_Isend in
 *            flight, rank 1 answers each window with a 0-byte ack), GB/s,
 *            over -B windows after one to warm up (default: 50 below
 *            64 KiB, 10 below 1 MiB, 3 above; 50 windows of 16 KiB take
 *            about 40 ms, too short to see a 10 % change on a noisy VM).
 * Iterations: -n (default: 2000 below 64 KiB, 400 below 1 MiB, 100 above),
 * after a tenth of them as warm-up.
 * Output: CSV, one line per size:
 *   bytes,iters,lat_med_us,lat_min_us,bw_GBps,lat_p10_us,lat_p90_us
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../overlap/bench_util.h"

static int rank;

int main(int argc, char **argv)
{
    const char *sizes = "0,8,1K,16K,64K,1M,4M";
    long niter = 0;
    int bw = 0, window = 64, opt;
    long nwin = 0;
    while ((opt = getopt(argc, argv, "s:n:bw:B:")) != -1) {
        switch (opt) {
        case 's': sizes = optarg; break;
        case 'n': niter = atol(optarg); break;
        case 'b': bw = 1; break;
        case 'w': window = atoi(optarg); break;
        case 'B': nwin = atol(optarg); break;
        default:
            fprintf(stderr, "usage: netlat [-s sizes] [-n iters] [-b] [-w window] [-B windows]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *list = strdup(sizes);
    long maxb = 1;
    for (char *t = strtok(list, ","); t; t = strtok(NULL, ","))
        if (bu_parse_size(t) > maxb)
            maxb = bu_parse_size(t);
    free(list);
    char *buf = malloc(maxb), *rbuf = malloc(maxb);
    MPI_Request *reqs = malloc(sizeof *reqs * window);
    MPI_Status *stats = malloc(sizeof *stats * window);
    memset(buf, 'a' + rank, maxb);
    memset(rbuf, 0, maxb);
    if (rank == 0)
        printf("bytes,iters,lat_med_us,lat_min_us,bw_GBps,lat_p10_us,lat_p90_us\n");
    list = strdup(sizes);
    for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
        long size = bu_parse_size(t);
        long n = niter ? niter : size < 65536 ? 2000 : size < (1 << 20) ? 400 : 100;
        long warm = n / 10 + 1;
        double *d = malloc(sizeof *d * n);
        MPI_Barrier(MPI_COMM_WORLD);
        for (long i = -warm; i < n; i++) {
            double a = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
            if (i >= 0)
                d[i] = (MPI_Wtime() - a) / 2 * 1e6;
        }
        qsort(d, n, sizeof *d, bu_cmp_double);
        double gbs = 0;
        if (bw) {
            long nb = nwin > 0 ? nwin : size < 65536 ? 50 : size < (1 << 20) ? 10 : 3;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = 0;
            for (long i = -1; i < nb; i++) {
                if (i == 0)
                    t0 = MPI_Wtime();
                if (rank == 0) {
                    for (int w = 0; w < window; w++)
                        MPI_Isend(buf, (int)size, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &reqs[w]);
                    MPI_Waitall(window, reqs, stats);
                    MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank == 1) {
                    for (int w = 0; w < window; w++)
                        MPI_Irecv(rbuf, (int)size, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &reqs[w]);
                    MPI_Waitall(window, reqs, stats);
                    MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
                }
            }
            gbs = (double)size * window * nb / (MPI_Wtime() - t0) / 1e9;
        }
        if (rank == 0) {
            printf("%ld,%ld,%.3f,%.3f,%.4f,%.3f,%.3f\n", size, n, d[n / 2], d[0], gbs, d[n / 10], d[n - 1 - n / 10]);
            fflush(stdout);
        }
        free(d);
    }
    free(list);
    free(buf);
    free(rbuf);
    free(reqs);
    free(stats);
    MPI_Finalize();
    return 0;
}
