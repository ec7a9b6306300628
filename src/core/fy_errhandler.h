/* Error handlers: the predefined ones and user handlers on communicators.
 *
 * Contract
 * - fy_err_raise() (declared in fy_check.h) calls the handler of the object
 *   the error belongs to; MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT print
 *   the error string with the function name and abort the job;
 *   MPI_ERRORS_RETURN returns the code; a user handler is called with the
 *   communicator handle and the code, then the code is returned.
 * - fy_err_set_obj() lets an implementation name the communicator an error
 *   belongs to when the function's arguments do not (request completion). */
#ifndef FY_ERRHANDLER_H
#define FY_ERRHANDLER_H
#include <mpi.h>

void fy_err_set_obj(MPI_Comm comm);
int fy_errhandler_valid(MPI_Errhandler eh);
/* Reference counts of user handlers (predefined ones are ignored). */
void fy_errhandler_retain(MPI_Errhandler eh);
void fy_errhandler_release(MPI_Errhandler eh);
#endif
