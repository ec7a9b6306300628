/*
 * fipp: a ping-pong over a libfabric provider alone, no MPI, timed and
 * printed as netlat times and prints it (every round trip timed; median,
 * minimum, 10th and 90th percentile of the half round trip, the same
 * iterations and warm-up), so that bench/net/ab.sh can set the provider's
 * own floor beside MPI libraries with the same statistic. libfabric's
 * fi_pingpong prints a mean over its iterations, which a few slow trips
 * pull up: not comparable with a median.
 *
 *   fipp -r server|client -d DIR [-p PROVIDER] [-a ADDR] [-s 0,16K] [-n ITERS]
 *        [-b] [-B WINDOWS] [-U]
 *
 * The two sides exchange endpoint names through files in DIR (a directory
 * both can read: test hosts that are network namespaces of one machine
 * share the file system). -a binds to a local address (127.0.0.1 on one
 * host); without it the provider takes its first interface. The endpoint
 * is FI_EP_RDM with FI_MSG, completions polled (FI_WAIT_NONE, as
 * fi_pingpong; with FIPP_CQ_WAIT=fd in the environment the completion
 * queue has a file descriptor to sleep on, as Ferry's has, still polled:
 * what that costs the provider's completions), a receive posted before
 * each send, sends at or below the provider's inject size injected,
 * larger ones sent and their completion reaped; with FIPP_TAGGED=1 the
 * endpoint is FI_TAGGED and every message goes tagged (fi_tinject,
 * fi_tsend, fi_trecv with one tag), to measure what the provider's own
 * matching costs against its untagged path. -U: no ping-pong; a probe of
 * how the provider treats tagged messages that no posted receive matches
 * (see unexpected_probe). The client prints netlat's CSV. -b: also streaming bandwidth as
 * netlat -b measures it (the client keeps 64 sends in flight, injected up
 * to the inject size as in the ping-pong, the server
 * has 64 receives posted for each window and answers it with an empty
 * message; -B windows, netlat's defaults, after one to warm up); without
 * it the bandwidth column is 0.
 */
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct fid_cq *cq;
static struct fid_ep *ep;

