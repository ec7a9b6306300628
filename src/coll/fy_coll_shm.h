/* Shared-memory path of the blocking Barrier, Bcast, Reduce, Allreduce,
 * Allgather, Alltoall, Gather and Scatter (small messages, every rank of the
 * communicator on this node).
 *
 * Contract
 * - Each call returns MPI_SUCCESS, an MPI error, or FY_COLL_SHM_DECLINED
 *   (then the caller runs the point-to-point algorithm). Every rank of a
 *   communicator declines or accepts a given call alike: the decision
 *   depends only on FERRY_COLL_SHM, the message size (FERRY_COLL_SHM_MAX),
 *   the operation and type signature, and whether every rank is on this
 *   node (fy_state.local_of_world), all of which the ranks share.
 * - The first accepted call on a communicator maps a per-communicator
 *   segment (rank 0 creates it, the name travels by a point-to-point
 *   broadcast, a reduction agrees that everyone mapped it; otherwise the
 *   communicator stays on point-to-point). The segment lives in an
 *   attribute of the communicator and is unmapped when it is freed (and at
 *   MPI_Finalize for MPI_COMM_WORLD; from then on the path is off).
 * - Two paths use cross-memory attach instead of the segment's slots (the
 *   segment carries only addresses and counters): Reduce on two processes
 *   of contiguous data above FERRY_COLL_SHM_SPLIT (both fold a part), and
 *   Alltoall of contiguous blocks from FERRY_COLL_SHM_A2A on (each rank
 *   reads its blocks from the others' send buffers). Whether every rank
 *   may use cross-memory attach is agreed when the segment is set up; an
 *   Alltoall whose blocks are not contiguous on some rank is declined by
 *   all ranks together after they have exchanged a flag.
 * - Waits go through fy_progress_wait (spin, yield, doorbell sleep, with
 *   other requests progressing); every store rings the peers' doorbells.
 *   Application thread only: never called from a signal handler or agent. */
#ifndef FY_COLL_SHM_H
#define FY_COLL_SHM_H
#include "core/fy_comm.h"
#include "core/fy_op.h"
#include "datatype/fy_datatype.h"

#define FY_COLL_SHM_DECLINED (-1)

int fy_coll_shm_barrier(fy_comm_t *c);
int fy_coll_shm_bcast(fy_comm_t *c, void *buf, MPI_Count count, fy_datatype_t *t, int root);
int fy_coll_shm_reduce(fy_comm_t *c, const void *sbuf, void *rbuf, MPI_Count count,
                       fy_datatype_t *t, fy_op_t *op, int root);
int fy_coll_shm_allreduce(fy_comm_t *c, const void *sbuf, void *rbuf, MPI_Count count,
                          fy_datatype_t *t, fy_op_t *op);
int fy_coll_shm_alltoall(fy_comm_t *c, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                         void *rbuf, MPI_Count rcount, fy_datatype_t *rt);
int fy_coll_shm_allgather(fy_comm_t *c, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                          void *rbuf, MPI_Count rcount, fy_datatype_t *rt);
/* Gather (gather = 1) or Scatter of small blocks, except the root's own
 * block (the caller copies it, or not when in place). */
int fy_coll_shm_rooted(fy_comm_t *c, int gather, const void *sbuf, MPI_Count sn, fy_datatype_t *st,
                       void *rbuf, MPI_Count rn, fy_datatype_t *rt, int root);
#endif
