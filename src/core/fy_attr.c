/* Attributes and keyvals: see fy_attr.h. A list per object in the order
 * attributes were first set; keyvals in a table of their own. */
#include "core/fy_attr.h"
#include "core/fy_comm.h"
#include "core/fy_error.h"
#include "core/fy_handle.h"
#include "core/fy_api.h"
#include "binding/fy_impl.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The C callback types of the three kinds share one shape (handles are int
 * in the MPICH ABI). */
typedef int copy_fn_t(int, int, void *, void *, void *, int *);
typedef int delete_fn_t(int, int, void *, void *);

typedef struct keyval {
  int handle;
  int objkind;
  copy_fn_t *copy;
  delete_fn_t *del;
  void *extra;
  int refs;        /* the user's handle (until freed) + one per attribute */
  int dead;        /* freed by the user */
} keyval_t;

struct fy_attr {
  int keyval;      /* handle (user or predefined) */
  keyval_t *kv;    /* NULL for predefined */
  void *val;
  int fortran;     /* set by Fortran: val is an integer, C gets &ival */
  MPI_Aint ival;
  struct fy_attr *next;
};

/* Language interoperability (MPI 4.1 19.3.7): an attribute set from
 * Fortran holds an integer, which a C get returns a pointer to (the
 * standard's example: `MPI_Aint *val; MPI_Comm_get_attr(comm, key, &val,
 * &flag)`); one set from C holds a pointer, which a Fortran get returns as
 * an integer; either language gets back what it set. libmpifort marks its
 * calls with fy_f_attr_lang(1) before and fy_f_attr_lang(0) after; the set
 * or get takes the mark on entry, so a callback it runs is C again. (An
 * INTEGER set by MPI_ATTR_PUT is read through the same pointer: on a
 * little-endian machine an int at the start of the MPI_Aint.) */
static _Thread_local int from_fortran;
__attribute__((visibility("default"))) void fy_f_attr_lang(int fortran);
void fy_f_attr_lang(int fortran) { from_fortran = fortran; }
static int take_lang(void) {
  int f = from_fortran;
  from_fortran = 0;
  return f;
}

/* The value an attribute holds, and which language set it. */
static void set_val(fy_attr_t *a, void *val, int fortran) {
  a->val = val;
  a->fortran = fortran;
  a->ival = (MPI_Aint)(intptr_t)val;
}

#define KV_INDEX_BITS 22
static keyval_t **kv_slots;
static int kv_cap, kv_next = 1;
static int *kv_free;
static int kv_nfree, kv_freecap;

static const char *kind_name(int objkind) {
  return objkind == FY_OK_COMM ? "communicator" : objkind == FY_OK_DATATYPE ? "datatype" : "window";
}

static keyval_t *kv_get(int h) {
  if (fy_h_kind(h) != FY_HK_DIRECT || fy_h_obj(h) != FY_OK_KEYVAL) return NULL;
  int i = (int)((unsigned)h & ((1u << KV_INDEX_BITS) - 1));
  return i < kv_next && kv_slots ? kv_slots[i] : NULL;
}

static void kv_unref(keyval_t *kv) {
  if (!kv || --kv->refs > 0) return;
  int i = (int)((unsigned)kv->handle & ((1u << KV_INDEX_BITS) - 1));
  kv_slots[i] = NULL;
  if (kv_nfree == kv_freecap) {
    int nc = kv_freecap ? kv_freecap * 2 : 64;
    int *nf = realloc(kv_free, (size_t)nc * sizeof *nf);
    if (nf) {
      kv_free = nf;
      kv_freecap = nc;
    }
  }
  if (kv_nfree < kv_freecap) kv_free[kv_nfree++] = i;
  free(kv);
}