/* netlat's size syntax (bench_util.h, which needs mpi.h): 16K, 1M, 100 */
static long parse_size(const char *s)
{
    char *e;
    long v = strtol(s, &e, 10);
    return *e == 'K' || *e == 'k' ? v << 10 : *e == 'M' || *e == 'm' ? v << 20 : v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void die(const char *what, long rc)
{
    fprintf(stderr, "fipp: %s: %s\n", what, rc ? fi_strerror((int)-rc) : "failed");
    exit(1);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Reap n completions, spinning. */
static void reap(int n)
{
    struct fi_cq_entry e[4];
    while (n > 0) {
        ssize_t k = fi_cq_read(cq, e, n < 4 ? n : 4);
        if (k > 0) {
            n -= (int)k;
        } else if (k == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr(cq, &err, 0);
            die("completion error", -err.err);
        } else if (k != -FI_EAGAIN) {
            die("fi_cq_read", k);
        }
    }
}

static int tagged; /* FIPP_TAGGED=1 */
enum { TAG = 0x5a };
static ssize_t post_recv(void *buf, size_t len, fi_addr_t from, void *ctx)
{
    return tagged ? fi_trecv(ep, buf, len, NULL, from, TAG, 0, ctx) : fi_recv(ep, buf, len, NULL, from, ctx);
}
static ssize_t post_inject(const void *buf, size_t len, fi_addr_t to)
{
    return tagged ? fi_tinject(ep, buf, len, to, TAG) : fi_inject(ep, buf, len, to);
}
static ssize_t post_send(const void *buf, size_t len, fi_addr_t to, void *ctx)
{
    return tagged ? fi_tsend(ep, buf, len, NULL, to, TAG, ctx) : fi_send(ep, buf, len, NULL, to, ctx);
}

/* A post that the provider may refuse for now (connecting): retry, progressing. */
#define POST(call, what)                                                                           \
    do {                                                                                           \
        ssize_t rc_;                                                                               \
        while ((rc_ = (call)) == -FI_EAGAIN) {                                                     \
            struct fi_cq_entry e_;                                                                 \
            ssize_t k_ = fi_cq_read(cq, &e_, 1);                                                   \
            if (k_ > 0)                                                                            \
                pending--;                                                                         \
        }                                                                                          \
        if (rc_)                                                                                   \
            die(what, rc_);                                                                        \
    } while (0)

/* Post, retrying while the provider says again (progressing it without
 * reaping: unlike POST, the probe waits for particular completions). */
#define POSTRC(call, what)                                                                         \
    do {                                                                                           \
        ssize_t rc_;                                                                               \
        while ((rc_ = (call)) == -FI_EAGAIN)                                                       \
            fi_cq_read(cq, NULL, 0);                                                               \
        if (rc_)                                                                                   \
            die(what, rc_);                                                                        \
    } while (0)

/* Poll until the completions of want[0..nwant) are in (got[i] set for
 * each) or ms have passed; other completions are dropped. */
static void poll_for(struct fi_context *want, int nwant, double ms, int *got)
{
    double end = now_us() + ms * 1e3;
    while (now_us() < end) {
        struct fi_cq_entry e;
        ssize_t k = fi_cq_read(cq, &e, 1);
        if (k == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr(cq, &err, 0);
            die("completion error", -err.err);
        }
        if (k <= 0)
            continue;
        int all = 1;
        for (int i = 0; i < nwant; i++) {
            if (e.op_context == &want[i])
                got[i] = 1;
            all &= got[i];
        }
        if (all)
            return;
    }
}

/* -U: for each size S, the client sends a tagged message of S bytes (tag
 * A) and right behind it one of 8 bytes (tag B), both before the server
 * has a receive for either; the server, 50 ms later, posts a receive for
 * B alone and polls for up to 500 ms, then posts one for A. It prints
 * whether B arrived while A was unmatched (a provider that holds
 * unexpected tagged messages for later lets it through; one that stops
 * reading the connection at A does not) and how long A and B took once
 * their receives were posted. An untagged message from the server starts
 * each size. */
static void unexpected_probe(int client, fi_addr_t peer, const char *sizes, size_t inject)
{
    enum { TAG_A = 1, TAG_B = 2 };
    char *list = strdup(sizes);
    if (!client)
        printf("bytes,later_msg_passed_unmatched,first_done_ms,later_done_ms\n");
    for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
        size_t size = (size_t)parse_size(t);
        char *a = calloc(1, size + 1), b[8] = {0}, go = 0;
        struct fi_context c[3];
        int got[3] = {0, 0, 0};
        if (client) {
            POSTRC(fi_recv(ep, &go, 1, NULL, peer, &c[2]), "fi_recv");
            poll_for(&c[2], 1, 60000, &got[2]);
            if (!got[2])
                die("no word from the server within 60 s", 0);
            if (size <= inject)
                POSTRC(fi_tinject(ep, a, size, peer, TAG_A), "fi_tinject");
            else
                POSTRC(fi_tsend(ep, a, size, NULL, peer, TAG_A, &c[0]), "fi_tsend");
            POSTRC(fi_tinject(ep, b, sizeof b, peer, TAG_B), "fi_tinject");
            if (size > inject) /* (a is sent from until its completion) */
                poll_for(&c[0], 1, 60000, &got[0]);
            if (size > inject && !got[0])
                die("the tagged send did not complete within 60 s", 0);
        } else {
            POSTRC(fi_inject(ep, &go, 1, peer), "fi_inject");
            usleep(50000);
            POSTRC(fi_trecv(ep, b, sizeof b, NULL, peer, TAG_B, 0, &c[1]), "fi_trecv");
            double t0 = now_us();
            poll_for(&c[1], 1, 500, &got[1]);
            int passed = got[1];
            double tb = passed ? (now_us() - t0) / 1e3 : -1;
            POSTRC(fi_trecv(ep, a, size, NULL, peer, TAG_A, 0, &c[0]), "fi_trecv");
            t0 = now_us();
            poll_for(c, 2, 5000, got);
            double ta = got[0] ? (now_us() - t0) / 1e3 : -1;
            if (!passed && got[1])
                tb = (now_us() - t0) / 1e3;
            printf("%zu,%s,%.3f,%.3f\n", size, passed ? "yes" : "no", ta, got[1] ? tb : -1.0);
            fflush(stdout);
        }
        free(a);
    }
    free(list);
}

/* Write our name to DIR/ROLE.addr (atomically), read the peer's. */
static size_t swap_names(const char *dir, const char *role, const char *peer, const void *mine, size_t mlen,
                         void *theirs, size_t tlen)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s.addr", dir, role);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(mine, 1, mlen, f) != mlen || fclose(f) != 0 || rename(tmp, path) != 0)
        die("writing the endpoint name", 0);
    snprintf(path, sizeof path, "%s/%s.addr", dir, peer);
    for (int ms = 0; ms < 60000; ms++) {
        f = fopen(path, "rb");
        if (f) {
            size_t n = fread(theirs, 1, tlen, f);
            fclose(f);
            if (n > 0)
                return n;
        }
        usleep(1000);
    }
    die("no peer name within 60 s", 0);
    return 0;
}

