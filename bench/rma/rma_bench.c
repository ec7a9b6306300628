/* One-sided benchmarks of seed 002 ch. 5 (§5.8), in plain MPI C: builds
 * against Ferry, MPICH and Open MPI; the nonblocking series (MPIX_Win_i*)
 * exist only where mpi.h defines FERRY_HAVE_MPIX_WIN_ISYNC.
 *
 *   rma_bench -t TEST [-m b|nb] [-s SIZES] [-d DELAY_US] [-i ITERS] [-r REPS]
 *
 * Tests (ranks):
 *   lat-gats, lat-fence, lat-lock (2): one put per epoch, origin's epoch
 *       time; with -r REPS a sample is REPS epochs back to back, divided by
 *       REPS (a single epoch of 0.1-0.3 us is at the timer's resolution)
 *       -o put|get|acc picks the operation (acc: MPI_SUM on doubles)
 *   bw (2): bandwidth of -o OP inside one lock_all epoch: 64 operations
 *       (16 for >= 64 KiB) then a flush, MB/s (median column)
 *   overlap-lock (2): put + c_p of work inside a lock epoch (c_p = -d)
 *   busy-target (2): the target computes (a fixed amount of work of
 *       DELAY on an idle core) outside MPI while the origin runs one lock,
 *       -o OP, unlock epoch toward it: the origin's epoch time (about DELAY
 *       where nothing progresses the target), then busy-target-work: the
 *       target's time for its work (above DELAY: what serving took from it)
 *   late-post (3): target posts DELAY late; after closing its epoch the
 *       origin sends SIZE bytes to a third rank: when that follow-up is
 *       done, counted from the epoch's start
 *   late-complete (2): origin works DELAY before closing; the target's epoch
 *   early-fence (2): target closes the fence at once, then works DELAY: its total
 *   wait-at-fence (2): origin works DELAY before its closing fence; target's
 *       total for fence + its own DELAY of work
 *   late-unlock (3): O0 holds an exclusive lock DELAY after its put; O1's epoch
 *   reorder-aaa (3, nonblocking): origin's epoch toward a late target, then
 *       one toward a punctual one: time until the second completes (run with
 *       FERRY_RMA_REORDER=1 to let it pass: mode "nonblocking+reorder")
 *   reorder-eae (3, nonblocking): exposure to a late origin, then to a
 *       punctual one: time until the second completes (FERRY_RMA_REORDER=4)
 *   tx (any): exclusive-lock accumulate transactions (256 B) to random
 *       targets for 0.2 s: transactions per second per process
 * Work is a spin on MPI_Wtime outside MPI; a late peer of a 3-rank test
 * sleeps instead (2 cores: it must not take the measured ranks' CPU). Output: '#' comments, then CSV
 * test,mode,bytes,np,median_us,p25_us,p75_us (tx: median = tx/s/process). */
#include <mpi.h>
/* gcc >= 11 flags MPI_STATUSES_IGNORE ((MPI_Status *)1) passed to array
 * parameters; the MPI standard defines that use. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef FERRY_HAVE_MPIX_WIN_ISYNC
#define HAVE_NB 1
#else
#define HAVE_NB 0
#endif

static int me, np, nb, iters = 30, reps = 1;
static const char *opname = "put";
static char *rbuf;
static double delay_us = 1000;

static void spin(double us)
{
    double t0 = MPI_Wtime();
    while ((MPI_Wtime() - t0) * 1e6 < us) {
    }
}

/* A fixed amount of work (iterations calibrated once to take `us` on an
 * idle core): CPU that a signal or a helper thread takes from it shows as
 * a longer time, where spin() would hide it. */
static double work_per_us;
static volatile double work_sink;
static void work_run(long n)
{
    double x = 1.0;
    for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9;
    work_sink = x;
}
static void work_calibrate(void)
{
    long n = 200000;
    double best = 1e30;
    for (int k = 0; k < 5; k++) {
        double t0 = MPI_Wtime();
        work_run(n);
        double t = MPI_Wtime() - t0;
        if (t < best) best = t;
    }
    work_per_us = (double)n / (best * 1e6);
}
static void work(double us) { work_run((long)(us * work_per_us)); }

/* A late peer (not work): sleeps, so that with more ranks than cores it
 * does not take the CPU the measured ranks need. */
