/* ofi transport over libfabric: see fy_ofi.h. */
#include "transport/ofi/fy_ofi.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>

fy_ofi_stats_t fy_ofi_stats;
static char errbuf[1024];

static void seterr(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, sizeof errbuf, fmt, ap);
  va_end(ap);
}

const char *fy_ofi_error(void) { return errbuf; }

/* A registration of a provider that moves data through the kernel's
 * sockets or cross-memory attach pins nothing: the data is read from the
 * address at transfer time, so a cached registration stays right when the
 * application frees the buffer and gets the same addresses back. An RDMA
 * NIC's registration pins the pages it found, and Ferry's cache has no
 * memory hooks to see them unmapped: a freed and re-allocated buffer at
 * the same address would hit the old registration, and the NIC would move
 * the old pages. There the cache is off by default; libfabric's own
 * registration cache (verbs, efa), which watches for unmapped memory,
 * keeps registering cheap. */
int fy_ofi_mr_cache_auto(const char *prov) {
  static const char *copying[] = {"tcp", "net", "sockets", "udp", "shm", NULL};
  size_t n = strcspn(prov, ";"); /* the core provider: "tcp" of "tcp;ofi_rxm" */
  for (int i = 0; copying[i]; i++)
    if (strlen(copying[i]) == n && !strncmp(prov, copying[i], n)) return 16;
  return 0;
}

#ifndef FY_HAVE_OFI
int fy_ofi_init(const fy_ofi_boot_t *boot, const fy_ofi_cb_t *cb) {
  seterr("Ferry was built without libfabric (install libfabric-dev and rebuild)");
  return -1;
}
void fy_ofi_finalize(void) {}
const char *fy_ofi_provider(void) { return "none"; }
const char *fy_ofi_domain(void) { return "none"; }
size_t fy_ofi_msg_max(void) { return 0; }
size_t fy_ofi_inject_size(void) { return 0; }
size_t fy_ofi_whole_max(const char *prov) { return SIZE_MAX; }
int fy_ofi_machine_ranks(void) { return 0; }
int fy_ofi_machine_index(void) { return 0; }
int fy_ofi_send(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen) { return -1; }
int fy_ofi_send_ref(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen, void *ctx) { return -1; }
int fy_ofi_poll(void) { return 0; }
size_t fy_ofi_tagged_max(void) { return 0; }
int fy_ofi_tsend(int dst, const void *data, size_t len, uint64_t tag, void *ctx) { return -1; }
void fy_ofi_trecv(void *buf, size_t len, uint64_t tag, void *ctx) {}
int fy_ofi_busy(void) { return 0; }
int fy_ofi_queued(void) { return 0; }
int fy_ofi_connect_stalled(void) { return 0; }
int fy_ofi_writes_ordered(void) { return 0; }
fy_ofi_mr_t *fy_ofi_mr_get(const void *buf, size_t len) { return NULL; }
void fy_ofi_mr_put(fy_ofi_mr_t *mr) {}
int fy_ofi_local_mr(void) { return 0; }
uint64_t fy_ofi_mr_key(const fy_ofi_mr_t *mr) { return 0; }
uint64_t fy_ofi_mr_raddr(const fy_ofi_mr_t *mr, const void *buf) { return 0; }
void fy_ofi_rma(int op, int peer, void *buf, size_t len, fy_ofi_mr_t *mr, uint64_t raddr, uint64_t key,
                void *ctx) {}
int fy_ofi_wait_fd(void) { return -1; }
void fy_ofi_flush(void) {}
int fy_ofi_trywait(void) { return 0; }
int fy_ofi_probe(const char *provider, char *chosen, size_t clen, char *offered, size_t olen) {
  seterr("Ferry was built without libfabric");
  return -1;
}
const char *fy_ofi_version(void) { return NULL; }
#else
/* libfabric is loaded when a job first needs it (dlopen), not linked:
 * loading it runs the constructors of every provider library Debian's
 * build depends on, and libpsm_infinipath's sleeps (0.2 s), which every
 * process of a job on one node would pay at its start. These five are
 * the only libfabric functions that are real symbols; the rest of the API
 * is inline calls through the objects' operation tables. */
#define fi_getinfo fy_fi_getinfo
#define fi_freeinfo fy_fi_freeinfo
#define fi_dupinfo fy_fi_dupinfo
#define fi_fabric fy_fi_fabric
#define fi_strerror fy_fi_strerror
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_eq.h>
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/stat.h>
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "transport/ofi/fy_ofi_iface.h"

static struct {
  int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
  void (*freeinfo)(struct fi_info *);
  struct fi_info *(*dupinfo)(const struct fi_info *);
  int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
  const char *(*strerror)(int);
  uint32_t (*version)(void);
} lf;

/* The constructors of the libraries libfabric pulls in must not take the
 * application's signals. Debian's libinfinipath (under libpsm_infinipath)
 * installs, when loaded, a handler for SIGSEGV, SIGBUS, SIGILL, SIGABRT,
 * SIGINT and SIGTERM that prints a backtrace, writes a .btr file into the
 * working directory and exits with code 1: a handler the application set
 * before MPI_Init was lost, and a crash read as a plain exit. Its switch
 * (IPATH_NO_BACKTRACE; HFI_NO_BACKTRACE for psm2) is set unless the user
 * set it, as Open MPI does, and the actions are put back after the load
 * for any other library that does the same. */
static const int lf_sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE, SIGINT, SIGTERM, SIGQUIT};
enum { LF_NSIGS = sizeof lf_sigs / sizeof lf_sigs[0] };

static void *lf_dlopen(void) {
  struct sigaction saved[LF_NSIGS];
  for (int i = 0; i < LF_NSIGS; i++) sigaction(lf_sigs[i], NULL, &saved[i]);
  setenv("IPATH_NO_BACKTRACE", "1", 0);
  setenv("HFI_NO_BACKTRACE", "1", 0);
  void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
  for (int i = 0; i < LF_NSIGS; i++) sigaction(lf_sigs[i], &saved[i], NULL);
  return h;
}

/* 0 once libfabric is loaded; -1 with a message in fy_ofi_error(). */
static int lf_load(void) {
  static int state; /* 0: not tried, 1: loaded, -1: failed */
  if (state) return state > 0 ? 0 : -1;
  void *h = lf_dlopen();
  if (h) {
    *(void **)&lf.getinfo = dlsym(h, "fi_getinfo");
    *(void **)&lf.freeinfo = dlsym(h, "fi_freeinfo");
    *(void **)&lf.dupinfo = dlsym(h, "fi_dupinfo");
    *(void **)&lf.fabric = dlsym(h, "fi_fabric");
    *(void **)&lf.strerror = dlsym(h, "fi_strerror");
    *(void **)&lf.version = dlsym(h, "fi_version");
  }
  if (!h || !lf.getinfo || !lf.freeinfo || !lf.dupinfo || !lf.fabric || !lf.strerror || !lf.version) {
    const char *why = dlerror();
    seterr("cannot load libfabric (libfabric.so.1): %s", why ? why : "a function is missing");
    state = -1;
    return -1;
  }
  state = 1;
  return 0;
}

int fy_fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
                  const struct fi_info *hints, struct fi_info **info) {
  return lf_load() ? -FI_ENOSYS : lf.getinfo(version, node, service, flags, hints, info);
}
void fy_fi_freeinfo(struct fi_info *info) {
  if (info && !lf_load()) lf.freeinfo(info);
}
struct fi_info *fy_fi_dupinfo(const struct fi_info *info) { return lf_load() ? NULL : lf.dupinfo(info); }
int fy_fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context) {
  return lf_load() ? -FI_ENOSYS : lf.fabric(attr, fabric, context);
}
const char *fy_fi_strerror(int errnum) { return lf.strerror ? lf.strerror(errnum) : "libfabric is not loaded"; }

const char *fy_ofi_version(void) {
  static char v[24];
  if (lf_load()) return NULL;
  uint32_t x = lf.version();
  snprintf(v, sizeof v, "%u.%u", FI_MAJOR(x), FI_MINOR(x));
  return v;
}

/* Every operation context starts with the provider's scratch space (the
 * larger fi_context2, so providers that ask for FI_CONTEXT2, such as opx,
 * are offered too) and says what it is. */
enum { C_RECV = 1, C_SEND, C_RMA, C_TSEND, C_TRECV };
typedef struct ctxh { struct fi_context2 fc; int kind; } ctxh_t;

/* A message: 8-byte prefix (source rank, per-pair sequence number) + the
 * caller's bytes. FI_ORDER_SAS orders the matching of messages, not their
 * completions: a provider that moves a long message by its own rendezvous
 * (ofi_rxm above its eager size) completes a later short one first. The
 * receiver delivers by sequence number and holds early arrivals.
 *
 * With multi-receive buffers the provider puts each message right after
 * the one before, and the packet headers are read in place: a message of a
 * length that is not a multiple of 8 left every later one in that buffer
 * at an odd address, each copied whole to an aligned buffer before use
 * (pingpong across the test hosts: 16 % of the messages up to 16 KiB, a
 * second copy of the data on the receive path). So a sender with
 * multi-receive buffers pads each message to a multiple of 8 bytes, and
 * src's top bits say how many bytes of padding follow (prefix, completed). */
typedef struct pfx { uint32_t src, seq; } pfx_t;
#define PAD_SHIFT 29 /* ranks below 2^29 */
#define PAD_MAX 7
static const char zeros[PAD_MAX + 1]; /* the padding */
typedef struct early { struct early *next; uint32_t seq; size_t len; char data[]; } early_t;

typedef struct rbuf {
  ctxh_t c;
  char *buf;
  struct iovec iov; /* of a multi-receive buffer: kept while posted (FI_ASYNC_IOV) */
  size_t filled;    /* ... the bytes of its messages delivered since it was posted */
  int back;         /* ... given back by the provider, */
  size_t extent;    /* ... where its last message ends */
} rbuf_t;

