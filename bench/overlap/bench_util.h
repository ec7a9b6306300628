/*
 * bench_util.h: helpers shared by the overlap suite, the halo kernel,
 * bench/net/netlat and bench/postcost.
 *
 * - A calibrated busy loop ("synthetic work"): a dependent chain of volatile
 *   floating-point updates, no MPI call, no system call. It is calibrated
 *   before MPI_Init (no progress agent is running yet), so any CPU time an
 *   agent steals later shows up as a longer compute phase, as it would in an
 *   application. The calibration is checked against clock_gettime.
 * - Timers on CLOCK_MONOTONIC (the timed regions never call MPI_Wtime, so
 *   nothing in a compute phase enters the library).
 * - Small statistics, size arguments ("64K") and VmRSS from /proc/self/status.
 * Everything is static inline so each program is one translation unit.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile double bu_sink;
static double bu_iters_per_us = 100.0;

static inline double bu_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static inline void bu_spin_iters(long n)
{
    volatile double x = bu_sink;
    for (long i = 0; i < n; i++)
        x = x * 0.999999 + 1e-7;
    bu_sink = x;
}

/* Busy compute for about `us` microseconds of this core's time. */
static inline void bu_compute(double us)
{
    if (us > 0)
        bu_spin_iters((long)(us * bu_iters_per_us));
}

/* Busy compute of `us`, testing *flag != 0 about every microsecond; returns
 * the time (bu_now_us) at which the flag was first seen set, or 0. */
static inline double bu_compute_poll(double us, volatile const char *flag)
{
    long total = (long)(us * bu_iters_per_us), chunk = (long)bu_iters_per_us;
    double seen = 0;
    if (chunk < 1)
        chunk = 1;
    for (long done = 0; done < total; done += chunk) {
        bu_spin_iters(total - done < chunk ? total - done : chunk);
        if (!seen && *flag)
            seen = bu_now_us();
    }
    if (!seen && *flag)
        seen = bu_now_us();
    return seen;
}

/* Rate = best of several runs (least disturbed). Returns the measured time of
 * a 1000 us compute as a check (printed by the programs). */
static inline double bu_calibrate(void)
{
    long n = 200000;
    double best = 1e30;
    bu_spin_iters(n); /* warm-up */
    for (int r = 0; r < 7; r++) {
        double t0 = bu_now_us();
        bu_spin_iters(n);
        double t = bu_now_us() - t0;
        if (t > 0 && t < best)
            best = t;
    }
    bu_iters_per_us = n / best;
    double chk = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = bu_now_us();
        bu_compute(1000);
        double t = bu_now_us() - t0;
        if (t < chk)
            chk = t;
    }
    return chk;
}

/* "64K", "1M", "300": a size in bytes. */
static inline long bu_parse_size(const char *s)
{
    char *e;
    long v = strtol(s, &e, 10);
    if (*e == 'K' || *e == 'k')
        v <<= 10;
    else if (*e == 'M' || *e == 'm')
        v <<= 20;
    return v;
}

static inline int bu_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median and mean of v[0..n) (v is reordered). */
static inline void bu_stats(double *v, long n, double *median, double *mean)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += v[i];
    qsort(v, n, sizeof(*v), bu_cmp_double);
    *mean = n ? s / n : 0;
    *median = n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

/* A "Key:   value kB" field of /proc/self/status, or -1. */
static inline long bu_status_field(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':') {
            v = atol(line + kl + 1);
            break;
        }
    fclose(f);
    return v;
}

static inline const char *bu_size_name(long b, char *buf, size_t len)
{
    if (b >= (1L << 20) && b % (1L << 20) == 0)
        snprintf(buf, len, "%ldMiB", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, len, "%ldKiB", b >> 10);
    else
        snprintf(buf, len, "%ldB", b);
    return buf;
}

#endif
