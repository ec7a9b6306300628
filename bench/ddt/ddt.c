/* Derived-datatype benchmark: ping-pong bandwidth of a contiguous
 * message, a vector (1 Mi doubles, stride 2), an indexed type, a struct
 * type and a resized double (extent 16, sent as a count of n: the same
 * layout as the vector, as a matrix column is often sent) of the same data
 * size, and MPI_Pack/MPI_Unpack throughput of the four derived types. Two ranks (one rank: pack and unpack only, with no partner
 * polling in a barrier: the quieter measurement); prints '#' comments and one CSV table
 * (kind,type,bytes,iters,MBps), MB = 1e6 bytes, data bytes per direction.
 *
 *   ddt [-n doubles] [-i iterations] [-b blocklength] [-t type] [-B] [-q] [-v]
 *   (-q: fewer iterations; -b: the vector's blocks, in doubles, stride 2b;
 *   -t: only this type: contig, vector, indexed or struct, for profiling;
 *   -B: the best iteration instead of the median, for a loaded machine,
 *   where the best is what the code does when it has the core; -v: print
 *   every ping-pong iteration's one-way time) */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static int best_of; /* -B */
static int verbose; /* -v: every ping-pong iteration's time */
static double median(double *v, int n) {
    qsort(v, n, sizeof *v, cmpd);
    if (best_of) return v[0];
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct { double pos[3]; int id; float mass; double pad; } particle_t; /* 48 bytes, 32 sent */

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = 1L << 20;
    int iters = 20, blk = 1;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atol(argv[++i]);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-q")) iters = 6;
        else if (!strcmp(argv[i], "-b") && i + 1 < argc) blk = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "-B")) best_of = 1;
        else if (!strcmp(argv[i], "-v")) verbose = 1;
    }
    /* types: all carry n doubles (the struct: n/4 particles of 28 bytes ~ same size) */
    MPI_Datatype tvec, tidx, tstr, tpart, tres;
    MPI_Type_vector((int)(n / blk), blk, 2 * blk, MPI_DOUBLE, &tvec);
    long nb = n / 4; /* indexed: blocks of 4 doubles at irregular gaps (1-3 doubles) */
    int *bl = malloc(nb * sizeof *bl), *dp = malloc(nb * sizeof *dp);
    long at = 0;
    for (long i = 0; i < nb; i++) {
        bl[i] = 4;
        dp[i] = (int)at;
        at += 4 + 1 + (i % 3);
    }
    long idx_span = at;
    MPI_Type_indexed((int)nb, bl, dp, MPI_DOUBLE, &tidx);
    {
        int b[] = {3, 1, 1};
        MPI_Aint d[] = {offsetof(particle_t, pos), offsetof(particle_t, id), offsetof(particle_t, mass)};
        MPI_Datatype t[] = {MPI_DOUBLE, MPI_INT, MPI_FLOAT}, s;
        MPI_Type_create_struct(3, b, d, t, &s);
        MPI_Type_create_resized(s, 0, sizeof(particle_t), &tpart);
        MPI_Type_free(&s);
    }
    long np = n / 4;
    MPI_Type_contiguous((int)np, tpart, &tstr);
    MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &tres);
    MPI_Type_commit(&tres);
    MPI_Type_commit(&tvec);
    MPI_Type_commit(&tidx);
    MPI_Type_commit(&tstr);
    size_t span = (size_t)(2 * n > idx_span ? 2 * n : idx_span) * sizeof(double);
    if ((size_t)np * sizeof(particle_t) > span) span = (size_t)np * sizeof(particle_t);
    char *a = malloc(span), *b = malloc(span);
    memset(a, 1, span);
    memset(b, 2, span);
    char *packed = malloc((size_t)n * 8 + 64);

    struct { const char *name; MPI_Datatype t; int count; } ty[] = {
        {"contig", MPI_DOUBLE, (int)n}, {"vector", tvec, 1}, {"indexed", tidx, 1}, {"struct", tstr, 1},
        {"resized", tres, (int)n}};
    double *tt = malloc((iters + 2) * sizeof *tt);
    if (!rank) {
        printf("# ddt: %ld doubles; vector blocks of %d, stride %d; indexed blocks of 4 with 1-3 gaps; struct %ld particles "
               "(32 of 48 bytes); resized: %ld doubles of extent 16\n", n, blk, 2 * blk, np, n);
        printf("kind,type,bytes,iters,MBps\n");
    }
    for (int k = 0; k < 5 && size >= 2; k++) {
        if (only && strcmp(only, ty[k].name)) continue;
        int sz;
        MPI_Type_size(ty[k].t, &sz);
        long bytes = (long)sz * ty[k].count;
        for (int it = -2; it < iters; it++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(a, ty[k].count, ty[k].t, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(b, ty[k].count, ty[k].t, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(b, ty[k].count, ty[k].t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(a, ty[k].count, ty[k].t, 0, 0, MPI_COMM_WORLD);
            }
            if (it >= 0) tt[it] = (MPI_Wtime() - t0) / 2;
        }
        if (!rank && verbose) {
            printf("# %s us:", ty[k].name);
            for (int it = 0; it < iters; it++) printf(" %.0f", tt[it] * 1e6);
            printf("\n");
        }
        if (!rank) printf("pingpong,%s,%ld,%d,%.1f\n", ty[k].name, bytes, iters, bytes / median(tt, iters) / 1e6);
        fflush(stdout);
    }
    /* pack / unpack on rank 0 (rank 1 idles in the barrier) */
    for (int k = 1; k < 5; k++) {
        if (only && strcmp(only, ty[k].name)) continue;
        int sz;
        MPI_Type_size(ty[k].t, &sz);
        sz *= ty[k].count;
        double tu[64], tp[64];
        int reps = iters < 64 ? iters : 64;
        if (!rank)
            for (int it = -1; it < reps; it++) {
                int pos = 0;
                double t0 = MPI_Wtime();
                MPI_Pack(a, ty[k].count, ty[k].t, packed, sz, &pos, MPI_COMM_WORLD);
                double t1 = MPI_Wtime();
                pos = 0;
                MPI_Unpack(packed, sz, &pos, b, ty[k].count, ty[k].t, MPI_COMM_WORLD);
                double t2 = MPI_Wtime();
                if (it >= 0) { tp[it] = t1 - t0; tu[it] = t2 - t1; }
            }
        if (!rank) {
            printf("pack,%s,%d,%d,%.1f\n", ty[k].name, sz, reps, sz / median(tp, reps) / 1e6);
            printf("unpack,%s,%d,%d,%.1f\n", ty[k].name, sz, reps, sz / median(tu, reps) / 1e6);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Type_free(&tvec);
    MPI_Type_free(&tidx);
    MPI_Type_free(&tstr);
    MPI_Type_free(&tpart);
    MPI_Type_free(&tres);
    free(a); free(b); free(packed); free(tt); free(bl); free(dp);
    MPI_Finalize();
    return 0;
}
