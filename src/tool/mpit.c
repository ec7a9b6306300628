/* MPI_T, the tool information interface (MPI 4.1 chapter 15).
 *
 * Contract
 * - MPI_T_init_thread/MPI_T_finalize are reference counted and work before
 *   MPI_Init and after MPI_Finalize; every other MPI_T call needs an open
 *   reference (MPI_T_ERR_NOT_INITIALIZED otherwise).
 * - Control variables are Ferry's config table (runtime/fy_config_table.def),
 *   one per FY_CFG entry in table order: INT/SIZE as MPI_LONG, DOUBLE as
 *   MPI_DOUBLE, BOOL as MPI_INT, STRING as MPI_CHAR (count = bytes with the
 *   NUL). Settings are read from the environment once (MPI_T_init_thread or
 *   MPI_Init loads them), so every cvar is MPI_T_SCOPE_READONLY and a write
 *   returns MPI_T_ERR_CVAR_SET_NEVER.
 * - Performance variables are the point-to-point protocol counters
 *   (fy_pt2pt_stats), the asynchronous agents' counters (fy_async_ctr),
 *   the RMA counters (fy_rma_stats) and the fabric's (fy_net_stats for
 *   the protocols over it, fy_ofi_stats for the libfabric transport):
 *   class COUNTER, MPI_UNSIGNED_LONG_LONG, not continuous (a handle counts
 *   only while started), writable per handle (the handle's own value; the
 *   library's counters are never changed).
 * - Categories: one per layer; no enumerations, no events, no event sources
 *   (the calls answer honestly: zero of them, or MPI_T_ERR_INVALID_*).
 * - Errors are returned, never raised (core/fy_errhandler.c skips MPI_T_). */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "runtime/fy_config.h"
#include "pt2pt/fy_pt2pt.h"
#include "progress/async/fy_async.h"
#include "rma/fy_rma.h"
#include "transport/ofi/fy_ofi.h"
#include "binding/fy_impl.h"

/* ---- tables ---- */

enum { T_INT, T_SIZE, T_DOUBLE, T_BOOL, T_STRING };
enum { CAT_RUNTIME, CAT_TRANSPORT, CAT_PT2PT, CAT_PROGRESS, CAT_COLL, CAT_RMA, CAT_NET, CAT_LAUNCHER, NCAT };

typedef struct {
  const char *name, *doc;
  int type;
  size_t off;
} cvar_t;

static const cvar_t cvars[] = {
#define FY_CFG(field, name, type, def, doc) {name, doc, T_##type, offsetof(fy_config_t, field)},
#include "runtime/fy_config_table.def"
#undef FY_CFG
};
#define NCVAR ((int)(sizeof cvars / sizeof cvars[0]))

static const struct { const char *name, *desc; } cats[NCAT] = {
    {"ferry_runtime", "Runtime: statistics, datatype engine, anything not in another category"},
    {"ferry_transport", "Shared-memory transport: rings, pipelined copy, cross-memory attach"},
    {"ferry_pt2pt", "Point-to-point: eager/rendezvous protocols and message queues"},
    {"ferry_progress", "Progress engine and asynchronous progress agents (thread, interrupt, pef)"},
    {"ferry_coll", "Collective algorithms"},
    {"ferry_rma", "One-sided communication"},
    {"ferry_net", "Across hosts: the libfabric transport and the protocols over it"},
    {"ferry_launcher", "mpiexec (read by the launcher, shown here for completeness)"},
};