/* A send buffer of the registered pool, or a queued message. */
typedef struct sbuf {
  ctxh_t c;
  struct sbuf *next;
  int dst;
  size_t len;
  char *buf;         /* in the pool's slab, or malloc'd while queued without one */
  int pooled;
  /* by reference (fy_ofi_send_ref): buf holds prefix and header, these
   * bytes follow them on the wire and stay the caller's until on_sent */
  const void *ref;
  size_t rlen;
  void *rctx;
  size_t pad;          /* of a send by reference: the bytes of padding after ref */
  struct iovec iov[3]; /* of a send by reference: kept until it completes (FI_ASYNC_IOV) */
  /* a tagged send (fy_ofi_tsend, kind C_TSEND): only ref/rlen/rctx, its
   * own allocation, no prefix (matched by tag, outside the sequence) */
  uint64_t tag;
} sbuf_t;

/* A posted tagged receive (fy_ofi_trecv), or one waiting to be posted. */
typedef struct trecv {
  ctxh_t c;
  struct trecv *next;
  void *buf;
  size_t len;
  uint64_t tag;
  void *ctx;
} trecv_t;

/* One RMA operation (several pieces). */
typedef struct rma_op { void *ctx; int left; } rma_op_t;
typedef struct rma_piece {
  ctxh_t c;
  struct rma_piece *next;
  rma_op_t *op;
  int write, peer, notify;
  void *buf;
  size_t len;
  void *desc;
  uint64_t raddr, key;
  struct iovec iov;        /* of a write: kept until it completes (FI_ASYNC_IOV) */
  struct fi_rma_iov riov;
} rma_piece_t;

struct fy_ofi_mr {
  struct fid_mr *mr;
  char *base;
  size_t len;
  int refs, cached;
  uint64_t used;     /* LRU stamp */
  struct fy_ofi_mr *prev, *next; /* (in the busy list, not cached) */
};

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_cq *cq;
static struct fid_av *av;
static struct fid_ep *ep;
static fi_addr_t *addrs;
static fy_ofi_cb_t cbs;
static int myrank, nranks, wait_fd = -1, local_mr, virt_addr, prov_key, mr_ep, saw, cq_data;
static size_t msg_max, inject_size, prov_max;
static uint64_t next_key = 1, key_high, stamp; /* key_high: FERRY_OFI_EMULATE's key64 */
static unsigned emu_eagain, emu_calls; /* FERRY_OFI_EMULATE's eagain=N */
static char prov_name[128];

#define NRECV 64
#define NSEND 128
/* Receive buffers. With FI_MULTI_RECV, NMULTI buffers of MULTI_MSGS
 * largest messages each: messages land one after the other and the
 * provider gives a buffer back (its completion flagged FI_MULTI_RECV) once
 * less than one largest message fits, so a 64-byte message takes its
 * size, not a whole 64 KiB buffer (1 MiB per process instead of 4).
 * Otherwise NRECV buffers of one message each.
 * The flag comes with the last message placed, which need not be the last
 * to complete: a message from another peer placed before it may still be
 * arriving on its own connection. So a buffer is posted again only once
 * the bytes delivered from it reach the end of that last message
 * (recv_done). That needs the provider to place messages end to end, with
 * the flag on a message: libfabric 1.17's net does (xnet_alter_mrecv);
 * later tcp counts references and flags the last to complete, which the
 * rule also covers.
 * ofi_rxm also places them end to end, but gives a buffer back in a
 * completion of its own when it matches queued messages at the post,
 * whose data may still be on the way: a layered provider, and any other,
 * keeps a buffer per message (multi_ok). */
#define NMULTI 4
#define MULTI_MSGS 4
static rbuf_t rbufs[NRECV];
static int nrbufs, multi;
static size_t rbsz;   /* bytes of each posted receive buffer */
static char *aligned; /* one message, for one that landed at an odd address */
static char *rslab, *sslab;
static struct fid_mr *rslab_mr, *sslab_mr;
static sbuf_t sbufs[NSEND];
static sbuf_t *sfree;                    /* free pool buffers */
static sbuf_t *qhead, *qtail;            /* messages waiting to be posted, in order */
static rma_piece_t *rhead, *rtail;       /* RMA pieces waiting to be posted */
static rma_piece_t *idone;               /* injected writes (no completion comes): done at the next poll */
static int inflight;                     /* sends + RMA pieces + tagged receives posted, not completed */
static trecv_t *thead, *ttail;           /* tagged receives the provider refused for now */
static int tagged;                       /* FI_TAGGED asked and given (fy_ofi_tsend, fy_ofi_trecv) */

static fy_ofi_mr_t **cache;
static int ncache;
/* Registrations in use that found no cache slot (every one held by a
 * transfer in flight): found by later lookups too, else a stream of small
 * operations on one page while 16 others were busy registered every one
 * of them (12 338 registrations for 20 000 gets). */
static fy_ofi_mr_t *busy;
static uint32_t *tx_seq, *rx_seq;        /* per peer: next to send, next to deliver */
static uint8_t *took;                    /* per peer: a message of ours was accepted */
static double *connect_since;            /* per peer: when the provider first refused it, connecting */
static double connect_timeout;           /* seconds (fy_ofi_boot_t) */
static uint8_t *probed;                  /* per peer: its address was tried (probe) */
static uint8_t *injected;                /* per peer: injected since the last tracked send */
static early_t **early;                  /* per source: arrivals ahead of rx_seq, sorted */

const char *fy_ofi_provider(void) { return prov_name; }
const char *fy_ofi_domain(void) {
  return info && info->domain_attr && info->domain_attr->name ? info->domain_attr->name : "?";
}
size_t fy_ofi_msg_max(void) { return msg_max; }
size_t fy_ofi_inject_size(void) { return inject_size; }
size_t fy_ofi_whole_max(const char *prov) {
  if (!prov || !strstr(prov, "ofi_rxm")) return SIZE_MAX;
  /* rxm's eager limit is its bounce buffers' size, of the payload it is
   * given (1.17: 16384 bytes go whole, 16385 by segmentation, 2.3x the
   * time over tcp); ours carries the prefix and at most PAD_MAX bytes of
   * padding besides the caller's */
  size_t room = 16384;
  const char *e = getenv("FI_OFI_RXM_BUFFER_SIZE");
  if (e && *e) {
    char *end;
    unsigned long long v = strtoull(e, &end, 0);
    if (!*end && v > 0) room = (size_t)v;
  }
  size_t extra = sizeof(pfx_t) + PAD_MAX;
  return room > extra ? room - extra : 0;
}
static int machine_ranks, machine_index;
int fy_ofi_machine_ranks(void) { return machine_ranks; }
int fy_ofi_machine_index(void) { return machine_index; }
int fy_ofi_busy(void) { return inflight || qhead || rhead || thead; }
int fy_ofi_queued(void) { return qhead || rhead || thead; }
size_t fy_ofi_tagged_max(void) { return tagged ? prov_max : 0; }
int fy_ofi_writes_ordered(void) { return saw && !rhead; }
int fy_ofi_wait_fd(void) { return wait_fd; }

/* The fd to sleep on. The completion queue's wait fd (FI_GETWAIT) is an
 * epoll set; libfabric's util wait set puts in it a socketpair that signals
 * each completion written to the queue, next to the epoll set of the
 * provider's sockets. The net provider of libfabric 1.17 never resets that
 * signal (its fi_trywait returns at once), so after the first completion
 * the wait fd stays readable for good and a wait that polls it never
 * sleeps (strace: poll returns at once, the provider's epoll_wait finds
 * nothing). Completions only appear while we poll (manual progress), so
 * the signal tells a waiting thread nothing the sockets do not: when the
 * set holds exactly one epoll set besides sockets, sleep on that one.
 * Only for net and tcp (the same code); anything else there (another
 * layout, no /proc) keeps the wait fd, as do the other providers.
 * Read-only: nothing of the provider's is read or changed. Should the
 * provider later add an fd to the outer set only, a wait would miss its
 * wake-up for at most one sleep (FERRY_SLEEP_US): late, never hung. */
static int sockets_fd(int fd) {
  char path[64], line[256], link[64];
  snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
  FILE *f = fopen(path, "r");
  if (!f) return fd;
  int inner = -1, epolls = 0, others = 0;
  while (fgets(line, sizeof line, f)) {
    int t;
    if (sscanf(line, "tfd: %d", &t) != 1) continue;
    snprintf(path, sizeof path, "/proc/self/fd/%d", t);
    ssize_t n = readlink(path, link, sizeof link - 1);
    link[n > 0 ? n : 0] = 0;
    struct stat sb;
    if (!strcmp(link, "anon_inode:[eventpoll]")) {
      epolls++;
      inner = t;
    } else if (fstat(t, &sb) != 0 || !S_ISSOCK(sb.st_mode)) {
      others++;
    }
  }
  fclose(f);
  return epolls == 1 && !others ? inner : fd;
}

#define CHECK(call, what)                                                        \
  do {                                                                           \
    int rc_ = (int)(call);                                                       \
    if (rc_) {                                                                   \
      seterr("%s failed: %s (provider %s)", what, fi_strerror(-rc_), prov_name); \
      goto fail;                                                                 \
    }                                                                            \
  } while (0)

/* The transport cannot go on: say why, naming this rank, and abort (the
 * launcher reports the death and ends the job). */
__attribute__((format(printf, 1, 2), noreturn)) static void fatalf(const char *fmt, ...) {
  /* (one write: the ranks of a job that all fail at once share stderr) */
  char msg[1024];
  int k = snprintf(msg, sizeof msg, "ferry: rank %d: ", myrank);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg + k, sizeof msg - (size_t)k - 1, fmt, ap);
  va_end(ap);
  strcat(msg, "\n");
  if (write(2, msg, strlen(msg)) < 0) { /* nothing else to tell */
  }
  abort();
}

