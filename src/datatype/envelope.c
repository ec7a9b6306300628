/* Type_get_envelope / Type_get_contents (+_c), the F90 parameterized
 * types, Type_match_size and Type_get_value_index. */
#include "datatype/dt_impl.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

int fy_mpi_type_get_envelope_c(MPI_Datatype datatype, MPI_Count *ni, MPI_Count *na, MPI_Count *nl,
                               MPI_Count *nd, int *combiner) {
  fy_datatype_t *t = fy_type_get(datatype);
  *combiner = t->combiner;
  *ni = t->ni;
  *na = t->na;
  *nl = t->nl;
  *nd = t->nd;
  return MPI_SUCCESS;
}

int fy_mpi_type_get_envelope(MPI_Datatype datatype, int *ni, int *na, int *nd, int *combiner) {
  fy_datatype_t *t = fy_type_get(datatype);
  if (t->nl)
    return fy_err(MPI_ERR_TYPE, "datatype %#x was built by a large-count constructor: use "
                                "MPI_Type_get_envelope_c", (unsigned)datatype);
  *combiner = t->combiner;
  *ni = t->ni;
  *na = t->na;
  *nd = t->nd;
  return MPI_SUCCESS;
}

static int contents(fy_datatype_t *t, MPI_Count mi, MPI_Count ma, MPI_Count ml, MPI_Count md, int *ints,
                    MPI_Aint *addrs, MPI_Count *larges, MPI_Datatype *types) {
  if (t->combiner == MPI_COMBINER_NAMED)
    return fy_err(MPI_ERR_TYPE, "MPI_Type_get_contents on the predefined datatype %s", t->name);
  if (mi < t->ni || ma < t->na || ml < t->nl || md < t->nd)
    return fy_err(MPI_ERR_ARG, "MPI_Type_get_contents: arrays too small (need %d integers, %d addresses, "
                               "%d large counts, %d datatypes)", t->ni, t->na, t->nl, t->nd);
  if (t->ni) memcpy(ints, t->ints, (size_t)t->ni * sizeof *ints);
  if (t->na) memcpy(addrs, t->addrs, (size_t)t->na * sizeof *addrs);
  if (t->nl) memcpy(larges, t->larges, (size_t)t->nl * sizeof *larges);
  for (int i = 0; i < t->nd; i++) {
    /* derived types handed out are new references the caller frees */
    fy_type_retain(t->types[i]);
    types[i] = t->types[i]->handle;
  }
  return MPI_SUCCESS;
}

int fy_mpi_type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                             int array_of_integers[], MPI_Aint array_of_addresses[],
                             MPI_Datatype array_of_datatypes[]) {
  fy_datatype_t *t = fy_type_get(datatype);
  if (t->nl)
    return fy_err(MPI_ERR_TYPE, "datatype %#x was built by a large-count constructor: use "
                                "MPI_Type_get_contents_c", (unsigned)datatype);
  return contents(t, max_integers, max_addresses, 0, max_datatypes, array_of_integers, array_of_addresses,
                  NULL, array_of_datatypes);
}

int fy_mpi_type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                               MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                               MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                               MPI_Datatype array_of_datatypes[]) {
  return contents(fy_type_get(datatype), max_integers, max_addresses, max_large_counts, max_datatypes,
                  array_of_integers, array_of_addresses, array_of_large_counts, array_of_datatypes);
}

/* ---- F90 parameterized types: one cached type per (combiner, p, r) ---- */

#define NF90 64
static struct { int comb, p, r; MPI_Datatype h; } f90[NF90];
static int nf90;

void fy_dt_f90_reset(void) { nf90 = 0; }

static int f90_type(int comb, int p, int r, MPI_Datatype base, MPI_Datatype *out) {
  for (int i = 0; i < nf90; i++)
    if (f90[i].comb == comb && f90[i].p == p && f90[i].r == r) {
      *out = f90[i].h;
      return MPI_SUCCESS;
    }
  if (nf90 == NF90) return fy_err(MPI_ERR_INTERN, "too many distinct F90 datatypes");
  fy_datatype_t *b = fy_type_get(base);
  if (!b) return fy_err(MPI_ERR_ARG, "no datatype for p = %d, r = %d", p, r);
  fy_datatype_t *t = fy_dt_resized(b, b->lb, b->extent);
  if (!t) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  t->sticky = 0;
  t->red_basic = b;
  int ints[2] = {p, r};
  MPI_Datatype h;
  if (comb == MPI_COMBINER_F90_INTEGER) ints[0] = r;
  if (fy_dt_register(t, comb, 0, comb == MPI_COMBINER_F90_INTEGER ? 1 : 2, ints, 0, NULL, 0, NULL, 0, NULL, &h))
    return fy_err(MPI_ERR_NO_MEM, "out of memory");
  t->builtin = 1; /* predefined in the standard's sense: never freed */
  t->committed = 1;
  snprintf(t->name, sizeof t->name, "%s", b->name);
  f90[nf90].comb = comb;
  f90[nf90].p = p;
  f90[nf90].r = r;
  f90[nf90++].h = h;
  *out = h;
  return MPI_SUCCESS;
}

