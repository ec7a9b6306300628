/* Info objects: see fy_info.h. A small array of pairs per object; lookups
 * are linear (an info carries a handful of hints). */
#include "core/fy_info.h"
#include "core/fy_error.h"
#include "core/fy_handle.h"
#include "core/fy_init.h"
#include "binding/fy_impl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  char *key, *val;
} pair_t;

typedef struct {
  int handle;
  int n, cap;
  pair_t *p;
} info_t;

static fy_htab_t info_tab = {.obj = FY_OK_INFO};
static info_t env_info = {.handle = MPI_INFO_ENV};
static int env_ready;

static int info_set(info_t *in, const char *key, const char *val);

static void env_build(void) {
  char buf[4096];
  env_ready = 1;
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (f) {
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (n > 0) {
      info_set(&env_info, "command", buf);
      /* The arguments, space separated, as MPI_Comm_spawn would take them. */
      char args[4096] = "";
      size_t at = strlen(buf) + 1, len = 0;
      while (at < n) {
        size_t l = strlen(buf + at);
        if (len + l + 2 < sizeof args) {
          if (len) args[len++] = ' ';
          memcpy(args + len, buf + at, l);
          len += l;
          args[len] = 0;
        }
        at += l + 1;
      }
      if (len) info_set(&env_info, "argv", args);
    }
  }
  snprintf(buf, sizeof buf, "%d", fy_state.initialized ? fy_state.world_size : 1);
  info_set(&env_info, "maxprocs", buf);
  info_set(&env_info, "soft", buf);
  if (gethostname(buf, sizeof buf) == 0) {
    buf[sizeof buf - 1] = 0;
    info_set(&env_info, "host", buf);
  }
  info_set(&env_info, "arch", "x86_64");
  if (getcwd(buf, sizeof buf)) info_set(&env_info, "wdir", buf);
  const char *lv = fy_thread_level_name(fy_state.thread_level);
  info_set(&env_info, "thread_level", lv ? lv : fy_thread_level_name(MPI_THREAD_SINGLE));
}

static info_t *info_get(MPI_Info h) {
  if (h == MPI_INFO_ENV) {
    if (!env_ready) env_build();
    return &env_info;
  }
  return fy_htab_get(&info_tab, h);
}

int fy_info_valid(MPI_Info h) { return info_get(h) != NULL; }

static int check(MPI_Info h, info_t **out, const char *arg) {
  if (h == MPI_INFO_NULL) return fy_err(MPI_ERR_INFO, "%s = MPI_INFO_NULL", arg);
  *out = info_get(h);
  if (!*out) return fy_err(MPI_ERR_INFO, "%s = %#x is not a valid info object", arg, (unsigned)h);
  return MPI_SUCCESS;
}

static int check_key(const char *key) {
  if (!key) return fy_err(MPI_ERR_INFO_KEY, "key = NULL");
  size_t l = strlen(key);
  if (l == 0) return fy_err(MPI_ERR_INFO_KEY, "key is empty");
  if (l >= MPI_MAX_INFO_KEY)
    return fy_err(MPI_ERR_INFO_KEY, "key of %zu characters is longer than MPI_MAX_INFO_KEY - 1 = %d",
                  l, MPI_MAX_INFO_KEY - 1);
  return MPI_SUCCESS;
}

static int find(const info_t *in, const char *key) {
  for (int i = 0; i < in->n; i++)
    if (strcmp(in->p[i].key, key) == 0) return i;
  return -1;
}

static int info_set(info_t *in, const char *key, const char *val) {
  int i = find(in, key);
  char *v = strdup(val);
  if (!v) return fy_err(MPI_ERR_NO_MEM, "out of memory in an info object");
  if (i >= 0) {
    free(in->p[i].val);
    in->p[i].val = v;
    return MPI_SUCCESS;
  }
  if (in->n == in->cap) {
    int nc = in->cap ? in->cap * 2 : 8;
    pair_t *np = realloc(in->p, (size_t)nc * sizeof *np);
    if (!np) goto nomem;
    in->p = np;
    in->cap = nc;
  }
  char *k = strdup(key);
  if (!k) goto nomem;
  in->p[in->n].key = k;
  in->p[in->n].val = v;
  in->n++;
  return MPI_SUCCESS;
nomem:
  free(v);
  return fy_err(MPI_ERR_NO_MEM, "out of memory in an info object");
}

