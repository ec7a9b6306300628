/*
 * halo: 1-D periodic halo exchange with computation between the posts and
 * MPI_Waitall, the pattern of CG/MG-like codes. Every rank owns a strip of
 * doubles; per iteration it posts Irecv from both neighbours, Isends its two
 * boundary blocks (H bytes each), updates the interior (a 3-point Jacobi
 * sweep, repeated to reach about -c microseconds; no MPI call), waits for all
 * four requests, then updates the two boundary cells. Works for any number of
 * ranks (with 2 ranks both neighbours are the same rank, tags tell them apart).
 *
 * Output: '#' comment lines, then CSV:
 *   bytes,iters,t_iter_us,t_comp_us,t_comm_us,overlap_pct
 * t_iter: median time per iteration (max over ranks of each rank's median);
 * t_comp: the same loop without communication; t_comm: without computation;
 * overlap % = (t_comp + t_comm - t_iter) / min(t_comp, t_comm).
 * Options: -s SIZES (halo bytes, comma list with K/M; default 16K..4M by 4x)
 *          -c COMPUTE_US (1000)  -n ITERS (100)  -q quick (20 iterations,
 *          64K and 1M).
 */
#include "../overlap/bench_util.h"

#include <unistd.h>

static int rank, nprocs;

static long parse_size(const char *s, char **end)
{
    long v = strtol(s, end, 10);
    if (**end == 'K' || **end == 'k')
        v <<= 10, (*end)++;
    else if (**end == 'M' || **end == 'm')
        v <<= 20, (*end)++;
    return v;
}

/* interior: 3-point Jacobi over u[1..m-2] into v, swept `sweeps` times */
static void sweep(double *u, double *v, long m, int sweeps)
{
    for (int s = 0; s < sweeps; s++) {
        for (long i = 1; i < m - 1; i++)
            v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
        double *t = u;
        u = v;
        v = t;
    }
}

/* max over ranks via point-to-point (Ferry has no reductions yet) */
static double max_all(double x)
{
    if (rank == 0) {
        for (int r = 1; r < nprocs; r++) {
            double y;
            MPI_Recv(&y, 1, MPI_DOUBLE, r, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (y > x)
                x = y;
        }
    } else {
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD);
    }
    return x;
}

int main(int argc, char **argv)
{
    const char *sizes_s = "16K,64K,256K,1M,4M";
    double comp_us = 1000;
    long iters = 100;
    int opt;
    while ((opt = getopt(argc, argv, "s:c:n:q")) != -1) {
        switch (opt) {
        case 's': sizes_s = optarg; break;
        case 'c': comp_us = atof(optarg); break;
        case 'n': iters = atol(optarg); break;
        case 'q': iters = 20; sizes_s = "64K,1M"; break;
        default:
            fprintf(stderr, "usage: halo [-s sizes] [-c us] [-n iters] [-q]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int left = (rank + nprocs - 1) % nprocs, right = (rank + 1) % nprocs;

    /* interior of 64K doubles (512 KiB, cache-resident-ish); calibrate the
     * number of sweeps to about comp_us */
    long m = 1L << 16;
    double *u = malloc(m * sizeof(double)), *v = malloc(m * sizeof(double));
    for (long i = 0; i < m; i++)
        u[i] = v[i] = (double)(i % 17);
    sweep(u, v, m, 2);
    double t0 = bu_now_us();
    sweep(u, v, m, 4);
    double per = (bu_now_us() - t0) / 4;
    int sweeps = (int)(comp_us / per + 0.5);
    if (sweeps < 1)
        sweeps = 1;
    sweeps = (int)max_all(sweeps);
    if (rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(ver, &len);
        ver[strcspn(ver, "\n")] = 0;
        printf("# halo: %s\n# %d ranks, %d Jacobi sweeps of %ld doubles per iteration "
               "(~%.0f us of compute)\n",
               ver, nprocs, sweeps, m, sweeps * per);
        printf("bytes,iters,t_iter_us,t_comp_us,t_comm_us,overlap_pct\n");
    }
    double *tv = malloc(iters * sizeof(double));
    const char *p = sizes_s;
    while (*p) {
        char *end;
        long h = parse_size(p, &end);
        p = *end == ',' ? end + 1 : end;
        if (h <= 0)
            continue;
        char *sb = malloc(2 * h), *rb = malloc(2 * h);
        memset(sb, rank + 1, 2 * h);
        double res[3];
        /* mode 0: comm + compute, 1: compute only, 2: comm only */
        for (int mode = 0; mode < 3; mode++) {
            for (long it = -3; it < iters; it++) {
                MPI_Request rq[4];
                MPI_Status st[4];
                MPI_Barrier(MPI_COMM_WORLD);
                double a = bu_now_us();
                if (mode != 1) {
                    MPI_Irecv(rb, (int)h, MPI_BYTE, left, 1, MPI_COMM_WORLD, &rq[0]);
                    MPI_Irecv(rb + h, (int)h, MPI_BYTE, right, 2, MPI_COMM_WORLD, &rq[1]);
                    MPI_Isend(sb, (int)h, MPI_BYTE, right, 1, MPI_COMM_WORLD, &rq[2]);
                    MPI_Isend(sb + h, (int)h, MPI_BYTE, left, 2, MPI_COMM_WORLD, &rq[3]);
                }
                if (mode != 2)
                    sweep(u, v, m, sweeps);
                if (mode != 1) {
                    MPI_Waitall(4, rq, st);
                    u[0] = rb[0];
                    u[m - 1] = rb[2 * h - 1];
                }
                if (it >= 0)
                    tv[it] = bu_now_us() - a;
            }
            double med, mean;
            bu_stats(tv, iters, &med, &mean);
            res[mode] = max_all(med);
        }
        if (rank == 0) {
            double mn = res[1] < res[2] ? res[1] : res[2];
            printf("%ld,%ld,%.2f,%.2f,%.2f,%.1f\n", h, iters, res[0], res[1], res[2],
                   mn > 0 ? 100 * (res[1] + res[2] - res[0]) / mn : 0);
            fflush(stdout);
        }
        free(sb);
        free(rb);
    }
    free(tv);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
