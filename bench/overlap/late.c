/*
 * late: overlap when the sender arrives late (the seeds' receiver-first
 * case as applications meet it). 2 ranks; rank 0 receives, rank 1 sends.
 *
 * Per size and per sender delay d:
 *   T_lat   the transfer's own time: half the round trip of a blocking
 *           ping-pong of that size (median), the same in every progress mode.
 *   work    a fixed amount of work: calibrated loop iterations worth
 *           2*T_lat + 100 us on an idle core (bench_util.h), plus d - 50 us
 *           when d > 50 so the transfer can still fit inside it; CPU time a
 *           signal handler or a helper thread takes from it makes it longer.
 *   T_comp  median duration of that work alone (no message pending).
 *   run     rank 0: MPI_Irecv; Barrier; t0; compute (the same work); t1;
 *           MPI_Wait; t2.   rank 1: Barrier; spin d us; MPI_Isend; MPI_Wait.
 *           T_total = t2 - t0 (median), C = t1 - t0 (median).
 *   overlap % = 100 * (T_lat + T_comp - T_total) / T_lat: 100 = the whole
 *           transfer happened during the computation, 0 = none of it.
 *   stolen  = C - T_comp: CPU the agent took from the computation (us).
 *           The same formula per iteration gives the spread: p25 and p75 of
 *           the per-iteration overlap.
 *   hit %   = share of iterations whose message was complete when the
 *           computation ended (the last byte checked without an MPI call).
 * Output: '#' comments, then CSV:
 *   bytes,delay_us,tlat_us,tcomp_us,ttotal_us,overlap_pct,overlap_p25,overlap_p75,stolen_us,hit_pct
 * Options: -n ITERS (default 40) -s SIZES (comma list, K/M suffixes;
 *          default 64K,256K,1M,4M) -d DELAYS (us, comma list; default 50)
 *          -v: also one '#' line per iteration (rank 0): the work alone,
 *          the overlapped computation, the MPI_Wait after it and whether
 *          the message was in by then; the medians hide which iterations
 *          missed and by how much.
 */
#include "bench_util.h"

#include <unistd.h>

static int parse_list(const char *arg, long *out, int max, int sizes)
{
    char tmp[256];
    int n = 0;
    snprintf(tmp, sizeof tmp, "%s", arg);
    for (char *tok = strtok(tmp, ","); tok && n < max; tok = strtok(NULL, ","))
        out[n++] = sizes ? bu_parse_size(tok) : atol(tok);
    return n;
}

static void spin_us(double us)
{
    double t = bu_now_us();
    while (bu_now_us() - t < us)
        ;
}

static double median(double *v, int n)
{
    double med, mean;
    bu_stats(v, n, &med, &mean);
    return med;
}

