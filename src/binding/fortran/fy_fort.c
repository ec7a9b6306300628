/* libmpifort support: the mpif.h common blocks, CHARACTER conversion, the
 * sentinels of mpi_f08, MPI_F_SYNC_REG and the predefined attribute callbacks
 * callable from Fortran (MPI_COMM_DUP_FN, MPI_NULL_COPY_FN, ...). */
#include "fy_fort.h"
#include <string.h>

/* mpi.h defines the C callbacks under these names; here they are Fortran
 * symbols. */
#undef MPI_COMM_DUP_FN
#undef MPI_COMM_NULL_COPY_FN
#undef MPI_COMM_NULL_DELETE_FN
#undef MPI_TYPE_DUP_FN
#undef MPI_TYPE_NULL_COPY_FN
#undef MPI_TYPE_NULL_DELETE_FN
#undef MPI_WIN_DUP_FN
#undef MPI_WIN_NULL_COPY_FN
#undef MPI_WIN_NULL_DELETE_FN
#undef MPI_DUP_FN
#undef MPI_NULL_COPY_FN
#undef MPI_NULL_DELETE_FN
#undef MPI_CONVERSION_FN_NULL

/* Uninitialised like MPICH's: only their addresses matter. Aligned as
 * gfortran aligns a common block (16), so objects that declare them agree. */
#define FY_F_COMMON __attribute__((aligned(16)))
struct fy_f_priv1 mpipriv1_ FY_F_COMMON;
struct fy_f_priv2 mpipriv2_ FY_F_COMMON;
struct fy_f_privc mpiprivc_ FY_F_COMMON;
MPI_Fint mpifcmb5_ FY_F_COMMON;
MPI_Fint mpifcmb9_ FY_F_COMMON;

/* C code handed a Fortran status compares it with MPI_F_STATUS_IGNORE and
 * MPI_F_STATUSES_IGNORE (libmpi's variables): once libmpifort is loaded they
 * are the addresses of mpif.h's MPI_STATUS(ES)_IGNORE. */
__attribute__((constructor)) static void fy_f_publish_ignores(void) {
  MPI_F_STATUS_IGNORE = mpipriv1_.status_ignore;
  MPI_F_STATUSES_IGNORE = mpipriv2_.statuses_ignore;
}

/* Module variables of mpi_f08_link_constants (src/binding/fortran/mpi_f08.f90);
 * the names are gfortran's mangling, the same as MPICH's. */
extern int __mpi_f08_link_constants_MOD_mpi_errcodes_ignore;
extern int __mpi_f08_link_constants_MOD_mpi_unweighted;
extern int __mpi_f08_link_constants_MOD_mpi_weights_empty;
extern char __mpi_f08_link_constants_MOD_mpi_argv_null;
extern char __mpi_f08_link_constants_MOD_mpi_argvs_null;

int fy_f_is_f08_errcodes(const void *p) {
  return p == &__mpi_f08_link_constants_MOD_mpi_errcodes_ignore;
}
int fy_f_is_f08_unweighted(const void *p) {
  return p == &__mpi_f08_link_constants_MOD_mpi_unweighted;
}
int fy_f_is_f08_weights_empty(const void *p) {
  return p == &__mpi_f08_link_constants_MOD_mpi_weights_empty;
}
int fy_f_is_argv_null(const void *p) {
  return p == mpiprivc_.argv_null || p == &__mpi_f08_link_constants_MOD_mpi_argv_null;
}
int fy_f_is_argvs_null(const void *p) {
  return p == mpiprivc_.argvs_null || p == &__mpi_f08_link_constants_MOD_mpi_argvs_null;
}

char *fy_f_str_in(const char *f, size_t flen) {
  while (flen > 0 && f[flen - 1] == ' ')
    flen--;
  char *c = malloc(flen + 1);
  if (!c)
    return NULL;
  memcpy(c, f, flen);
  c[flen] = '\0';
  return c;
}

char *fy_f_str_in_trim(const char *f, size_t flen) {
  while (flen > 0 && *f == ' ') {
    f++;
    flen--;
  }
  return fy_f_str_in(f, flen);
}

void fy_f_str_out(char *f, size_t flen, const char *c) {
  size_t n = strnlen(c, flen);
  memcpy(f, c, n);
  memset(f + n, ' ', flen - n);
}

