/* Attributes and keyvals on communicators, datatypes (and the deprecated
 * MPI-1 names): set/get/delete, copy callbacks on dup (in the order the
 * attributes were set, MPI_COMM_DUP_FN / NULL_COPY_FN / a user function
 * that declines), delete callbacks on free and on replacement, errors a
 * callback returns propagate and leave things as they were, freed keyvals
 * live on while attributes use them, predefined attributes, error classes. */
#include "fytest.h"
#include <string.h>

static int log_[64], nlog;
static int fail_copy, fail_delete;

static int copy_fn(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag) {
  log_[nlog++] = 100 + (int)(long)extra;
  if (fail_copy) return MPI_ERR_OTHER;
  *(void **)out = (char *)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}

static int decline_fn(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int kv, void *val, void *extra) {
  log_[nlog++] = 200 + (int)(long)extra;
  if (fail_delete) return MPI_ERR_ARG;
  return MPI_SUCCESS;
}

static int tdelete_fn(MPI_Datatype t, int kv, void *val, void *extra) {
  log_[nlog++] = 300 + (int)(long)extra;
  return MPI_SUCCESS;
}

static int tcopy_fn(MPI_Datatype t, int kv, void *extra, void *in, void *out, int *flag) {
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("attr");
  int rank, size, rc, flag;
  void *val;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* predefined */
  int *p;
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
  CHECK(flag && *p >= 32767, "MPI_TAG_UB");
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &flag));
  CHECK(flag && *p >= size, "MPI_UNIVERSE_SIZE");
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &p, &flag));
  CHECK(flag && *p == 0, "MPI_APPNUM");
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag));
  CHECK(flag && (*p == 0 || *p == 1), "MPI_WTIME_IS_GLOBAL");
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag));
  CHECK(flag && (*p == MPI_PROC_NULL || (*p >= 0 && *p < size)), "MPI_HOST");
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag));
  CHECK(flag && (*p == MPI_ANY_SOURCE || *p == MPI_PROC_NULL || (*p >= 0 && *p < size)), "MPI_IO");
  CHECK_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
  CHECK(flag, "MPI_Attr_get(MPI_TAG_UB)");
  rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &rank);
  CHECK_CLASS(rc, MPI_ERR_KEYVAL);
  rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB);
  CHECK_CLASS(rc, MPI_ERR_KEYVAL);
  rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &val, &flag);
  CHECK_CLASS(rc, MPI_ERR_KEYVAL);
  rc = MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &val, &flag);
  CHECK_CLASS(rc, MPI_ERR_KEYVAL);

  /* user keyvals: copy order and delete order */
  int k1, k2, k3, k4;
  CHECK_OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &k1, (void *)1L));
  CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delete_fn, &k2, (void *)2L));
  CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k3, NULL));
  CHECK_OK(MPI_Comm_create_keyval(decline_fn, delete_fn, &k4, (void *)4L));
  MPI_Comm c, d;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  CHECK_OK(MPI_Comm_get_attr(c, k1, &val, &flag));
  CHECK(!flag, "unset attribute found");
  static char buf[16];
  /* set in the order k2, k1, k3, k4 */
  CHECK_OK(MPI_Comm_set_attr(c, k2, buf + 2));
  CHECK_OK(MPI_Comm_set_attr(c, k1, buf + 1));
  CHECK_OK(MPI_Comm_set_attr(c, k3, buf + 3));
  CHECK_OK(MPI_Comm_set_attr(c, k4, buf + 4));
  nlog = 0;
  CHECK_OK(MPI_Comm_dup(c, &d));
  CHECK(nlog == 1 && log_[0] == 101, "copy callbacks: %d calls", nlog);
  CHECK_OK(MPI_Comm_get_attr(d, k1, &val, &flag));
  CHECK(flag && val == buf + 2, "k1 copied as %p", val);
  CHECK_OK(MPI_Comm_get_attr(d, k2, &val, &flag));
  CHECK(flag && val == buf + 2, "k2 (DUP_FN) copied as %p", val);
  CHECK_OK(MPI_Comm_get_attr(d, k3, &val, &flag));
  CHECK(!flag, "k3 (NULL_COPY_FN) was copied");
  CHECK_OK(MPI_Comm_get_attr(d, k4, &val, &flag));
  CHECK(!flag, "k4 (declined) was copied");
  /* replacing runs the old value's delete callback */
  nlog = 0;
  CHECK_OK(MPI_Comm_set_attr(d, k1, buf + 9));
  CHECK(nlog == 1 && log_[0] == 201, "replace: %d calls", nlog);
  /* free: delete callbacks, newest first: d has k2 then k1 */
  nlog = 0;
  CHECK_OK(MPI_Comm_free(&d));
  CHECK(nlog == 2 && log_[0] == 201 && log_[1] == 202, "free order: %d calls (%d, %d)", nlog, log_[0], log_[1]);
  /* a failing copy callback fails the dup and leaves no communicator */
  fail_copy = 1;
  nlog = 0;
  d = MPI_COMM_NULL;
  rc = MPI_Comm_dup(c, &d);
  CHECK(rc != MPI_SUCCESS, "dup succeeded although a copy callback failed");
  CHECK(d == MPI_COMM_NULL, "dup gave a communicator although it failed");
  fail_copy = 0;
  /* explicit delete; a failing delete callback keeps the attribute */
  fail_delete = 1;
  rc = MPI_Comm_delete_attr(c, k2);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  CHECK_OK(MPI_Comm_get_attr(c, k2, &val, &flag));
  CHECK(flag, "attribute gone after a failed delete");
  rc = MPI_Comm_free(&c);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  CHECK(c != MPI_COMM_NULL, "free that failed nulled the handle");
  fail_delete = 0;
  nlog = 0;
  CHECK_OK(MPI_Comm_delete_attr(c, k2));
  CHECK(nlog == 1 && log_[0] == 202, "delete_attr callback");
  rc = MPI_Comm_delete_attr(c, k2);
  CHECK_CLASS(rc, MPI_ERR_KEYVAL);
  /* freeing a keyval: the handle is invalid, attributes keep it alive */
  int k1copy = k1;
  CHECK_OK(MPI_Comm_free_keyval(&k1));
  CHECK(k1 == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
  rc = MPI_Comm_set_attr(c, k1copy, buf);
  CHECK_CLASS(rc, MPI_ERR_KEYVAL);
  /* ...but, as in MPICH, the old handle still reaches the attributes that
   * keep it alive, and freeing it again changes nothing */
  val = NULL;
  CHECK_OK(MPI_Comm_get_attr(c, k1copy, &val, &flag));
  CHECK(flag && val != NULL, "attribute of a freed keyval not found");
  int k1again = k1copy;
  CHECK_OK(MPI_Comm_free_keyval(&k1again));
  CHECK(k1again == MPI_KEYVAL_INVALID, "second free_keyval did not reset the handle");
  CHECK_OK(MPI_Comm_get_attr(c, k1copy, &val, &flag));
  CHECK(flag, "second free_keyval dropped the attribute");
  nlog = 0;
  CHECK_OK(MPI_Comm_free(&c));
  CHECK(nlog == 2 && log_[0] == 204 && log_[1] == 201, "free after free_keyval: %d calls", nlog);
  rc = MPI_Comm_free_keyval(&k1);
  CHECK_CLASS(rc, MPI_ERR_KEYVAL);
  rc = MPI_Comm_get_attr(MPI_COMM_WORLD, k1copy, &val, &flag);
  CHECK_CLASS(rc, MPI_ERR_KEYVAL); /* no attribute left: the keyval is gone */

  /* deprecated names */
  int ok;
  CHECK_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &ok, NULL));
  CHECK_OK(MPI_Attr_put(MPI_COMM_SELF, ok, buf + 5));
  CHECK_OK(MPI_Attr_get(MPI_COMM_SELF, ok, &val, &flag));
  CHECK(flag && val == buf + 5, "Attr_get");
  CHECK_OK(MPI_Attr_delete(MPI_COMM_SELF, ok));
  CHECK_OK(MPI_Keyval_free(&ok));

  /* datatypes */
  int tk;
  CHECK_OK(MPI_Type_create_keyval(tcopy_fn, tdelete_fn, &tk, (void *)7L));
  CHECK_OK(MPI_Type_set_attr(MPI_INT, tk, buf + 7));
  CHECK_OK(MPI_Type_get_attr(MPI_INT, tk, &val, &flag));
  CHECK(flag && val == buf + 7, "type attribute");
  CHECK_OK(MPI_Type_get_attr(MPI_DOUBLE, tk, &val, &flag));
  CHECK(!flag, "attribute on the wrong type");
  rc = MPI_Comm_set_attr(MPI_COMM_WORLD, tk, buf);
  CHECK_CLASS(rc, MPI_ERR_KEYVAL);
  rc = MPI_Type_set_attr(MPI_INT, k2, buf);
  CHECK_CLASS(rc, MPI_ERR_KEYVAL);
  nlog = 0;
  CHECK_OK(MPI_Type_delete_attr(MPI_INT, tk));
  CHECK(nlog == 1 && log_[0] == 307, "type delete callback");
  CHECK_OK(MPI_Type_free_keyval(&tk));

  CHECK_OK(MPI_Comm_free_keyval(&k2));
  CHECK_OK(MPI_Comm_free_keyval(&k3));
  CHECK_OK(MPI_Comm_free_keyval(&k4));
  return fy_finish();
}
