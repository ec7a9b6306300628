/*
 * overlap: the seeds' overhead, overlap, progression and memory benchmarks,
 * between 2 ranks (rank 0 receives, rank 1 sends). Plain MPI C using only
 * point-to-point calls and MPI_Barrier, so it builds against Ferry, MPICH and
 * Open MPI alike. One test per run (-t), one CSV table per run: lines starting
 * with '#' are comments; the rest is one header line then rows.
 *
 * Arrival order is forced by the barrier: the early side posts its operation,
 * then enters the barrier; the late side leaves the barrier, optionally spins
 * for a delay (-d), then posts. Every timer starts when the rank leaves the
 * barrier, and the delay is subtracted on both sides, so a figure is the time
 * from "both sides have posted" to completion on that side.
 *   rf (receiver first):  R: Irecv; Barrier; t0; work; Wait; t1
 *                         S: Barrier; t0; [delay]; Isend; work; Wait; t1
 *   sf (sender first):    the same with the roles swapped
 *   blk (blocking):       Barrier; t0; Recv | Send; t1    (no order forced)
 * "work" is the calibrated busy loop (bench_util.h): no MPI call inside it.
 *
 * Tests (-t):
 *   overhead  scenarios (a) blk, (b) sf, (c) rf with no work, delay -d
 *             (default 50 us): latency per message per side. Overhead of a
 *             progress mode = its latency - latency of the mode "none".
 *   eq3       seed 002 eq. 3.1-3.3: c_p (-c, 1000 us) of work on both sides.
 *             eps = 0-byte time, c_m = time(size, no work) - eps, d = time with
 *             work. serialized d = eps + c_m + c_p; overlapped
 *             d = eps + max(c_m, c_p); overlap % = (eps + c_m + c_p - d) /
 *             min(c_m, c_p).
 *   eq4       seed 000 eq. 4.1/4.2: step 0 has no work and gives T_lat (per
 *             side); steps k = 1..11 work T_syn = k/10 x T_lat on both sides;
 *             T_et = elapsed; T_diff = 1.1 T_lat - T_et; overlap =
 *             (T_syn - (T_et - T_lat)) / T_lat, reported at the largest step
 *             with T_diff >= 0 (columns chosen_recv / chosen_send; step 1
 *             when no step qualifies, which happens by noise when nothing
 *             overlaps, since then T_diff = 0 at step 1 exactly).
 *   prog      seed 000 progression: T_syn = 1.5 .. 3.0 x T_lat (receiver);
 *             the receiver's work polls the last byte of its buffer and its
 *             timer stops when the byte is there (or at Wait); the sender
 *             does no work and reports its Isend..Wait time. Flat = ideal.
 *   vmrss     VmRSS / VmHWM / thread count of every process after a short
 *             receiver-first and sender-first workload.
 * Figures are medians over the iterations (the machine is shared and noisy);
 * means are also given where useful.
 *
 * Options: -t TEST  -s SIZES (comma list, K/M suffixes; default 16K..4M)
 *          -o ORDERS (rf,sf)  -n ITERS (max per point)  -b SECONDS budget per
 *          point (eq4/prog: per size, all steps)  -d DELAY_US  -c CP_US  -q quick (fewer sizes/iterations)
 *          -W measured|both (eq4: which side computes; default measured, as in seed 000)
 */
#include "bench_util.h"

#include <unistd.h>

#define TAG_DATA 11
#define TAG_CTL 12

enum { ORD_BLK, ORD_RF, ORD_SF };
static const char *ord_name[] = {"blk", "rf", "sf"};

static int rank;
static char *buf;
/* Which rank computes in an exchange: -1 both, 0 the receiver, 1 the sender.
 * eq4 follows the seed-000 template: the measured side computes while its
 * peer waits in MPI (-W both makes both compute, which on a node without a
 * spare core leaves no CPU for the copy). */
static int work_side = -1;
static int eq4_both;
static long errors;

