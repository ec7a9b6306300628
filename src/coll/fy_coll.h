/* Collectives over point-to-point. This release has MPI_Barrier only; the
 * other collectives come with the collectives issue.
 *
 * Contract: collectives run on the communicator's second context id
 * (ctx + 1), so their messages never match user receives. */
#ifndef FY_COLL_H
#define FY_COLL_H
#include "core/fy_comm.h"
int fy_coll_barrier(fy_comm_t *c);
#endif