static void fatal(const char *what, int rc) {
  fatalf("libfabric %s failed: %s (provider %s)", what, fi_strerror(rc < 0 ? -rc : rc), prov_name);
}

/* An emulated full queue (boot->emu_eagain): this call is refused. */
static int refused(void) { return emu_eagain && ++emu_calls % emu_eagain == 0; }

static struct fid_mr *reg(void *buf, size_t len, uint64_t access) {
  struct fid_mr *mr = NULL;
  int rc = fi_mr_reg(domain, buf, len, access, 0, prov_key ? 0 : key_high | next_key++, 0, &mr, NULL);
  if (rc) return NULL;
  if (mr_ep) {
    if (fi_mr_bind(mr, &ep->fid, 0) || fi_mr_enable(mr)) {
      fi_close(&mr->fid);
      return NULL;
    }
  }
  return mr;
}

static const uint64_t ACCESS = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;

/* ---- memory registration cache ---- */

static int mr_covers(const fy_ofi_mr_t *m, const char *b, size_t len) {
  return m && m->base <= b && b + len <= m->base + m->len;
}

/* Put m in the cache: a free slot, or the least recently used idle entry
 * (released); 0 when every entry is in use. */
static int mr_cache_add(fy_ofi_mr_t *m) {
  int victim = -1;
  for (int i = 0; i < ncache; i++) {
    if (!cache[i]) { victim = i; break; }
    if (cache[i]->refs == 0 && (victim < 0 || cache[i]->used < cache[victim]->used)) victim = i;
  }
  if (victim < 0) return 0;
  if (cache[victim]) {
    fi_close(&cache[victim]->mr->fid);
    free(cache[victim]);
  }
  cache[victim] = m;
  m->cached = 1;
  return 1;
}

fy_ofi_mr_t *fy_ofi_mr_get(const void *buf, size_t len) {
  char *b = (char *)buf;
  fy_ofi_mr_t *m = NULL;
  for (int i = 0; i < ncache && !m; i++)
    if (mr_covers(cache[i], b, len)) m = cache[i];
  for (fy_ofi_mr_t *x = busy; x && !m; x = x->next)
    if (mr_covers(x, b, len)) m = x;
  if (m) {
    m->refs++;
    m->used = ++stamp;
    fy_ofi_stats.mr_hits++;
    return m;
  }
  fy_ofi_stats.mr_misses++;
  m = calloc(1, sizeof *m);
  if (!m) fatal("registration (out of memory)", FI_ENOMEM);
  /* page-aligned region: neighbouring buffers of the same pages hit */
  uintptr_t lo = (uintptr_t)b & ~(uintptr_t)4095, hi = ((uintptr_t)b + len + 4095) & ~(uintptr_t)4095;
  if (len == 0) hi = lo + 4096;
  m->base = (char *)lo;
  m->len = hi - lo;
  m->mr = reg(m->base, m->len, ACCESS);
  if (!m->mr) {
    /* some providers refuse pages beyond the allocation: exactly the buffer */
    m->base = b;
    m->len = len ? len : 1;
    m->mr = reg(m->base, m->len, ACCESS);
  }
  if (!m->mr) fatal("fi_mr_reg", FI_EINVAL);
  m->refs = 1;
  m->used = ++stamp;
  /* (FERRY_OFI_MR_CACHE=0: every transfer its own registration) */
  if (ncache && !mr_cache_add(m)) {
    m->next = busy;
    if (busy) busy->prev = m;
    busy = m;
  }
  return m;
}

void fy_ofi_mr_put(fy_ofi_mr_t *m) {
  if (!m) return;
  if (--m->refs > 0 || m->cached) return;
  if (ncache) { /* off the busy list, and into the cache if a slot is idle now */
    if (m->prev) m->prev->next = m->next; else busy = m->next;
    if (m->next) m->next->prev = m->prev;
    m->prev = m->next = NULL;
    if (mr_cache_add(m)) return;
  }
  fi_close(&m->mr->fid);
  free(m);
}

int fy_ofi_local_mr(void) { return local_mr; }
uint64_t fy_ofi_mr_key(const fy_ofi_mr_t *m) { return fi_mr_key(m->mr); }
uint64_t fy_ofi_mr_raddr(const fy_ofi_mr_t *m, const void *buf) {
  return virt_addr ? (uint64_t)(uintptr_t)buf : (uint64_t)((const char *)buf - m->base);
}

/* ---- sends ---- */