/* One Fortran CHARACTER*(flen) argv(*) list: entries up to the first blank. */
int fy_f_argv(const char *f, size_t flen, long limit, char ***out) {
  *out = NULL;
  if (limit < 0 && fy_f_is_argv_null(f))
    return MPI_SUCCESS;       /* MPI_ARGV_NULL */
  size_t n = 0;
  while (flen > 0 && (limit < 0 || n < (size_t)limit)) {
    if (limit >= 0) {
      n++;
      continue;
    }
    size_t k = flen;
    while (k > 0 && f[n * flen + k - 1] == ' ')
      k--;
    if (k == 0)
      break;
    n++;
  }
  char **argv = calloc(n + 1, sizeof *argv);
  if (!argv)
    return MPI_ERR_NO_MEM;
  for (size_t i = 0; i < n; i++) {
    if (!(argv[i] = fy_f_str_in(f + i * flen, flen))) {
      fy_f_argv_free(argv);
      return MPI_ERR_NO_MEM;
    }
  }
  *out = argv;
  return MPI_SUCCESS;
}

void fy_f_argv_free(char **argv) {
  if (!argv)
    return;
  for (char **a = argv; *a; a++)
    free(*a);
  free(argv);
}

/* array_of_argv(count, *): entry (i, j) at f + (i + j*count)*flen. */
int fy_f_argvs(const char *f, size_t flen, int count, char ****out) {
  *out = NULL;
  if (fy_f_is_argvs_null(f) || count <= 0)
    return MPI_SUCCESS;       /* MPI_ARGVS_NULL */
  char ***argvs = calloc((size_t)count, sizeof *argvs);
  if (!argvs)
    return MPI_ERR_NO_MEM;
  for (int i = 0; i < count; i++) {
    size_t n = 0;
    while (flen > 0) {
      const char *e = f + ((size_t)i + n * (size_t)count) * flen;
      size_t k = flen;
      while (k > 0 && e[k - 1] == ' ')
        k--;
      if (k == 0)
        break;
      n++;
    }
    argvs[i] = calloc(n + 1, sizeof **argvs);
    if (!argvs[i])
      goto nomem;
    for (size_t j = 0; j < n; j++)
      if (!(argvs[i][j] = fy_f_str_in(f + ((size_t)i + j * (size_t)count) * flen, flen)))
        goto nomem;
  }
  *out = argvs;
  return MPI_SUCCESS;
nomem:
  fy_f_argvs_free(argvs, count);
  return MPI_ERR_NO_MEM;
}

void fy_f_argvs_free(char ***argvs, int count) {
  if (!argvs)
    return;
  for (int i = 0; i < count; i++)
    fy_f_argv_free(argvs[i]);
  free(argvs);
}

/* MPI_F_SYNC_REG(buf): the call itself is the point (the compiler must
 * assume buf is read and written); nothing to do. */
FY_F_API void pmpi_f_sync_reg_(void *buf);
void pmpi_f_sync_reg_(void *buf) { (void)buf; }
FY_F_ALIAS(mpi_f_sync_reg_, pmpi_f_sync_reg_)
FY_F_ALIAS(mpi_f_sync_reg__, pmpi_f_sync_reg_)
FY_F_ALIAS(mpi_f_sync_reg, pmpi_f_sync_reg_)
FY_F_ALIAS(MPI_F_SYNC_REG, pmpi_f_sync_reg_)
FY_F_ALIAS(PMPI_F_SYNC_REG, pmpi_f_sync_reg_)

/* Predefined attribute callbacks, Fortran calling convention. Attribute
 * values are INTEGER(KIND=MPI_ADDRESS_KIND), or INTEGER for the MPI-1
 * MPI_NULL_COPY_FN / MPI_DUP_FN / MPI_NULL_DELETE_FN. */
FY_F_API void pmpi_comm_dup_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *x, MPI_Aint *in,
                                MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr);
void pmpi_comm_dup_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *x, MPI_Aint *in, MPI_Aint *out,
                       MPI_Fint *flag, MPI_Fint *ierr) {
  (void)h; (void)k; (void)x;
  *out = *in;
  *flag = 1;
  *ierr = MPI_SUCCESS;
}
FY_F_API void pmpi_comm_null_copy_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *x, MPI_Aint *in,
                                      MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr);
