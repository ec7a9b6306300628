/* libmpifort: the Fortran entry points that cannot be generated as plain
 * conversions: attribute keys and values, attribute copy/delete callbacks
 * and generalized-request callbacks written in Fortran.
 *
 * A callback written in Fortran takes every argument by address and returns
 * its error through a last IERROR argument, so it is called from a C
 * trampoline; the trampoline's extra_state is a small heap record holding the
 * Fortran procedures and the user's EXTRA_STATE (freed with a generalized
 * request; kept for the life of the process for a keyval, as the C interface
 * tells nobody when a keyval's last attribute is gone). Attribute values are
 * INTEGER(KIND=MPI_ADDRESS_KIND) (INTEGER for MPI_ATTR_GET/PUT) stored as the
 * C attribute pointer itself, marked as Fortran's so that C reads a pointer
 * to the integer (fy_f_attr_lang). MPICH gives the predefined attribute keys
 * different values in Fortran (fy_fort_keyvals.def); their C values point to
 * the attribute, which Fortran receives as a value. */
#include "fy_fort.h"
#include <stdint.h>

enum { FY_F_ATTR_INT, FY_F_ATTR_AINT, FY_F_ATTR_ADDR };
static const struct fy_f_keyval { int fkey, ckey, what; } keyvals[] = {
#define FY_F_KEYVAL(name, f, c, what) {f, c, what},
#include "fy_fort_keyvals.def"
#undef FY_F_KEYVAL
};

/* The C keyval for a Fortran one; *what is -1 for a user keyval. */
static int c_keyval(int fkey, int *what) {
  for (size_t i = 0; i < sizeof keyvals / sizeof keyvals[0]; i++)
    if (keyvals[i].fkey == fkey) {
      *what = keyvals[i].what;
      return keyvals[i].ckey;
    }
  *what = -1;
  return fkey;
}

/* The Fortran value of attribute v found under a keyval of kind what. */
static MPI_Aint f_value(void *v, int what) {
  switch (what) {
  case FY_F_ATTR_INT: return *(int *)v;
  case FY_F_ATTR_AINT: return *(MPI_Aint *)v;
  case FY_F_ATTR_ADDR: return (MPI_Aint)(intptr_t)v;
  default: return (MPI_Aint)(intptr_t)v;
  }
}

/* ---------------------------------------------------------------- keyvals */
typedef void fy_f_copy_fn(MPI_Fint *, MPI_Fint *, void *, void *, void *, MPI_Fint *, MPI_Fint *);
typedef void fy_f_delete_fn(MPI_Fint *, MPI_Fint *, void *, void *, MPI_Fint *);
struct fy_f_keyval_state {
  fy_f_copy_fn *copy;
  fy_f_delete_fn *del;
  MPI_Aint extra;
  int mpi1;          /* MPI_KEYVAL_CREATE: INTEGER values and extra state */
  struct fy_f_keyval_state *next;
};

/* A keyval's state must outlive the keyval, which the C layer keeps until
 * its last attribute is deleted (after MPI_*_free_keyval): the states are
 * kept, reachable, for the life of the process (keyvals are few). */
static struct fy_f_keyval_state *kv_states;
static void keep_state(struct fy_f_keyval_state *k) {
  k->next = __atomic_load_n(&kv_states, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&kv_states, &k->next, k, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
  }
}

static int f_copy(int handle, int keyval, void *extra, void *in, void *out, int *flag) {
  struct fy_f_keyval_state *k = extra;
  MPI_Fint h = handle, kv = keyval, fflag = 0, ierr = MPI_SUCCESS;
  if (k->mpi1) {
    MPI_Fint x = (MPI_Fint)k->extra, vin = (MPI_Fint)(intptr_t)in, vout = 0;
    k->copy(&h, &kv, &x, &vin, &vout, &fflag, &ierr);
    *(void **)out = (void *)(intptr_t)vout;
  } else {
    MPI_Aint vin = (MPI_Aint)(intptr_t)in, vout = 0;
    k->copy(&h, &kv, &k->extra, &vin, &vout, &fflag, &ierr);
    *(void **)out = (void *)(intptr_t)vout;
  }
  *flag = fflag != 0;
  return ierr;
}

static int f_delete(int handle, int keyval, void *val, void *extra) {
  struct fy_f_keyval_state *k = extra;
  MPI_Fint h = handle, kv = keyval, ierr = MPI_SUCCESS;
  if (k->mpi1) {
    MPI_Fint x = (MPI_Fint)k->extra, v = (MPI_Fint)(intptr_t)val;
    k->del(&h, &kv, &v, &x, &ierr);
  } else {
    MPI_Aint v = (MPI_Aint)(intptr_t)val;
    k->del(&h, &kv, &v, &k->extra, &ierr);
  }
  return ierr;
}