static int has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* Category of a cvar, from its FERRY_ name. */
static int cvar_cat(int i) {
  const char *n = cvars[i].name;
  if (has_prefix(n, "MPIEXEC_") || has_prefix(n, "FERRY_LAUNCHER") || has_prefix(n, "FERRY_PMI_HOST") ||
      !strcmp(n, "FERRY_OUTPUT_PREFIX") || !strcmp(n, "FERRY_KILL_TIMEOUT") || !strcmp(n, "FERRY_BIND"))
    return CAT_LAUNCHER;
  if (has_prefix(n, "FERRY_COLL_")) return CAT_COLL;
  if (has_prefix(n, "FERRY_RMA_")) return CAT_RMA;
  if (has_prefix(n, "FERRY_OFI_") || !strcmp(n, "FERRY_NOLOCAL")) return CAT_NET;
  if (has_prefix(n, "FERRY_PEF_") || has_prefix(n, "FERRY_INTR_") || has_prefix(n, "FERRY_PROGRESS") ||
      !strcmp(n, "FERRY_SPIN") || !strcmp(n, "FERRY_YIELD") || !strcmp(n, "FERRY_SLEEP_US"))
    return CAT_PROGRESS;
  if (has_prefix(n, "FERRY_SHM_") || !strcmp(n, "FERRY_CMA") || !strcmp(n, "FERRY_CMA_CHUNK")) return CAT_TRANSPORT;
  if (has_prefix(n, "FERRY_MQ") || has_prefix(n, "FERRY_EAGER") || has_prefix(n, "FERRY_PIPE") ||
      has_prefix(n, "FERRY_DIRECT") || has_prefix(n, "FERRY_IRECV") || has_prefix(n, "FERRY_ZC") ||
      has_prefix(n, "FERRY_SHARE") || has_prefix(n, "FERRY_STAGE") || has_prefix(n, "FERRY_RNDV"))
    return CAT_PT2PT;
  return CAT_RUNTIME;
}

typedef struct {
  const char *name, *desc;
  const uint64_t *ctr;
  int cat;
} pvar_t;

