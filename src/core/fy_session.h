/* Sessions (MPI 4.1 ch. 11.3) as seen by the rest of the library.
 *
 * Contract
 * - A session handle names a live session until MPI_Session_finalize;
 *   groups and communicators derived from one remember its handle
 *   (fy_group_t.session, fy_comm_t.session; 0 for the world model).
 * - fy_session_bpool_slot() gives the slot of the session's buffered-send
 *   pool (pt2pt/bsend.c owns what is in it), or NULL when the handle does
 *   not name a live session (a communicator that outlived its session
 *   falls back to the process's buffer). MPI_Session_finalize detaches the
 *   buffer (waiting for the buffered sends still in it) and frees the
 *   pool. */
#ifndef FY_SESSION_H
#define FY_SESSION_H
#include <mpi.h>

struct fy_bpool;
struct fy_bpool **fy_session_bpool_slot(int session);
#endif
