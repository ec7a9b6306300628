/*
 * pingpong: point-to-point latency and streaming bandwidth between 2 ranks.
 *
 * Plain MPI C (point-to-point and MPI_Barrier only), so the same source builds
 * against Ferry, MPICH and Open MPI.
 *
 * latency   : half of the round trip of MPI_Send/MPI_Recv, microseconds.
 * bandwidth : rank 0 keeps a window of MPI_Isend in flight to rank 1, which
 *             posts the matching MPI_Irecv; after each window rank 1 answers
 *             with a 0-byte ack. GB/s = 1e9 bytes per second.
 * Iterations adapt to the size: a short probe measures the cost of one
 * iteration and the count is chosen to fill a time budget per size (-t).
 *
 * Output: lines starting with '#' are for humans (header, table); every other
 * line is CSV with one header line:
 *   bytes,lat_iters,lat_us,lat_min_us,bw_iters,window,bw_GBps
 *
 * Options: -m MAXBYTES (default 4 MiB)  -t SECONDS per size and test (0.15)
 *          -w WINDOW (64)  -q quick (-t 0.02)  -D distinct receive buffers
 *          per in-flight receive (default: one shared buffer, as the common
 *          bandwidth tests do; the data is never read back).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG_LAT 1
#define TAG_BW 2
#define TAG_ACK 3
#define TAG_CTL 4

static int rank;

static void die(const char *msg)
{
    fprintf(stderr, "pingpong: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Rank 0 decides; rank 1 learns the value (no collectives beyond Barrier). */
static long agree(long v)
{
    if (rank == 0)
        MPI_Send(&v, 1, MPI_LONG, 1, TAG_CTL, MPI_COMM_WORLD);
    else
        MPI_Recv(&v, 1, MPI_LONG, 0, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return v;
}

static long iters_for(double per_iter, double budget, long lo, long hi)
{
    long n = per_iter > 0 ? (long)(budget / per_iter) : hi;
    if (n < lo)
        n = lo;
    if (n > hi)
        n = hi;
    return n;
}

/* n round trips; returns the total time on rank 0, min round trip in *min. */
static double lat_run(char *buf, int size, long n, double *min)
{
    double best = 1e30, t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        double a = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, size, MPI_BYTE, 1, TAG_LAT, MPI_COMM_WORLD);
            MPI_Recv(buf, size, MPI_BYTE, 1, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, size, MPI_BYTE, 0, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_BYTE, 0, TAG_LAT, MPI_COMM_WORLD);
        }
        double d = MPI_Wtime() - a;
        if (d < best)
            best = d;
    }
    if (min)
        *min = best;
    return MPI_Wtime() - t0;
}

static double bw_run(char *sbuf, char *rbuf, size_t rstride, int size, int window,
                     long n, MPI_Request *reqs, MPI_Status *stats)
{
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            for (int w = 0; w < window; w++)
                MPI_Isend(sbuf, size, MPI_BYTE, 1, TAG_BW, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(window, reqs, stats);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < window; w++)
                MPI_Irecv(rbuf + (size_t)w * rstride, size, MPI_BYTE, 0, TAG_BW,
                          MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(window, reqs, stats);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    long maxbytes = 4L << 20;
    double budget = 0.15;
    int window = 64, distinct = 0, opt, nprocs;

    while ((opt = getopt(argc, argv, "m:t:w:qD")) != -1) {
        switch (opt) {
        case 'm': maxbytes = atol(optarg); break;
        case 't': budget = atof(optarg); break;
        case 'w': window = atoi(optarg); break;
        case 'q': budget = 0.02; break;
        case 'D': distinct = 1; break;
        default:
            fprintf(stderr, "usage: pingpong [-m maxbytes] [-t sec] [-w window] [-q] [-D]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs < 2)
        die("needs 2 ranks");
    if (window < 1)
        window = 1;

    size_t rstride = distinct ? (size_t)maxbytes : 0;
    char *sbuf = malloc(maxbytes > 0 ? maxbytes : 1);
    char *rbuf = malloc(distinct ? (size_t)maxbytes * window : (size_t)(maxbytes > 0 ? maxbytes : 1));
    MPI_Request *reqs = malloc(sizeof(*reqs) * window);
    /* real statuses: GCC flags MPI_STATUSES_IGNORE passed as an array */
    MPI_Status *stats = malloc(sizeof(*stats) * window);
    if (!sbuf || !rbuf || !reqs || !stats)
        die("out of memory");
    memset(sbuf, 'a' + rank, maxbytes);
    memset(rbuf, 0, distinct ? (size_t)maxbytes * window : (size_t)maxbytes);

    if (rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(ver, &len);
        ver[strcspn(ver, "\n")] = 0;
        printf("# pingpong: %s\n", ver);
        printf("# budget %.3f s per size and test, window %d, %s receive buffers\n", budget,
               window, distinct ? "distinct" : "shared");
        printf("bytes,lat_iters,lat_us,lat_min_us,bw_iters,window,bw_GBps\n");
        fflush(stdout);
    }

    double tab[64][3];
    int nrow = 0;
    if (rank < 2) {
        for (long size = 0; size <= maxbytes; size = size ? size * 2 : 1) {
            int sz = (int)size;
            /* latency: warm-up, probe, timed run */
            lat_run(sbuf, sz, size >= (1 << 20) ? 2 : 10, NULL);
            /* the fastest probe trip, padded: one slow trip must not shrink n */
            double pmin;
            lat_run(sbuf, sz, 8, &pmin);
            long nl = agree(iters_for(pmin * 1.5, budget, 10, 200000));
            double tmin;
            double tl = lat_run(sbuf, sz, nl, &tmin);

            /* bandwidth: warm-up window, probe, timed run */
            bw_run(sbuf, rbuf, rstride, sz, window, 1, reqs, stats);
            double bprobe = bw_run(sbuf, rbuf, rstride, sz, window, 2, reqs, stats) / 2;
            long nb = agree(iters_for(bprobe, budget, 3, 20000));
            double tb = bw_run(sbuf, rbuf, rstride, sz, window, nb, reqs, stats);

            if (rank == 0) {
                double lat = tl / nl / 2 * 1e6;
                double bw = (double)size * window * nb / tb / 1e9;
                printf("%ld,%ld,%.3f,%.3f,%ld,%d,%.4f\n", size, nl, lat, tmin / 2 * 1e6, nb,
                       window, bw);
                fflush(stdout);
                if (nrow < 64) {
                    tab[nrow][0] = (double)size;
                    tab[nrow][1] = lat;
                    tab[nrow][2] = bw;
                    nrow++;
                }
            }
        }
    }
    if (rank == 0) {
        printf("#\n# %10s %12s %12s\n", "bytes", "latency_us", "bw_GB/s");
        for (int i = 0; i < nrow; i++)
            printf("# %10.0f %12.2f %12.3f\n", tab[i][0], tab[i][1], tab[i][2]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    free(reqs);
    free(stats);
    MPI_Finalize();
    return 0;
}
