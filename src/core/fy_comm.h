/* Communicators.
 *
 * Contract
 * - fy_comm_get() maps MPI_COMM_WORLD, MPI_COMM_SELF and created handles to
 *   objects, NULL for anything else (including MPI_COMM_NULL).
 * - Each communicator owns two context ids: ctx (point-to-point) and ctx+1
 *   (collectives and internal traffic), so internal messages never match
 *   user receives.
 * - world_of[rank] gives the world rank of a member; fy_comm_world_rank()
 *   hides the identity map of MPI_COMM_WORLD.
 * - A communicator holds the error handler invoked for errors raised on it. */
#ifndef FY_COMM_H
#define FY_COMM_H
#include <mpi.h>
#include <stdint.h>

typedef struct fy_comm {
  int handle;
  int refcount;
  uint32_t ctx;
  int rank, size;
  int *world_of;          /* NULL: identity (MPI_COMM_WORLD); for an
                             intercommunicator, the REMOTE group's world
                             ranks (point-to-point addresses the remote group) */
  int is_inter;           /* intercommunicator */
  int remote_size;        /* intercommunicator: size of the remote group */
  struct fy_comm *local_comm; /* intercommunicator: an intracommunicator over
                             the local group (for collectives); NULL otherwise */
  MPI_Errhandler errhandler;
  uint32_t coll_seq;      /* tags of internal collectives */
  char name[MPI_MAX_OBJECT_NAME];
} fy_comm_t;

extern fy_comm_t fy_comm_world, fy_comm_self;

int fy_comm_init(int world_rank, int world_size);
fy_comm_t *fy_comm_get(MPI_Comm h);
static inline int fy_comm_world_rank(const fy_comm_t *c, int rank) {
  return c->world_of ? c->world_of[rank] : rank;
}
#endif
