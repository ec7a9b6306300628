/* Groups (MPI 4.1 ch. 7.3): ordered sets of processes, named by world rank.
 *
 * Contract
 * - fy_group_get() maps MPI_GROUP_EMPTY and created handles to objects,
 *   NULL for anything else (including MPI_GROUP_NULL).
 * - world_of[i] is the world rank of member i (never NULL, even for a
 *   group of MPI_COMM_WORLD); rank is the caller's rank in the group or
 *   MPI_UNDEFINED.
 * - fy_group_new() returns a group with refcount 1 that owns a copy of
 *   `world` (handle 0 until fy_group_publish() gives it one);
 *   fy_group_release() drops a reference and frees at zero, so other
 *   layers (communicators, RMA access/exposure epochs) can hold a group
 *   after the user frees its handle.
 * - fy_group_rank_of(g, world_rank): the member with that world rank, or
 *   MPI_UNDEFINED.
 * - fy_group_compare_worlds(): MPI_IDENT (same world ranks in the same
 *   order), MPI_SIMILAR (same set) or MPI_UNEQUAL for two member lists of
 *   world ranks; -1 when out of memory. Group_compare and Comm_compare
 *   both use it. */
#ifndef FY_GROUP_H
#define FY_GROUP_H
#include <mpi.h>

typedef struct fy_group {
  int handle;
  int refcount;
  int size;
  int rank;
  int *world_of;
  int session;   /* the session the group derives from (MPI_Group_from_session_pset,
                    kept by the group constructors); 0: the world model */
} fy_group_t;

fy_group_t *fy_group_get(MPI_Group h);
fy_group_t *fy_group_new(int size, const int *world);
int fy_group_publish(fy_group_t *g);   /* MPI_SUCCESS or MPI_ERR_NO_MEM */
static inline void fy_group_retain(fy_group_t *g) { g->refcount++; }
void fy_group_release(fy_group_t *g);
int fy_group_rank_of(const fy_group_t *g, int world_rank);
int fy_group_compare_worlds(int na, const int *a, int nb, const int *b);
#endif
