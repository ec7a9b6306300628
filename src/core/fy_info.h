/* Info objects (MPI 4.1 ch. 10): ordered (key, value) string pairs.
 *
 * Contract
 * - Handles are direct FY_OK_INFO handles; MPI_INFO_ENV is builtin, built
 *   on first use from the process's command line, host, working directory
 *   and thread level, and cannot be freed.
 * - Keys are 1..MPI_MAX_INFO_KEY-1 characters (MPI_ERR_INFO_KEY otherwise),
 *   values 1..MPI_MAX_INFO_VAL-1 (MPI_ERR_INFO_VALUE); setting an existing key
 *   replaces its value in place (keys keep the order they were first set).
 * - Other layers keep hints with fy_info_copy() (a new private object,
 *   MPI_INFO_NULL in gives MPI_INFO_NULL out) and fy_info_release();
 *   fy_info_lookup() reads one key. */
#ifndef FY_INFO_H
#define FY_INFO_H
#include <mpi.h>

int fy_info_valid(MPI_Info h);                /* a live info or MPI_INFO_ENV */
int fy_info_copy(MPI_Info from, MPI_Info *to); /* MPI_SUCCESS or MPI_ERR_NO_MEM */
void fy_info_release(MPI_Info h);
/* 1 and the value (truncated to len-1 characters) if key is set, else 0. */
int fy_info_lookup(MPI_Info h, const char *key, char *value, int len);
/* Set (creating the object when *h is MPI_INFO_NULL). */
int fy_info_put(MPI_Info *h, const char *key, const char *value);
#endif
