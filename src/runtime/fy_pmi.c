/* PMI-1 client: see fy_pmi.h. Speaks to Ferry's mpiexec, MPICH's Hydra
 * (PMI_FD or PMI_PORT/PMI_ID) and any other PMI-1 server, or through
 * fy_pmix.c to a PMIx server (srun --mpi=pmix, Open MPI's mpirun); runs
 * alone as a singleton when no server is given. */
#include "runtime/fy_pmi.h"
#include "runtime/fy_pmi_wire.h"
#include "runtime/fy_pmix.h"
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct kv { char *key, *val; struct kv *next; } kv_t;

static struct {
  int inited, singleton, pmix; /* pmix: the calls go to fy_pmix.c */
  int fd, own_fd;          /* own_fd: we connected it (PMI_PORT) */
  int rank, size, appnum;
  long key_max, val_max;
  char kvsname[FY_PMI_KVSNAME_MAX + 1];
  fy_pmi_reader_t rd;
  fy_pmi_msg_t msg;      /* last response */
  kv_t *local_kvs;       /* singleton KVS */
  kv_t *local_names;     /* singleton name service */
  int *local, nlocal, my_local; /* cached node-local ranks */
  int *nodes;                    /* per rank its node, from PMI_process_mapping (NULL: not given) */
  char err[512];
} pmi = { .fd = -1 };

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pmi.err, sizeof pmi.err, fmt, ap);
  va_end(ap);
  return -1;
}

const char *fy_pmi_error(void) { return pmi.err[0] ? pmi.err : "no error"; }
const char *fy_pmi_kvsname(void) { return pmi.kvsname; }
int fy_pmi_is_singleton(void) { return pmi.singleton; }
int fy_pmi_is_pmix(void) { return pmi.pmix; }

/* ---- transport ---------------------------------------------------------- */