static void die(const char *msg)
{
    fprintf(stderr, "overlap: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static char marker(long iter) { return (char)(1 + iter % 120); }

/* rank 0 decides, rank 1 learns */
static long agree(long v)
{
    if (rank == 0)
        MPI_Send(&v, 1, MPI_LONG, 1, TAG_CTL, MPI_COMM_WORLD);
    else
        MPI_Recv(&v, 1, MPI_LONG, 0, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return v;
}

/* rank 1 sends n doubles to rank 0 (results of the sender side) */
static void to_root(double *v, int n)
{
    if (rank == 1)
        MPI_Send(v, n, MPI_DOUBLE, 0, TAG_CTL, MPI_COMM_WORLD);
    else
        MPI_Recv(v, n, MPI_DOUBLE, 1, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* One ordered exchange; returns this rank's elapsed us. With poll (receiver),
 * *seen gets the time at which the last byte was seen (or the Wait end). */
static double exchange(int order, int bytes, double work, double delay, int poll, long iter,
                       double *seen)
{
    int recv = rank == 0;
    int early = (order == ORD_RF && recv) || (order == ORD_SF && !recv);
    if (work_side >= 0 && work_side != rank)
        work = 0;
    MPI_Request rq;
    double t0, t1, ts = 0;

    if (bytes > 0)
        buf[bytes - 1] = recv ? 0 : marker(iter);
    if (order == ORD_BLK) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = bu_now_us();
        if (recv)
            MPI_Recv(buf, bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(buf, bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        t1 = bu_now_us();
        ts = t1;
    } else {
        if (early) {
            if (recv)
                MPI_Irecv(buf, bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &rq);
            else
                MPI_Isend(buf, bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &rq);
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = bu_now_us();
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = bu_now_us();
            bu_compute(delay);
            if (recv)
                MPI_Irecv(buf, bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &rq);
            else
                MPI_Isend(buf, bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &rq);
        }
        if (poll && recv && bytes > 0)
            ts = bu_compute_poll(work, &buf[bytes - 1]);
        else
            bu_compute(work);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        t1 = bu_now_us();
        if (!ts)
            ts = t1;
    }
    if (recv && bytes > 0 && buf[bytes - 1] != marker(iter))
        errors++;
    if (seen)
        *seen = ts - t0 - delay;
    return t1 - t0 - delay;
}

struct res {
    double r_med, r_mean, s_med, s_mean, seen_med, seen_pct;
};

/* n timed exchanges (each rank passes its own work); medians of both sides
 * end up on rank 0. */
static struct res run(int order, int bytes, double work, double delay, int poll, long n,
                      long iter0)
{
    static double *t, *sv;
    static long cap;
    struct res r = {0};
    double sb[2];
    long inwork = 0;

    if (n > cap) {
        free(t);
        free(sv);
        t = malloc(n * sizeof(*t));
        sv = malloc(n * sizeof(*sv));
        if (!t || !sv)
            die("out of memory");
        cap = n;
    }
    for (long i = 0; i < n; i++) {
        t[i] = exchange(order, bytes, work, delay, poll, iter0 + i, &sv[i]);
        if (poll && sv[i] < t[i] - 0.5)
            inwork++;
    }
    double med, mean, smed, smean;
    bu_stats(t, n, &med, &mean);
    bu_stats(sv, n, &smed, &smean);
    sb[0] = med;
    sb[1] = mean;
    to_root(sb, 2);
    r.r_med = med;
    r.r_mean = mean;
    r.s_med = sb[0];
    r.s_mean = sb[1];
    r.seen_med = smed;
    r.seen_pct = 100.0 * inwork / n;
    return r;
}

/* iterations for one point: n_max capped by the time budget, agreed */
static long iters_for(double us_per_iter, long nmax, double budget_s, long nmin)
{
    long n = nmax;
    if (us_per_iter > 0 && budget_s * 1e6 / us_per_iter < n)
        n = (long)(budget_s * 1e6 / us_per_iter);
    if (n < nmin)
        n = nmin;
    return agree(n);
}

static int parse_list(const char *s, long *out, int max)
{
    int n = 0;
    char *copy = strdup(s), *save, *tok;
    for (tok = strtok_r(copy, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
        out[n++] = bu_parse_size(tok);
    free(copy);
    return n;
}

static int parse_orders(const char *s, int *out)
{
    int n = 0;
    if (strstr(s, "rf"))
        out[n++] = ORD_RF;
    if (strstr(s, "sf"))
        out[n++] = ORD_SF;
    return n;
}

static double pct(double x) { return 100.0 * x; }

int main(int argc, char **argv)
{
    const char *test = "eq4", *sizes_s = NULL, *orders_s = NULL;
    long nmax = -1;
    double budget = -1, delay = -1, cp = 1000;
    int quick = 0, opt, nprocs;

    while ((opt = getopt(argc, argv, "t:s:o:n:b:d:c:qW:")) != -1) {
        switch (opt) {
        case 't': test = optarg; break;
        case 's': sizes_s = optarg; break;
        case 'o': orders_s = optarg; break;
        case 'n': nmax = atol(optarg); break;
        case 'b': budget = atof(optarg); break;
        case 'd': delay = atof(optarg); break;
        case 'c': cp = atof(optarg); break;
        case 'q': quick = 1; break;
        case 'W': eq4_both = !strcmp(optarg, "both"); break;
        default:
            fprintf(stderr, "usage: overlap -t overhead|eq3|eq4|prog|vmrss [-s 16K,1M] "
                            "[-o rf,sf] [-n iters] [-b sec] [-d us] [-c us] [-q]\n");
            return 2;
        }
    }
    /* calibrate before MPI_Init: no progress agent runs yet */
    double chk = bu_calibrate();

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs != 2)
        die("run with exactly 2 ranks");

    long sizes[32];
    int nsizes, orders[2], norders;
    if (sizes_s)
        nsizes = parse_list(sizes_s, sizes, 32);
    else if (quick)
        nsizes = parse_list("64K,1M,4M", sizes, 32);
    else
        nsizes = parse_list("16K,32K,64K,128K,256K,512K,1M,2M,4M", sizes, 32);
    norders = parse_orders(orders_s ? orders_s : (quick && !strcmp(test, "prog") ? "rf" : "rf,sf"),
                           orders);
    if (nmax < 0)
        nmax = quick ? 12 : (!strcmp(test, "overhead") ? 1000 : 200);
    if (budget < 0)
        budget = quick ? 0.1 : 1.0;
    if (delay < 0)
        delay = !strcmp(test, "overhead") ? 50 : 0;
    long maxb = 0;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] > maxb)
            maxb = sizes[i];
    buf = malloc(maxb > 0 ? maxb : 1);
    if (!buf)
        die("out of memory");
    memset(buf, 'x', maxb);

    double cal[2] = {bu_iters_per_us, chk};
    to_root(cal, 2);
    if (rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(ver, &len);
        ver[strcspn(ver, "\n")] = 0;
        printf("# overlap -t %s: %s\n", test, ver);
        printf("# busy loop: 1000 us of work measured %.1f us (rank 0), %.1f us (rank 1); "
               "%.1f / %.1f iterations per us\n",
               chk, cal[1], bu_iters_per_us, cal[0]);
        printf("# iterations <= %ld per point, budget %.2f s per point, delay %.0f us\n", nmax,
               budget, delay);
    }
    long iter = 0;
#define WARMUP(o, b, w)                                                                          \
    do {                                                                                         \
        for (int _i = 0; _i < 3; _i++)                                                           \
            exchange(o, b, w, delay, 0, iter++, NULL);                                           \
    } while (0)

    if (!strcmp(test, "overhead")) {
        if (rank == 0)
            printf("scenario,bytes,iters,delay_us,recv_us,recv_mean_us,send_us,send_mean_us\n");
        static const int scen[3] = {ORD_BLK, ORD_SF, ORD_RF};
        static const char *sname[3] = {"a_blocking", "b_sender_first", "c_receiver_first"};
        for (int s = 0; s < 3; s++)
            for (int i = 0; i < nsizes; i++) {
                int b = (int)sizes[i];
                double d = scen[s] == ORD_BLK ? 0 : delay;
                WARMUP(scen[s], b, 0);
                struct res p = run(scen[s], b, 0, d, 0, 5, iter);
                iter += 5;
                long n = iters_for(p.r_med + d + 10, nmax, budget, 10);
                struct res r = run(scen[s], b, 0, d, 0, n, iter);
                iter += n;
                if (rank == 0)
                    printf("%s,%d,%ld,%.0f,%.3f,%.3f,%.3f,%.3f\n", sname[s], b, n, d, r.r_med,
                           r.r_mean, r.s_med, r.s_mean);
                fflush(stdout);
            }
    } else if (!strcmp(test, "eq3")) {
        /* c_p actually spent by this rank's busy loop, nothing pending */
        double cpv[5], cpm, cpa;
        for (int k = 0; k < 5; k++) {
            double t0 = bu_now_us();
            bu_compute(cp);
            cpv[k] = bu_now_us() - t0;
        }
        bu_stats(cpv, 5, &cpm, &cpa);
        double cps = cpm;
        to_root(&cps, 1);
        if (rank == 0)
            printf("order,bytes,iters,cp_recv_us,eps_recv_us,cm_recv_us,d_recv_us,ovl_recv_pct,"
                   "cp_send_us,eps_send_us,cm_send_us,d_send_us,ovl_send_pct\n");
        for (int o = 0; o < norders; o++) {
            int ord = orders[o];
            WARMUP(ord, 0, 0);
            long n0 = iters_for(20, nmax * 5, budget, 10);
            struct res e = run(ord, 0, 0, delay, 0, n0, iter);
            iter += n0;
            for (int i = 0; i < nsizes; i++) {
                int b = (int)sizes[i];
                WARMUP(ord, b, 0);
                struct res p = run(ord, b, 0, delay, 0, 5, iter);
                iter += 5;
                long n = iters_for(2 * p.r_med + cp + 20, nmax, budget, 5);
                struct res z = run(ord, b, 0, delay, 0, n, iter);
                iter += n;
                struct res w = run(ord, b, cp, delay, 0, n, iter);
                iter += n;
                if (rank == 0) {
                    double cmr = z.r_med - e.r_med, cms = z.s_med - e.s_med;
                    double mr = cmr < cpm ? cmr : cpm, ms = cms < cps ? cms : cps;
                    double or_ = mr > 0 ? 100 * (e.r_med + cmr + cpm - w.r_med) / mr : 0;
                    double os = ms > 0 ? 100 * (e.s_med + cms + cps - w.s_med) / ms : 0;
                    printf("%s,%d,%ld,%.2f,%.3f,%.3f,%.3f,%.1f,%.2f,%.3f,%.3f,%.3f,%.1f\n",
                           ord_name[ord], b, n, cpm, e.r_med, cmr, w.r_med, or_, cps, e.s_med,
                           cms, w.s_med, os);
                    fflush(stdout);
                }
            }
        }
    } else if (!strcmp(test, "eq4")) {
        if (rank == 0)
            printf("order,bytes,iters,step,tsyn_recv_us,tlat_recv_us,tet_recv_us,tdiff_recv_us,"
                   "ovl_recv_pct,chosen_recv,tsyn_send_us,tlat_send_us,tet_send_us,tdiff_send_us,"
                   "ovl_send_pct,chosen_send\n");
        for (int o = 0; o < norders; o++)
            for (int i = 0; i < nsizes; i++) {
                int ord = orders[o], b = (int)sizes[i];
                double row[12][8];
                WARMUP(ord, b, 0);
                struct res p = run(ord, b, 0, delay, 0, 5, iter);
                iter += 5;
                long n = iters_for(12 * (1.6 * p.r_med + 10), nmax, budget, 5); /* 12 steps */
                struct res l = run(ord, b, 0, delay, 0, n, iter);
                iter += n;
                double tlat = l.r_med; /* run() leaves each rank's own median in r_med */
                int ch_r = 0, ch_s = 0;
                for (int k = 0; k <= 11; k++) {
                    double tsyn = k * 0.1 * tlat;
                    struct res r = l;
                    if (k && eq4_both) {
                        r = run(ord, b, tsyn, delay, 0, n, iter);
                        iter += n;
                    } else if (k) {
                        /* receiver side: only the receiver computes */
                        work_side = 0;
                        struct res rr = run(ord, b, tsyn, delay, 0, n, iter);
                        iter += n;
                        /* sender side: only the sender computes */
                        work_side = 1;
                        struct res rs = run(ord, b, tsyn, delay, 0, n, iter);
                        iter += n;
                        work_side = -1;
                        r = rr;
                        r.s_med = rs.s_med;
                        r.s_mean = rs.s_mean;
                    }
                    double ts = tsyn;
                    to_root(&ts, 1);
                    if (rank == 0) {
                        double tr = k * 0.1 * l.r_med;
                        row[k][0] = tr;
                        row[k][1] = r.r_med;
                        row[k][2] = 1.1 * l.r_med - r.r_med;
                        row[k][3] = pct((tr - (r.r_med - l.r_med)) / l.r_med);
                        row[k][4] = ts;
                        row[k][5] = r.s_med;
                        row[k][6] = 1.1 * l.s_med - r.s_med;
                        row[k][7] = pct((ts - (r.s_med - l.s_med)) / l.s_med);
                        if (k && row[k][2] >= 0)
                            ch_r = k;
                        if (k && row[k][6] >= 0)
                            ch_s = k;
                    }
                }
                /* no step met T_diff >= 0 (noise around T_diff = 0 at step 1 when
                 * nothing overlaps): report step 1, which is then about 0 % */
                if (!ch_r)
                    ch_r = 1;
                if (!ch_s)
                    ch_s = 1;
                if (rank == 0) {
                    for (int k = 0; k <= 11; k++)
                        printf("%s,%d,%ld,%d,%.3f,%.3f,%.3f,%.3f,%.1f,%d,%.3f,%.3f,%.3f,%.3f,%.1f,"
                               "%d\n",
                               ord_name[ord], b, n, k, row[k][0], l.r_med, row[k][1], row[k][2],
                               row[k][3], ch_r && k == ch_r, row[k][4], l.s_med, row[k][5],
                               row[k][6], row[k][7], ch_s && k == ch_s);
                    fflush(stdout);
                }
            }
    } else if (!strcmp(test, "prog")) {
        if (rank == 0)
            printf("order,bytes,iters,factor,tsyn_us,tlat_us,t_recv_us,t_recv_mean_us,"
                   "seen_in_work_pct,t_send_us\n");
        for (int o = 0; o < norders; o++)
            for (int i = 0; i < nsizes; i++) {
                int ord = orders[o], b = (int)sizes[i];
                WARMUP(ord, b, 0);
                struct res p = run(ord, b, 0, delay, 0, 5, iter);
                iter += 5;
                long n = iters_for(17 * (2.5 * p.r_med + 10), nmax, budget, 5); /* 17 steps */
                struct res l = run(ord, b, 0, delay, 0, n, iter);
                iter += n;
                double tlat = agree((long)(l.r_med * 1000)) / 1000.0; /* the receiver's */
                for (int k = 15; k <= 30; k++) {
                    double tsyn = k / 10.0 * tlat;
                    struct res r = run(ord, b, rank == 0 ? tsyn : 0, delay, 1, n, iter);
                    iter += n;
                    if (rank == 0) {
                        printf("%s,%d,%ld,%.1f,%.3f,%.3f,%.3f,%.3f,%.1f,%.3f\n", ord_name[ord], b,
                               n, k / 10.0, tsyn, tlat, r.seen_med, r.r_mean, r.seen_pct, r.s_med);
                        fflush(stdout);
                    }
                }
            }
    } else if (!strcmp(test, "vmrss")) {
        /* activate whatever the library does for pending large receives */
        int b = (int)maxb;
        for (int o = 0; o < 2; o++) {
            int ord = o ? ORD_SF : ORD_RF;
            WARMUP(ord, b, 0);
            run(ord, b, 200, delay, 0, quick ? 5 : 20, iter);
            iter += quick ? 5 : 20;
        }
        double v[3] = {(double)bu_status_field("VmRSS"), (double)bu_status_field("VmHWM"),
                       (double)bu_status_field("Threads")};
        double w[3] = {v[0], v[1], v[2]};
        to_root(w, 3);
        if (rank == 0) {
            printf("rank,vmrss_kB,vmhwm_kB,threads,bytes\n");
            printf("0,%.0f,%.0f,%.0f,%d\n1,%.0f,%.0f,%.0f,%d\n", v[0], v[1], v[2], b, w[0], w[1],
                   w[2], b);
        }
    } else {
        die("unknown test (overhead, eq3, eq4, prog, vmrss)");
    }

    long errs = errors;
    if (rank == 0 && errs)
        printf("# WARNING: %ld received messages had a wrong last byte\n", errs);
    if (errs)
        fprintf(stderr, "overlap: rank %d: %ld payload errors\n", rank, errs);
    free(buf);
    MPI_Finalize();
    return errs ? 1 : 0;
}
