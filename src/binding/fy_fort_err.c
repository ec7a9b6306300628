/* The one entry libmpifort's mpi_f08 wrappers use besides the MPI calls:
 * raising an error that the wrapper found itself (a choice buffer it
 * cannot pass on) with a message, on the object of the call, exactly as a
 * C call raises its errors. Exported under Ferry's prefix, not the MPI
 * one: it belongs to Ferry's own pair of libraries, no program calls it. */
#include <mpi.h>
#include "core/fy_check.h"
#include "core/fy_error.h"

/* fy_f08_raise: kind is FY_OBJ_COMM/WIN/FILE or FY_OBJ_NONE (MPI_COMM_WORLD's
 * handler); handle the object's Fortran (= C) handle; fname the procedure
 * as the user called it. Returns the code for ierror (ERRORS_ARE_FATAL
 * does not return). */
__attribute__((visibility("default"))) int fy_f08_raise(int cls, int kind, int handle,
                                                        const char *fname, const char *msg);
int fy_f08_raise(int cls, int kind, int handle, const char *fname, const char *msg) {
  int code = fy_err(cls, "%s: %s", fname, msg);
  return fy_err_raise(code, kind, handle, fname);
}