void pmpi_comm_null_copy_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *x, MPI_Aint *in,
                             MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr) {
  (void)h; (void)k; (void)x; (void)in; (void)out;
  *flag = 0;
  *ierr = MPI_SUCCESS;
}
FY_F_API void pmpi_comm_null_delete_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *v, MPI_Aint *x,
                                        MPI_Fint *ierr);
void pmpi_comm_null_delete_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *v, MPI_Aint *x,
                               MPI_Fint *ierr) {
  (void)h; (void)k; (void)v; (void)x;
  *ierr = MPI_SUCCESS;
}
FY_F_API void pmpi_dup_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Fint *x, MPI_Fint *in,
                           MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr);
void pmpi_dup_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Fint *x, MPI_Fint *in, MPI_Fint *out,
                  MPI_Fint *flag, MPI_Fint *ierr) {
  (void)h; (void)k; (void)x;
  *out = *in;
  *flag = 1;
  *ierr = MPI_SUCCESS;
}
FY_F_API void pmpi_null_copy_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Fint *x, MPI_Fint *in,
                                 MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr);
void pmpi_null_copy_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Fint *x, MPI_Fint *in, MPI_Fint *out,
                        MPI_Fint *flag, MPI_Fint *ierr) {
  (void)h; (void)k; (void)x; (void)in; (void)out;
  *flag = 0;
  *ierr = MPI_SUCCESS;
}
FY_F_API void pmpi_null_delete_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Fint *v, MPI_Fint *x,
                                   MPI_Fint *ierr);
void pmpi_null_delete_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Fint *v, MPI_Fint *x, MPI_Fint *ierr) {
  (void)h; (void)k; (void)v; (void)x;
  *ierr = MPI_SUCCESS;
}
FY_F_API void pmpi_conversion_fn_null_(void *u, MPI_Fint *d, MPI_Fint *c, void *f,
                                       MPI_Offset *p, MPI_Aint *x, MPI_Fint *ierr);
void pmpi_conversion_fn_null_(void *u, MPI_Fint *d, MPI_Fint *c, void *f, MPI_Offset *p,
                              MPI_Aint *x, MPI_Fint *ierr) {
  (void)u; (void)d; (void)c; (void)f; (void)p; (void)x;
  *ierr = MPI_SUCCESS;
}

#define FY_F_ALIASES(l, U)                                                     \
  FY_F_ALIAS(mpi_##l##_, pmpi_##l##_) FY_F_ALIAS(mpi_##l##__, pmpi_##l##_)     \
  FY_F_ALIAS(mpi_##l, pmpi_##l##_) FY_F_ALIAS(MPI_##U, pmpi_##l##_)            \
  FY_F_ALIAS(pmpi_##l##__, pmpi_##l##_) FY_F_ALIAS(pmpi_##l, pmpi_##l##_)      \
  FY_F_ALIAS(PMPI_##U, pmpi_##l##_)
FY_F_ALIASES(comm_dup_fn, COMM_DUP_FN)
FY_F_ALIASES(comm_null_copy_fn, COMM_NULL_COPY_FN)
FY_F_ALIASES(comm_null_delete_fn, COMM_NULL_DELETE_FN)
FY_F_ALIASES(dup_fn, DUP_FN)
FY_F_ALIASES(null_copy_fn, NULL_COPY_FN)
FY_F_ALIASES(null_delete_fn, NULL_DELETE_FN)
FY_F_ALIASES(conversion_fn_null, CONVERSION_FN_NULL)
/* Type and window versions have the same Fortran signature. */
#define FY_F_SAME(l, U, target)                                                \
  extern __typeof__(target) pmpi_##l##_                                        \
      __attribute__((alias(#target), visibility("default")));                  \
  FY_F_ALIASES(l, U)
FY_F_SAME(type_dup_fn, TYPE_DUP_FN, pmpi_comm_dup_fn_)
FY_F_SAME(type_null_copy_fn, TYPE_NULL_COPY_FN, pmpi_comm_null_copy_fn_)
FY_F_SAME(type_null_delete_fn, TYPE_NULL_DELETE_FN, pmpi_comm_null_delete_fn_)
FY_F_SAME(win_dup_fn, WIN_DUP_FN, pmpi_comm_dup_fn_)
FY_F_SAME(win_null_copy_fn, WIN_NULL_COPY_FN, pmpi_comm_null_copy_fn_)
FY_F_SAME(win_null_delete_fn, WIN_NULL_DELETE_FN, pmpi_comm_null_delete_fn_)
