/* Error codes and messages.
 *
 * Contract
 * - An error code is an error class (< 128) or class | (serial << 8): the
 *   serial selects a message recorded by fy_err() in a ring of recent
 *   messages; MPI_Error_class strips it, MPI_Error_string prints the class
 *   text followed by the message while it is still in the ring.
 * - fy_err(cls, fmt, ...) records a message and returns the new code. The
 *   message should name the argument and the value ("dest = 7 is not a rank
 *   of MPI_COMM_WORLD (size 4)").
 * - User error classes and codes (MPI_Add_error_class/_code) are the values
 *   above MPI_ERR_LASTCODE, in the order they were added (fy_errhandler.c);
 *   a user code names its class, which may be predefined. */
#ifndef FY_ERROR_H
#define FY_ERROR_H
#include <mpi.h>

int fy_err(int cls, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int fy_err_class_of(int code);
/* Writes the string for code into buf (at least MPI_MAX_ERROR_STRING). */
void fy_err_string(int code, char *buf, int *len);
const char *fy_err_class_text(int cls);
int fy_err_valid_code(int code);
#endif