static void info_destroy(info_t *in) {
  for (int i = 0; i < in->n; i++) {
    free(in->p[i].key);
    free(in->p[i].val);
  }
  free(in->p);
  free(in);
}

static int info_new(info_t **out) {
  info_t *in = calloc(1, sizeof *in);
  if (!in) return fy_err(MPI_ERR_NO_MEM, "out of memory creating an info object");
  in->handle = fy_htab_add(&info_tab, in);
  if (!in->handle) {
    free(in);
    return fy_err(MPI_ERR_NO_MEM, "out of info handles");
  }
  *out = in;
  return MPI_SUCCESS;
}

static int info_dup(const info_t *from, info_t **out) {
  info_t *in;
  int err = info_new(&in);
  if (err) return err;
  for (int i = 0; i < from->n; i++)
    if ((err = info_set(in, from->p[i].key, from->p[i].val))) {
      fy_htab_remove(&info_tab, in->handle);
      info_destroy(in);
      return err;
    }
  *out = in;
  return MPI_SUCCESS;
}

int fy_info_copy(MPI_Info from, MPI_Info *to) {
  info_t *f = from == MPI_INFO_NULL ? NULL : info_get(from), *n;
  *to = MPI_INFO_NULL;
  if (!f) return MPI_SUCCESS;
  int err = info_dup(f, &n);
  if (!err) *to = n->handle;
  return err;
}

void fy_info_release(MPI_Info h) {
  info_t *in = fy_htab_get(&info_tab, h);
  if (!in) return;
  fy_htab_remove(&info_tab, h);
  info_destroy(in);
}

int fy_info_lookup(MPI_Info h, const char *key, char *value, int len) {
  info_t *in = h == MPI_INFO_NULL ? NULL : info_get(h);
  int i = in ? find(in, key) : -1;
  if (i < 0) return 0;
  if (value && len > 0) snprintf(value, (size_t)len, "%s", in->p[i].val);
  return 1;
}

int fy_info_put(MPI_Info *h, const char *key, const char *value) {
  info_t *in;
  int err;
  if (*h == MPI_INFO_NULL) {
    if ((err = info_new(&in))) return err;
    *h = in->handle;
  } else if (!(in = info_get(*h))) {
    return fy_err(MPI_ERR_INFO, "not a valid info object");
  }
  return info_set(in, key, value);
}

/* ---- MPI functions ---- */

int fy_mpi_info_create(MPI_Info *info) {
  info_t *in;
  int err = info_new(&in);
  if (!err) *info = in->handle;
  return err;
}

int fy_mpi_info_create_env(int argc, char argv[], MPI_Info *info) {
  info_t *in;
  int err = info_dup(info_get(MPI_INFO_ENV), &in);
  if (!err) *info = in->handle;
  return err;
}

int fy_mpi_info_dup(MPI_Info info, MPI_Info *newinfo) {
  info_t *in, *n;
  int err = check(info, &in, "info");
  if (err) return err;
  if ((err = info_dup(in, &n))) return err;
  *newinfo = n->handle;
  return MPI_SUCCESS;
}

