/* Tiny self-checking helpers shared by the MPI tests (header only).
 *
 * Contract: call fy_init() after MPI_Init (it records the test name, the
 * rank and arms a watchdog), use CHECK()/CHECK_RC() anywhere, and end with
 * `return fy_finish();` which gathers every rank's failure count at rank 0
 * after a Barrier, over point-to-point only (collectives other than Barrier may be missing),
 * calls MPI_Finalize, prints one PASS/FAIL line at rank 0 and returns the
 * process exit status (non-zero on any local failure). */
#ifndef FYTEST_H
#define FYTEST_H

#include <mpi.h>
/* gcc >= 11 flags MPI_STATUSES_IGNORE ((MPI_Status *)1) passed to array
 * parameters; the MPI standard defines that use. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fy_errs;
static int fy_rank_ = -1;
static int fy_size_ = 0;
static const char *fy_name = "test";

#define FY_TAG_RESULT 32000

static inline void fy_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fy_errs++;
    fprintf(stderr, "FAIL %s [rank %d] %s:%d: %s\n", fy_name, fy_rank_, file, line, msg);
    fflush(stderr);
}

/* The condition's text goes through "%s", never into the format: a `%`
 * in it (x % np) must not be read as a conversion. */
static inline void fy_fail_cond(const char *file, int line, const char *cond, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fy_fail(file, line, "(%s) %s", cond, msg);
}

/* CHECK(cond, "fmt", args...): count and report a failure, keep going. */
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) fy_fail_cond(__FILE__, __LINE__, #cond, __VA_ARGS__);     \
    } while (0)

/* CHECK_OK(MPI_Call(...)): the call must return MPI_SUCCESS. */
#define CHECK_OK(call)                                                         \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != MPI_SUCCESS) {                                              \
            char es_[MPI_MAX_ERROR_STRING]; int el_ = 0; es_[0] = 0;           \
            MPI_Error_string(rc_, es_, &el_);                                  \
            fy_fail(__FILE__, __LINE__, "%s returned %d (%s)", #call, rc_, es_);\
        }                                                                      \
    } while (0)

/* A Ferry counter (an MPI_T performance variable of class COUNTER, by
 * name), counted from fy_counter_start (a started handle counts: MPI 4.1,
 * 15.3.7). Call MPI_T_init_thread first. fy_counter_start returns 0, and
 * starts nothing, where the library has no such counter. */
typedef struct {
    MPI_T_pvar_session ses;
    MPI_T_pvar_handle h;
} fy_counter_t;
static inline int fy_counter_start(fy_counter_t *c, const char *name)
{
    int idx = -1, count = 0;
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS) return 0;
    CHECK_OK(MPI_T_pvar_session_create(&c->ses));
    CHECK_OK(MPI_T_pvar_handle_alloc(c->ses, idx, NULL, &c->h, &count));
    CHECK_OK(MPI_T_pvar_start(c->ses, c->h));
    return 1;
}
static inline unsigned long long fy_counter_read(fy_counter_t *c)
{
    unsigned long long v = 0;
    CHECK_OK(MPI_T_pvar_read(c->ses, c->h, &v));
    return v;
}
/* The last value; the handle and its session are freed. */
static inline unsigned long long fy_counter_end(fy_counter_t *c)
{
    unsigned long long v = fy_counter_read(c);
    CHECK_OK(MPI_T_pvar_handle_free(c->ses, &c->h));
    CHECK_OK(MPI_T_pvar_session_free(&c->ses));
    return v;
}

/* CHECK_CLASS(rc, MPI_ERR_x): rc must be an error code of that class. */
#define CHECK_CLASS(rc, cls)                                                   \
    do {                                                                       \
        int rc2_ = (rc), c_ = -1;                                              \
        if (rc2_ == MPI_SUCCESS) c_ = MPI_SUCCESS;                             \
        else MPI_Error_class(rc2_, &c_);                                       \
        if (c_ != (cls))                                                       \
            fy_fail(__FILE__, __LINE__, "%s: error class %d, expected %s (%d)",\
                    #rc, c_, #cls, (int)(cls));                                \
    } while (0)

static inline void fy_watchdog(int sig)
{
    (void)sig;
    static const char m[] = "FAIL watchdog: test did not finish in time\n";
    ssize_t w = write(2, m, sizeof m - 1);
    (void)w;
    _exit(3);
}

/* Arm a watchdog (seconds; default FYTEST_DEFAULT_TIMEOUT, 120 unless the
 * build scales it for sanitizers; env FYTEST_TIMEOUT overrides, 0 = off). */
#ifndef FYTEST_DEFAULT_TIMEOUT
#define FYTEST_DEFAULT_TIMEOUT 120
#endif
static inline void fy_init(const char *name)
{
    fy_name = name;
    MPI_Comm_rank(MPI_COMM_WORLD, &fy_rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &fy_size_);
    const char *t = getenv("FYTEST_TIMEOUT");
    int secs = t ? atoi(t) : FYTEST_DEFAULT_TIMEOUT;
    if (secs > 0) {
        signal(SIGALRM, fy_watchdog);
        alarm((unsigned)secs);
    }
}

/* Gather failure counts at rank 0, finalize, report. */
static inline int fy_finish(void)
{
    int total = fy_errs;
    /* keep result messages out of reach of wildcard receives still in use */
    MPI_Barrier(MPI_COMM_WORLD);
    if (fy_rank_ == 0) {
        for (int r = 1; r < fy_size_; r++) {
            int e = 0;
            if (MPI_Recv(&e, 1, MPI_INT, r, FY_TAG_RESULT, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE) != MPI_SUCCESS) e = 1;
            total += e;
        }
    } else {
        MPI_Send(&fy_errs, 1, MPI_INT, 0, FY_TAG_RESULT, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    if (fy_rank_ == 0) {
        if (total) printf("FAIL %s: %d failure(s) on %d rank(s)\n", fy_name, total, fy_size_);
        else printf("PASS %s (%d rank(s))\n", fy_name, fy_size_);
        fflush(stdout);
    }
    return (fy_errs || (fy_rank_ == 0 && total)) ? 1 : 0;
}

/* Deterministic byte pattern for (seed, index); fill and verify buffers. */
static inline unsigned char fy_pat(unsigned seed, size_t i)
{
    uint32_t x = seed * 2654435761u + (uint32_t)i * 40503u + (uint32_t)(i >> 16);
    return (unsigned char)(x ^ (x >> 13) ^ (x >> 24));
}
static inline void fy_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) p[i] = fy_pat(seed, i);
}
/* Returns the first wrong index, or (size_t)-1 when the buffer is right. */
static inline size_t fy_verify(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != fy_pat(seed, i)) return i;
    return (size_t)-1;
}

/* Monotonic seconds, and computing without MPI for about us microseconds
 * (the tests that need a peer busy or late). */
static inline double fy_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static inline void fy_spin_us(int us)
{
    double t0 = fy_now();
    volatile double x = 1.0;
    while ((fy_now() - t0) * 1e6 < us) x = x * 1.0000001 + 1e-9;
}

/* Running on Ferry? (messages naming arguments are checked only there) */
/* Some progress passes (MPI_Test), then whether r completed (r is kept
 * when it did not): for "must still be pending" checks, where the
 * operation cannot complete before something the test does next. */
static inline int fy_done_after_tests(MPI_Request *r)
{
    int flag = 0;
    for (int i = 0; i < 50 && !flag; i++) MPI_Test(r, &flag, MPI_STATUS_IGNORE);
    return flag;
}

static inline int fy_is_ferry(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    return strstr(v, "Ferry") != NULL;
}

#endif