static int kv_create(int objkind, void *copy, void *del, void *extra, int *out) {
  keyval_t *kv = calloc(1, sizeof *kv);
  if (!kv) return fy_err(MPI_ERR_NO_MEM, "out of memory creating a keyval");
  int i;
  if (kv_nfree) {
    i = kv_free[--kv_nfree];
  } else {
    if (kv_next >= (1 << KV_INDEX_BITS)) goto full;
    if (kv_next >= kv_cap) {
      int nc = kv_cap ? kv_cap * 2 : 64;
      keyval_t **ns = realloc(kv_slots, (size_t)nc * sizeof *ns);
      if (!ns) goto full;
      memset(ns + kv_cap, 0, (size_t)(nc - kv_cap) * sizeof *ns);
      kv_slots = ns;
      kv_cap = nc;
    }
    i = kv_next++;
  }
  kv->objkind = objkind;
  kv->copy = (copy_fn_t *)copy;
  kv->del = (delete_fn_t *)del;
  kv->extra = extra;
  kv->refs = 1;
  kv->handle = fy_h_make(FY_HK_DIRECT, FY_OK_KEYVAL, (objkind << KV_INDEX_BITS) | i);
  kv_slots[i] = kv;
  *out = kv->handle;
  return MPI_SUCCESS;
full:
  free(kv);
  return fy_err(MPI_ERR_NO_MEM, "out of keyvals");
}

/* A keyval the user freed lives on while attributes use it (MPI 4.1 7.7.2);
 * as MPICH does, its old handle still reaches those attributes (get,
 * delete, another free) but cannot set a new one. */
static int kv_check(int h, int objkind, keyval_t **out, const char *arg, int allow_freed) {
  if (h == MPI_KEYVAL_INVALID) return fy_err(MPI_ERR_KEYVAL, "%s = MPI_KEYVAL_INVALID", arg);
  keyval_t *kv = kv_get(h);
  if (!kv || kv->handle != h || (kv->dead && !allow_freed)) {
    if (fy_h_kind(h) == FY_HK_BUILTIN && fy_h_obj(h) == FY_OK_KEYVAL)
      return fy_err(MPI_ERR_KEYVAL, "%s = %#x is a predefined keyval: it cannot be set, deleted or freed",
                    arg, (unsigned)h);
    return fy_err(MPI_ERR_KEYVAL, "%s = %#x is not a valid keyval", arg, (unsigned)h);
  }
  if (kv->objkind != objkind)
    return fy_err(MPI_ERR_KEYVAL, "%s = %#x is a %s keyval, not a %s keyval", arg, (unsigned)h,
                  kind_name(kv->objkind), kind_name(objkind));
  *out = kv;
  return MPI_SUCCESS;
}

/* Callbacks are user code: they may call MPI. */
static int run_copy(keyval_t *kv, int old_handle, void *in, void **out, int *flag) {
  *flag = 0;
  if (!kv->copy) return MPI_SUCCESS; /* MPI_*_NULL_COPY_FN */
  int d = fy_tls.in_mpi;
  fy_tls.in_mpi = 0;
  int rc = kv->copy(old_handle, kv->handle, kv->extra, in, (void *)out, flag);
  fy_tls.in_mpi = d;
  return rc;
}

static int run_delete(keyval_t *kv, int handle, void *val) {
  if (!kv || !kv->del) return MPI_SUCCESS;
  int d = fy_tls.in_mpi;
  fy_tls.in_mpi = 0;
  int rc = kv->del(handle, kv->handle, val, kv->extra);
  fy_tls.in_mpi = d;
  return rc;
}

static fy_attr_t *find(fy_attr_t *l, int keyval) {
  for (; l; l = l->next)
    if (l->keyval == keyval) return l;
  return NULL;
}

static void unlink_free(fy_attr_t **list, fy_attr_t *a) {
  for (fy_attr_t **p = list; *p; p = &(*p)->next)
    if (*p == a) {
      *p = a->next;
      break;
    }
  kv_unref(a->kv);
  free(a);
}

int fy_attr_copy_all(int objkind, int old_handle, fy_attr_t *const *from, int new_handle, fy_attr_t **to) {
  fy_attr_t *head = NULL, **tail = &head;
  int err = MPI_SUCCESS;
  *to = NULL;
  for (fy_attr_t *a = from ? *from : NULL; a; a = a->next) {
    if (!a->kv) continue; /* predefined attributes belong to their object */
    void *nv = NULL;
    int flag = 0, rc = run_copy(a->kv, old_handle, a->val, &nv, &flag);
    if (rc != MPI_SUCCESS) {
      err = rc;
      break;
    }
    if (!flag) continue;
    fy_attr_t *n = calloc(1, sizeof *n);
    if (!n) {
      err = fy_err(MPI_ERR_NO_MEM, "out of memory copying attributes");
      run_delete(a->kv, new_handle, nv);
      break;
    }
    n->keyval = a->keyval;
    n->kv = a->kv;
    n->kv->refs++;
    set_val(n, nv, a->fortran); /* (a Fortran copy callback returns an integer) */
    *tail = n;
    tail = &n->next;
  }
  if (err) {
    fy_attr_delete_all(objkind, new_handle, &head); /* best effort: the copy failed already */
    for (fy_attr_t *a = head, *nx; a; a = nx) {  /* whatever a delete callback refused */
      nx = a->next;
      kv_unref(a->kv);
      free(a);
    }
    return err;
  }
  *to = head;
  return MPI_SUCCESS;
}