static void late(double us)
{
    struct timespec ts = {(time_t)(us / 1e6), (long)((us - 1e6 * (long)(us / 1e6)) * 1000)};
    nanosleep(&ts, NULL);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *test, long bytes, double *v, int n, int reporter)
{
    /* the reporter's samples are sent to rank 0 for printing */
    double *s = malloc(sizeof(double) * (size_t)n);
    if (me == reporter && reporter != 0) MPI_Send(v, n, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD);
    if (me == 0) {
        if (reporter != 0) MPI_Recv(s, n, MPI_DOUBLE, reporter, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else memcpy(s, v, sizeof(double) * (size_t)n);
        qsort(s, (size_t)n, sizeof(double), cmpd);
        const char *ro = getenv("FERRY_RMA_REORDER");
        const char *mode = !nb ? "blocking" : (ro && atoi(ro)) ? "nonblocking+reorder" : "nonblocking";
        char label[64];
        if (!strncmp(test, "lat-", 4) || !strcmp(test, "bw")) snprintf(label, sizeof label, "%s-%s", test, opname);
        else snprintf(label, sizeof label, "%s", test);
        printf("%s,%s,%ld,%d,%.2f,%.2f,%.2f\n", label, mode, bytes, np, s[n / 2],
               s[n / 4], s[(3 * n) / 4]);
        fflush(stdout);
    }
    free(s);
}

static MPI_Group one(int r)
{
    MPI_Group w, g;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_incl(w, 1, &r, &g);
    MPI_Group_free(&w);
    return g;
}

/* The measured operation (-o) of `bytes` toward t. */
static void op1(const char *sbuf, long bytes, int t, MPI_Win w)
{
    if (!strcmp(opname, "get")) {
        MPI_Get(rbuf, (int)bytes, MPI_BYTE, t, 0, (int)bytes, MPI_BYTE, w);
    } else if (!strcmp(opname, "acc")) {
        int n = bytes >= 8 ? (int)(bytes / 8) : 1;
        MPI_Accumulate(sbuf, n, MPI_DOUBLE, t, 0, n, MPI_DOUBLE, MPI_SUM, w);
    } else {
        MPI_Put(sbuf, (int)bytes, MPI_BYTE, t, 0, (int)bytes, MPI_BYTE, w);
    }
}

/* ---- the synchronization calls, blocking or nonblocking + wait ---- */
static void icomplete(MPI_Win w, MPI_Request *r)
{
#if HAVE_NB
    if (nb) { MPIX_Win_icomplete(w, r); return; }
#endif
    MPI_Win_complete(w);
    *r = MPI_REQUEST_NULL;
}
static void iunlock(int t, MPI_Win w, MPI_Request *r)
{
#if HAVE_NB
    if (nb) { MPIX_Win_iunlock(t, w, r); return; }
#endif
    MPI_Win_unlock(t, w);
    *r = MPI_REQUEST_NULL;
}
static void ilock(int t, MPI_Win w, MPI_Request *r)
{
#if HAVE_NB
    if (nb) { MPIX_Win_ilock(MPI_LOCK_EXCLUSIVE, t, 0, w, r); return; }
#endif
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w);
    *r = MPI_REQUEST_NULL;
}
static void ifence(int a, MPI_Win w, MPI_Request *r)
{
#if HAVE_NB
    if (nb) { MPIX_Win_ifence(a, w, r); return; }
#endif
    MPI_Win_fence(a, w);
    *r = MPI_REQUEST_NULL;
}
static void istart(MPI_Group g, MPI_Win w, MPI_Request *r)
{
#if HAVE_NB
    if (nb) { MPIX_Win_istart(g, 0, w, r); return; }
#endif
    MPI_Win_start(g, 0, w);
    *r = MPI_REQUEST_NULL;
}
static void ipost(MPI_Group g, MPI_Win w, MPI_Request *r)
{
#if HAVE_NB
    if (nb) { MPIX_Win_ipost(g, 0, w, r); return; }
#endif
    MPI_Win_post(g, 0, w);
    *r = MPI_REQUEST_NULL;
}
static void iwait(MPI_Win w, MPI_Request *r)
{
#if HAVE_NB
    if (nb) { MPIX_Win_iwait(w, r); return; }
#endif
    MPI_Win_wait(w);
    *r = MPI_REQUEST_NULL;
}
static void wait(MPI_Request *r) { MPI_Wait(r, MPI_STATUS_IGNORE); }