#define P2P(f, d) {"ferry_pt2pt_" #f, d, &fy_pt2pt_stats.f, CAT_PT2PT}
#define ASY(f, d) {"ferry_async_" #f, d, &fy_async_ctr.f, CAT_PROGRESS}
#define RMA(f, d) {"ferry_rma_" #f, d, &fy_rma_stats.f, CAT_RMA}
#define NET(f, d) {"ferry_net_" #f, d, &fy_net_stats.f, CAT_NET}
#define OFI(f, d) {"ferry_ofi_" #f, d, &fy_ofi_stats.f, CAT_NET}
static const pvar_t pvars[] = {
    P2P(eager_sent, "Messages sent eagerly (one packet with the data)"),
    P2P(rndv_sent, "Messages sent by rendezvous"),
    P2P(rndv_cma_recv, "Rendezvous receives that copied by cross-memory attach"),
    P2P(rndv_cma_send, "Rendezvous sends whose data the sender wrote by cross-memory attach"),
    P2P(rndv_pipe, "Rendezvous transfers through the pipelined shared-memory copy"),
    P2P(unexpected, "Messages that arrived before their receive was posted"),
    P2P(queued_pkts, "Packets queued locally because the receiver's ring was full"),
    P2P(direct_published, "Large receives published for a direct write by the sender"),
    P2P(direct_sent, "Sends written straight into a published receive"),
    P2P(direct_recv, "Receives completed by a direct write"),
    P2P(rndv_share, "Rendezvous transfers whose copy both sides shared"),
    P2P(rndv_joined, "Rendezvous copies taken by one side that the other, on reaching its wait, joined"),
    P2P(eager_piped, "Eager messages above the eager threshold sent through the pipe slots (FERRY_EAGER_PIPE_MAX)"),
    ASY(watched, "Requests added to the asynchronous agents' watch list"),
    ASY(turns, "PEF turns or agent progress passes"),
    ASY(hits, "Watched requests an agent triggered"),
    ASY(misses, "Agent turns that found nothing"),
    ASY(capped, "PEF timers stopped after the maximum number of futile turns"),
    ASY(kicked, "PEF turns started by a sender's kick"),
    ASY(wakeups, "Interrupt agent wake-ups"),
    ASY(futile, "Wake-ups with nothing to do (or the progress lock busy)"),
    ASY(deferred, "PEF expiries that hit while the thread was inside Ferry"),
    ASY(pef_inside, "PEF turns run while inside Ferry (must stay 0)"),
    ASY(time_ns, "Nanoseconds spent in agent turns"),
    RMA(am_throttled, "One-sided operations on windows across nodes that waited in their call until the targets had "
                      "taken enough of the data sent before (FERRY_RMA_AM_INFLIGHT)"),
    NET(eager, "Eager messages sent to ranks on other hosts (or to every rank under FERRY_NOLOCAL)"),
    NET(eager_ref, "Of those, the ones sent out of the sender's buffer without a copy (8 KiB and more, completing on "
                   "sending, where the provider needs no registered local buffers)"),
    NET(rget, "Fabric rendezvous receives that read the data from the sender (RDMA Read)"),
    NET(rput, "Fabric rendezvous receives whose data the sender wrote after a clear-to-send (RDMA Write)"),
    NET(ahead, "Fabric rendezvous messages whose data (or its first part) went right behind the RTS as a tagged message (FERRY_OFI_AHEAD)"),
    NET(ahead_unexp, "Such messages whose data arrived before a receive matched them, into a bounce buffer"),
    NET(fin_rode, "Answers to data ahead that rode on another packet to its sender (a message, an RTS) instead of "
                  "going as a packet of their own"),
    NET(paced, "Fabric rendezvous transfers a trigger-only agent drained at a pace (FERRY_OFI_PACE_US)"),
    NET(busy, "Blocking waits over the fabric that polled again, or napped, instead of sleeping (events pending)"),
    NET(sleeps, "Blocking waits that slept on the completion queue's fd"),
    NET(woken, "Sleeps on the completion queue's fd that the fd ended"),
    NET(timeouts, "Sleeps on the completion queue's fd that timed out"),
    NET(naps, "Naps (FERRY_OFI_MIXED_SLEEP_US) of blocking waits: on an fd that kept waking with nothing to take, or on the doorbell of a rank with both kinds of peer and no fabric agent"),
    NET(relayed, "Blocking waits of a rank with both kinds of peer that slept on the doorbell while the fabric agent watched the fd for them"),
    NET(relays, "Times the fabric agent woke a blocking wait: a relayed one (the fd fired, or its own turn did work), or one asleep on the fd whose message its turn took"),
    OFI(sent, "Messages handed to libfabric with a completion (fi_send)"),
    OFI(injected, "Small messages handed to libfabric without one (fi_inject)"),
    OFI(recvd, "Messages received from the fabric"),
    OFI(queued, "Messages queued because libfabric could not take them at once (FI_EAGAIN or no free buffer)"),
    OFI(reads, "Fabric reads started (one per transfer, whatever its pieces)"),
    OFI(writes, "Fabric writes started (one per transfer, whatever its pieces)"),
    OFI(rma_pieces, "Read and write operations issued to libfabric (a transfer above the provider's max_msg_size takes several)"),
    OFI(mr_hits, "Memory registrations found in the registration cache"),
    OFI(mr_misses, "Memory registrations made (not in the cache)"),
    OFI(early, "Messages that arrived before an earlier one of the same peer and were held back"),
    OFI(landed, "Peers' notified writes into this process's memory"),
    OFI(eagain_inject, "fi_inject calls refused with FI_EAGAIN"),
    OFI(eagain_send, "fi_send calls refused with FI_EAGAIN"),
    OFI(eagain_rma, "fi_read/fi_write calls refused with FI_EAGAIN"),
    OFI(eagain_connect, "FI_EAGAIN before a peer took its first message (the provider still connecting)"),
};
#define NPVAR ((int)(sizeof pvars / sizeof pvars[0]))

static uint64_t pvar_now(int i) { return __atomic_load_n(pvars[i].ctr, __ATOMIC_RELAXED); }

/* ---- state ---- */

struct fy_t_cvar_handle { int idx; };
struct fy_t_pvar_handle {
  int idx, started;
  uint64_t base, acc;
  struct fy_t_pvar_session *session;
  struct fy_t_pvar_handle *next;
};
struct fy_t_pvar_session { struct fy_t_pvar_handle *handles; };

static pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;
static int t_refs;

static int t_ready(void) {
  pthread_mutex_lock(&t_lock);
  int r = t_refs > 0;
  pthread_mutex_unlock(&t_lock);
  return r;
}
#define NEED_INIT() do { if (!t_ready()) return MPI_T_ERR_NOT_INITIALIZED; } while (0)

/* The standard's string rule: *len in = buffer size, out = length + 1;
 * a NULL buffer or *len == 0 only asks for the length. */
static void str_out(const char *s, char *buf, int *len) {
  if (!len) return;
  int need = (int)strlen(s) + 1;
  if (buf && *len > 0) {
    int n = need < *len ? need : *len;
    memcpy(buf, s, (size_t)(n - 1));
    buf[n - 1] = 0;
    *len = n;
  } else {
    *len = need;
  }
}

int fy_mpi_t_init_thread(int required, int *provided) {
  fy_config_load(); /* cvars read before MPI_Init show the environment's values */
  pthread_mutex_lock(&t_lock);
  t_refs++;
  pthread_mutex_unlock(&t_lock);
  if (provided) *provided = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE
                          : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
  return MPI_SUCCESS;
}

int fy_mpi_t_finalize(void) {
  pthread_mutex_lock(&t_lock);
  int err = t_refs > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
  if (t_refs > 0) t_refs--;
  pthread_mutex_unlock(&t_lock);
  return err;
}

/* ---- control variables ---- */

int fy_mpi_t_cvar_get_num(int *num_cvar) {
  NEED_INIT();
  *num_cvar = NCVAR;
  return MPI_SUCCESS;
}

static MPI_Datatype cvar_type(int i) {
  switch (cvars[i].type) {
    case T_DOUBLE: return MPI_DOUBLE;
    case T_BOOL: return MPI_INT;
    case T_STRING: return MPI_CHAR;
    default: return MPI_LONG;
  }
}

int fy_mpi_t_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                           MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                           int *bind, int *scope) {
  NEED_INIT();
  if (cvar_index < 0 || cvar_index >= NCVAR) return MPI_T_ERR_INVALID_INDEX;
  str_out(cvars[cvar_index].name, name, name_len);
  str_out(cvars[cvar_index].doc, desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (datatype) *datatype = cvar_type(cvar_index);
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (scope) *scope = MPI_T_SCOPE_READONLY;
  return MPI_SUCCESS;
}

int fy_mpi_t_cvar_get_index(const char *name, int *cvar_index) {
  NEED_INIT();
  if (!name || !cvar_index) return MPI_T_ERR_INVALID;
  for (int i = 0; i < NCVAR; i++)
    if (!strcmp(cvars[i].name, name)) {
      *cvar_index = i;
      return MPI_SUCCESS;
    }
  return MPI_T_ERR_INVALID_NAME;
}

static const char *cvar_str(int i) {
  const char *s = *(const char *const *)((const char *)&fy_config + cvars[i].off);
  return s ? s : "";
}

int fy_mpi_t_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count) {
  (void)obj_handle; /* MPI_T_BIND_NO_OBJECT: ignored */
  NEED_INIT();
  if (cvar_index < 0 || cvar_index >= NCVAR) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_T_ERR_INVALID;
  struct fy_t_cvar_handle *h = malloc(sizeof *h);
  if (!h) return MPI_T_ERR_MEMORY;
  h->idx = cvar_index;
  *count = cvars[cvar_index].type == T_STRING ? (int)strlen(cvar_str(cvar_index)) + 1 : 1;
  *handle = h;
  return MPI_SUCCESS;
}

