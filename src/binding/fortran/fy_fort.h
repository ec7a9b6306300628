/* libmpifort: what the generated Fortran entry points (mpif_h/<chapter>.c) and the
 * hand-written ones share.
 *
 * Contract: a Fortran entry point takes every argument by address (gfortran's
 * convention, CHARACTER lengths as size_t after the last argument), converts
 * only what differs from C and calls the C MPI_Xxx. MPI_BOTTOM, MPI_IN_PLACE,
 * MPI_STATUS(ES)_IGNORE, MPI_ERRCODES_IGNORE, MPI_ARGV(S)_NULL,
 * MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are Fortran variables in common blocks
 * named and laid out as MPICH's (mpif.h), or the MPIR_F08_* objects of
 * libmpi (mpi_f08): an argument is one of them when its address is theirs. */
#ifndef FY_FORT_H
#define FY_FORT_H
#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>

#define FY_F_API __attribute__((visibility("default")))
#define FY_F_ALIAS(name, target) \
  extern __typeof__(target) name __attribute__((weak, alias(#target), visibility("default")));

/* The common blocks of mpif.h (MPICH's names, sizes and member order). */
struct fy_f_priv1 { MPI_Fint bottom, in_place, status_ignore[MPI_F_STATUS_SIZE]; };
struct fy_f_priv2 { MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE], errcodes_ignore[1]; };
struct fy_f_privc { char argvs_null[1], argv_null[1]; };
extern struct fy_f_priv1 mpipriv1_ FY_F_API;
extern struct fy_f_priv2 mpipriv2_ FY_F_API;
extern struct fy_f_privc mpiprivc_ FY_F_API;
extern MPI_Fint mpifcmb5_ FY_F_API;   /* MPI_UNWEIGHTED */
extern MPI_Fint mpifcmb9_ FY_F_API;   /* MPI_WEIGHTS_EMPTY */

#define FY_F_IS(p, obj) ((const void *)(p) == (const void *)&(obj))
#define FY_F_BUF(p)                                                            \
  (FY_F_IS(p, mpipriv1_.bottom) || FY_F_IS(p, MPIR_F08_MPI_BOTTOM) ? MPI_BOTTOM \
   : FY_F_IS(p, mpipriv1_.in_place) || FY_F_IS(p, MPIR_F08_MPI_IN_PLACE)        \
       ? MPI_IN_PLACE : (void *)(p))
#define FY_F_STATUS(p)                                                         \
  (FY_F_IS(p, mpipriv1_.status_ignore) || FY_F_IS(p, MPIR_F08_MPI_STATUS_IGNORE_OBJ) \
   ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)(p))
#define FY_F_STATUSES(p)                                                       \
  (FY_F_IS(p, mpipriv2_.statuses_ignore) ||                                    \
   FY_F_IS(p, MPIR_F08_MPI_STATUSES_IGNORE_OBJ) ? MPI_STATUSES_IGNORE           \
   : (MPI_Status *)(void *)(p))
#define FY_F_ERRCODES(p) \
  (FY_F_IS(p, mpipriv2_.errcodes_ignore) || fy_f_is_f08_errcodes(p) ? MPI_ERRCODES_IGNORE : (p))
#define FY_F_WEIGHTS(p)                                                        \
  (FY_F_IS(p, mpifcmb5_) || fy_f_is_f08_unweighted(p) ? MPI_UNWEIGHTED         \
   : FY_F_IS(p, mpifcmb9_) || fy_f_is_f08_weights_empty(p) ? MPI_WEIGHTS_EMPTY : (p))

static inline size_t fy_f_max(size_t a, size_t b) { return a > b ? a : b; }

/* mpi_f08's own sentinels (module variables of Ferry's mpi_f08). */
int fy_f_is_f08_errcodes(const void *p);
int fy_f_is_f08_unweighted(const void *p);
int fy_f_is_f08_weights_empty(const void *p);
int fy_f_is_argv_null(const void *p);
int fy_f_is_argvs_null(const void *p);

/* CHARACTER arguments: in, a NUL-terminated copy without trailing blanks
 * (free() it; NULL when out of memory); out, copied and blank-padded. */
char *fy_f_str_in(const char *f, size_t flen);
/* The same without leading blanks either (info keys and values). */
char *fy_f_str_in_trim(const char *f, size_t flen);
void fy_f_str_out(char *f, size_t flen, const char *c);
/* argv(*) of MPI_Comm_spawn (ends at the first blank entry) and
 * (or exactly limit entries when limit >= 0) and array_of_argv(count, *) of MPI_Comm_spawn_multiple, as C argv arrays. */
int fy_f_argv(const char *f, size_t flen, long limit, char ***out);
void fy_f_argv_free(char **argv);
int fy_f_argvs(const char *f, size_t flen, int count, char ****out);
void fy_f_argvs_free(char ***argvs, int count);

#endif