int fy_mpi_type_create_f90_integer(int r, MPI_Datatype *newtype) {
  MPI_Datatype b = r <= 2 ? MPI_INTEGER1 : r <= 4 ? MPI_INTEGER2 : r <= 9 ? MPI_INTEGER4
                 : r <= 18 ? MPI_INTEGER8 : MPI_DATATYPE_NULL;
  if (b == MPI_DATATYPE_NULL) return fy_err(MPI_ERR_ARG, "no integer type has range r = %d", r);
  return f90_type(MPI_COMBINER_F90_INTEGER, 0, r, b, newtype);
}

static MPI_Datatype real_for(int p, int r, int cplx) {
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) return MPI_DATATYPE_NULL;
  int pp = p == MPI_UNDEFINED ? 0 : p, rr = r == MPI_UNDEFINED ? 0 : r;
  if (pp <= 6 && rr <= 37) return cplx ? MPI_COMPLEX8 : MPI_REAL4;
  if (pp <= 15 && rr <= 307) return cplx ? MPI_COMPLEX16 : MPI_REAL8;
  if (pp <= 33 && rr <= 4931) return cplx ? MPI_COMPLEX32 : MPI_REAL16;
  return MPI_DATATYPE_NULL;
}

int fy_mpi_type_create_f90_real(int p, int r, MPI_Datatype *newtype) {
  MPI_Datatype b = real_for(p, r, 0);
  if (b == MPI_DATATYPE_NULL) return fy_err(MPI_ERR_ARG, "no real type has p = %d, r = %d", p, r);
  return f90_type(MPI_COMBINER_F90_REAL, p, r, b, newtype);
}

int fy_mpi_type_create_f90_complex(int p, int r, MPI_Datatype *newtype) {
  MPI_Datatype b = real_for(p, r, 1);
  if (b == MPI_DATATYPE_NULL) return fy_err(MPI_ERR_ARG, "no complex type has p = %d, r = %d", p, r);
  return f90_type(MPI_COMBINER_F90_COMPLEX, p, r, b, newtype);
}

int fy_mpi_type_match_size(int typeclass, int size, MPI_Datatype *datatype) {
  MPI_Datatype r = MPI_DATATYPE_NULL;
  if (typeclass == MPI_TYPECLASS_REAL)
    r = size == 4 ? MPI_REAL4 : size == 8 ? MPI_REAL8 : size == 16 ? MPI_REAL16 : r;
  else if (typeclass == MPI_TYPECLASS_INTEGER)
    r = size == 1 ? MPI_INTEGER1 : size == 2 ? MPI_INTEGER2 : size == 4 ? MPI_INTEGER4
      : size == 8 ? MPI_INTEGER8 : r;
  else if (typeclass == MPI_TYPECLASS_COMPLEX)
    r = size == 8 ? MPI_COMPLEX8 : size == 16 ? MPI_COMPLEX16 : size == 32 ? MPI_COMPLEX32 : r;
  else
    return fy_err(MPI_ERR_ARG, "typeclass = %d is not MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX", typeclass);
  if (r == MPI_DATATYPE_NULL)
    return fy_err(MPI_ERR_ARG, "no predefined type of class %d has %d bytes", typeclass, size);
  *datatype = r;
  return MPI_SUCCESS;
}

int fy_mpi_type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type) {
  static const MPI_Datatype tab[][3] = {
    {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT}, {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
    {MPI_LONG, MPI_INT, MPI_LONG_INT}, {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
    {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT}, {MPI_INT, MPI_INT, MPI_2INT},
    {MPI_REAL, MPI_REAL, MPI_2REAL}, {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
    {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
  };
  *pair_type = MPI_DATATYPE_NULL;
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if (tab[i][0] == value_type && tab[i][1] == index_type) *pair_type = tab[i][2];
  return MPI_SUCCESS;
}
