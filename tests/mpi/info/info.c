/* Info objects: set/get/get_string/get_valuelen/delete/nkeys/nthkey/dup/
 * free, replacement keeps the key's place, truncation rules of Info_get
 * and Info_get_string, MPI_INFO_ENV and MPI_Info_create_env, error classes
 * for bad keys, values, handles and indices. */
#include "fytest.h"
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("info");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Info in, d;
  int n, flag, len, rc;
  char v[MPI_MAX_INFO_VAL + 1], k[MPI_MAX_INFO_KEY];
  CHECK_OK(MPI_Info_create(&in));
  MPI_Info_get_nkeys(in, &n);
  CHECK(n == 0, "new info has %d keys", n);
  CHECK_OK(MPI_Info_set(in, "alpha", "1"));
  CHECK_OK(MPI_Info_set(in, "beta", "two"));
  CHECK_OK(MPI_Info_set(in, "gamma", "three3"));
  CHECK_OK(MPI_Info_set(in, "alpha", "uno"));  /* replace: keeps first place */
  MPI_Info_get_nkeys(in, &n);
  CHECK(n == 3, "nkeys %d", n);
  MPI_Info_get_nthkey(in, 0, k);
  CHECK(strcmp(k, "alpha") == 0, "key 0 is %s", k);
  MPI_Info_get_nthkey(in, 2, k);
  CHECK(strcmp(k, "gamma") == 0, "key 2 is %s", k);
  CHECK_OK(MPI_Info_get(in, "alpha", MPI_MAX_INFO_VAL, v, &flag));
  CHECK(flag && strcmp(v, "uno") == 0, "alpha = %s", v);
  CHECK_OK(MPI_Info_get(in, "gamma", 3, v, &flag)); /* truncated to 3 characters */
  CHECK(flag && strcmp(v, "thr") == 0, "truncated get gave %s", v);
  CHECK_OK(MPI_Info_get_valuelen(in, "gamma", &len, &flag));
  CHECK(flag && len == 6, "valuelen %d", len);
  CHECK_OK(MPI_Info_get(in, "missing", 10, v, &flag));
  CHECK(!flag, "missing key found");
  len = 4;
  CHECK_OK(MPI_Info_get_string(in, "gamma", &len, v, &flag));
  CHECK(flag && len == 7 && strcmp(v, "thr") == 0, "get_string: len %d value %s", len, v);
  len = 0;
  CHECK_OK(MPI_Info_get_string(in, "beta", &len, NULL, &flag));
  CHECK(flag && len == 4, "get_string size query: %d", len);
  CHECK_OK(MPI_Info_dup(in, &d));
  CHECK_OK(MPI_Info_delete(in, "beta"));
  MPI_Info_get_nkeys(in, &n);
  CHECK(n == 2, "after delete: %d keys", n);
  MPI_Info_get_nkeys(d, &n);
  CHECK(n == 3, "dup changed with the original: %d keys", n);
  MPI_Info_get_nthkey(d, 1, k);
  CHECK(strcmp(k, "beta") == 0, "dup key 1 is %s", k);
  rc = MPI_Info_delete(in, "beta");
  CHECK_CLASS(rc, MPI_ERR_INFO_NOKEY);
  rc = MPI_Info_get_nthkey(in, 2, k);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  rc = MPI_Info_get_nthkey(in, -1, k);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  rc = MPI_Info_set(in, "", "x");
  CHECK_CLASS(rc, MPI_ERR_INFO_KEY);
  char longkey[MPI_MAX_INFO_KEY + 8];
  memset(longkey, 'k', sizeof longkey - 1);
  longkey[sizeof longkey - 1] = 0;
  rc = MPI_Info_set(in, longkey, "x");
  CHECK_CLASS(rc, MPI_ERR_INFO_KEY);
  rc = MPI_Info_get(in, longkey, 5, v, &flag);
  CHECK_CLASS(rc, MPI_ERR_INFO_KEY);
  static char longval[MPI_MAX_INFO_VAL + 8];
  memset(longval, 'v', sizeof longval - 1);
  rc = MPI_Info_set(in, "k", longval);
  CHECK_CLASS(rc, MPI_ERR_INFO_VALUE);
  rc = MPI_Info_get_nkeys(MPI_INFO_NULL, &n);
  CHECK_CLASS(rc, MPI_ERR_INFO);
  rc = MPI_Info_set(MPI_INFO_NULL, "a", "b");
  CHECK_CLASS(rc, MPI_ERR_INFO);
  CHECK_OK(MPI_Info_free(&in));
  CHECK(in == MPI_INFO_NULL, "free did not null the handle");
  CHECK_OK(MPI_Info_free(&d));
  rc = MPI_Info_free(&d);
  CHECK_CLASS(rc, MPI_ERR_INFO);

  /* the environment */
  CHECK_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
  CHECK(n >= 1, "MPI_INFO_ENV has %d keys", n);
  len = sizeof v;
  CHECK_OK(MPI_Info_get_string(MPI_INFO_ENV, "command", &len, v, &flag));
  CHECK(flag && strstr(v, "info") != NULL, "command = %s", flag ? v : "(unset)");
  len = sizeof v;
  CHECK_OK(MPI_Info_get_string(MPI_INFO_ENV, "thread_level", &len, v, &flag));
  CHECK(flag && strcmp(v, "MPI_THREAD_SINGLE") == 0, "thread_level = %s", flag ? v : "(unset)");
  int sz;
  MPI_Comm_size(MPI_COMM_WORLD, &sz);
  len = sizeof v;
  CHECK_OK(MPI_Info_get_string(MPI_INFO_ENV, "maxprocs", &len, v, &flag));
  CHECK(flag && atoi(v) == sz, "maxprocs = %s", flag ? v : "(unset)");
  MPI_Info e;
  CHECK_OK(MPI_Info_create_env(0, NULL, &e)); /* mpi.h declares argv as char[] */
  int ne;
  MPI_Info_get_nkeys(e, &ne);
  CHECK(ne == n, "create_env has %d keys, MPI_INFO_ENV %d", ne, n);
  MPI_Info_free(&e);
  MPI_Info env = MPI_INFO_ENV;
  rc = MPI_Info_free(&env);
  CHECK_CLASS(rc, MPI_ERR_INFO);
  return fy_finish();
}
