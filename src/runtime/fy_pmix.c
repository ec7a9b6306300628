/* PMIx client: see fy_pmix.h. */
#include "runtime/fy_pmix.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static char err[512];

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, sizeof err, fmt, ap);
  va_end(ap);
  return -1;
}

const char *fy_pmix_error(void) { return err[0] ? err : "no error"; }

int fy_pmix_wanted(void) {
  const char *ns = getenv("PMIX_NAMESPACE"), *rank = getenv("PMIX_RANK");
  if (!ns || !*ns || !rank || !*rank) return 0;
  for (char **e = environ; e && *e; e++)
    if (!strncmp(*e, "PMIX_SERVER_URI", 15)) return 1;
  return 0;
}

#ifndef FY_HAVE_PMIX
int fy_pmix_init(int *rank, int *size, int *appnum, char *nspace, size_t nspace_len) {
  (void)rank, (void)size, (void)appnum, (void)nspace, (void)nspace_len;
  return fail("a PMIx launcher started this process, and Ferry was built without PMIx (libpmix-dev): launch with "
              "Ferry's mpiexec, mpiexec.hydra or srun --mpi=pmi2");
}
int fy_pmix_put(const char *key, const char *val) { (void)key, (void)val; return fail("no PMIx"); }
int fy_pmix_fence(void) { return fail("no PMIx"); }
int fy_pmix_get(int rank, const char *key, char *val, size_t len) {
  (void)rank, (void)key, (void)val, (void)len;
  return fail("no PMIx");
}
int fy_pmix_local_peers(int *node, int size) { (void)node, (void)size; return fail("no PMIx"); }
void fy_pmix_abort(int code, const char *msg) { (void)code, (void)msg; }
int fy_pmix_finalize(void) { return 0; }
#else
/* libpmix is loaded when a PMIx launcher started the job (dlopen), as
 * libfabric is: linking it would load libevent and PMIx's plugins into
 * every process, PMIx or not. The structures come from its headers. */
#include <pmix.h>
#include <dlfcn.h>

static struct {
  pmix_status_t (*init)(pmix_proc_t *, pmix_info_t *, size_t);
  pmix_status_t (*finalize)(const pmix_info_t *, size_t);
  pmix_status_t (*get)(const pmix_proc_t *, const char *, const pmix_info_t *, size_t, pmix_value_t **);
  pmix_status_t (*put)(pmix_scope_t, const char *, pmix_value_t *);
  pmix_status_t (*commit)(void);
  pmix_status_t (*fence)(const pmix_proc_t *, size_t, const pmix_info_t *, size_t);
  pmix_status_t (*abort)(int, const char *, pmix_proc_t *, size_t);
  const char *(*error_string)(pmix_status_t);
  void (*value_destruct)(pmix_value_t *);
  pmix_proc_t me;
  int inited;
} px;

static int load(void) {
  void *h = dlopen("libpmix.so.2", RTLD_NOW | RTLD_GLOBAL); /* (its plugins resolve against it) */
  if (!h) return fail("cannot load libpmix.so.2: %s", dlerror());
  *(void **)&px.init = dlsym(h, "PMIx_Init");
  *(void **)&px.finalize = dlsym(h, "PMIx_Finalize");
  *(void **)&px.get = dlsym(h, "PMIx_Get");
  *(void **)&px.put = dlsym(h, "PMIx_Put");
  *(void **)&px.commit = dlsym(h, "PMIx_Commit");
  *(void **)&px.fence = dlsym(h, "PMIx_Fence");
  *(void **)&px.abort = dlsym(h, "PMIx_Abort");
  *(void **)&px.error_string = dlsym(h, "PMIx_Error_string");
  *(void **)&px.value_destruct = dlsym(h, "PMIx_Value_destruct");
  if (!px.init || !px.finalize || !px.get || !px.put || !px.commit || !px.fence || !px.abort ||
      !px.error_string || !px.value_destruct)
    return fail("libpmix.so.2 lacks a function Ferry needs (PMIx 4 or later is)");
  return 0;
}

static const char *why(pmix_status_t rc) { return px.error_string(rc); }

static void release(pmix_value_t *v) {
  if (!v) return;
  px.value_destruct(v);
  free(v);
}

/* A job-level value (rank wildcard) of my namespace. */
static pmix_status_t job_get(const char *key, pmix_value_t **v) {
  pmix_proc_t wild;
  memset(&wild, 0, sizeof wild);
  memcpy(wild.nspace, px.me.nspace, sizeof wild.nspace);
  wild.rank = PMIX_RANK_WILDCARD;
  return px.get(&wild, key, NULL, 0, v);
}