int fy_mpi_t_cvar_handle_free(MPI_T_cvar_handle *handle) {
  NEED_INIT();
  if (!handle || *handle == MPI_T_CVAR_HANDLE_NULL) return MPI_T_ERR_INVALID_HANDLE;
  free(*handle);
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

int fy_mpi_t_cvar_read(MPI_T_cvar_handle handle, void *buf) {
  NEED_INIT();
  if (handle == MPI_T_CVAR_HANDLE_NULL) return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_T_ERR_INVALID;
  int i = handle->idx;
  const char *field = (const char *)&fy_config + cvars[i].off;
  switch (cvars[i].type) {
    case T_INT:
    case T_SIZE: memcpy(buf, field, sizeof(long)); break;
    case T_DOUBLE: memcpy(buf, field, sizeof(double)); break;
    case T_BOOL: memcpy(buf, field, sizeof(int)); break;
    default: strcpy(buf, cvar_str(i)); break; /* the count handle_alloc gave */
  }
  return MPI_SUCCESS;
}

int fy_mpi_t_cvar_write(MPI_T_cvar_handle handle, const void *buf) {
  (void)buf;
  NEED_INIT();
  if (handle == MPI_T_CVAR_HANDLE_NULL) return MPI_T_ERR_INVALID_HANDLE;
  return MPI_T_ERR_CVAR_SET_NEVER; /* read once from the environment */
}

/* ---- enumerations: none ---- */

int fy_mpi_t_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len) {
  (void)enumtype; (void)num; (void)name; (void)name_len;
  NEED_INIT();
  return MPI_T_ERR_INVALID_HANDLE;
}

int fy_mpi_t_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len) {
  (void)enumtype; (void)index; (void)value; (void)name; (void)name_len;
  NEED_INIT();
  return MPI_T_ERR_INVALID_HANDLE;
}

/* ---- performance variables ---- */

int fy_mpi_t_pvar_get_num(int *num_pvar) {
  NEED_INIT();
  *num_pvar = NPVAR;
  return MPI_SUCCESS;
}