static double mono(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Whether anything listens at peer dst's address, tried from this
 * endpoint's address with a connection of our own (closed at once; the
 * peer's provider drops a connection that says nothing): 0 when it
 * answers or cannot be tried, else -1 with the error in why. */
static int probe(int dst, char *why, size_t len) {
  union {
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
    char raw[256];
  } to, from;
  size_t nl = sizeof to;
  if (fi_av_lookup(av, addrs[dst], &to, &nl) != 0 || nl > sizeof to ||
      (to.sa.sa_family != AF_INET && to.sa.sa_family != AF_INET6) || !info->src_addr ||
      info->src_addrlen > sizeof from)
    return 0;
  memcpy(&from, info->src_addr, info->src_addrlen);
  if (from.sa.sa_family != to.sa.sa_family) return 0;
  socklen_t alen = to.sa.sa_family == AF_INET ? sizeof to.in : sizeof to.in6;
  if (to.sa.sa_family == AF_INET) from.in.sin_port = 0;
  else from.in6.sin6_port = 0;
  int fd = socket(to.sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), err = 0, rc = 0;
  if (fd < 0) return 0;
  if (bind(fd, &from.sa, alen) != 0) goto out; /* (cannot tell) */
  if (connect(fd, &to.sa, alen) != 0) {
    err = errno;
    if (err == EINPROGRESS) {
      struct pollfd pf = {.fd = fd, .events = POLLOUT};
      socklen_t el = sizeof err;
      err = poll(&pf, 1, 3000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 ? err : ETIMEDOUT;
    }
  }
  if (err) {
    snprintf(why, len, "%s", strerror(err));
    rc = -1;
  }
out:
  close(fd);
  return rc;
}

/* What to add to a failure to bind the endpoint's listener: the socket
 * providers take their ports from a range when one is set, and a full
 * range reads as a bare EADDRNOTAVAIL or EADDRINUSE. */
static const char *port_hint(int rc) {
  static const char *const v[] = {"FI_NET_PORT_LOW_RANGE", "FI_TCP_PORT_LOW_RANGE"};
  if (rc != -FI_EADDRINUSE && rc != -FI_EADDRNOTAVAIL) return "";
  for (int k = 0; k < 2; k++)
    if (getenv(v[k]))
      return "; is every port of FI_NET_/FI_TCP_PORT_LOW_RANGE.._HIGH_RANGE (set by mpiexec from "
             "MPIEXEC_PORT_RANGE) taken? The range needs a port per rank of a host";
  return "";
}

/* The provider still refuses the first message to dst: it is connecting.
 * The socket providers retry a refused connection for ever (libfabric
 * 1.17's net: connect, ECONNREFUSED, again at the next send), so a peer
 * published at an address this host cannot reach, or at one every host
 * has (a container's bridge), would hang the job at its first message.
 * After PROBE_S seconds the rank tries the peer's address itself: refused
 * or unreachable, it says so and aborts. A peer that answers there only
 * makes no progress (computing outside MPI with no agent, mode none),
 * which also delays its connection: after connect_timeout seconds the
 * rank aborts all the same, hence minutes. */
#define PROBE_S 5.0
static void connecting(int dst) {
  fy_ofi_stats.eagain_connect++;
  double now = mono();
  if (!connect_since[dst]) {
    connect_since[dst] = now;
    return;
  }
  if (connect_timeout <= 0) return;
  char why[128] = "";
  int refused = 0;
  if (now - connect_since[dst] >= PROBE_S && !probed[dst]) {
    probed[dst] = 1;
    refused = probe(dst, why, sizeof why) != 0;
  }
  if (!refused && now - connect_since[dst] < connect_timeout) return;
  char name[256], where[300] = "its published address", up[32];
  size_t nl = sizeof name, wl = sizeof where;
  if (fi_av_lookup(av, addrs[dst], name, &nl) == 0 && nl <= sizeof name) fi_av_straddr(av, name, where, &wl);
  /* (the core provider's name, as its FI_<NAME>_IFACE spells it) */
  size_t i = 0;
  for (; prov_name[i] && prov_name[i] != ';' && i + 1 < sizeof up; i++)
    up[i] = (char)(prov_name[i] >= 'a' && prov_name[i] <= 'z' ? prov_name[i] - 'a' + 'A' : prov_name[i]);
  up[i] = 0;
  if (refused)
    fatalf("no connection to rank %d at %s (provider %s on %s): %s there, so its host is not reachable at "
           "that address. If the hosts have several networks, name the one that joins them with FI_%s_IFACE",
           dst, where, prov_name, fy_ofi_domain(), why, up);
  fatalf("no connection to rank %d at %s after %.0f s (provider %s on %s): its host is not reachable at "
         "that address, or it makes no progress. If the hosts have several networks, name the one that "
         "joins them with FI_%s_IFACE (FERRY_OFI_CONNECT_TIMEOUT: how long to wait, 0 for ever)",
         dst, where, now - connect_since[dst], prov_name, fy_ofi_domain(), up);
}

int fy_ofi_connect_stalled(void) {
  return qhead && !took[qhead->dst] && connect_since[qhead->dst] && mono() - connect_since[qhead->dst] > 1e-3;
}

/* A send or inject to dst was taken (1) or refused with FI_EAGAIN (0):
 * refusals before dst took its first message are the provider still
 * connecting, counted apart from those of the call (*refused). */
static void sent_to(int dst, int taken, uint64_t *refused) {
  if (taken) took[dst] = 1;
  else if (took[dst]) (*refused)++;
  else connecting(dst);
}

static int post_send(sbuf_t *s) {
  ssize_t rc;
  if (refused()) {
    rc = -FI_EAGAIN;
  } else if (s->c.kind == C_TSEND) {
    rc = fi_tsend(ep, s->ref, s->rlen, NULL, addrs[s->dst], s->tag, &s->c.fc);
  } else if (s->ref) {
    s->iov[0] = (struct iovec){s->buf, s->len};
    s->iov[1] = (struct iovec){(void *)s->ref, s->rlen};
    s->iov[2] = (struct iovec){(void *)zeros, s->pad};
    rc = fi_sendv(ep, s->iov, NULL, s->pad ? 3 : 2, addrs[s->dst], &s->c.fc);
  } else {
    rc = fi_send(ep, s->buf, s->len, local_mr ? fi_mr_desc(sslab_mr) : NULL, addrs[s->dst], &s->c.fc);
  }
  if (rc == 0) {
    inflight++;
    fy_ofi_stats.sent++;
    sent_to(s->dst, 1, NULL);
    return 0;
  }
  if (rc != -FI_EAGAIN) fatal("fi_send", (int)rc);
  sent_to(s->dst, 0, &fy_ofi_stats.eagain_send);
  return -1;
}

/* A pool buffer, else (all in flight) a malloc'd one of len bytes that
 * waits in the queue until drain_sends moves it into the pool. */
static sbuf_t *take_sbuf(size_t len) {
  sbuf_t *s = sfree;
  if (s) {
    sfree = s->next;
    s->pooled = 1;
  } else {
    s = malloc(sizeof *s + len);
    if (!s) fatal("send (out of memory queueing a message)", FI_ENOMEM);
    memset(s, 0, sizeof *s);
    s->buf = (char *)(s + 1);
    s->pooled = 0;
  }
  s->c.kind = C_SEND;
  s->ref = NULL;
  s->rlen = s->pad = 0;
  s->rctx = NULL;
  return s;
}

static void enqueue(sbuf_t *s) {
  s->next = NULL;
  if (qtail) qtail->next = s; else qhead = s;
  qtail = s;
  fy_ofi_stats.queued++;
}

/* A tracked message to dst of len bytes: prefix and header written, the
 * rest (data, or a reference to it) the caller's. */
static sbuf_t *framed(int dst, const pfx_t *p, const void *hdr, size_t hlen, size_t len) {
  sbuf_t *s = take_sbuf(len);
  s->dst = dst;
  s->len = len;
  memcpy(s->buf, p, sizeof *p);
  if (hlen) memcpy(s->buf + sizeof *p, hdr, hlen);
  return s;
}

/* Post it now if nothing waits before it, else queue it (order per pair). */
static void submit(sbuf_t *s) {
  if (!qhead && (s->pooled || s->c.kind == C_TSEND) && post_send(s) == 0) return;
  enqueue(s);
}

/* The prefix of the next message to dst, of len bytes with it; *pad: the
 * bytes of padding that must follow it (pfx_t). */
static pfx_t prefix(int dst, size_t len, size_t *pad) {
  *pad = multi ? -len & PAD_MAX : 0;
  return (pfx_t){.src = (uint32_t)myrank | (uint32_t)*pad << PAD_SHIFT, .seq = tx_seq[dst]++};
}

int fy_ofi_send(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen) {
  if (hlen + dlen > msg_max) fatal("send (message larger than the packet size)", FI_EMSGSIZE);
  size_t pad, n = sizeof(pfx_t) + hlen + dlen;
  pfx_t p = prefix(dst, n, &pad);
  size_t len = n + pad;
  /* Small messages: fi_inject (no completion to reap). fy_ofi_flush()
   * later sends a tracked message behind them, whose completion says they
   * have left too (same pair, in order). */
  if (!qhead && len <= inject_size) {
    char tmp[256];
    memcpy(tmp, &p, sizeof p);
    if (hlen) memcpy(tmp + sizeof p, hdr, hlen);
    if (dlen) memcpy(tmp + sizeof p + hlen, data, dlen);
    memset(tmp + n, 0, pad);
    ssize_t rc = refused() ? -FI_EAGAIN : fi_inject(ep, tmp, len, addrs[dst]);
    if (rc == 0) {
      fy_ofi_stats.injected++;
      injected[dst] = 1;
      sent_to(dst, 1, NULL);
      return 0;
    }
    if (rc != -FI_EAGAIN) fatal("fi_inject", (int)rc);
    sent_to(dst, 0, &fy_ofi_stats.eagain_inject);
  }
  injected[dst] = 0; /* this one is tracked, and follows them */
  sbuf_t *s = framed(dst, &p, hdr, hlen, len);
  if (dlen) memcpy(s->buf + sizeof p + hlen, data, dlen);
  memset(s->buf + n, 0, pad);
  submit(s);
  return 0;
}

int fy_ofi_send_ref(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen, void *ctx) {
  /* the data goes out of the caller's buffer: a provider that wants local
   * buffers registered would need a registration per send */
  if (local_mr || !cbs.on_sent || hlen + dlen > msg_max) return -1;
  size_t pad;
  pfx_t p = prefix(dst, sizeof(pfx_t) + hlen + dlen, &pad);
  injected[dst] = 0;
  sbuf_t *s = framed(dst, &p, hdr, hlen, sizeof p + hlen);
  s->ref = data;
  s->rlen = dlen;
  s->pad = pad;
  s->rctx = ctx;
  submit(s);
  return 0;
}

int fy_ofi_tsend(int dst, const void *data, size_t len, uint64_t tag, void *ctx) {
  if (!tagged || local_mr || !cbs.on_tsent || len > prov_max) return -1;
  sbuf_t *s = calloc(1, sizeof *s);
  if (!s) fatal("tagged send (out of memory)", FI_ENOMEM);
  s->c.kind = C_TSEND;
  s->dst = dst;
  s->ref = data;
  s->rlen = len;
  s->rctx = ctx;
  s->tag = tag;
  /* (behind everything sent to dst before: the message that announces it
   * must reach the peer first, or its connection stops at this one) */
  injected[dst] = 0;
  submit(s);
  return 0;
}

static int post_trecv(trecv_t *t) {
  ssize_t rc = refused() ? -FI_EAGAIN : fi_trecv(ep, t->buf, t->len, NULL, FI_ADDR_UNSPEC, t->tag, 0, &t->c.fc);
  if (rc == 0) {
    inflight++;
    return 0;
  }
  if (rc != -FI_EAGAIN) fatal("fi_trecv", (int)rc);
  return -1;
}

void fy_ofi_trecv(void *buf, size_t len, uint64_t tag, void *ctx) {
  trecv_t *t = calloc(1, sizeof *t);
  if (!t) fatal("tagged receive (out of memory)", FI_ENOMEM);
  t->c.kind = C_TRECV;
  t->buf = buf;
  t->len = len;
  t->tag = tag;
  t->ctx = ctx;
  if (!thead && post_trecv(t) == 0) return;
  if (ttail) ttail->next = t; else thead = t;
  ttail = t;
}

static int drain_trecv(void) {
  int n = 0;
  while (thead && post_trecv(thead) == 0) {
    thead = thead->next;
    if (!thead) ttail = NULL;
    n++;
  }
  return n;
}

static int drain_sends(void) {
  int n = 0;
  while (qhead) {
    sbuf_t *s = qhead;
    if (!s->pooled && s->c.kind != C_TSEND) {
      /* move it into a registered pool buffer first */
      sbuf_t *p = sfree;
      if (!p) break;
      sfree = p->next;
      p->pooled = 1;
      p->c.kind = C_SEND;
      p->dst = s->dst;
      p->len = s->len;
      p->ref = s->ref;
      p->rlen = s->rlen;
      p->rctx = s->rctx;
      memcpy(p->buf, s->buf, s->len);
      p->next = s->next;
      if (qtail == s) qtail = p;
      qhead = p;
      free(s);
      s = p;
    }
    if (post_send(s) != 0) break;
    qhead = s->next;
    if (!qhead) qtail = NULL;
    n++;
  }
  return n;
}

/* ---- RMA ---- */

static int post_rma(rma_piece_t *p) {
  ssize_t rc;
  if (refused()) {
    rc = -FI_EAGAIN;
  } else if (p->write && saw && p->len <= inject_size) {
    /* small: injected, the buffer free at once (the sends that follow keep
     * their order behind it); done at the next poll */
    rc = p->notify ? fi_inject_writedata(ep, p->buf, p->len, 0, addrs[p->peer], p->raddr, p->key)
                   : fi_inject_write(ep, p->buf, p->len, addrs[p->peer], p->raddr, p->key);
    if (rc == 0) {
      injected[p->peer] = 1;
      inflight++;
      fy_ofi_stats.rma_pieces++;
      p->next = idone;
      idone = p;
      return 0;
    }
  } else if (p->write) {
    p->iov = (struct iovec){p->buf, p->len};
    p->riov = (struct fi_rma_iov){p->raddr, p->len, p->key};
    struct fi_msg_rma m = {.msg_iov = &p->iov, .desc = &p->desc, .iov_count = 1, .addr = addrs[p->peer],
                           .rma_iov = &p->riov, .rma_iov_count = 1, .context = &p->c.fc};
    /* without send-after-write ordering the FIN that follows could
     * overtake the data: ask for delivery completion then */
    /* (notify: the target's queue gets an entry, so its wait sees the
     * write land rather than an fd that woke for nothing) */
    rc = fi_writemsg(ep, &m, FI_COMPLETION | (saw ? 0 : FI_DELIVERY_COMPLETE) | (p->notify ? FI_REMOTE_CQ_DATA : 0));
  } else {
    rc = fi_read(ep, p->buf, p->len, p->desc, addrs[p->peer], p->raddr, p->key, &p->c.fc);
  }
  if (rc == 0) {
    inflight++;
    fy_ofi_stats.rma_pieces++;
    return 0;
  }
  if (rc != -FI_EAGAIN) fatal(p->write ? "fi_write" : "fi_read", (int)rc);
  fy_ofi_stats.eagain_rma++;
  return -1;
}

void fy_ofi_rma(int op_, int peer, void *buf, size_t len, fy_ofi_mr_t *mr, uint64_t raddr, uint64_t key,
                void *ctx) {
  int write = op_ & FY_OFI_WRITE, notify = (op_ & FY_OFI_NOTIFY) && write && cq_data;
  size_t chunk = prov_max;
  int pieces = (int)((len + chunk - 1) / chunk);
  /* (a provider with FI_MR_LOCAL fails a transfer whose descriptor does
   * not cover it, on the NIC, long after this call: say so here) */
  if (local_mr && len && !mr_covers(mr, buf, len)) fatal("RMA (local buffer not registered: FI_MR_LOCAL)", FI_EINVAL);
  rma_op_t *op = malloc(sizeof *op);
  if (!op) fatal("RMA (out of memory)", FI_ENOMEM);
  op->ctx = ctx;
  op->left = pieces;
  if (write) fy_ofi_stats.writes++; else fy_ofi_stats.reads++;
  for (size_t off = 0; off < len; off += chunk) {
    rma_piece_t *p = malloc(sizeof *p);
    if (!p) fatal("RMA (out of memory)", FI_ENOMEM);
    memset(p, 0, sizeof *p);
    p->c.kind = C_RMA;
    p->op = op;
    p->write = write;
    p->notify = notify;
    p->peer = peer;
    p->buf = (char *)buf + off;
    p->len = len - off < chunk ? len - off : chunk;
    p->desc = local_mr && mr ? fi_mr_desc(mr->mr) : NULL;
    p->raddr = raddr + off;
    p->key = key;
    if (!rhead && post_rma(p) == 0) continue;
    p->next = NULL;
    if (rtail) rtail->next = p; else rhead = p;
    rtail = p;
  }
}

static int drain_rma(void) {
  int n = 0;
  while (rhead) {
    /* (an injected write goes on the done list through its next at once:
     * read the queue's next before) */
    rma_piece_t *next = rhead->next;
    if (post_rma(rhead) != 0) break;
    rhead = next;
    if (!rhead) rtail = NULL;
    n++;
  }
  return n;
}

/* ---- completions ---- */

/* Providers whose multi-receive buffers recv_done can track (above). */
static int multi_ok(const char *prov) { return !strcmp(prov, "net") || !strcmp(prov, "tcp"); }

static void repost(rbuf_t *r) {
  void *desc = local_mr ? fi_mr_desc(rslab_mr) : NULL;
  r->iov = (struct iovec){.iov_base = r->buf, .iov_len = rbsz};
  struct fi_msg m = {.msg_iov = &r->iov, .desc = &desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC,
                     .context = &r->c.fc};
  for (;;) {
    ssize_t rc = multi ? fi_recvmsg(ep, &m, FI_MULTI_RECV)
                       : fi_recv(ep, r->buf, rbsz, desc, FI_ADDR_UNSPEC, &r->c.fc);
    if (rc == 0) return;
    if (rc != -FI_EAGAIN) fatal("fi_recv", (int)rc);
    /* the provider needs progress to free a receive slot */
    fi_cq_read(cq, NULL, 0);
  }
}

static void rma_piece_done(rma_piece_t *p) {
  rma_op_t *op = p->op;
  inflight--;
  free(p);
  if (--op->left == 0) {
    void *ctx = op->ctx;
    free(op);
    cbs.on_rma(ctx);
  }
}

/* A peer's write into my memory (its remote CQ data), not a completion of
 * mine: libfabric's sockets provider reports our own write with remote
 * CQ data under the op's flags, FI_REMOTE_CQ_DATA included, beside
 * FI_WRITE; taken for a peer's, the write never completed (a fence over
 * it hung). */
static int peer_write(uint64_t flags) {
  return (flags & FI_REMOTE_WRITE) || ((flags & FI_REMOTE_CQ_DATA) && !(flags & FI_WRITE));
}

/* A message of len bytes in r has been delivered (or copied): post r again
 * when it is free. */
static void recv_done(rbuf_t *r, size_t len) {
  if (!multi) {
    repost(r);
    return;
  }
  r->filled += len;
  if (r->back && r->filled >= r->extent) {
    r->filled = r->extent = 0;
    r->back = 0;
    repost(r);
  }
}

static void completed(struct fi_cq_data_entry *e) {
  if (peer_write(e->flags)) { /* landed: nothing to do */
    fy_ofi_stats.landed++;
    return;
  }
  ctxh_t *c = e->op_context;
  switch (c->kind) {
    case C_RECV: {
      rbuf_t *r = (rbuf_t *)c;
      const char *m = multi ? e->buf : r->buf;
      if (multi && (e->flags & FI_MULTI_RECV)) { /* given back: where its last message ends */
        r->back = 1;
        r->extent = e->len && m ? (size_t)(m + e->len - r->buf) : r->filled;
      }
      if (multi && e->len == 0) {
        recv_done(r, 0);
        break;
      }
      if (e->len < sizeof(pfx_t) || !m) fatal("receive (a completion without a whole message)", FI_EOTHER);
      if ((uintptr_t)m % 8) { /* the packets' headers are read in place */
        memcpy(aligned, m, e->len);
        m = aligned;
        fy_ofi_stats.realigned++;
      }
      pfx_t p;
      memcpy(&p, m, sizeof p);
      fy_ofi_stats.recvd++;
      size_t pad = p.src >> PAD_SHIFT;
      p.src &= (1u << PAD_SHIFT) - 1;
      if (p.src >= (uint32_t)nranks) fatal("receive (message from an unknown rank)", FI_EOTHER);
      if (e->len < sizeof p + pad) fatal("receive (a message shorter than its padding)", FI_EOTHER);
      size_t len = e->len - sizeof p - pad;
      if (p.seq != rx_seq[p.src]) { /* early: keep a copy until its turn */
        early_t *x = malloc(sizeof *x + len), **pp = &early[p.src];
        if (!x) fatal("receive (out of memory holding an early message)", FI_ENOMEM);
        x->seq = p.seq;
        x->len = len;
        memcpy(x->data, m + sizeof p, len);
        while (*pp && (int32_t)((*pp)->seq - p.seq) < 0) pp = &(*pp)->next;
        x->next = *pp;
        *pp = x;
        fy_ofi_stats.early++;
        recv_done(r, e->len);
        break;
      }
      rx_seq[p.src]++;
      if (len) cbs.on_msg((int)p.src, m + sizeof p, len); /* empty: a flush marker */
      recv_done(r, e->len);
      /* the ones it was holding back */
      while (early[p.src] && early[p.src]->seq == rx_seq[p.src]) {
        early_t *x = early[p.src];
        early[p.src] = x->next;
        rx_seq[p.src]++;
        if (x->len) cbs.on_msg((int)p.src, x->data, x->len);
        free(x);
      }
      break;
    }
    case C_SEND: {
      sbuf_t *s = (sbuf_t *)c;
      void *rctx = s->rctx;
      inflight--;
      s->ref = NULL;
      s->rctx = NULL;
      s->next = sfree;
      sfree = s;
      if (rctx) cbs.on_sent(rctx);
      break;
    }
    case C_RMA:
      rma_piece_done((rma_piece_t *)c);
      break;
    case C_TSEND: {
      sbuf_t *s = (sbuf_t *)c;
      void *rctx = s->rctx;
      inflight--;
      free(s);
      cbs.on_tsent(rctx);
      break;
    }
    case C_TRECV: {
      trecv_t *t = (trecv_t *)c;
      void *tctx = t->ctx;
      inflight--;
      if (e->len != t->len) fatal("tagged receive (a message of another length)", FI_ETRUNC);
      free(t);
      cbs.on_trecv(tctx);
      break;
    }
    default:
      fatal("completion with an unknown context", FI_EOTHER);
  }
}

/* What a failed completion was, for the message that ends the job: on a
 * cluster it is usually a peer's node or process gone, and the rank on
 * the other side is what the user needs. */
static void describe(const ctxh_t *c, char *out, size_t n) {
  switch (c ? c->kind : 0) {
    case C_RECV:
      snprintf(out, n, "a message receive (from any rank)");
      break;
    case C_SEND:
      snprintf(out, n, "a message send to rank %d", ((const sbuf_t *)c)->dst);
      break;
    case C_TSEND:
      snprintf(out, n, "a tagged send of %zu bytes to rank %d", ((const sbuf_t *)c)->rlen, ((const sbuf_t *)c)->dst);
      break;
    case C_RMA: {
      const rma_piece_t *p = (const rma_piece_t *)c;
      snprintf(out, n, "an RDMA %s of %zu bytes %s rank %d", p->write ? "write" : "read", p->len,
               p->write ? "to" : "from", p->peer);
      break;
    }
    case C_TRECV:
      snprintf(out, n, "a tagged receive of %zu bytes", ((const trecv_t *)c)->len);
      break;
    default:
      snprintf(out, n, "an operation of unknown context");
  }
}

int fy_ofi_poll(void) {
  int n = 0;
  struct fi_cq_data_entry ev[16];
  while (idone) {
    rma_piece_t *p = idone;
    idone = p->next;
    rma_piece_done(p);
    n++;
  }
  for (;;) {
    ssize_t k = fi_cq_read(cq, ev, 16);
    if (k == -FI_EAGAIN) break;
    if (k == -FI_EAVAIL) {
      struct fi_cq_err_entry err = {0};
      char what[128];
      fi_cq_readerr(cq, &err, 0);
      describe(err.op_context, what, sizeof what);
      fatalf("libfabric completion error on %s: %s (provider %s: %s)", what, fi_strerror(err.err), prov_name,
             fi_cq_strerror(cq, err.prov_errno, err.err_data, NULL, 0));
    }
    if (k < 0) fatal("fi_cq_read", (int)k);
    for (ssize_t i = 0; i < k; i++) completed(&ev[i]);
    n += (int)k;
    if (k < 16) break;
  }
  if (qhead) n += drain_sends();
  if (rhead) n += drain_rma();
  if (thead) n += drain_trecv();
  return n;
}

void fy_ofi_flush(void) {
  size_t save = inject_size;
  inject_size = 0; /* tracked */
  for (int r = 0; injected && r < nranks; r++)
    if (injected[r]) fy_ofi_send(r, NULL, 0, NULL, 0);
  inject_size = save;
}

int fy_ofi_trywait(void) {
  if (wait_fd < 0 || qhead || rhead || thead || idone) return 0;
  struct fid *f = &cq->fid;
  return fi_trywait(fabric, &f, 1) == FI_SUCCESS;
}

/* ---- setup ---- */

static void hex(const unsigned char *b, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
  out[2 * n] = 0;
}

static int unhex(const char *s, unsigned char *b, size_t cap) {
  size_t n = strlen(s) / 2;
  if (n > cap) return -1;
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
    b[i] = (unsigned char)v;
  }
  return (int)n;
}

/* A socket provider's entry's own address; NULL for another kind. */
static const struct sockaddr *sock_of(const struct fi_info *p) {
  int ok = p->addr_format == FI_SOCKADDR || p->addr_format == FI_SOCKADDR_IN || p->addr_format == FI_SOCKADDR_IN6;
  return ok ? p->src_addr : NULL;
}

static int is_loopback(const struct fi_info *p) {
  const struct sockaddr *sa = sock_of(p);
  if (!sa) return 0;
  if (sa->sa_family == AF_INET)
    return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
  return sa->sa_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* Which of the providers fi_getinfo offers: the fastest kind present.
 * Over TCP, the native RDM endpoint ("tcp" from libfabric 1.18, "net" in
 * 1.17, its development fork) comes before ofi_rxm layered on tcp: same
 * sockets, a shorter header (58 bytes on the wire for an 8-byte message,
 * 122 through rxm), and a completion queue whose wait fd is the sockets'
 * epoll set, where rxm writes to and reads back a signalling socket for
 * every completion; measured here (libfabric 1.17, loopback) 5.9 us half
 * round trip against 8.0 us. A socket provider is listed once per
 * interface, fastest first: the first entry, or with loopback set (every
 * rank on this machine) that provider's loopback entry where it has one. */
static struct fi_info *choose(struct fi_info *list, const char *want, int loopback) {
  static const char *pref[] = {"cxi", "efa", "verbs;ofi_rxm", "psm3", "psm2", "opx", "tcp", "net", "tcp;ofi_rxm", NULL};
  struct fi_info *c = NULL;
  /* A name asked for ("tcp") also matches the utility providers layered on
   * it ("tcp;ofi_rxm"): the exact one wins. */
  for (struct fi_info *p = list; want && p && !c; p = p->next)
    if (p->fabric_attr->prov_name && !strcmp(p->fabric_attr->prov_name, want)) c = p;
  for (int i = 0; pref[i] && !c; i++)
    for (struct fi_info *p = list; p && !c; p = p->next)
      if (p->fabric_attr->prov_name && !strcmp(p->fabric_attr->prov_name, pref[i])) c = p;
  if (!c) c = list;
  for (struct fi_info *q = list; loopback && q; q = q->next)
    if (q->fabric_attr->prov_name && !strcmp(q->fabric_attr->prov_name, c->fabric_attr->prov_name) && is_loopback(q))
      return q;
  return c;
}

/* The IP address of sa, as inet_ntop writes it; -1 for another family. */
static int ntop(const struct sockaddr *sa, char *out, size_t len) {
  const void *a = !sa                        ? NULL
                  : sa->sa_family == AF_INET  ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
                  : sa->sa_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr
                                              : NULL;
  return a && inet_ntop(sa->sa_family, a, out, (socklen_t)len) ? 0 : -1;
}

/* The IP address of a socket provider's entry; -1 for another kind. */
static int ip_of(const struct fi_info *p, char *out, size_t len) { return ntop(sock_of(p), out, len); }

/* The entry of list for the same provider, interface and address as c
 * (the one chosen, found again in a list asked with other caps); NULL
 * when it has none. */
static struct fi_info *same_place(struct fi_info *list, const struct fi_info *c) {
  char want[INET6_ADDRSTRLEN], ip[INET6_ADDRSTRLEN];
  if (ip_of(c, want, sizeof want)) return NULL;
  for (struct fi_info *q = list; q; q = q->next)
    if (q->fabric_attr->prov_name && !strcmp(q->fabric_attr->prov_name, c->fabric_attr->prov_name) &&
        !ip_of(q, ip, sizeof ip) && !strcmp(ip, want) && q->domain_attr->name && c->domain_attr->name &&
        !strcmp(q->domain_attr->name, c->domain_attr->name))
      return q;
  return NULL;
}

enum { MAXC = 32 };

/* The entries of c's provider that a job spanning hosts may take, in the
 * provider's order (at most MAXC, as many as mine, their list, holds):
 * one per address of an interface other than loopback. */
static int candidates(struct fi_info *list, const struct fi_info *c, struct fi_info **cand, char *mine, size_t len) {
  char ip[INET6_ADDRSTRLEN];
  int n = 0;
  mine[0] = 0;
  for (struct fi_info *q = list; q && n < MAXC; q = q->next)
    if (q->fabric_attr->prov_name && !strcmp(q->fabric_attr->prov_name, c->fabric_attr->prov_name) &&
        !is_loopback(q) && q->fabric_attr->name && !ip_of(q, ip, sizeof ip) &&
        !fy_ofi_iface_add(mine, len, q->fabric_attr->name, ip))
      cand[n++] = q;
  return n;
}

/* The route rule's lookup (fy_ofi_iface.h): the address this host's
 * kernel sends from toward addr, as a connected UDP socket's own address
 * (connect sends nothing: it only looks the route up). */
static int kernel_route(const char *addr, char *src, size_t len, void *arg) {
  struct sockaddr_storage to = {0}, from;
  socklen_t tl, fl = sizeof from;
  int fd = -1, rc = -1;
  (void)arg;
  struct sockaddr_in *t4 = (struct sockaddr_in *)&to;
  struct sockaddr_in6 *t6 = (struct sockaddr_in6 *)&to;
  if (inet_pton(AF_INET, addr, &t4->sin_addr) == 1) {
    t4->sin_family = AF_INET;
    t4->sin_port = htons(9); /* (any port: no datagram leaves) */
    tl = sizeof *t4;
  } else if (inet_pton(AF_INET6, addr, &t6->sin6_addr) == 1) {
    t6->sin6_family = AF_INET6;
    t6->sin6_port = htons(9);
    tl = sizeof *t6;
  } else
    return -1;
  if ((fd = socket(to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) goto out;
  if (connect(fd, (struct sockaddr *)&to, tl) != 0 || getsockname(fd, (struct sockaddr *)&from, &fl) != 0) goto out;
  if (from.ss_family == to.ss_family && !ntop((struct sockaddr *)&from, src, len)) rc = 0;
out:
  if (fd >= 0) close(fd);
  return rc;
}

/* For a job spanning hosts: of the entries of c's provider (one per
 * interface address), the one that reaches the other hosts
 * (fy_ofi_iface.h: by subnet, else by this host's routes to them, for
 * hosts on other subnets behind routers), rather than the first, which
 * may be a container's bridge whose address every host has (a job there
 * hung connecting each rank to itself). One PMI round, which every rank
 * of such a job makes whatever its provider lists, so that the rounds
 * match; the lists are read only where this host has a choice, one per
 * other node where the nodes are known. NULL with a message in
 * fy_ofi_error() when PMI fails. */
static struct fi_info *reaching(struct fi_info *list, struct fi_info *c, const fy_ofi_boot_t *b) {
  struct fi_info *cand[MAXC];
  char mine[480], key[64], val[1024];
  int n = candidates(list, c, cand, mine, sizeof mine);
  hex((const unsigned char *)mine, strlen(mine), val);
  snprintf(key, sizeof key, "fy-ofi-if-%d", myrank);
  if (b->put(key, val) != 0 || b->barrier() != 0) {
    seterr("cannot publish the interfaces through PMI");
    return NULL;
  }
  if (n == 0) return c;
  if (n == 1) return cand[0];
  char **peers = calloc((size_t)nranks, sizeof *peers);
  /* (with the nodes known, the first rank of each other node: its
   * neighbours' lists are the same, and reading every rank's is a get per
   * rank per rank at start-up) */
  const int *node = b->node_of;
  int nmax = 0;
  for (int r = 0; node && r < nranks; r++)
    if (node[r] < 0) node = NULL; else if (node[r] >= nmax) nmax = node[r] + 1;
  unsigned char *seen = node ? calloc((size_t)nmax, 1) : NULL;
  if (!peers || (node && !seen)) {
    free(peers);
    free(seen);
    return cand[0];
  }
  if (node) seen[node[myrank]] = 1;
  for (int r = 0; r < nranks; r++) {
    snprintf(key, sizeof key, "fy-ofi-if-%d", r);
    int k;
    if (r == myrank || (node && seen[node[r]])) continue;
    if (node) seen[node[r]] = 1;
    if (b->get(r, key, val, sizeof val) != 0 || (k = unhex(val, (unsigned char *)val, sizeof val - 1)) < 0)
      continue; /* (unread: counts for nothing) */
    val[k] = 0;
    peers[r] = strdup(val);
  }
  int i = fy_ofi_iface_pick(mine, n, (const char *const *)peers, nranks, kernel_route, NULL);
  for (int r = 0; r < nranks; r++) free(peers[r]);
  free(peers);
  free(seen);
  return cand[i];
}

/* The providers that offer what Ferry asks (fy_ofi.h), best first as
 * libfabric lists them; want: a name, or NULL. NULL with a message in
 * fy_ofi_error() when there is none. The caller frees the list. */
static struct fi_info *offered_list(const char *want, uint64_t more_caps) {
  if (lf_load()) return NULL;
  struct fi_info *hints = fi_allocinfo(), *list = NULL;
  if (!hints) {
    seterr("out of memory");
    return NULL;
  }
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_MSG | FI_RMA | more_caps;
  /* (every context has room for FI_CONTEXT2; the iovecs of a vector
   * operation live in its context until it completes: FI_ASYNC_IOV; where
   * remote CQ data would take a posted receive, FI_RX_CQ_DATA, writes go
   * without it: cq_data) */
  hints->mode = FI_CONTEXT | FI_CONTEXT2 | FI_ASYNC_IOV | FI_RX_CQ_DATA;
  hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  hints->tx_attr->msg_order = FI_ORDER_SAS;
  hints->rx_attr->msg_order = FI_ORDER_SAS;
  if (want) hints->fabric_attr->prov_name = strdup(want);
  int rc = fi_getinfo(FI_VERSION(1, 11), NULL, NULL, 0, hints, &list);
  fi_freeinfo(hints);
  if (rc || !list) {
    /* (libfabric's FI_PROVIDER hides the providers it does not name, and an
     * empty one hides them all: say so, it is the usual cause) */
    const char *fp = getenv("FI_PROVIDER");
    seterr("no libfabric provider%s%s%s offers reliable datagrams with ordered messages and RMA%s%s%s: %s",
           want ? " \"" : "", want ? want : "", want ? "\"" : "", fp ? " among those FI_PROVIDER=\"" : "",
           fp ? fp : "", fp ? "\" lets through" : "", fi_strerror(-rc));
    if (list) fi_freeinfo(list);
    return NULL;
  }
  return list;
}

static const char *wanted(const char *provider) {
  return provider && *provider && strcmp(provider, "auto") ? provider : NULL;
}

int fy_ofi_probe(const char *provider, char *chosen, size_t clen, char *offered, size_t olen) {
  const char *want = wanted(provider);
  struct fi_info *list = offered_list(want, 0);
  int n = 0;
  if (!list) return -1;
  struct fi_info *c = choose(list, want, 0);
  const char *dom = c->domain_attr && c->domain_attr->name && strcmp(c->domain_attr->name, c->fabric_attr->prov_name)
                        ? c->domain_attr->name
                        : NULL;
  /* (over the socket providers the domain is the interface: the first one
   * listed; a job spanning hosts takes the first that reaches the others,
   * one on a node lo) */
  struct fi_info *cand[MAXC];
  char mine[480], alt[80] = "";
  int nc = candidates(list, c, cand, mine, sizeof mine);
  if (dom && nc > 1) snprintf(alt, sizeof alt, " (across hosts the first of %d addresses that reaches them)", nc);
  snprintf(chosen, clen, "%s%s%s%s%s", c->fabric_attr->prov_name, dom ? " on " : "", dom ? dom : "", alt,
           dom && choose(list, want, 1) != c ? ", lo for a job on one node" : "");
  size_t used = 0;
  if (olen) offered[0] = 0;
  for (struct fi_info *p = list; p; p = p->next) {
    const char *name = p->fabric_attr->prov_name;
    int seen = 0; /* one entry per provider (fi_getinfo lists each interface) */
    for (struct fi_info *q = list; q != p && !seen; q = q->next) seen = !strcmp(q->fabric_attr->prov_name, name);
    if (seen) continue;
    int k = snprintf(offered + used, olen > used ? olen - used : 0, "%s%s", n ? ", " : "", name);
    if (k > 0) used += (size_t)k;
    n++;
  }
  fi_freeinfo(list);
  return n;
}

int fy_ofi_init(const fy_ofi_boot_t *b, const fy_ofi_cb_t *cb) {
  const char *want = wanted(b->provider);
  struct fi_info *list = NULL;
  char key[64], val[1024];
  unsigned char name[512];
  int ret = -1;
  cbs = *cb;
  myrank = b->rank;
  nranks = b->size;
  snprintf(prov_name, sizeof prov_name, "?");
  list = offered_list(want, 0);
  if (!list) return -1;
  struct fi_info *c = choose(list, want, b->loopback);
  if (!b->loopback && nranks > 1 && !(c = reaching(list, c, b))) goto out;
  info = fi_dupinfo(c);
  snprintf(prov_name, sizeof prov_name, "%s", info->fabric_attr->prov_name);
  tagged = 0;
  if (b->tagged && b->tagged(prov_name)) {
    /* the same provider with tagged messages too, where it has them (asked
     * only then: FI_TAGGED hides the providers without) */
    struct fi_info *tl = offered_list(prov_name, FI_TAGGED), *t = tl ? same_place(tl, info) : NULL;
    if (tl && !t) t = choose(tl, prov_name, b->loopback);
    if (t && t->fabric_attr->prov_name && !strcmp(t->fabric_attr->prov_name, prov_name)) {
      fi_freeinfo(info);
      info = fi_dupinfo(t);
      tagged = 1;
    }
    if (tl) fi_freeinfo(tl);
  }
  uint64_t mm = (uint64_t)info->domain_attr->mr_mode;
  local_mr = (mm & FI_MR_LOCAL) != 0 || b->emu_local_mr;
  virt_addr = (mm & FI_MR_VIRT_ADDR) != 0 || mm == FI_MR_BASIC;
  prov_key = (mm & FI_MR_PROV_KEY) != 0 || mm == FI_MR_BASIC;
  mr_ep = (mm & FI_MR_ENDPOINT) != 0;
  saw = (info->tx_attr->msg_order & FI_ORDER_SAW) != 0;
  cq_data = info->domain_attr->cq_data_size > 0 && !(info->mode & FI_RX_CQ_DATA);
  inject_size = info->tx_attr->inject_size;
  if (inject_size > 256) inject_size = 256;
  prov_max = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : (size_t)1 << 30;
  if (prov_max > ((size_t)1 << 30)) prov_max = (size_t)1 << 30;
  if (b->emu_max_msg && b->emu_max_msg < prov_max) prov_max = b->emu_max_msg;
  emu_eagain = b->emu_eagain;
  /* (a provider's own keys use all 64 bits on some NICs, cxi: with key64
   * every key Ferry asks for has its high half set, where the provider
   * lets it choose) */
  key_high = b->emu_key64 && info->domain_attr->mr_key_size >= 8 ? (uint64_t)0xfe57a11c << 32 : 0;
  emu_calls = 0;
  msg_max = b->msg_max;
  if (sizeof(pfx_t) + msg_max + PAD_MAX > prov_max) {
    seterr("provider %s carries messages of at most %zu bytes, %zu needed", prov_name, prov_max,
           sizeof(pfx_t) + msg_max + PAD_MAX);
    goto out;
  }
  if (nranks > 1 << PAD_SHIFT) {
    seterr("%d ranks: the fabric transport numbers at most %d", nranks, 1 << PAD_SHIFT);
    goto out;
  }
  CHECK(fi_fabric(info->fabric_attr, &fabric, NULL), "fi_fabric");
  CHECK(fi_domain(fabric, info, &domain, NULL), "fi_domain");
  struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_FD, .size = 0};
  if (fi_cq_open(domain, &cqa, &cq, NULL) != 0) {
    cqa.wait_obj = FI_WAIT_NONE; /* no fd: waits poll with short sleeps */
    CHECK(fi_cq_open(domain, &cqa, &cq, NULL), "fi_cq_open");
  } else if (fi_control(&cq->fid, FI_GETWAIT, &wait_fd) != 0) {
    wait_fd = -1;
  } else if (!strcmp(prov_name, "net") || !strcmp(prov_name, "tcp")) {
    wait_fd = sockets_fd(wait_fd);
  }
  struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = (size_t)nranks};
  CHECK(fi_av_open(domain, &ava, &av, NULL), "fi_av_open");
  /* (one: the longest message, with its padding) */
  size_t one = sizeof(pfx_t) + msg_max + PAD_MAX, bsz = (one + 63) & ~(size_t)63;
  /* A port range (FI_NET_/FI_TCP_PORT_*_RANGE, which mpiexec derives from
   * MPIEXEC_PORT_RANGE) makes the socket providers bind their listener
   * there, and two ranks of a host can bind the same port before either
   * listens (SO_REUSEADDR): the second's fi_enable then fails with
   * EADDRINUSE (libfabric 1.17's net, seen in CI with 2 ranks and 20
   * ports). A new endpoint tries another port. */
  enum { ENABLE_TRIES = 50 };
  for (int tries = 0;; tries++) {
    int rc = fi_endpoint(domain, info, &ep, NULL);
    if (rc) {
      ep = NULL;
      seterr("fi_endpoint failed: %s (provider %s)%s", fi_strerror(-rc), prov_name, port_hint(rc));
      goto fail;
    }
    CHECK(fi_ep_bind(ep, &av->fid, 0), "fi_ep_bind(av)");
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind(cq)");
    /* (the provider's caps list FI_MULTI_RECV unasked where it has it; one
     * that will not take the minimum keeps a buffer per message) */
    multi = b->multi_recv && (info->caps & FI_MULTI_RECV) && multi_ok(prov_name) &&
            fi_setopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &one, sizeof one) == 0;
    rc = fi_enable(ep);
    if (rc == -FI_EADDRINUSE && tries < ENABLE_TRIES) {
      fi_close(&ep->fid);
      ep = NULL;
      usleep(1000 + (useconds_t)(((unsigned)getpid() * 7919u + (unsigned)tries * 104729u) % 4000u));
      continue;
    }
    if (rc) {
      seterr("fi_enable failed: %s (provider %s)%s", fi_strerror(-rc), prov_name, port_hint(rc));
      goto fail;
    }
    break;
  }
  nrbufs = multi ? NMULTI : NRECV;
  rbsz = multi ? MULTI_MSGS * bsz : one;

  /* buffers: receives and the send pool, each one registered slab */
  size_t rstride = multi ? rbsz : bsz, rtotal = nrbufs * rstride;
  rslab = aligned_alloc(4096, (rtotal + 4095) & ~(size_t)4095);
  sslab = aligned_alloc(4096, ((NSEND * bsz) + 4095) & ~(size_t)4095);
  aligned = multi ? aligned_alloc(64, bsz) : NULL;
  if (!rslab || !sslab || (multi && !aligned)) {
    seterr("out of memory for %d message buffers", nrbufs + NSEND);
    goto fail;
  }
  /* The provider fills the receive buffers in turn, so every one of them
   * is used within the first messages: fault their pages in now
   * rather than on the critical path of those messages (a 16 KiB pingpong
   * took 21-23 us instead of 11 for its first 64 round trips, each message
   * landing in fresh pages). The send pool is a stack: only the buffers
   * in use get touched, so it stays lazy. */
  memset(rslab, 0, rtotal);
  if (!(rslab_mr = reg(rslab, rtotal, FI_RECV)) || !(sslab_mr = reg(sslab, NSEND * bsz, FI_SEND))) {
    seterr("cannot register message buffers with provider %s", prov_name);
    goto fail;
  }
  for (int i = NSEND - 1; i >= 0; i--) {
    sbufs[i].buf = sslab + (size_t)i * bsz;
    sbufs[i].next = sfree;
    sfree = &sbufs[i];
  }
  for (int i = 0; i < nrbufs; i++) {
    rbufs[i].c.kind = C_RECV;
    rbufs[i].buf = rslab + (size_t)i * rstride;
    rbufs[i].filled = rbufs[i].extent = 0;
    rbufs[i].back = 0;
    repost(&rbufs[i]);
  }
  ncache = b->mr_cache < 0 ? fy_ofi_mr_cache_auto(prov_name) : b->mr_cache;
  cache = calloc((size_t)ncache + 1, sizeof *cache);

  /* address exchange: one put, one barrier, then every rank's value
   * (boot->gather: a get per rank per node, shared; else a get per rank) */
  size_t nlen = sizeof name;
  CHECK(fi_getname(&ep->fid, name, &nlen), "fi_getname");
  if (nlen * 2 + 1 > sizeof val) {
    seterr("endpoint name of %zu bytes is too long for PMI", nlen);
    goto fail;
  }
  hex(name, nlen, val);
  /* "address,machine,settings": what every rank must share comes last, in
   * hex as the address (PMI-1 carries no blanks or '=' in a value) */
  const char *mine = b->machine && *b->machine && !strchr(b->machine, ',') ? b->machine : NULL;
  char sig[200], extra[150] = "", sighex[2 * sizeof sig + 1];
  /* (the caller's settings size msg_max where it gives them) */
  if (b->agree)
    b->agree(prov_name, extra, sizeof extra);
  else
    snprintf(extra, sizeof extra, "msg_max=%zu", msg_max);
  /* (pad8: the messages' format since their padding, pfx_t) */
  snprintf(sig, sizeof sig, "provider=%s%s pad8 %s", prov_name, local_mr ? " FI_MR_LOCAL" : "", extra);
  hex((const unsigned char *)sig, strlen(sig), sighex);
  if (strlen(val) + strlen(mine ? mine : "") + strlen(sighex) + 3 > sizeof val) {
    seterr("the endpoint address and settings do not fit a PMI value");
    goto fail;
  }
  strcat(val, ",");
  if (mine) strcat(val, mine);
  strcat(val, ",");
  strcat(val, sighex);
  machine_ranks = machine_index = 0;
  snprintf(key, sizeof key, "fy-ofi-%d", myrank);
  if (b->put(key, val) != 0 || b->barrier() != 0) {
    seterr("cannot publish the endpoint address through PMI");
    goto fail;
  }
  addrs = calloc((size_t)nranks, sizeof *addrs);
  tx_seq = calloc((size_t)nranks, sizeof *tx_seq);
  injected = calloc((size_t)nranks, 1);
  took = calloc((size_t)nranks, 1);
  connect_since = calloc((size_t)nranks, sizeof *connect_since);
  probed = calloc((size_t)nranks, 1);
  connect_timeout = b->connect_timeout;
  rx_seq = calloc((size_t)nranks, sizeof *rx_seq);
  early = calloc((size_t)nranks, sizeof *early);
  unsigned char *all = malloc((size_t)nranks * nlen);
  char *vals = malloc((size_t)nranks * sizeof val);
  if (!addrs || !all || !tx_seq || !rx_seq || !early || !injected || !took || !connect_since || !probed || !vals) {
    free(all);
    free(vals);
    seterr("out of memory for %d addresses", nranks);
    goto fail;
  }
  /* every rank's value, "" where it could not be read */
  if (b->gather) {
    b->gather("fy-ofi-", sizeof val, vals);
  } else {
    for (int r = 0; r < nranks; r++) {
      snprintf(key, sizeof key, "fy-ofi-%d", r);
      if (b->get(r, key, vals + (size_t)r * sizeof val, sizeof val) != 0) vals[(size_t)r * sizeof val] = 0;
    }
  }
  for (int r = 0; r < nranks; r++) {
    char *v = vals + (size_t)r * sizeof val;
    int got = v[0] != 0;
    char *m = got ? strchr(v, ',') : NULL; /* the address, then the machine */
    if (m) *m++ = 0;
    char *theirs = m ? strchr(m, ',') : NULL; /* then the settings */
    if (theirs) *theirs++ = 0;
    if (got && (!theirs || strcmp(theirs, sighex))) {
      char other[sizeof sig] = "(no settings: another version of Ferry)";
      int k = theirs ? unhex(theirs, (unsigned char *)other, sizeof other - 1) : -1;
      if (k >= 0) other[k] = 0;
      free(all);
      free(vals);
      seterr("rank %d runs the fabric with %s, rank %d with %s: every host must offer one provider "
             "(FERRY_OFI_PROVIDER) and set FERRY_OFI_* alike%s", r, other, myrank, sig,
             fy_ofi_whole_max(prov_name) != SIZE_MAX ? ", and over ofi_rxm FI_OFI_RXM_BUFFER_SIZE" : "");
      goto fail;
    }
    if (mine && m && !strcmp(m, mine)) {
      if (r < myrank) machine_index++;
      machine_ranks++;
    }
    if (!got || unhex(v, all + (size_t)r * nlen, nlen) != (int)nlen) {
      free(all);
      free(vals);
      seterr("cannot read rank %d's endpoint address from PMI", r);
      goto fail;
    }
  }
  free(vals);
  int rc = fi_av_insert(av, all, (size_t)nranks, addrs, 0, NULL);
  free(all);
  if (rc != nranks) {
    seterr("fi_av_insert took %d of %d addresses", rc, nranks);
    goto fail;
  }
  ret = 0;
  goto out;
fail:
  fy_ofi_finalize();
out:
  if (list) fi_freeinfo(list);
  return ret;
}

void fy_ofi_finalize(void) {
  for (int i = 0; cache && i < ncache; i++)
    if (cache[i]) {
      fi_close(&cache[i]->mr->fid);
      free(cache[i]);
    }
  free(cache);
  cache = NULL;
  while (busy) { /* (none once every transfer is done) */
    fy_ofi_mr_t *m = busy;
    busy = m->next;
    fi_close(&m->mr->fid);
    free(m);
  }
  if (ep) fi_close(&ep->fid);
  if (rslab_mr) fi_close(&rslab_mr->fid);
  if (sslab_mr) fi_close(&sslab_mr->fid);
  if (av) fi_close(&av->fid);
  if (cq) fi_close(&cq->fid);
  if (domain) fi_close(&domain->fid);
  if (fabric) fi_close(&fabric->fid);
  if (info) fi_freeinfo(info);
  while (qhead) {
    sbuf_t *s = qhead;
    qhead = s->next;
    if (!s->pooled) free(s);
  }
  while (thead) {
    trecv_t *t = thead;
    thead = t->next;
    free(t);
  }
  ttail = NULL;
  tagged = 0;
  free(rslab);
  free(sslab);
  free(aligned);
  free(addrs);
  for (int i = 0; early && i < nranks; i++)
    while (early[i]) {
      early_t *x = early[i];
      early[i] = x->next;
      free(x);
    }
  free(early);
  free(tx_seq);
  free(rx_seq);
  free(injected);
  free(took);
  free(connect_since);
  free(probed);
  connect_since = NULL;
  probed = NULL;
  injected = took = NULL;
  early = NULL;
  tx_seq = rx_seq = NULL;
  ep = NULL;
  rslab_mr = sslab_mr = NULL;
  av = NULL;
  cq = NULL;
  domain = NULL;
  fabric = NULL;
  info = NULL;
  rslab = sslab = aligned = NULL;
  multi = nrbufs = 0;
  addrs = NULL;
  sfree = NULL;
  qtail = NULL;
  wait_fd = -1;
}
#endif