static int send_all(const char *buf, size_t len) {
  while (len > 0) {
    /* MSG_NOSIGNAL: a dead server must give an error, not SIGPIPE. */
    ssize_t n = send(pmi.fd, buf, len, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = write(pmi.fd, buf, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("PMI: cannot write to the process manager (fd %d): %s", pmi.fd, strerror(errno));
    }
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Read the next line into pmi.msg. */
static int recv_msg(const char *what) {
  for (;;) {
    const char *line;
    size_t len;
    int r = fy_pmi_reader_next(&pmi.rd, &line, &len);
    if (r < 0) return fail("PMI %s: response line longer than %d bytes", what, FY_PMI_LINE_MAX);
    if (r > 0) {
      if (len == 0) continue;
      if (fy_pmi_msg_parse(&pmi.msg, line, len) != 0)
        return fail("PMI %s: malformed response \"%.*s\"", what, (int)(len > 200 ? 200 : len), line);
      return 0;
    }
    size_t avail;
    char *p = fy_pmi_reader_space(&pmi.rd, &avail);
    ssize_t n = read(pmi.fd, p, avail);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("PMI %s: cannot read from the process manager: %s", what, strerror(errno));
    if (n == 0) return fail("PMI %s: the process manager closed the connection", what);
    fy_pmi_reader_commit(&pmi.rd, (size_t)n);
  }
}

/* Send one command and wait for the response whose cmd is `expect`;
 * check rc when present. */
static int transact(const char *line, const char *expect, const char *what) {
  if (send_all(line, strlen(line)) != 0) return -1;
  if (recv_msg(what) != 0) return -1;
  const char *cmd = fy_pmi_msg_get(&pmi.msg, "cmd");
  if (!cmd || strcmp(cmd, expect))
    return fail("PMI %s: expected cmd=%s from the process manager, got cmd=%s", what, expect,
                cmd ? cmd : "(none)");
  long rc;
  if (fy_pmi_msg_get_int(&pmi.msg, "rc", &rc) == 0 && rc != 0) {
    const char *msg = fy_pmi_msg_get(&pmi.msg, "msg");
    return fail("PMI %s failed: rc=%ld%s%s", what, rc, msg ? ": " : "", msg ? msg : "");
  }
  return 0;
}

#define FORMAT(buf, ...)                                                       \
  (fy_pmi_msg_format(buf, sizeof buf, __VA_ARGS__, (char *)NULL) < 0           \
       ? fail("PMI: cannot encode a command (value with a space or too long)") \
       : 0)

static int env_int(const char *name, int *out) {
  const char *s = getenv(name);
  if (!s) return 1;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (!*s || *end || errno || v < 0 || v > 1 << 30)
    return fail("PMI: environment variable %s=\"%s\" is not a valid number", name, s);
  *out = (int)v;
  return 0;
}

/* PMI_PORT=host:port: connect by TCP and identify with PMI_ID (Hydra's
 * -pmi-port mode, also the old MPD one). The server then tells size/rank. */
static int connect_port(const char *port) {
  char host[256];
  const char *colon = strrchr(port, ':');
  if (!colon || colon == port || (size_t)(colon - port) >= sizeof host || !colon[1])
    return fail("PMI: PMI_PORT=\"%s\" is not host:port", port);
  memcpy(host, port, (size_t)(colon - port));
  host[colon - port] = '\0';
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
  int e = getaddrinfo(host, colon + 1, &hints, &res);
  if (e) return fail("PMI: cannot resolve PMI_PORT host \"%s\": %s", host, gai_strerror(e));
  int fd = -1, err = 0;
  for (ai = res; ai; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) { err = errno; continue; }
    int r;
    do r = connect(fd, ai->ai_addr, ai->ai_addrlen); while (r < 0 && errno == EINTR);
    if (r == 0) break;
    err = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) return fail("PMI: cannot connect to PMI_PORT %s: %s", port, strerror(err));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  pmi.fd = fd;
  pmi.own_fd = 1;

  int id = 0;
  if (env_int("PMI_ID", &id) < 0) return -1;
  char buf[128], idstr[16];
  snprintf(idstr, sizeof idstr, "%d", id);
  if (FORMAT(buf, "cmd", "initack", "pmiid", idstr) < 0) return -1;
  if (transact(buf, "initack", "initack") < 0) return -1;
  /* Then cmd=set size=N, cmd=set rank=N, cmd=set debug=N. */
  for (int i = 0; i < 3; i++) {
    long v;
    if (recv_msg("initack") < 0) return -1;
    const char *cmd = fy_pmi_msg_get(&pmi.msg, "cmd");
    if (!cmd || strcmp(cmd, "set"))
      return fail("PMI initack: expected cmd=set, got cmd=%s", cmd ? cmd : "(none)");
    if (fy_pmi_msg_get_int(&pmi.msg, "size", &v) == 0) pmi.size = (int)v;
    else if (fy_pmi_msg_get_int(&pmi.msg, "rank", &v) == 0) pmi.rank = (int)v;
  }
  return 0;
}

/* ---- API ---------------------------------------------------------------- */

/* No PMI-1 or PMIx server in the environment, yet a launcher started this
 * process as one of several: srun --mpi=none (Slurm's pmi2 plugin also
 * speaks PMI-1, its pmix plugin PMIx), or a PMIx launcher's environment
 * without its server. Running on as a singleton would give
 * N jobs of size 1 that each compute the whole problem; refuse instead,
 * and say what works. A batch script (no SLURM_STEP_NUM_TASKS) and a
 * one-task step still start singletons. */
static int direct_launch_refused(void) {
  const char *nt = getenv("SLURM_STEP_NUM_TASKS"), *pmix = getenv("PMIX_RANK");
  const char *ompi = getenv("OMPI_COMM_WORLD_SIZE");
  if (nt && atoi(nt) > 1)
    return fail("PMI: this process is one of the %s tasks of a Slurm step, started without a PMI server "
                "that Ferry speaks (%s); run srun --mpi=pmi2, or launch with mpiexec or mpiexec.hydra",
                nt, pmix ? "PMIX_RANK without a PMIx server in the environment" : "srun --mpi=none, or a plugin without PMI");
  if (pmix && ompi && atoi(ompi) > 1)
    return fail("PMI: this process is one of %s started by a PMIx launcher (Open MPI's mpirun or prterun), "
                "but its environment names no PMIx server (PMIX_NAMESPACE and PMIX_SERVER_URI*): launch with "
                "mpirun itself, Ferry's mpiexec, mpiexec.hydra or srun --mpi=pmi2", ompi);
  return 0;
}

int fy_pmi_init(int *rank, int *size, int *appnum) {
  if (pmi.inited) goto done;
  pmi.err[0] = '\0';
  fy_pmi_reader_init(&pmi.rd);
  pmi.rank = 0;
  pmi.size = 1;
  pmi.appnum = 0;
  pmi.key_max = FY_PMI_KEY_MAX;
  pmi.val_max = FY_PMI_VAL_MAX;

  const char *fdstr = getenv("PMI_FD"), *port = getenv("PMI_PORT");
  if (fdstr && *fdstr) {
    int fd = -1;
    if (env_int("PMI_FD", &fd) < 0) return -1;
    pmi.fd = fd;
    /* Programs the rank starts (system(), popen) must not hold it. */
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
      fail("PMI: PMI_FD=%d is not an open file descriptor: %s", fd, strerror(errno));
      pmi.fd = -1;
      return -1;
    }
    if (env_int("PMI_RANK", &pmi.rank) < 0 || env_int("PMI_SIZE", &pmi.size) < 0) goto fail_fd;
  } else if (port && *port) {
    if (connect_port(port) < 0) goto fail_fd;
  } else if (fy_pmix_wanted()) {
    if (fy_pmix_init(&pmi.rank, &pmi.size, &pmi.appnum, pmi.kvsname, sizeof pmi.kvsname) < 0)
      return fail("PMI: %s", fy_pmix_error());
    pmi.pmix = 1;
    pmi.inited = 1;
    goto done;
  } else {
    if (direct_launch_refused() < 0) return -1;
    pmi.singleton = 1;
    snprintf(pmi.kvsname, sizeof pmi.kvsname, "singleton-%d", (int)getpid());
    pmi.inited = 1;
    goto done;
  }

  if (transact("cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init", "init") < 0) goto fail_fd;
  if (transact("cmd=get_maxes\n", "maxes", "get_maxes") < 0) goto fail_fd;
  long v;
  if (fy_pmi_msg_get_int(&pmi.msg, "keylen_max", &v) == 0 && v > 0) pmi.key_max = v;
  if (fy_pmi_msg_get_int(&pmi.msg, "vallen_max", &v) == 0 && v > 0) pmi.val_max = v;
  if (transact("cmd=get_appnum\n", "appnum", "get_appnum") < 0) goto fail_fd;
  if (fy_pmi_msg_get_int(&pmi.msg, "appnum", &v) == 0) pmi.appnum = (int)v;
  if (transact("cmd=get_my_kvsname\n", "my_kvsname", "get_my_kvsname") < 0) goto fail_fd;
  const char *k = fy_pmi_msg_get(&pmi.msg, "kvsname");
  if (!k || !*k || strlen(k) > FY_PMI_KVSNAME_MAX) {
    fail("PMI get_my_kvsname: missing or too long kvsname in the response");
    goto fail_fd;
  }
  snprintf(pmi.kvsname, sizeof pmi.kvsname, "%s", k);
  if (pmi.rank >= pmi.size) {
    fail("PMI: rank %d is not below size %d", pmi.rank, pmi.size);
    goto fail_fd;
  }
  pmi.inited = 1;
done:
  if (rank) *rank = pmi.rank;
  if (size) *size = pmi.size;
  if (appnum) *appnum = pmi.appnum;
  return 0;
fail_fd:
  /* Keep PMI_FD open (it belongs to the process manager's protocol), but
   * close a connection we made ourselves. */
  if (pmi.own_fd && pmi.fd >= 0) close(pmi.fd);
  pmi.fd = -1;
  pmi.own_fd = 0;
  return -1;
}

static int check_ready(const char *what) {
  if (!pmi.inited) return fail("PMI %s: called before fy_pmi_init", what);
  return 0;
}

static int check_kv(const char *what, const char *key, const char *val) {
  if (!key || !*key || (long)strlen(key) >= pmi.key_max || !fy_pmi_value_ok(key) || strchr(key, '='))
    return fail("PMI %s: invalid key \"%s\" (empty, too long for the limit %ld, or with '=' or a space)",
                what, key ? key : "(null)", pmi.key_max - 1);
  if (val && ((long)strlen(val) >= pmi.val_max || !fy_pmi_value_ok(val)))
    return fail("PMI %s of key \"%s\": value of %zu bytes is too long (limit %ld) or contains a space",
                what, key, strlen(val), pmi.val_max - 1);
  return 0;
}

/* A PMIx call's result (fy_pmix.c wrote its message). */
static int pmix_rc(int rc) { return rc < 0 ? fail("%s", fy_pmix_error()) : 0; }

int fy_pmi_put(const char *key, const char *val) {
  if (check_ready("put") < 0 || check_kv("put", key, val) < 0) return -1;
  if (!val) return fail("PMI put of key \"%s\": NULL value", key);
  if (pmi.pmix) return pmix_rc(fy_pmix_put(key, val));
  if (pmi.singleton) {
    kv_t *e;
    for (e = pmi.local_kvs; e; e = e->next)
      if (!strcmp(e->key, key)) break;
    char *nv = strdup(val);
    if (!nv) return fail("PMI put: out of memory");
    if (e) {
      free(e->val);
      e->val = nv;
      return 0;
    }
    e = malloc(sizeof *e);
    if (!e || !(e->key = strdup(key))) {
      free(e);
      free(nv);
      return fail("PMI put: out of memory");
    }
    e->val = nv;
    e->next = pmi.local_kvs;
    pmi.local_kvs = e;
    return 0;
  }
  char buf[FY_PMI_LINE_MAX + 2];
  if (FORMAT(buf, "cmd", "put", "kvsname", pmi.kvsname, "key", key, "value", val) < 0) return -1;
  return transact(buf, "put_result", "put");
}

int fy_pmi_barrier(void) {
  if (check_ready("barrier") < 0) return -1;
  if (pmi.singleton) return 0;
  if (pmi.pmix) return pmix_rc(fy_pmix_fence());
  return transact("cmd=barrier_in\n", "barrier_out", "barrier");
}

int fy_pmi_get(int src_rank, const char *key, char *val, size_t len) {
  if (check_ready("get") < 0 || check_kv("get", key, NULL) < 0) return -1;
  const char *v = NULL;
  if (pmi.pmix) return pmix_rc(fy_pmix_get(src_rank, key, val, len));
  if (pmi.singleton) {
    for (kv_t *e = pmi.local_kvs; e; e = e->next)
      if (!strcmp(e->key, key)) v = e->val;
    if (!v) return fail("PMI get: key \"%s\" (of rank %d) not found in the singleton KVS", key, src_rank);
  } else {
    char buf[512];
    if (FORMAT(buf, "cmd", "get", "kvsname", pmi.kvsname, "key", key) < 0) return -1;
    if (transact(buf, "get_result", "get") < 0) {
      char inner[sizeof pmi.err];
      memcpy(inner, pmi.err, sizeof inner);
      return fail("PMI get of key \"%s\" published by rank %d: %s", key, src_rank, inner);
    }
    v = fy_pmi_msg_get(&pmi.msg, "value");
    if (!v) return fail("PMI get of key \"%s\" (rank %d): response without a value", key, src_rank);
  }
  size_t l = strlen(v);
  if (l >= len)
    return fail("PMI get of key \"%s\" (rank %d): value of %zu bytes does not fit the %zu-byte buffer",
                key, src_rank, l, len);
  memcpy(val, v, l + 1);
  return 0;
}

static void kv_free(kv_t **list) {
  while (*list) {
    kv_t *e = *list;
    *list = e->next;
    free(e->key);
    free(e->val);
    free(e);
  }
}

/* ---- name service ---- */

static int local_name(const char *op, const char *service, const char *port, char *out, size_t len) {
  kv_t **pp = &pmi.local_names;
  while (*pp && strcmp((*pp)->key, service)) pp = &(*pp)->next;
  kv_t *e = *pp;
  if (!strcmp(op, "publish_name")) {
    if (e) return fail("service \"%s\" is already published", service), 1;
    if (!(e = calloc(1, sizeof *e)) || !(e->key = strdup(service)) || !(e->val = strdup(port))) {
      if (e) free(e->key);
      free(e);
      return fail("PMI publish_name: out of memory");
    }
    e->next = pmi.local_names;
    pmi.local_names = e;
    return 0;
  }
  if (!e) return fail("service \"%s\" is not published", service), 1;
  if (!strcmp(op, "lookup_name")) {
    if (strlen(e->val) >= len) return fail("the port name of \"%s\" is too long", service);
    strcpy(out, e->val);
    return 0;
  }
  *pp = e->next; /* unpublish */
  e->next = NULL;
  kv_free(&e);
  return 0;
}

int fy_pmi_name(const char *op, const char *service, const char *port, char *out, size_t len) {
  if (check_ready(op) < 0) return -1;
  if (!service || !*service || !fy_pmi_value_ok(service) || strlen(service) >= FY_PMI_VAL_MAX)
    return fail("service name \"%s\" is empty, too long, or has a space (PMI-1 cannot carry it)",
                service ? service : "(null)");
  if (port && (!fy_pmi_value_ok(port) || strlen(port) >= FY_PMI_VAL_MAX))
    return fail("port name \"%s\" is too long or has a space", port);
  if (pmi.singleton) return local_name(op, service, port, out, len);
  if (pmi.pmix) return fail("name publishing is not supported under a PMIx server");
  char buf[FY_PMI_LINE_MAX + 2], expect[32];
  int e = port ? FORMAT(buf, "cmd", op, "service", service, "port", port) : FORMAT(buf, "cmd", op, "service", service);
  if (e < 0) return -1;
  snprintf(expect, sizeof expect, "%.*s_result", (int)(strlen(op) - strlen("_name")), op); /* publish_result, ... */
  if (send_all(buf, strlen(buf)) != 0 || recv_msg(op) != 0) return -1;
  const char *cmd = fy_pmi_msg_get(&pmi.msg, "cmd"), *info = fy_pmi_msg_get(&pmi.msg, "info");
  if (!cmd || strcmp(cmd, expect))
    return fail("PMI %s: expected cmd=%s from the process manager, got cmd=%s", op, expect, cmd ? cmd : "(none)");
  if (!info || strcmp(info, "ok"))
    return fail("the process manager refused %s of \"%s\": %s", op, service, info ? info : "no reason given"), 1;
  if (out) {
    const char *v = fy_pmi_msg_get(&pmi.msg, "port");
    if (!v || strlen(v) >= len) return fail("PMI lookup_name of \"%s\": no port, or too long", service);
    strcpy(out, v);
  }
  return 0;
}

const int *fy_pmi_nodes(void) { return pmi.nodes; }

int fy_pmi_local_ranks(int *local, int *nlocal, int *my_local) {
  if (check_ready("local_ranks") < 0) return -1;
  if (!pmi.local) {
    int *node = calloc((size_t)pmi.size, sizeof *node);
    int *loc = calloc((size_t)pmi.size, sizeof *loc);
    int have = 0;
    if (!node || !loc) {
      fail("PMI local_ranks: out of memory for %d ranks", pmi.size);
      goto fail;
    }
    if (pmi.singleton) have = 1;
    if (!have && pmi.pmix && fy_pmix_local_peers(node, pmi.size) == 0) have = 1;
    if (!have && !pmi.singleton && !pmi.pmix) {
      char buf[512];
      if (FORMAT(buf, "cmd", "get", "kvsname", pmi.kvsname, "key", "PMI_process_mapping") < 0) goto fail;
      if (transact(buf, "get_result", "get") == 0) {
        const char *v = fy_pmi_msg_get(&pmi.msg, "value");
        if (v && fy_pmi_parse_mapping(v, node, pmi.size) == 0) have = 2; /* (every rank's node) */
      }
    }
    if (!have) {
      /* No usable mapping: compare host names through the KVS. */
      char host[FY_PMI_VAL_MAX], key[64], other[FY_PMI_VAL_MAX + 1];
      if (gethostname(host, sizeof host - 1) != 0) {
        fail("PMI local_ranks: gethostname failed: %s", strerror(errno));
        goto fail;
      }
      host[sizeof host - 1] = '\0';
      snprintf(key, sizeof key, "fy-host-%d", pmi.rank);
      if (fy_pmi_put(key, host) < 0 || fy_pmi_barrier() < 0) goto fail;
      for (int r = 0; r < pmi.size; r++) {
        snprintf(key, sizeof key, "fy-host-%d", r);
        if (r == pmi.rank) node[r] = 0;
        else if (fy_pmi_get(r, key, other, sizeof other) < 0) goto fail;
        else node[r] = strcmp(other, host) ? 1 : 0;
      }
      node[pmi.rank] = 0;
    }
    int n = 0, me = -1;
    for (int r = 0; r < pmi.size; r++)
      if (node[r] == node[pmi.rank]) {
        if (r == pmi.rank) me = n;
        loc[n++] = r;
      }
    if (have == 2) pmi.nodes = node;
    else free(node);
    pmi.local = loc;
    pmi.nlocal = n;
    pmi.my_local = me;
    goto out;
  fail:
    free(node);
    free(loc);
    return -1;
  }
out:
  memcpy(local, pmi.local, (size_t)pmi.nlocal * sizeof *local);
  *nlocal = pmi.nlocal;
  *my_local = pmi.my_local;
  return 0;
}

int fy_pmi_abort(int code, const char *msg) {
  if (msg && *msg) fprintf(stderr, "ferry: rank %d aborting the job: %s\n", pmi.rank, msg);
  if (pmi.pmix) {
    fy_pmix_abort(code, msg); /* (returns when the server does not kill us) */
    return 0;
  }
  if (!pmi.inited || pmi.singleton || pmi.fd < 0) return 0;
  char buf[128], codestr[16];
  snprintf(codestr, sizeof codestr, "%d", code);
  if (FORMAT(buf, "cmd", "abort", "exitcode", codestr) < 0) return -1;
  /* No response in PMI-1: the process manager tears the job down. */
  return send_all(buf, strlen(buf));
}

int fy_pmi_finalize(void) {
  if (!pmi.inited) return 0;
  int rc = 0;
  if (pmi.pmix) {
    rc = pmix_rc(fy_pmix_finalize());
    pmi.pmix = 0;
  } else if (!pmi.singleton) {
    rc = transact("cmd=finalize\n", "finalize_ack", "finalize");
    if (pmi.own_fd) close(pmi.fd);
    pmi.fd = -1;
    pmi.own_fd = 0;
  }
  kv_free(&pmi.local_names);
  kv_free(&pmi.local_kvs);
  free(pmi.local);
  pmi.local = NULL;
  pmi.inited = 0;
  pmi.singleton = 0;
  return rc;
}