int fy_mpi_t_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                           MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                           int *bind, int *readonly, int *continuous, int *atomic) {
  NEED_INIT();
  if (pvar_index < 0 || pvar_index >= NPVAR) return MPI_T_ERR_INVALID_INDEX;
  str_out(pvars[pvar_index].name, name, name_len);
  str_out(pvars[pvar_index].desc, desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (var_class) *var_class = MPI_T_PVAR_CLASS_COUNTER;
  if (datatype) *datatype = MPI_UNSIGNED_LONG_LONG;
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (readonly) *readonly = 0;
  if (continuous) *continuous = 0;
  if (atomic) *atomic = 0;
  return MPI_SUCCESS;
}

int fy_mpi_t_pvar_get_index(const char *name, int var_class, int *pvar_index) {
  NEED_INIT();
  if (!name || !pvar_index) return MPI_T_ERR_INVALID;
  for (int i = 0; i < NPVAR; i++)
    if (!strcmp(pvars[i].name, name)) {
      if (var_class != MPI_T_PVAR_CLASS_COUNTER) break;
      *pvar_index = i;
      return MPI_SUCCESS;
    }
  return MPI_T_ERR_INVALID_NAME;
}

int fy_mpi_t_pvar_session_create(MPI_T_pvar_session *pe_session) {
  NEED_INIT();
  if (!pe_session) return MPI_T_ERR_INVALID;
  struct fy_t_pvar_session *s = calloc(1, sizeof *s);
  if (!s) return MPI_T_ERR_MEMORY;
  *pe_session = s;
  return MPI_SUCCESS;
}

int fy_mpi_t_pvar_session_free(MPI_T_pvar_session *pe_session) {
  NEED_INIT();
  if (!pe_session || *pe_session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
  struct fy_t_pvar_session *s = *pe_session;
  while (s->handles) {
    struct fy_t_pvar_handle *n = s->handles->next;
    free(s->handles);
    s->handles = n;
  }
  free(s);
  *pe_session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}

int fy_mpi_t_pvar_handle_alloc(MPI_T_pvar_session pe_session, int pvar_index, void *obj_handle,
                               MPI_T_pvar_handle *handle, int *count) {
  (void)obj_handle;
  NEED_INIT();
  if (pe_session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
  if (pvar_index < 0 || pvar_index >= NPVAR) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_T_ERR_INVALID;
  struct fy_t_pvar_handle *h = calloc(1, sizeof *h);
  if (!h) return MPI_T_ERR_MEMORY;
  h->idx = pvar_index;
  h->session = pe_session;
  pthread_mutex_lock(&t_lock); /* a session's handle list may be shared by threads */
  h->next = pe_session->handles;
  pe_session->handles = h;
  pthread_mutex_unlock(&t_lock);
  *handle = h;
  *count = 1;
  return MPI_SUCCESS;
}

/* A handle of this session (not MPI_T_PVAR_ALL_HANDLES). */
static int pvar_check(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
  if (s == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
  if (h == MPI_T_PVAR_HANDLE_NULL || h == MPI_T_PVAR_ALL_HANDLES) return MPI_T_ERR_INVALID_HANDLE;
  if (h->session != s) return MPI_T_ERR_INVALID_HANDLE;
  return MPI_SUCCESS;
}

int fy_mpi_t_pvar_handle_free(MPI_T_pvar_session pe_session, MPI_T_pvar_handle *handle) {
  NEED_INIT();
  if (!handle) return MPI_T_ERR_INVALID_HANDLE;
  int err = pvar_check(pe_session, *handle);
  if (err) return err;
  pthread_mutex_lock(&t_lock);
  for (struct fy_t_pvar_handle **p = &pe_session->handles; *p; p = &(*p)->next)
    if (*p == *handle) {
      *p = (*handle)->next;
      break;
    }
  pthread_mutex_unlock(&t_lock);
  free(*handle);
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

static uint64_t pvar_value(struct fy_t_pvar_handle *h) {
  return h->acc + (h->started ? pvar_now(h->idx) - h->base : 0);
}

static void pvar_start1(struct fy_t_pvar_handle *h) {
  if (h->started) return;
  h->base = pvar_now(h->idx);
  h->started = 1;
}

static void pvar_stop1(struct fy_t_pvar_handle *h) {
  if (!h->started) return;
  h->acc = pvar_value(h);
  h->started = 0;
}

static void pvar_reset1(struct fy_t_pvar_handle *h) {
  h->acc = 0;
  h->base = pvar_now(h->idx);
}

/* Apply fn to one handle or, for MPI_T_PVAR_ALL_HANDLES, to every handle
 * of the session. */
static int pvar_each(MPI_T_pvar_session s, MPI_T_pvar_handle h, void (*fn)(struct fy_t_pvar_handle *)) {
  NEED_INIT();
  if (s == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
  if (h == MPI_T_PVAR_ALL_HANDLES) {
    pthread_mutex_lock(&t_lock);
    for (struct fy_t_pvar_handle *x = s->handles; x; x = x->next) fn(x);
    pthread_mutex_unlock(&t_lock);
    return MPI_SUCCESS;
  }
  int err = pvar_check(s, h);
  if (err) return err;
  fn(h);
  return MPI_SUCCESS;
}

int fy_mpi_t_pvar_start(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle) {
  return pvar_each(pe_session, handle, pvar_start1);
}

int fy_mpi_t_pvar_stop(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle) {
  return pvar_each(pe_session, handle, pvar_stop1);
}

int fy_mpi_t_pvar_reset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle) {
  return pvar_each(pe_session, handle, pvar_reset1);
}

int fy_mpi_t_pvar_read(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf) {
  NEED_INIT();
  int err = pvar_check(pe_session, handle);
  if (err) return err;
  if (!buf) return MPI_T_ERR_INVALID;
  unsigned long long v = pvar_value(handle);
  memcpy(buf, &v, sizeof v);
  return MPI_SUCCESS;
}

int fy_mpi_t_pvar_readreset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf) {
  int err = fy_mpi_t_pvar_read(pe_session, handle, buf);
  if (!err) pvar_reset1(handle);
  return err;
}

int fy_mpi_t_pvar_write(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, const void *buf) {
  NEED_INIT();
  int err = pvar_check(pe_session, handle);
  if (err) return err;
  if (!buf) return MPI_T_ERR_INVALID;
  unsigned long long v;
  memcpy(&v, buf, sizeof v);
  handle->acc = v; /* the handle's value; the library's counter is untouched */
  handle->base = pvar_now(handle->idx);
  return MPI_SUCCESS;
}

/* ---- categories ---- */

int fy_mpi_t_category_get_num(int *num_cat) {
  NEED_INIT();
  *num_cat = NCAT;
  return MPI_SUCCESS;
}

static int cat_counts(int c, int *nc, int *np) {
  *nc = *np = 0;
  for (int i = 0; i < NCVAR; i++) *nc += cvar_cat(i) == c;
  for (int i = 0; i < NPVAR; i++) *np += pvars[i].cat == c;
  return 0;
}

int fy_mpi_t_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                               int *num_cvars, int *num_pvars, int *num_categories) {
  NEED_INIT();
  if (cat_index < 0 || cat_index >= NCAT) return MPI_T_ERR_INVALID_INDEX;
  int nc, np;
  cat_counts(cat_index, &nc, &np);
  str_out(cats[cat_index].name, name, name_len);
  str_out(cats[cat_index].desc, desc, desc_len);
  if (num_cvars) *num_cvars = nc;
  if (num_pvars) *num_pvars = np;
  if (num_categories) *num_categories = 0;
  return MPI_SUCCESS;
}

int fy_mpi_t_category_get_index(const char *name, int *cat_index) {
  NEED_INIT();
  if (!name || !cat_index) return MPI_T_ERR_INVALID;
  for (int i = 0; i < NCAT; i++)
    if (!strcmp(cats[i].name, name)) {
      *cat_index = i;
      return MPI_SUCCESS;
    }
  return MPI_T_ERR_INVALID_NAME;
}

int fy_mpi_t_category_get_cvars(int cat_index, int len, int indices[]) {
  NEED_INIT();
  if (cat_index < 0 || cat_index >= NCAT) return MPI_T_ERR_INVALID_INDEX;
  for (int i = 0, n = 0; i < NCVAR && n < len; i++)
    if (cvar_cat(i) == cat_index) indices[n++] = i;
  return MPI_SUCCESS;
}

int fy_mpi_t_category_get_pvars(int cat_index, int len, int indices[]) {
  NEED_INIT();
  if (cat_index < 0 || cat_index >= NCAT) return MPI_T_ERR_INVALID_INDEX;
  for (int i = 0, n = 0; i < NPVAR && n < len; i++)
    if (pvars[i].cat == cat_index) indices[n++] = i;
  return MPI_SUCCESS;
}

int fy_mpi_t_category_get_categories(int cat_index, int len, int indices[]) {
  (void)len; (void)indices; /* flat: no subcategories */
  NEED_INIT();
  if (cat_index < 0 || cat_index >= NCAT) return MPI_T_ERR_INVALID_INDEX;
  return MPI_SUCCESS;
}

int fy_mpi_t_category_get_num_events(int cat_index, int *num_events) {
  NEED_INIT();
  if (cat_index < 0 || cat_index >= NCAT) return MPI_T_ERR_INVALID_INDEX;
  *num_events = 0;
  return MPI_SUCCESS;
}

int fy_mpi_t_category_get_events(int cat_index, int len, int indices[]) {
  (void)len; (void)indices;
  NEED_INIT();
  if (cat_index < 0 || cat_index >= NCAT) return MPI_T_ERR_INVALID_INDEX;
  return MPI_SUCCESS;
}

int fy_mpi_t_category_changed(int *update_number) {
  NEED_INIT();
  *update_number = 0; /* the variables are fixed when the library is built */
  return MPI_SUCCESS;
}

/* ---- events and event sources: none ---- */

int fy_mpi_t_source_get_num(int *num_sources) {
  NEED_INIT();
  *num_sources = 0;
  return MPI_SUCCESS;
}

int fy_mpi_t_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                             MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                             MPI_Count *max_ticks, MPI_Info *info) {
  (void)source_index; (void)name; (void)name_len; (void)desc; (void)desc_len; (void)ordering;
  (void)ticks_per_second; (void)max_ticks; (void)info;
  NEED_INIT();
  return MPI_T_ERR_INVALID_INDEX;
}

int fy_mpi_t_source_get_timestamp(int source_index, MPI_Count *timestamp) {
  (void)source_index; (void)timestamp;
  NEED_INIT();
  return MPI_T_ERR_INVALID_INDEX;
}

int fy_mpi_t_event_get_num(int *num_events) {
  NEED_INIT();
  *num_events = 0;
  return MPI_SUCCESS;
}

int fy_mpi_t_event_get_index(const char *name, int *event_index) {
  (void)name; (void)event_index;
  NEED_INIT();
  return MPI_T_ERR_INVALID_NAME;
}

int fy_mpi_t_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                            MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                            int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                            int *desc_len, int *bind) {
  (void)event_index; (void)name; (void)name_len; (void)verbosity; (void)array_of_datatypes;
  (void)array_of_displacements; (void)num_elements; (void)enumtype; (void)info; (void)desc;
  (void)desc_len; (void)bind;
  NEED_INIT();
  return MPI_T_ERR_INVALID_INDEX;
}

int fy_mpi_t_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                                MPI_T_event_registration *event_registration) {
  (void)event_index; (void)obj_handle; (void)info; (void)event_registration;
  NEED_INIT();
  return MPI_T_ERR_INVALID_INDEX;
}