int fy_attr_delete_all(int objkind, int handle, fy_attr_t **list) {
  /* newest first: reverse the order they were set */
  while (*list) {
    fy_attr_t *last = *list;
    while (last->next) last = last->next;
    int rc = run_delete(last->kv, handle, last->val);
    if (rc != MPI_SUCCESS) return rc;
    unlink_free(list, last);
  }
  return MPI_SUCCESS;
}

int fy_attr_set_predefined(fy_attr_t **list, int keyval, void *value) {
  fy_attr_t *a = find(*list, keyval);
  if (!a) {
    a = calloc(1, sizeof *a);
    if (!a) return fy_err(MPI_ERR_NO_MEM, "out of memory setting an attribute");
    a->keyval = keyval;
    a->next = *list;
    *list = a;
  }
  set_val(a, value, 0);
  return MPI_SUCCESS;
}

/* ---- where the lists are ---- */


static fy_attr_t **list_of(int objkind, int h) {
  if (objkind == FY_OK_COMM) {
    fy_comm_t *c = fy_comm_get(h);
    return c ? &c->attrs : NULL;
  }
  return objkind == FY_OK_DATATYPE ? fy_type_attrs(h) : fy_win_attrs(h);
}

/* ---- generic set/get/delete ---- */

static int set_attr(int objkind, int h, int keyval, void *val) {
  int fortran = take_lang();
  keyval_t *kv;
  int err = kv_check(keyval, objkind, &kv, "keyval", 0);
  if (err) return err;
  fy_attr_t **list = list_of(objkind, h);
  if (!list) return fy_err(objkind == FY_OK_WIN ? MPI_ERR_WIN : MPI_ERR_TYPE, "no such %s", kind_name(objkind));
  fy_attr_t *a = find(*list, keyval);
  if (a) {
    /* replacing: the old value's delete callback runs first */
    int rc = run_delete(a->kv, h, a->val);
    if (rc != MPI_SUCCESS) return rc;
    set_val(a, val, fortran);
    return MPI_SUCCESS;
  }
  a = calloc(1, sizeof *a);
  if (!a) return fy_err(MPI_ERR_NO_MEM, "out of memory setting an attribute");
  a->keyval = keyval;
  a->kv = kv;
  kv->refs++;
  set_val(a, val, fortran);
  fy_attr_t **p = list;
  while (*p) p = &(*p)->next;
  *p = a;
  return MPI_SUCCESS;
}

static int get_attr(int objkind, int h, int keyval, void *val, int *flag) {
  int fortran = take_lang();
  if (keyval == MPI_KEYVAL_INVALID) return fy_err(MPI_ERR_KEYVAL, "keyval = MPI_KEYVAL_INVALID");
  fy_attr_t **list = list_of(objkind, h);
  if (objkind == FY_OK_COMM && fy_comm_predef_attr(keyval, val, flag)) return MPI_SUCCESS;
  if (fy_h_kind(keyval) == FY_HK_BUILTIN && fy_h_obj(keyval) == FY_OK_KEYVAL) {
    int target = (int)(((unsigned)keyval >> KV_INDEX_BITS) & 0xf);
    if (target != objkind)
      return fy_err(MPI_ERR_KEYVAL, "keyval = %#x is a predefined %s keyval", (unsigned)keyval,
                    kind_name(target));
    fy_attr_t *a = list ? find(*list, keyval) : NULL;
    *flag = a != NULL;
    if (a) *(void **)val = a->val;
    return MPI_SUCCESS;
  }
  keyval_t *kv;
  int err = kv_check(keyval, objkind, &kv, "keyval", 1);
  if (err) return err;
  fy_attr_t *a = list ? find(*list, keyval) : NULL;
  *flag = a != NULL;
  if (a) *(void **)val = a->fortran && !fortran ? (void *)&a->ival : a->val;
  return MPI_SUCCESS;
}