/* One trampoline pair per handle type (all int in the MPICH ABI). */
#define FY_F_TRAMPOLINES(T, t)                                                 \
  static int t##_copy(T h, int kv, void *x, void *in, void *out, int *flag) {  \
    return f_copy(h, kv, x, in, out, flag);                                    \
  }                                                                            \
  static int t##_delete(T h, int kv, void *v, void *x) { return f_delete(h, kv, v, x); }
FY_F_TRAMPOLINES(MPI_Comm, comm)
FY_F_TRAMPOLINES(MPI_Datatype, type)
FY_F_TRAMPOLINES(MPI_Win, win)

static struct fy_f_keyval_state *keyval_state(void *copy, void *del, MPI_Aint extra, int mpi1) {
  struct fy_f_keyval_state *k = malloc(sizeof *k);
  if (k) {
    k->copy = (fy_f_copy_fn *)copy;
    k->del = (fy_f_delete_fn *)del;
    k->extra = extra;
    k->mpi1 = mpi1;
  }
  return k;
}

#define FY_F_CREATE_KEYVAL(l, U, C, t, XT, mpi1)                               \
  FY_F_API void pmpi_##l##_(void *copy, void *del, MPI_Fint *keyval, XT *extra, \
                            MPI_Fint *ierror);                                 \
  void pmpi_##l##_(void *copy, void *del, MPI_Fint *keyval, XT *extra, MPI_Fint *ierror) { \
    struct fy_f_keyval_state *k = keyval_state(copy, del, *extra, mpi1);       \
    if (!k) {                                                                  \
      *ierror = MPI_ERR_NO_MEM;                                                \
      return;                                                                  \
    }                                                                          \
    *ierror = C(t##_copy, t##_delete, keyval, k);                              \
    if (*ierror != MPI_SUCCESS)                                                \
      free(k);                                                                 \
    else                                                                       \
      keep_state(k);                                                           \
  }                                                                            \
  FY_F_ALIAS(mpi_##l##_, pmpi_##l##_) FY_F_ALIAS(mpi_##l##__, pmpi_##l##_)     \
  FY_F_ALIAS(mpi_##l, pmpi_##l##_) FY_F_ALIAS(MPI_##U, pmpi_##l##_)            \
  FY_F_ALIAS(pmpi_##l##__, pmpi_##l##_) FY_F_ALIAS(pmpi_##l, pmpi_##l##_)      \
  FY_F_ALIAS(PMPI_##U, pmpi_##l##_)
FY_F_CREATE_KEYVAL(comm_create_keyval, COMM_CREATE_KEYVAL, MPI_Comm_create_keyval, comm, MPI_Aint, 0)
FY_F_CREATE_KEYVAL(type_create_keyval, TYPE_CREATE_KEYVAL, MPI_Type_create_keyval, type, MPI_Aint, 0)
FY_F_CREATE_KEYVAL(win_create_keyval, WIN_CREATE_KEYVAL, MPI_Win_create_keyval, win, MPI_Aint, 0)
FY_F_CREATE_KEYVAL(keyval_create, KEYVAL_CREATE, MPI_Keyval_create, comm, MPI_Fint, 1)

/* ---------------------------------------------------------------- values */
#define FY_F_ATTR_ALIASES(l, U)                                                \
  FY_F_ALIAS(mpi_##l##_, pmpi_##l##_) FY_F_ALIAS(mpi_##l##__, pmpi_##l##_)     \
  FY_F_ALIAS(mpi_##l, pmpi_##l##_) FY_F_ALIAS(MPI_##U, pmpi_##l##_)            \
  FY_F_ALIAS(pmpi_##l##__, pmpi_##l##_) FY_F_ALIAS(pmpi_##l, pmpi_##l##_)      \
  FY_F_ALIAS(PMPI_##U, pmpi_##l##_)

/* libmpi's (core/fy_attr.c): marks the next attribute set or get as
 * Fortran's, so that C code reading an attribute Fortran set gets a pointer
 * to its integer and Fortran gets back the integer (MPI 4.1 19.3.7). Weak:
 * over MPICH's libmpi (tests/fortran/on_mpich.sh) attributes are stored as
 * they come. */
void fy_f_attr_lang(int fortran) __attribute__((weak));
static void lang(int fortran) {
  if (fy_f_attr_lang) fy_f_attr_lang(fortran);
}

#define FY_F_GET_ATTR(l, U, C, XT)                                             \
  FY_F_API void pmpi_##l##_(MPI_Fint *h, MPI_Fint *key, XT *val, MPI_Fint *flag, \
                            MPI_Fint *ierror);                                 \
  void pmpi_##l##_(MPI_Fint *h, MPI_Fint *key, XT *val, MPI_Fint *flag, MPI_Fint *ierror) { \
    int what, cflag = 0;                                                       \
    void *v = NULL;                                                            \
    int ckey = c_keyval(*key, &what);                                          \
    lang(what < 0); /* (a predefined attribute is C's, converted below) */    \
    *ierror = C(*h, ckey, &v, &cflag);                                         \
    lang(0);                                                                   \
    *flag = cflag != 0;                                                        \
    if (*ierror == MPI_SUCCESS && cflag)                                       \
      *val = (XT)f_value(v, what);                                             \
  }                                                                            \
  FY_F_ATTR_ALIASES(l, U)
FY_F_GET_ATTR(comm_get_attr, COMM_GET_ATTR, MPI_Comm_get_attr, MPI_Aint)
FY_F_GET_ATTR(type_get_attr, TYPE_GET_ATTR, MPI_Type_get_attr, MPI_Aint)
FY_F_GET_ATTR(win_get_attr, WIN_GET_ATTR, MPI_Win_get_attr, MPI_Aint)
FY_F_GET_ATTR(attr_get, ATTR_GET, MPI_Attr_get, MPI_Fint)

#define FY_F_SET_ATTR(l, U, C, XT)                                             \
  FY_F_API void pmpi_##l##_(MPI_Fint *h, MPI_Fint *key, XT *val, MPI_Fint *ierror); \
  void pmpi_##l##_(MPI_Fint *h, MPI_Fint *key, XT *val, MPI_Fint *ierror) {     \
    lang(1);                                                                   \
    *ierror = C(*h, *key, (void *)(intptr_t)*val);                             \
    lang(0);                                                                   \
  }                                                                            \
  FY_F_ATTR_ALIASES(l, U)
FY_F_SET_ATTR(comm_set_attr, COMM_SET_ATTR, MPI_Comm_set_attr, MPI_Aint)
FY_F_SET_ATTR(type_set_attr, TYPE_SET_ATTR, MPI_Type_set_attr, MPI_Aint)
FY_F_SET_ATTR(win_set_attr, WIN_SET_ATTR, MPI_Win_set_attr, MPI_Aint)
FY_F_SET_ATTR(attr_put, ATTR_PUT, MPI_Attr_put, MPI_Fint)

/* ---------------------------------------------------------------- generalized requests */
typedef void fy_f_query_fn(MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void fy_f_free_fn(MPI_Aint *, MPI_Fint *);
typedef void fy_f_cancel_fn(MPI_Aint *, MPI_Fint *, MPI_Fint *);
/* The callbacks get the program's extra_state variable itself, by address,
 * as MPICH and Open MPI pass it: a callback that changes it changes the
 * program's variable (MPICH's test suite relies on that), which must then
 * live as long as the request. */
struct fy_f_greq { fy_f_query_fn *query; fy_f_free_fn *free; fy_f_cancel_fn *cancel; MPI_Aint *extra; };

static int greq_query(void *x, MPI_Status *st) {
  struct fy_f_greq *g = x;
  MPI_Fint ierr = MPI_SUCCESS;
  g->query(g->extra, (MPI_Fint *)(void *)st, &ierr);
  return ierr;
}
static int greq_free(void *x) {
  struct fy_f_greq *g = x;
  MPI_Fint ierr = MPI_SUCCESS;
  g->free(g->extra, &ierr);
  free(g);
  return ierr;
}
static int greq_cancel(void *x, int complete) {
  struct fy_f_greq *g = x;
  MPI_Fint ierr = MPI_SUCCESS, c = complete != 0;
  g->cancel(g->extra, &c, &ierr);
  return ierr;
}

FY_F_API void pmpi_grequest_start_(void *query, void *freefn, void *cancel, MPI_Aint *extra,
                                   MPI_Request *request, MPI_Fint *ierror);
void pmpi_grequest_start_(void *query, void *freefn, void *cancel, MPI_Aint *extra,
                          MPI_Request *request, MPI_Fint *ierror) {
  struct fy_f_greq *g = malloc(sizeof *g);
  if (!g) {
    *ierror = MPI_ERR_NO_MEM;
    return;
  }
  g->query = (fy_f_query_fn *)query;
  g->free = (fy_f_free_fn *)freefn;
  g->cancel = (fy_f_cancel_fn *)cancel;
  g->extra = extra;
  *ierror = MPI_Grequest_start(greq_query, greq_free, greq_cancel, g, request);
  if (*ierror != MPI_SUCCESS)
    free(g);
}
FY_F_ATTR_ALIASES(grequest_start, GREQUEST_START)

/* Data representations with Fortran conversion functions: not supported
 * (Ferry has no MPI-IO); reported, never ignored. */
FY_F_API void pmpi_register_datarep_(char *datarep, void *r, void *w, void *e, MPI_Aint *x,
                                     MPI_Fint *ierror, size_t datarep_len);
void pmpi_register_datarep_(char *datarep, void *r, void *w, void *e, MPI_Aint *x,
                            MPI_Fint *ierror, size_t datarep_len) {
  (void)datarep; (void)r; (void)w; (void)e; (void)x; (void)datarep_len;
  *ierror = MPI_ERR_UNSUPPORTED_OPERATION;
}
FY_F_ATTR_ALIASES(register_datarep, REGISTER_DATAREP)