int main(int argc, char **argv)
{
    int rank, size, iters = 40, opt, verbose = 0;
    long sizes[16] = {64L << 10, 256L << 10, 1L << 20, 4L << 20}, delays[16] = {50};
    int nsizes = 4, ndelays = 1;
    /* calibrate before MPI_Init: no progress agent runs yet */
    double chk = bu_calibrate();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "n:s:d:v")) != -1) {
        if (opt == 'v') verbose = 1;
        if (opt == 'n') iters = atoi(optarg);
        if (opt == 's') nsizes = parse_list(optarg, sizes, 16, 1);
        if (opt == 'd') ndelays = parse_list(optarg, delays, 16, 0);
    }
    if (size != 2 || iters < 3) {
        if (rank == 0) fprintf(stderr, "late: needs exactly 2 ranks and -n >= 3\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    long maxb = 0;
    for (int k = 0; k < nsizes; k++)
        if (sizes[k] > maxb) maxb = sizes[k];
    unsigned char *buf = malloc((size_t)maxb);
    double *a = malloc((size_t)iters * sizeof *a), *b = malloc((size_t)iters * sizeof *b);
    double *c = malloc((size_t)iters * sizeof *c);
    if (!buf || !a || !b || !c) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 0, (size_t)maxb);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    for (char *p = lib; *p; p++)
        if (*p == '\n' || *p == '\t') *p = ' ';
    if (rank == 0) {
        printf("# late: %.60s\n", lib);
        printf("# busy loop: 1000 us of work measured %.1f us before MPI_Init\n", chk);
        printf("bytes,delay_us,tlat_us,tcomp_us,ttotal_us,overlap_pct,overlap_p25,overlap_p75,stolen_us,hit_pct\n");
    }
    MPI_Request q;
    for (int k = 0; k < nsizes; k++) {
        int n = (int)sizes[k];
        /* T_lat: blocking ping-pong (and a warm-up) */
        for (int i = -5; i < iters; i++) {
            double t0 = bu_now_us();
            if (rank == 0) {
                MPI_Send(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (i >= 0) a[i] = (bu_now_us() - t0) / 2;
            } else {
                MPI_Recv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        double tlat = rank == 0 ? median(a, iters) : 0;
        /* point-to-point only, so the program runs on any MPI */
        if (rank == 0) MPI_Send(&tlat, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
        else MPI_Recv(&tlat, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int dk = 0; dk < ndelays; dk++) {
            double d = (double)delays[dk];
            double work = 2 * tlat + 100 + (d > 50 ? d - 50 : 0);
            /* T_comp (the same work with nothing pending) is timed in each
             * iteration just before the overlapped run, and the overlap is
             * taken per iteration from the pair: a drift of the machine's
             * speed over the run (another tenant, frequency) then moves both
             * alike instead of showing up as overlap above 100 % or below 0. */
            int hits = 0;
            for (int i = 0; i < iters; i++) {
                unsigned char mark = (unsigned char)(1 + (i + k * 7 + dk * 13) % 250);
                if (rank == 0) {
                    double tc0 = bu_now_us();
                    bu_compute(work);
                    a[i] = bu_now_us() - tc0;
                    buf[n - 1] = 0;
                    MPI_Irecv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &q);
                    MPI_Barrier(MPI_COMM_WORLD);
                    double t0 = bu_now_us();
                    bu_compute(work);
                    double t1 = bu_now_us();
                    int hit = ((volatile unsigned char *)buf)[n - 1] == mark;
                    hits += hit;
                    MPI_Wait(&q, MPI_STATUS_IGNORE);
                    double t2 = bu_now_us();
                    if (buf[n - 1] != mark) {
                        fprintf(stderr, "late: wrong data at %d bytes, iteration %d\n", n, i);
                        MPI_Abort(MPI_COMM_WORLD, 2);
                    }
                    b[i] = t2 - t0;
                    c[i] = t1 - t0;
                    if (verbose)
                        printf("# %d bytes, iteration %d: work %.1f us, overlapped %.1f us, wait after it %.1f us, message in: %s\n",
                               n, i, a[i], c[i], t2 - t1, hit ? "yes" : "no");
                } else {
                    buf[n - 1] = mark;
                    MPI_Barrier(MPI_COMM_WORLD);
                    spin_us(d);
                    MPI_Isend(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &q);
                    MPI_Wait(&q, MPI_STATUS_IGNORE);
                }
            }
            if (rank == 0) {
                /* per-iteration overlap from the pair (a[i], b[i]); the
                 * stolen CPU likewise from (a[i], c[i]) */
                double *ov = malloc((size_t)iters * sizeof *ov), *st = malloc((size_t)iters * sizeof *st);
                if (!ov || !st) MPI_Abort(MPI_COMM_WORLD, 3);
                for (int i = 0; i < iters; i++) {
                    ov[i] = 100 * (tlat + a[i] - b[i]) / tlat;
                    st[i] = c[i] - a[i];
                }
                double ovm = median(ov, iters), stm = median(st, iters); /* sorts ov */
                double p25 = ov[iters / 4], p75 = ov[(3 * iters) / 4];
                double tcomp = median(a, iters), ttotal = median(b, iters);
                printf("%d,%.0f,%.2f,%.2f,%.2f,%.1f,%.1f,%.1f,%.2f,%.0f\n", n, d, tlat, tcomp, ttotal, ovm, p25,
                       p75, stm, 100.0 * hits / iters);
                free(ov);
                free(st);
                fflush(stdout);
            }
        }
    }
    free(a);
    free(b);
    free(c);
    free(buf);
    MPI_Finalize();
    return 0;
}