int fy_pmix_init(int *rank, int *size, int *appnum, char *nspace, size_t nspace_len) {
  if (load() < 0) return -1;
  pmix_status_t rc = px.init(&px.me, NULL, 0);
  if (rc != PMIX_SUCCESS) return fail("PMIx_Init failed: %s", why(rc));
  px.inited = 1;
  pmix_value_t *v = NULL;
  if ((rc = job_get(PMIX_JOB_SIZE, &v)) != PMIX_SUCCESS || v->type != PMIX_UINT32) {
    release(v);
    return fail("PMIx: no job size (%s)", rc != PMIX_SUCCESS ? why(rc) : "not a uint32");
  }
  *size = (int)v->data.uint32;
  release(v);
  v = NULL;
  *appnum = 0;
  if (job_get(PMIX_APPNUM, &v) == PMIX_SUCCESS && v->type == PMIX_UINT32) *appnum = (int)v->data.uint32;
  release(v);
  *rank = (int)px.me.rank;
  if (*rank < 0 || *rank >= *size) return fail("PMIx: rank %d is not below the job size %d", *rank, *size);
  snprintf(nspace, nspace_len, "%s", px.me.nspace);
  return 0;
}

int fy_pmix_put(const char *key, const char *val) {
  pmix_value_t v;
  memset(&v, 0, sizeof v);
  v.type = PMIX_STRING;
  v.data.string = (char *)val;
  pmix_status_t rc = px.put(PMIX_GLOBAL, key, &v);
  return rc == PMIX_SUCCESS ? 0 : fail("PMIx_Put of key \"%s\": %s", key, why(rc));
}

int fy_pmix_fence(void) {
  pmix_status_t rc = px.commit();
  if (rc != PMIX_SUCCESS) return fail("PMIx_Commit: %s", why(rc));
  pmix_info_t info;
  memset(&info, 0, sizeof info);
  snprintf(info.key, sizeof info.key, "%s", PMIX_COLLECT_DATA);
  info.value.type = PMIX_BOOL;
  info.value.data.flag = true;
  rc = px.fence(NULL, 0, &info, 1); /* (NULL: every process of my namespace) */
  return rc == PMIX_SUCCESS ? 0 : fail("PMIx_Fence: %s", why(rc));
}

int fy_pmix_get(int rank, const char *key, char *val, size_t len) {
  pmix_proc_t p = px.me;
  p.rank = (pmix_rank_t)rank;
  pmix_value_t *v = NULL;
  pmix_status_t rc = px.get(&p, key, NULL, 0, &v);
  if (rc != PMIX_SUCCESS) return fail("PMIx_Get of key \"%s\" published by rank %d: %s", key, rank, why(rc));
  int out = 0;
  if (v->type != PMIX_STRING || !v->data.string)
    out = fail("PMIx_Get of key \"%s\" (rank %d): not a string", key, rank);
  else if (strlen(v->data.string) >= len)
    out = fail("PMIx_Get of key \"%s\" (rank %d): value of %zu bytes does not fit the %zu-byte buffer", key, rank,
               strlen(v->data.string), len);
  else
    memcpy(val, v->data.string, strlen(v->data.string) + 1);
  release(v);
  return out;
}

int fy_pmix_local_peers(int *node, int size) {
  pmix_value_t *v = NULL;
  pmix_status_t rc = job_get(PMIX_LOCAL_PEERS, &v);
  if (rc != PMIX_SUCCESS || v->type != PMIX_STRING || !v->data.string) {
    release(v);
    return fail("PMIx: no local peers (%s)", rc != PMIX_SUCCESS ? why(rc) : "not a string");
  }
  for (int r = 0; r < size; r++) node[r] = 1;
  int ok = 1;
  for (const char *s = v->data.string; *s && ok;) {
    char *end;
    long r = strtol(s, &end, 10);
    if (end == s || r < 0 || r >= size) ok = 0;
    else node[r] = 0;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') ok = 0;
  }
  release(v);
  node[px.me.rank] = 0;
  return ok ? 0 : fail("PMIx: unreadable local peers list");
}

void fy_pmix_abort(int code, const char *msg) {
  if (px.inited) px.abort(code, msg ? msg : "", NULL, 0); /* (NULL: the whole namespace) */
}

int fy_pmix_finalize(void) {
  if (!px.inited) return 0;
  px.inited = 0;
  pmix_status_t rc = px.finalize(NULL, 0);
  return rc == PMIX_SUCCESS ? 0 : fail("PMIx_Finalize: %s", why(rc));
}
#endif