int main(int argc, char **argv)
{
    const char *sizes = "0,8,1K,16K,64K,1M,4M", *dir = NULL, *role = NULL, *prov = "net", *addr = NULL;
    long niter = 0, nwin = 0;
    int opt, bw = 0, probe = 0;
    enum { WINDOW = 64 }; /* netlat's default */
    while ((opt = getopt(argc, argv, "r:d:p:a:s:n:bB:U")) != -1) {
        switch (opt) {
        case 'r': role = optarg; break;
        case 'd': dir = optarg; break;
        case 'p': prov = optarg; break;
        case 'a': addr = optarg; break;
        case 's': sizes = optarg; break;
        case 'n': niter = atol(optarg); break;
        case 'b': bw = 1; break;
        case 'B': nwin = atol(optarg); break;
        case 'U': probe = 1; break;
        default: role = NULL; optind = argc; break;
        }
    }
    if (!dir || !role || (strcmp(role, "server") && strcmp(role, "client"))) {
        fprintf(stderr, "usage: fipp -r server|client -d DIR [-p PROVIDER] [-a ADDR] [-s sizes] [-n iters] [-b] [-B windows] [-U]\n");
        return 2;
    }
    int client = !strcmp(role, "client");

    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    hints->ep_attr->type = FI_EP_RDM;
    const char *tg = getenv("FIPP_TAGGED");
    tagged = tg && !strcmp(tg, "1");
    hints->caps = probe ? FI_MSG | FI_TAGGED : tagged ? FI_TAGGED : FI_MSG;
    hints->mode = FI_CONTEXT;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup(prov);
    int rc = fi_getinfo(FI_VERSION(1, 9), addr, addr ? "0" : NULL, addr ? FI_SOURCE : 0, hints, &info);
    if (rc)
        die("fi_getinfo (provider not offered?)", rc);
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    if ((rc = fi_fabric(info->fabric_attr, &fabric, NULL)) || (rc = fi_domain(fabric, info, &domain, NULL)))
        die("opening the domain", rc);
    const char *wait = getenv("FIPP_CQ_WAIT");
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT,
                             .wait_obj = wait && !strcmp(wait, "fd") ? FI_WAIT_FD : FI_WAIT_NONE};
    struct fi_av_attr ava = {.type = FI_AV_TABLE};
    if ((rc = fi_cq_open(domain, &cqa, &cq, NULL)) || (rc = fi_av_open(domain, &ava, &av, NULL)) ||
        (rc = fi_endpoint(domain, info, &ep, NULL)) || (rc = fi_ep_bind(ep, &cq->fid, FI_SEND | FI_RECV)) ||
        (rc = fi_ep_bind(ep, &av->fid, 0)) || (rc = fi_enable(ep)))
        die("opening the endpoint", rc);
    char mine[256], theirs[256];
    size_t mlen = sizeof mine;
    if ((rc = fi_getname(&ep->fid, mine, &mlen)))
        die("fi_getname", rc);
    swap_names(dir, role, client ? "server" : "client", mine, mlen, theirs, sizeof theirs);
    fi_addr_t peer;
    if (fi_av_insert(av, theirs, 1, &peer, 0, NULL) != 1)
        die("fi_av_insert", 0);
    size_t inject = info->tx_attr->inject_size;
    if (probe) {
        unexpected_probe(client, peer, sizes, inject);
        if (!client)
            usleep(200000);
        goto out;
    }

    long maxb = 1;
    char *list = strdup(sizes);
    for (char *t = strtok(list, ","); t; t = strtok(NULL, ","))
        if (parse_size(t) > maxb)
            maxb = parse_size(t);
    free(list);
    char *sbuf = malloc(maxb), *rbuf = malloc(maxb);
    memset(sbuf, client ? 'c' : 's', maxb);
    struct fi_context sctx, rctx, wctx[WINDOW];
    int pending = 0; /* (POST's retries count completions they reap) */
    if (client)
        printf("bytes,iters,lat_med_us,lat_min_us,bw_GBps,lat_p10_us,lat_p90_us\n");
    list = strdup(sizes);
    for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
        size_t size = (size_t)parse_size(t);
        long n = niter ? niter : size < 65536 ? 2000 : size < (1 << 20) ? 400 : 100;
        long warm = n / 10 + 1;
        double *d = malloc(sizeof *d * n);
        for (long i = -warm; i < n; i++) {
            double a = now_us();
            pending = 1;
            POST(post_recv(rbuf, size, peer, &rctx), "fi_recv");
            if (!client) {
                reap(pending);
                pending = 0;
            }
            if (size <= inject) {
                POST(post_inject(sbuf, size, peer), "fi_inject");
            } else {
                pending++;
                POST(post_send(sbuf, size, peer, &sctx), "fi_send");
            }
            if (pending > 0)
                reap(pending);
            if (i >= 0)
                d[i] = (now_us() - a) / 2;
        }
        qsort(d, n, sizeof *d, cmp_double);
        double gbs = 0;
        if (bw) {
            long nb = nwin > 0 ? nwin : size < 65536 ? 50 : size < (1 << 20) ? 10 : 3;
            double t0 = 0;
            for (long i = -1; i < nb; i++) {
                if (i == 0)
                    t0 = now_us();
                if (client) {
                    pending = 1;
                    POST(post_recv(rbuf, 0, peer, &rctx), "fi_recv");
                    for (int w = 0; w < WINDOW; w++) {
                        if (size <= inject) {
                            POST(post_inject(sbuf, size, peer), "fi_inject");
                            continue;
                        }
                        pending++;
                        POST(post_send(sbuf, size, peer, &wctx[w]), "fi_send");
                    }
                    reap(pending);
                } else {
                    pending = 0;
                    for (int w = 0; w < WINDOW; w++) {
                        pending++;
                        POST(post_recv(rbuf, size, peer, &wctx[w]), "fi_recv");
                    }
                    reap(pending);
                    pending = 0;
                    POST(post_inject(sbuf, 0, peer), "fi_inject");
                }
            }
            gbs = (double)size * WINDOW * nb / (now_us() - t0) / 1e3;
        }
        if (client) {
            printf("%zu,%ld,%.3f,%.3f,%.4f,%.3f,%.3f\n", size, n, d[n / 2], d[0], gbs, d[n / 10],
                   d[n - 1 - n / 10]);
            fflush(stdout);
        }
        free(d);
    }
    /* The server's last answer may still be queued in its provider: let
     * the client take it before the endpoint closes. */
    if (!client)
        usleep(200000);
    free(list);
    free(sbuf);
    free(rbuf);
out:
    fi_close(&ep->fid);
    fi_close(&av->fid);
    fi_close(&cq->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    return 0;
}
