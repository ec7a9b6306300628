/* Embedded PMI-1 server: see fy_pmi_server.h. */
#include "launcher/fy_pmi_server.h"
#include "runtime/fy_pmi_wire.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct kv { char *key, *val; } kv_t;
typedef struct kvtab { kv_t *v; size_t n, cap; } kvtab_t;

typedef struct conn {
  fy_pmi_rank_state_t st;
  fy_pmi_write_fn relay; /* st.fd is FY_PMI_RELAYED: its answers go here */
  void *relay_ctx;
  int in_barrier;
  int appnum; /* its application on an MPMD command line */
  fy_pmi_reader_t rd;
} conn_t;

struct fy_pmi_server {
  int size;
  char kvsname[FY_PMI_KVSNAME_MAX + 1];
  conn_t *c;
  int barrier_count;
  int no_mapping;
  char *mapping;
  kvtab_t kvs;
  kvtab_t names;          /* MPI_Publish_name's services and their ports */
  fy_pmi_msg_t msg;
  char err[512];
};

fy_pmi_server_t *fy_pmi_server_create(int size, const char *kvsname) {
  fy_pmi_server_t *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->c = calloc((size_t)size, sizeof *s->c);
  if (!s->c) {
    free(s);
    return NULL;
  }
  s->size = size;
  snprintf(s->kvsname, sizeof s->kvsname, "%s", kvsname);
  for (int i = 0; i < size; i++) {
    s->c[i].st.fd = -1;
    fy_pmi_reader_init(&s->c[i].rd);
  }
  return s;
}

void fy_pmi_server_destroy(fy_pmi_server_t *s) {
  if (!s) return;
  for (int i = 0; i < s->size; i++)
    if (s->c[i].st.fd >= 0) close(s->c[i].st.fd);
  kvtab_t *t[2] = {&s->kvs, &s->names};
  for (int j = 0; j < 2; j++) {
    for (size_t i = 0; i < t[j]->n; i++) {
      free(t[j]->v[i].key);
      free(t[j]->v[i].val);
    }
    free(t[j]->v);
  }
  free(s->mapping);
  free(s->c);
  free(s);
}

void fy_pmi_server_set_appnum(fy_pmi_server_t *s, int rank, int appnum) {
  if (rank >= 0 && rank < s->size) s->c[rank].appnum = appnum;
}

void fy_pmi_server_attach(fy_pmi_server_t *s, int rank, int fd) { s->c[rank].st.fd = fd; }

void fy_pmi_server_relay(fy_pmi_server_t *s, int rank, fy_pmi_write_fn fn, void *ctx) {
  s->c[rank].st.fd = FY_PMI_RELAYED;
  s->c[rank].relay = fn;
  s->c[rank].relay_ctx = ctx;
}

/* The rank's connection ends (its fd closed, or a relayed one marked so). */
static void conn_close(conn_t *c) {
  if (c->st.fd >= 0) close(c->st.fd);
  c->st.fd = -1;
}

void fy_pmi_server_close(fy_pmi_server_t *s, int rank) { conn_close(&s->c[rank]); }

const fy_pmi_rank_state_t *fy_pmi_server_rank(const fy_pmi_server_t *s, int rank) {
  return &s->c[rank].st;
}

const char *fy_pmi_server_error(const fy_pmi_server_t *s) { return s->err; }

void fy_pmi_server_set_mapping(fy_pmi_server_t *s, int on) { s->no_mapping = !on; }

void fy_pmi_server_set_mapping_string(fy_pmi_server_t *s, const char *map) {
  free(s->mapping);
  s->mapping = map ? strdup(map) : NULL;
}