int fy_mpi_info_free(MPI_Info *info) {
  info_t *in;
  int err = check(*info, &in, "info");
  if (err) return err;
  if (in == &env_info) return fy_err(MPI_ERR_INFO, "info = MPI_INFO_ENV is predefined and cannot be freed");
  fy_info_release(*info);
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

int fy_mpi_info_set(MPI_Info info, const char *key, const char *value) {
  info_t *in;
  int err = check(info, &in, "info");
  if (err || (err = check_key(key))) return err;
  if (!value) return fy_err(MPI_ERR_INFO_VALUE, "value = NULL");
  size_t l = strlen(value);
  if (l == 0) return fy_err(MPI_ERR_INFO_VALUE, "value for key \"%s\" is empty", key);
  if (l >= MPI_MAX_INFO_VAL)
    return fy_err(MPI_ERR_INFO_VALUE, "value of %zu characters is longer than MPI_MAX_INFO_VAL - 1 = %d",
                  l, MPI_MAX_INFO_VAL - 1);
  return info_set(in, key, value);
}

int fy_mpi_info_delete(MPI_Info info, const char *key) {
  info_t *in;
  int err = check(info, &in, "info");
  if (err || (err = check_key(key))) return err;
  int i = find(in, key);
  if (i < 0) return fy_err(MPI_ERR_INFO_NOKEY, "key \"%s\" is not set in this info", key);
  free(in->p[i].key);
  free(in->p[i].val);
  memmove(&in->p[i], &in->p[i + 1], (size_t)(in->n - i - 1) * sizeof *in->p);
  in->n--;
  return MPI_SUCCESS;
}

int fy_mpi_info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag) {
  info_t *in;
  int err = check(info, &in, "info");
  if (err || (err = check_key(key))) return err;
  if (valuelen < 0) return fy_err(MPI_ERR_ARG, "valuelen = %d is negative", valuelen);
  if (!flag) return fy_err(MPI_ERR_ARG, "flag = NULL");
  int i = find(in, key);
  *flag = i >= 0;
  if (i < 0) return MPI_SUCCESS;
  if (!value) return fy_err(MPI_ERR_ARG, "value = NULL");
  /* valuelen excludes the terminator: up to valuelen characters plus '\0'. */
  size_t l = strlen(in->p[i].val);
  if (l > (size_t)valuelen) l = (size_t)valuelen;
  memcpy(value, in->p[i].val, l);
  value[l] = 0;
  return MPI_SUCCESS;
}

int fy_mpi_info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag) {
  info_t *in;
  int err = check(info, &in, "info");
  if (err || (err = check_key(key))) return err;
  if (!buflen || !flag) return fy_err(MPI_ERR_ARG, "buflen or flag = NULL");
  if (*buflen < 0) return fy_err(MPI_ERR_ARG, "*buflen = %d is negative", *buflen);
  int i = find(in, key);
  *flag = i >= 0;
  if (i < 0) return MPI_SUCCESS;
  int need = (int)strlen(in->p[i].val) + 1;
  if (*buflen > 0) {
    if (!value) return fy_err(MPI_ERR_ARG, "value = NULL with *buflen = %d", *buflen);
    snprintf(value, (size_t)*buflen, "%s", in->p[i].val);
  }
  *buflen = need;
  return MPI_SUCCESS;
}

int fy_mpi_info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag) {
  info_t *in;
  int err = check(info, &in, "info");
  if (err || (err = check_key(key))) return err;
  if (!valuelen || !flag) return fy_err(MPI_ERR_ARG, "valuelen or flag = NULL");
  int i = find(in, key);
  *flag = i >= 0;
  if (i >= 0) *valuelen = (int)strlen(in->p[i].val);
  return MPI_SUCCESS;
}

int fy_mpi_info_get_nkeys(MPI_Info info, int *nkeys) {
  info_t *in;
  int err = check(info, &in, "info");
  if (err) return err;
  if (!nkeys) return fy_err(MPI_ERR_ARG, "nkeys = NULL");
  *nkeys = in->n;
  return MPI_SUCCESS;
}

int fy_mpi_info_get_nthkey(MPI_Info info, int n, char *key) {
  info_t *in;
  int err = check(info, &in, "info");
  if (err) return err;
  if (n < 0 || n >= in->n)
    return fy_err(MPI_ERR_ARG, "n = %d is not in [0, %d) (the number of keys)", n, in->n);
  if (!key) return fy_err(MPI_ERR_ARG, "key = NULL");
  snprintf(key, MPI_MAX_INFO_KEY, "%s", in->p[n].key);
  return MPI_SUCCESS;
}

/* MPI 4.1: what this process runs on. The one resource type every Ferry
 * process can name to MPI_Comm_split_type(MPI_COMM_TYPE_HW_GUIDED). */
int fy_mpi_get_hw_resource_info(MPI_Info *hw_info) {
  if (!hw_info) return fy_err(MPI_ERR_ARG, "hw_info = NULL");
  info_t *in;
  int err = info_new(&in);
  if (err) return err;
  if ((err = info_set(in, "mpi_hw_resource_type", "mpi_shared_memory"))) {
    fy_info_release(in->handle);
    return err;
  }
  *hw_info = in->handle;
  return MPI_SUCCESS;
}