/* No event can be allocated, so no registration or instance handle exists. */
#define NO_EVENT_HANDLE() do { NEED_INIT(); return MPI_T_ERR_INVALID_HANDLE; } while (0)
int fy_mpi_t_event_handle_free(MPI_T_event_registration r, void *user_data, MPI_T_event_free_cb_function f) {
  (void)r; (void)user_data; (void)f;
  NO_EVENT_HANDLE();
}
int fy_mpi_t_event_handle_get_info(MPI_T_event_registration r, MPI_Info *info_used) {
  (void)r; (void)info_used;
  NO_EVENT_HANDLE();
}
int fy_mpi_t_event_handle_set_info(MPI_T_event_registration r, MPI_Info info) {
  (void)r; (void)info;
  NO_EVENT_HANDLE();
}
int fy_mpi_t_event_register_callback(MPI_T_event_registration r, MPI_T_cb_safety cb_safety, MPI_Info info,
                                     void *user_data, MPI_T_event_cb_function f) {
  (void)r; (void)cb_safety; (void)info; (void)user_data; (void)f;
  NO_EVENT_HANDLE();
}
int fy_mpi_t_event_callback_get_info(MPI_T_event_registration r, MPI_T_cb_safety cb_safety, MPI_Info *info_used) {
  (void)r; (void)cb_safety; (void)info_used;
  NO_EVENT_HANDLE();
}
int fy_mpi_t_event_callback_set_info(MPI_T_event_registration r, MPI_T_cb_safety cb_safety, MPI_Info info) {
  (void)r; (void)cb_safety; (void)info;
  NO_EVENT_HANDLE();
}
int fy_mpi_t_event_set_dropped_handler(MPI_T_event_registration r, MPI_T_event_dropped_cb_function f) {
  (void)r; (void)f;
  NO_EVENT_HANDLE();
}
int fy_mpi_t_event_read(MPI_T_event_instance e, int element_index, void *buffer) {
  (void)e; (void)element_index; (void)buffer;
  NO_EVENT_HANDLE();
}
int fy_mpi_t_event_copy(MPI_T_event_instance e, void *buffer) {
  (void)e; (void)buffer;
  NO_EVENT_HANDLE();
}
int fy_mpi_t_event_get_timestamp(MPI_T_event_instance e, MPI_Count *event_timestamp) {
  (void)e; (void)event_timestamp;
  NO_EVENT_HANDLE();
}
int fy_mpi_t_event_get_source(MPI_T_event_instance e, int *source_index) {
  (void)e; (void)source_index;
  NO_EVENT_HANDLE();
}
