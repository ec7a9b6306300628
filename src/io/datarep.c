/* Data representations registered with MPI_Register_datarep. Ferry moves
 * file data in the native representation only: a registered datarep whose
 * conversion functions are both MPI_CONVERSION_FN_NULL is native data
 * (MPI 4.1 14.5.3: no conversion is then invoked), so it can be used in a
 * view; one with a conversion function cannot (MPI_ERR_UNSUPPORTED_DATAREP
 * at set_view). Registrations last until MPI_Finalize. See fy_io.h. */
#include "io/fy_io.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct fy_datarep {
  char name[MPI_MAX_DATAREP_STRING];
  int convert;                       /* a conversion function was given */
  MPI_Datarep_extent_function *extent_fn;
  void *extra;
  struct fy_datarep *next;
} fy_datarep_t;

static fy_datarep_t *reps;

static fy_datarep_t *find(const char *name) {
  for (fy_datarep_t *d = reps; d; d = d->next)
    if (!strcmp(d->name, name)) return d;
  return NULL;
}

int fy_io_datarep_usable(const char *name) {
  fy_datarep_t *d = find(name);
  if (!d) return 0;
  return d->convert ? -1 : 1;
}

int fy_io_datarep_extent(const char *name, MPI_Datatype dt, MPI_Aint *extent) {
  fy_datarep_t *d = find(name);
  if (!d || !d->extent_fn) return 0;
  int e = d->extent_fn(dt, extent, d->extra);
  return e ? fy_err(MPI_ERR_CONVERSION, "the extent function of datarep \"%s\" returned %d", name, e) : 0;
}

static int reg(const char *datarep, int convert, MPI_Datarep_extent_function *extent_fn, void *extra) {
  if (!datarep) return fy_err(MPI_ERR_ARG, "datarep = NULL");
  if (!*datarep || strlen(datarep) >= MPI_MAX_DATAREP_STRING)
    return fy_err(MPI_ERR_ARG, "datarep = \"%s\" must be 1 to %d characters", datarep, MPI_MAX_DATAREP_STRING - 1);
  if (!strcasecmp(datarep, "native") || !strcasecmp(datarep, "internal") || !strcasecmp(datarep, "external32") ||
      find(datarep))
    return fy_err(MPI_ERR_DUP_DATAREP, "datarep = \"%s\" is already defined", datarep);
  fy_datarep_t *d = calloc(1, sizeof *d);
  if (!d) return fy_err(MPI_ERR_NO_MEM, "out of memory registering datarep \"%s\"", datarep);
  strcpy(d->name, datarep);
  d->convert = convert;
  d->extent_fn = extent_fn;
  d->extra = extra;
  d->next = reps;
  reps = d;
  return MPI_SUCCESS;
}

int fy_mpi_register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                            MPI_Datarep_conversion_function *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) {
  return reg(datarep, read_conversion_fn || write_conversion_fn, dtype_file_extent_fn, extra_state);
}

int fy_mpi_register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
                              MPI_Datarep_conversion_function_c *write_conversion_fn,
                              MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) {
  return reg(datarep, read_conversion_fn || write_conversion_fn, dtype_file_extent_fn, extra_state);
}