static void run(const char *test, long bytes, char *buf, MPI_Win w)
{
    double *v = calloc((size_t)iters, sizeof(double)), *v2 = calloc((size_t)iters, sizeof(double));
    int reporter = 0;
    MPI_Request r1 = MPI_REQUEST_NULL, r2 = MPI_REQUEST_NULL, r3 = MPI_REQUEST_NULL;
    char *sbuf = malloc((size_t)bytes + 16);
    memset(sbuf, 1, (size_t)bytes + 16);
    for (int it = -3; it < iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), t = 0;
        if (!strcmp(test, "lat-gats") || !strcmp(test, "late-complete")) {
            MPI_Group g = one(me == 0 ? 1 : 0);
            int late = !strcmp(test, "late-complete");
            int n = late ? 1 : reps;
            for (int k = 0; k < n; k++) {
                if (me == 0) {
                    istart(g, w, &r1);
                    op1(sbuf, bytes, 1, w);
                    if (late && !nb) spin(delay_us);
                    icomplete(w, &r2);
                    if (late && nb) spin(delay_us);
                    wait(&r1);
                    wait(&r2);
                } else if (me == 1) {
                    ipost(g, w, &r1);
                    iwait(w, &r2);
                    wait(&r1);
                    wait(&r2);
                }
            }
            t = (MPI_Wtime() - t0) / n;
            reporter = late ? 1 : 0;
            MPI_Group_free(&g);
        } else if (!strcmp(test, "lat-fence")) {
            ifence(0, w, &r1);
            wait(&r1);
            t0 = MPI_Wtime();
            for (int k = 0; k < reps; k++) {
                if (me == 0) op1(sbuf, bytes, 1, w);
                ifence(0, w, &r2);
                wait(&r2);
            }
            t = (MPI_Wtime() - t0) / reps;
        } else if (!strcmp(test, "lat-lock") || !strcmp(test, "overlap-lock")) {
            int ov = !strcmp(test, "overlap-lock"), n = ov ? 1 : reps;
            if (me == 0) {
                for (int k = 0; k < n; k++) {
                    ilock(1, w, &r1);
                    op1(sbuf, bytes, 1, w);
                    if (ov && !nb) spin(delay_us);
                    iunlock(1, w, &r2);
                    if (ov && nb) spin(delay_us);
                    wait(&r1);
                    wait(&r2);
                }
                t = (MPI_Wtime() - t0) / n;
            }
        } else if (!strcmp(test, "busy-target")) {
            if (me == 0) {
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w);
                op1(sbuf, bytes, 1, w);
                MPI_Win_unlock(1, w);
                t = MPI_Wtime() - t0;
            } else if (me == 1) {
                work(delay_us);
                if (it >= 0) v2[it] = (MPI_Wtime() - t0) * 1e6;
            }
        } else if (!strcmp(test, "bw")) {
            int n = bytes >= 65536 ? 16 : 64;
            if (me == 0) {
                MPI_Win_lock_all(0, w);
                t0 = MPI_Wtime();
                for (int k = 0; k < n; k++) op1(sbuf, bytes, 1, w);
                MPI_Win_flush(1, w);
                t = MPI_Wtime() - t0;
                MPI_Win_unlock_all(w);
                t = (double)bytes * n / t / 1e12; /* MB/s once scaled by 1e6 below */
            }
        } else if (!strcmp(test, "late-post")) {
            /* 0 origin, 1 late target, 2 receives the follow-up */
            MPI_Group g = one(me == 0 ? 1 : 0);
            if (me == 0) {
                istart(g, w, &r1);
                MPI_Put(sbuf, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, w);
                icomplete(w, &r2);
                MPI_Isend(sbuf, (int)bytes, MPI_BYTE, 2, 5, MPI_COMM_WORLD, &r3);
                wait(&r3);
                t = MPI_Wtime() - t0; /* the follow-up transfer is done */
                wait(&r1);
                wait(&r2);
            } else if (me == 1) {
                late(delay_us);
                ipost(g, w, &r1);
                iwait(w, &r2);
                wait(&r1);
                wait(&r2);
            } else if (me == 2) {
                MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            MPI_Group_free(&g);
        } else if (!strcmp(test, "early-fence")) {
            ifence(0, w, &r1);
            wait(&r1);
            t0 = MPI_Wtime();
            if (me == 0) {
                MPI_Put(sbuf, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, w);
                ifence(0, w, &r2);
                wait(&r2);
            } else if (me == 1) {
                ifence(0, w, &r2);
                spin(delay_us);
                wait(&r2);
                t = MPI_Wtime() - t0;
            } else {
                ifence(0, w, &r2);
                wait(&r2);
            }
            reporter = 1;
        } else if (!strcmp(test, "wait-at-fence")) {
            ifence(MPI_MODE_NOPRECEDE, w, &r1);
            wait(&r1);
            t0 = MPI_Wtime();
            if (me == 0) {
                MPI_Put(sbuf, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, w);
                spin(delay_us);
                ifence(MPI_MODE_NOSUCCEED, w, &r2);
                wait(&r2);
            } else {
                ifence(MPI_MODE_NOSUCCEED, w, &r2);
                spin(delay_us); /* the target's own work */
                wait(&r2);
                t = MPI_Wtime() - t0;
            }
            reporter = 1;
        } else if (!strcmp(test, "reorder-aaa")) {
            /* origin 0: epoch toward 1 (posts DELAY late), then toward 2;
             * time until the second epoch is complete */
            MPI_Group g1 = one(1), g2 = one(2), g0 = one(0);
            MPI_Request rr[4];
            if (me == 0) {
                istart(g1, w, &rr[0]);
                MPI_Put(sbuf, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, w);
                icomplete(w, &rr[1]);
                istart(g2, w, &rr[2]);
                MPI_Put(sbuf, (int)bytes, MPI_BYTE, 2, 0, (int)bytes, MPI_BYTE, w);
                icomplete(w, &rr[3]);
                MPI_Wait(&rr[3], MPI_STATUS_IGNORE);
                t = MPI_Wtime() - t0;
                MPI_Waitall(3, rr, MPI_STATUSES_IGNORE);
            } else {
                if (me == 1) late(delay_us);
                if (me <= 2) {
                    ipost(g0, w, &rr[0]);
                    iwait(w, &rr[1]);
                    MPI_Waitall(2, rr, MPI_STATUSES_IGNORE);
                }
            }
            MPI_Group_free(&g0);
            MPI_Group_free(&g1);
            MPI_Group_free(&g2);
        } else if (!strcmp(test, "reorder-eae")) {
            /* target 0 exposes to 1 (accesses DELAY late), then to 2;
             * time until the second exposure is complete */
            MPI_Group g1 = one(1), g2 = one(2), g0 = one(0);
            MPI_Request rr[4];
            if (me == 0) {
                ipost(g1, w, &rr[0]);
                iwait(w, &rr[1]);
                ipost(g2, w, &rr[2]);
                iwait(w, &rr[3]);
                MPI_Wait(&rr[3], MPI_STATUS_IGNORE);
                t = MPI_Wtime() - t0;
                MPI_Waitall(3, rr, MPI_STATUSES_IGNORE);
            } else if (me <= 2) {
                if (me == 1) late(delay_us);
                istart(g0, w, &rr[0]);
                MPI_Put(sbuf, (int)bytes, MPI_BYTE, 0, me * 8, (int)bytes, MPI_BYTE, w);
                icomplete(w, &rr[1]);
                MPI_Waitall(2, rr, MPI_STATUSES_IGNORE);
            }
            MPI_Group_free(&g0);
            MPI_Group_free(&g1);
            MPI_Group_free(&g2);
        } else if (!strcmp(test, "late-unlock")) {
            /* 0 and 1 lock 2 exclusively, 0 first */
            if (me == 0) {
                ilock(2, w, &r1);
                wait(&r1);
                MPI_Send(NULL, 0, MPI_BYTE, 1, 6, MPI_COMM_WORLD);
                MPI_Put(sbuf, (int)bytes, MPI_BYTE, 2, 0, (int)bytes, MPI_BYTE, w);
                if (!nb) late(delay_us);
                iunlock(2, w, &r2);
                if (nb) late(delay_us);
                wait(&r2);
            } else if (me == 1) {
                MPI_Recv(NULL, 0, MPI_BYTE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                t0 = MPI_Wtime();
                ilock(2, w, &r1);
                MPI_Put(sbuf, (int)bytes, MPI_BYTE, 2, 0, (int)bytes, MPI_BYTE, w);
                iunlock(2, w, &r2);
                wait(&r1);
                wait(&r2);
                t = MPI_Wtime() - t0;
            }
            reporter = 1;
        }
        if (it >= 0) v[it] = t * 1e6;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    report(test, bytes, v, iters, reporter);
    if (!strcmp(test, "busy-target")) report("busy-target-work", bytes, v2, iters, 1);
    free(v);
    free(v2);
    free(sbuf);
}

/* Exclusive-lock accumulate transactions to random targets (256 B); the
 * nonblocking series keeps up to 16 transactions in flight. */
static void tx(MPI_Win w)
{
    /* an iteration runs for 0.2 s, longer than a scheduler time slice, so
     * that oversubscribed processes really compete (a fixed 400 took 50 us,
     * which a process could finish while the others slept) */
    int ntx = 1 << 30, inflight = nb ? 16 : 1;
    double vals[32];
    for (int i = 0; i < 32; i++) vals[i] = 1;
    MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * (size_t)inflight);
    double *v = calloc((size_t)iters, sizeof(double));
    srand(1234 + me);
    for (int it = -1; it < iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int k;
        for (k = 0; k < ntx && MPI_Wtime() - t0 < 0.2; k += inflight) {
            int m = 0;
            for (int j = 0; j < inflight && k + j < ntx; j++) {
                int t = rand() % np;
                ilock(t, w, &rq[m++]);
                MPI_Accumulate(vals, 32, MPI_DOUBLE, t, 0, 32, MPI_DOUBLE, MPI_SUM, w);
                iunlock(t, w, &rq[m++]);
            }
            MPI_Waitall(m, rq, MPI_STATUSES_IGNORE);
        }
        double dt = MPI_Wtime() - t0;
        if (it >= 0) v[it] = (k < ntx ? k : ntx) / dt;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    report("tx", 256, v, iters, 0);
    free(v);
    free(rq);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *test = "lat-lock", *sizes = "1,4,65536,1048576";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) test = argv[++i];
        else if (!strcmp(argv[i], "-m") && i + 1 < argc) nb = !strcmp(argv[++i], "nb");
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) sizes = argv[++i];
        else if (!strcmp(argv[i], "-d") && i + 1 < argc) delay_us = atof(argv[++i]);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-o") && i + 1 < argc) opname = argv[++i];
    }
    if (nb && !HAVE_NB) {
        if (me == 0) fprintf(stderr, "rma_bench: this MPI has no MPIX_Win_i* calls\n");
        MPI_Finalize();
        return 2;
    }
    int need = (!strcmp(test, "late-post") || !strcmp(test, "late-unlock") || !strncmp(test, "reorder", 7)) ? 3 : 2;
    if (np < need) {
        if (me == 0) fprintf(stderr, "rma_bench: %s needs %d ranks\n", test, need);
        MPI_Finalize();
        return 2;
    }
    if (!strcmp(test, "busy-target")) work_calibrate(); /* (its work only) */
    long maxb = 0;
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", sizes);
    for (char *s = strtok(tmp, ","); s; s = strtok(NULL, ",")) if (atol(s) > maxb) maxb = atol(s);
    char *buf;
    MPI_Win w;
    MPI_Win_allocate(maxb + 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &w);
    rbuf = malloc((size_t)maxb + 4096);
    memset(rbuf, 0, (size_t)maxb + 4096);
    if (me == 0) {
        printf("# rma_bench %s (%s), %s, delay %.0f us, %d iterations of %d epochs\n", test, opname,
               nb ? "nonblocking" : "blocking", delay_us, iters, reps);
        printf("test,mode,bytes,np,median_us,p25_us,p75_us\n");
    }
    if (!strcmp(test, "tx")) {
        tx(w);
    } else {
        snprintf(tmp, sizeof tmp, "%s", sizes);
        long list[16];
        int nl = 0;
        for (char *s = strtok(tmp, ","); s && nl < 16; s = strtok(NULL, ",")) list[nl++] = atol(s);
        for (int i = 0; i < nl; i++) run(test, list[i], buf, w);
    }
    MPI_Win_free(&w);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