static int delete_attr(int objkind, int h, int keyval) {
  keyval_t *kv;
  int err = kv_check(keyval, objkind, &kv, "keyval", 1);
  if (err) return err;
  fy_attr_t **list = list_of(objkind, h);
  fy_attr_t *a = list ? find(*list, keyval) : NULL;
  if (!a) return fy_err(MPI_ERR_KEYVAL, "keyval = %#x has no attribute on this %s", (unsigned)keyval,
                        kind_name(objkind));
  int rc = run_delete(a->kv, h, a->val);
  if (rc != MPI_SUCCESS) return rc;
  unlink_free(list, a);
  return MPI_SUCCESS;
}

static int free_keyval(int objkind, int *keyval) {
  keyval_t *kv;
  int err = kv_check(*keyval, objkind, &kv, "keyval", 1);
  if (err) return err;
  /* The handle dies now; attributes that use it keep the keyval (and
   * its callbacks) alive, and its slot unused, until they are deleted. */
  if (!kv->dead) {
    kv->dead = 1;
    kv_unref(kv);
  }
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

/* ---- MPI functions ---- */

int fy_mpi_comm_create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                              int *keyval, void *extra) {
  return kv_create(FY_OK_COMM, (void *)copy, (void *)del, extra, keyval);
}
int fy_mpi_type_create_keyval(MPI_Type_copy_attr_function *copy, MPI_Type_delete_attr_function *del,
                              int *keyval, void *extra) {
  return kv_create(FY_OK_DATATYPE, (void *)copy, (void *)del, extra, keyval);
}
int fy_mpi_win_create_keyval(MPI_Win_copy_attr_function *copy, MPI_Win_delete_attr_function *del,
                             int *keyval, void *extra) {
  return kv_create(FY_OK_WIN, (void *)copy, (void *)del, extra, keyval);
}
int fy_mpi_keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del, int *keyval, void *extra) {
  return kv_create(FY_OK_COMM, (void *)copy, (void *)del, extra, keyval);
}

int fy_mpi_comm_free_keyval(int *keyval) { return free_keyval(FY_OK_COMM, keyval); }
int fy_mpi_type_free_keyval(int *keyval) { return free_keyval(FY_OK_DATATYPE, keyval); }
int fy_mpi_win_free_keyval(int *keyval) { return free_keyval(FY_OK_WIN, keyval); }
int fy_mpi_keyval_free(int *keyval) { return free_keyval(FY_OK_COMM, keyval); }

int fy_mpi_comm_set_attr(MPI_Comm comm, int keyval, void *val) { return set_attr(FY_OK_COMM, comm, keyval, val); }
int fy_mpi_type_set_attr(MPI_Datatype t, int keyval, void *val) { return set_attr(FY_OK_DATATYPE, t, keyval, val); }
int fy_mpi_win_set_attr(MPI_Win w, int keyval, void *val) { return set_attr(FY_OK_WIN, w, keyval, val); }
int fy_mpi_attr_put(MPI_Comm comm, int keyval, void *val) { return set_attr(FY_OK_COMM, comm, keyval, val); }

int fy_mpi_comm_get_attr(MPI_Comm comm, int keyval, void *val, int *flag) {
  return get_attr(FY_OK_COMM, comm, keyval, val, flag);
}
int fy_mpi_type_get_attr(MPI_Datatype t, int keyval, void *val, int *flag) {
  return get_attr(FY_OK_DATATYPE, t, keyval, val, flag);
}
int fy_mpi_win_get_attr(MPI_Win w, int keyval, void *val, int *flag) {
  return get_attr(FY_OK_WIN, w, keyval, val, flag);
}
int fy_mpi_attr_get(MPI_Comm comm, int keyval, void *val, int *flag) {
  return get_attr(FY_OK_COMM, comm, keyval, val, flag);
}

int fy_mpi_comm_delete_attr(MPI_Comm comm, int keyval) { return delete_attr(FY_OK_COMM, comm, keyval); }
int fy_mpi_type_delete_attr(MPI_Datatype t, int keyval) { return delete_attr(FY_OK_DATATYPE, t, keyval); }
int fy_mpi_win_delete_attr(MPI_Win w, int keyval) { return delete_attr(FY_OK_WIN, w, keyval); }
int fy_mpi_attr_delete(MPI_Comm comm, int keyval) { return delete_attr(FY_OK_COMM, comm, keyval); }