static int fail(fy_pmi_server_t *s, int rank, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(fy_pmi_server_t *s, int rank, const char *fmt, ...) {
  va_list ap;
  int n = snprintf(s->err, sizeof s->err, "PMI protocol error from rank %d: ", rank);
  va_start(ap, fmt);
  vsnprintf(s->err + n, sizeof s->err - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}

/* Send a response built from key/value pairs. A rank that stopped reading
 * (or died) just loses its answer: its exit is handled by mpiexec. */
#define REPLY(s, rank, ...) reply_line(s, rank, __VA_ARGS__, (char *)NULL)
static int reply_line(fy_pmi_server_t *s, int rank, ...) __attribute__((sentinel));
static int reply_line(fy_pmi_server_t *s, int rank, ...) {
  char buf[FY_PMI_LINE_MAX + 2];
  const char *kv[2 * 8] = {0};
  va_list ap;
  va_start(ap, rank);
  int n = 0;
  for (; n < 16; n++) {
    kv[n] = va_arg(ap, const char *);
    if (!kv[n]) break;
  }
  va_end(ap);
  /* At most 7 pairs: enough for every PMI-1 response. */
  int len = fy_pmi_msg_format(buf, sizeof buf, kv[0], kv[1], kv[2], kv[3], kv[4], kv[5], kv[6],
                              kv[7], kv[8], kv[9], kv[10], kv[11], kv[12], kv[13], (char *)NULL);
  if (len < 0) return fail(s, rank, "cannot format a response");
  int fd = s->c[rank].st.fd;
  const char *p = buf;
  if (fd == FY_PMI_RELAYED) {
    s->c[rank].relay(s->c[rank].relay_ctx, rank, buf, (size_t)len);
    return 0;
  }
  if (fd < 0) return 0;
  while (len > 0) {
    ssize_t w = send(fd, p, (size_t)len, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return 0;
    p += w;
    len -= (int)w;
  }
  return 0;
}

static kv_t *kvs_find(kvtab_t *t, const char *key) {
  for (size_t i = 0; i < t->n; i++)
    if (!strcmp(t->v[i].key, key)) return &t->v[i];
  return NULL;
}

static int kvs_put(kvtab_t *t, const char *key, const char *val) {
  kv_t *e = kvs_find(t, key);
  if (e) {
    char *v = strdup(val);
    if (!v) return -1;
    free(e->val);
    e->val = v;
    return 0;
  }
  if (t->n == t->cap) {
    size_t nc = t->cap ? 2 * t->cap : 64;
    kv_t *n = realloc(t->v, nc * sizeof *n);
    if (!n) return -1;
    t->v = n;
    t->cap = nc;
  }
  char *k = strdup(key), *v = strdup(val);
  if (!k || !v) {
    free(k);
    free(v);
    return -1;
  }
  t->v[t->n].key = k;
  t->v[t->n].val = v;
  t->n++;
  return 0;
}

static void kvs_remove(kvtab_t *t, kv_t *e) {
  free(e->key);
  free(e->val);
  *e = t->v[--t->n];
}

/* The name service of MPI_Publish_name/Lookup_name/Unpublish_name, with
 * the PMI-1 commands and answers MPICH's simple PMI client and Hydra use
 * (info=ok, or rc=-1 and a msg). */
static int name_cmd(fy_pmi_server_t *s, int rank, const char *cmd) {
  const char *service = fy_pmi_msg_get(&s->msg, "service"), *port = fy_pmi_msg_get(&s->msg, "port");
  char resp[32]; /* publish_result, lookup_result, unpublish_result */
  snprintf(resp, sizeof resp, "%.*s_result", (int)(strlen(cmd) - strlen("_name")), cmd);
  if (!service || !*service) return REPLY(s, rank, "cmd", resp, "rc", "-1", "info", "no_service_name");
  kv_t *e = kvs_find(&s->names, service);
  if (!strcmp(cmd, "publish_name")) {
    if (!port || !*port) return REPLY(s, rank, "cmd", resp, "rc", "-1", "info", "no_port_name");
    if (e) return REPLY(s, rank, "cmd", resp, "rc", "-1", "info", "service_already_published");
    if (kvs_put(&s->names, service, port) < 0) return REPLY(s, rank, "cmd", resp, "rc", "-1", "info", "out_of_memory");
    return REPLY(s, rank, "cmd", resp, "rc", "0", "info", "ok");
  }
  if (!e) return REPLY(s, rank, "cmd", resp, "rc", "-1", "info", "service_not_published");
  if (!strcmp(cmd, "lookup_name")) return REPLY(s, rank, "cmd", resp, "rc", "0", "info", "ok", "port", e->val);
  kvs_remove(&s->names, e);
  return REPLY(s, rank, "cmd", resp, "rc", "0", "info", "ok");
}

static int handle_cmd(fy_pmi_server_t *s, int rank) {
  fy_pmi_msg_t *m = &s->msg;
  conn_t *c = &s->c[rank];
  const char *cmd = fy_pmi_msg_get(m, "cmd");
  char num[32], num2[32];
  if (!cmd) return fail(s, rank, "message without cmd=");

  if (!strcmp(cmd, "init")) {
    long v = 0, sub = 0;
    fy_pmi_msg_get_int(m, "pmi_version", &v);
    fy_pmi_msg_get_int(m, "pmi_subversion", &sub);
    c->st.inited = 1;
    if (v != 1)
      return REPLY(s, rank, "cmd", "response_to_init", "pmi_version", "1", "pmi_subversion", "1",
                   "rc", "-1", "msg", "only_PMI_version_1_is_supported");
    return REPLY(s, rank, "cmd", "response_to_init", "pmi_version", "1", "pmi_subversion", "1", "rc", "0");
  }
  if (!strcmp(cmd, "initack")) {
    snprintf(num, sizeof num, "%d", s->size);
    snprintf(num2, sizeof num2, "%d", rank);
    if (REPLY(s, rank, "cmd", "initack") < 0 || REPLY(s, rank, "cmd", "set", "size", num) < 0 ||
        REPLY(s, rank, "cmd", "set", "rank", num2) < 0)
      return -1;
    return REPLY(s, rank, "cmd", "set", "debug", "0");
  }
  if (!strcmp(cmd, "get_maxes")) {
    snprintf(num, sizeof num, "%d", FY_PMI_KVSNAME_MAX);
    char k[16], v[16];
    snprintf(k, sizeof k, "%d", FY_PMI_KEY_MAX);
    snprintf(v, sizeof v, "%d", FY_PMI_VAL_MAX);
    return REPLY(s, rank, "cmd", "maxes", "kvsname_max", num, "keylen_max", k, "vallen_max", v, "rc", "0");
  }
  if (!strcmp(cmd, "get_appnum")) {
    snprintf(num, sizeof num, "%d", s->c[rank].appnum);
    return REPLY(s, rank, "cmd", "appnum", "appnum", num, "rc", "0");
  }
  if (!strcmp(cmd, "get_my_kvsname"))
    return REPLY(s, rank, "cmd", "my_kvsname", "kvsname", s->kvsname, "rc", "0");
  if (!strcmp(cmd, "get_universe_size")) {
    snprintf(num, sizeof num, "%d", s->size);
    return REPLY(s, rank, "cmd", "universe_size", "size", num, "rc", "0");
  }
  if (!strcmp(cmd, "put")) {
    const char *key = fy_pmi_msg_get(m, "key"), *val = fy_pmi_msg_get(m, "value");
    const char *kvs = fy_pmi_msg_get(m, "kvsname");
    if (!key || !val || !*key)
      return REPLY(s, rank, "cmd", "put_result", "rc", "-1", "msg", "put_needs_key_and_value");
    if (kvs && strcmp(kvs, s->kvsname))
      return REPLY(s, rank, "cmd", "put_result", "rc", "-1", "msg", "unknown_kvsname");
    if (strlen(key) >= FY_PMI_KEY_MAX || strlen(val) >= FY_PMI_VAL_MAX)
      return REPLY(s, rank, "cmd", "put_result", "rc", "-1", "msg", "key_or_value_too_long");
    if (kvs_put(&s->kvs, key, val) < 0)
      return REPLY(s, rank, "cmd", "put_result", "rc", "-1", "msg", "out_of_memory");
    return REPLY(s, rank, "cmd", "put_result", "rc", "0", "msg", "success");
  }
  if (!strcmp(cmd, "get")) {
    const char *key = fy_pmi_msg_get(m, "key");
    const char *kvs = fy_pmi_msg_get(m, "kvsname");
    if (!key) return REPLY(s, rank, "cmd", "get_result", "rc", "-1", "msg", "get_needs_a_key");
    if (kvs && strcmp(kvs, s->kvsname))
      return REPLY(s, rank, "cmd", "get_result", "rc", "-1", "msg", "unknown_kvsname");
    if (!strcmp(key, "PMI_process_mapping") && !s->no_mapping) {
      char map[64];
      snprintf(map, sizeof map, "(vector,(0,1,%d))", s->size);
      if (s->mapping)
        return REPLY(s, rank, "cmd", "get_result", "rc", "0", "msg", "success", "value", s->mapping);
      return REPLY(s, rank, "cmd", "get_result", "rc", "0", "msg", "success", "value", map);
    }
    kv_t *e = kvs_find(&s->kvs, key);
    const char *val = e ? e->val : NULL;
    if (!val) {
      char msg[FY_PMI_KEY_MAX + 32];
      snprintf(msg, sizeof msg, "key_%s_not_found", key);
      return REPLY(s, rank, "cmd", "get_result", "rc", "-1", "msg", msg);
    }
    return REPLY(s, rank, "cmd", "get_result", "rc", "0", "msg", "success", "value", val);
  }
  if (!strcmp(cmd, "barrier_in")) {
    if (c->in_barrier) return fail(s, rank, "barrier_in twice without barrier_out");
    c->in_barrier = 1;
    if (++s->barrier_count < s->size) return 0;
    s->barrier_count = 0;
    for (int r = 0; r < s->size; r++) {
      s->c[r].in_barrier = 0;
      if (s->c[r].st.fd != -1 && REPLY(s, r, "cmd", "barrier_out") < 0) return -1;
    }
    return 0;
  }
  if (!strcmp(cmd, "finalize")) {
    c->st.finalized = 1;
    return REPLY(s, rank, "cmd", "finalize_ack", "rc", "0");
  }
  if (!strcmp(cmd, "abort")) {
    long code = 1;
    fy_pmi_msg_get_int(m, "exitcode", &code);
    c->st.aborted = 1;
    c->st.abort_code = (int)code;
    return 0;
  }
  if (!strcmp(cmd, "publish_name") || !strcmp(cmd, "unpublish_name") || !strcmp(cmd, "lookup_name"))
    return name_cmd(s, rank, cmd);
  /* Unknown or unsupported (spawn, ...): answer so that the
   * client does not wait forever. */
  char resp[64];
  snprintf(resp, sizeof resp, "%.40s_result", cmd);
  if (!fy_pmi_value_ok(resp)) return fail(s, rank, "bad command name");
  return REPLY(s, rank, "cmd", resp, "rc", "-1", "msg", "command_not_supported_by_ferry_mpiexec");
}

/* Answer every complete line buffered for rank: 0, or -1 (fd closed). */
static int process(fy_pmi_server_t *s, int rank) {
  conn_t *c = &s->c[rank];
  for (;;) {
    const char *line;
    size_t len;
    int r = fy_pmi_reader_next(&c->rd, &line, &len);
    if (r == 0) return 0;
    int rc = 0;
    if (r < 0) rc = fail(s, rank, "command line longer than %d bytes", FY_PMI_LINE_MAX);
    else if (len == 0) continue;
    else if (fy_pmi_msg_parse(&s->msg, line, len) < 0)
      rc = fail(s, rank, "malformed command \"%.*s\"", (int)(len > 100 ? 100 : len), line);
    else if (handle_cmd(s, rank) < 0)
      rc = -1;
    if (rc < 0) {
      conn_close(c);
      return -1;
    }
  }
}

int fy_pmi_server_feed(fy_pmi_server_t *s, int rank, const char *data, size_t n) {
  conn_t *c = &s->c[rank];
  while (n > 0) {
    size_t avail;
    char *p = fy_pmi_reader_space(&c->rd, &avail);
    if (avail == 0) {
      conn_close(c);
      return fail(s, rank, "command line longer than %d bytes", FY_PMI_LINE_MAX);
    }
    size_t k = n < avail ? n : avail;
    memcpy(p, data, k);
    fy_pmi_reader_commit(&c->rd, k);
    data += k;
    n -= k;
    if (process(s, rank) < 0) return -1;
  }
  return 0;
}

int fy_pmi_server_handle(fy_pmi_server_t *s, int rank) {
  conn_t *c = &s->c[rank];
  if (c->st.fd < 0) return 1; /* (closed, or relayed: fed, never read here) */
  size_t avail;
  char *p = fy_pmi_reader_space(&c->rd, &avail);
  ssize_t n;
  do n = read(c->st.fd, p, avail); while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
  if (n <= 0) {
    /* closed (or reset by a dying rank) */
    close(c->st.fd);
    c->st.fd = -1;
    return 1;
  }
  fy_pmi_reader_commit(&c->rd, (size_t)n);
  return process(s, rank);
}
