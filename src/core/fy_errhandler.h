/* Error handlers: the predefined ones and user handlers on communicators,
 * windows, files and sessions.
 *
 * Contract
 * - fy_err_raise() (declared in fy_check.h) calls the handler of the object
 *   the error belongs to; MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT print
 *   the error string with the function name and abort the job;
 *   MPI_ERRORS_RETURN returns the code; a user handler is called with the
 *   communicator handle and the code, then the code is returned.
 * - Handlers carry the object kind they were created for; setting one on
 *   another kind is MPI_ERR_ARG. The handler of a window / session / file
 *   lives in that object: the RMA layer, sessions and src/io define
 *   fy_win_errhandler_slot() etc. returning the address of the object's
 *   MPI_Errhandler field, NULL for an invalid handle; the weak versions
 *   here know no windows or sessions, and only MPI_FILE_NULL (whose handler
 *   is the default for files, MPI_ERRORS_RETURN). A file's handle is the
 *   int value of its MPI_File (fy_file_key); an error on an invalid file
 *   goes to MPI_FILE_NULL's handler.
 *   The object owns one reference (fy_errhandler_retain/release).
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
MPI_Errhandler *fy_win_errhandler_slot(MPI_Win win);
MPI_Errhandler *fy_session_errhandler_slot(MPI_Session session);
MPI_Errhandler *fy_file_errhandler_slot(MPI_File file);
#endif
