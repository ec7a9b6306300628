/* Shared by the files of src/comm: building a communicator object once
 * its members and context are agreed.
 *
 * Contract
 * - fy_commc_open() opens the point-to-point contexts of a new object
 *   (an intercommunicator's source ranks are the remote group's);
 *   fy_commc_close() closes them (and its local communicator's).
 * - fy_commc_finish() publishes an intracommunicator over world_of
 *   (owned, freed on error) with context ctx, inheriting the parent's error
 *   handler; rank < 0 means the caller is not a member: the slot is given
 *   back and *out is MPI_COMM_NULL.
 * - fy_commc_local() builds the unpublished intracommunicator over the
 *   local group an intercommunicator needs. */
#ifndef FY_COMMC_H
#define FY_COMMC_H
#include "core/fy_comm.h"

void fy_commc_open(fy_comm_t *c);
void fy_commc_close(fy_comm_t *c);
int fy_commc_finish(fy_comm_t *parent, int *world_of, int size, int rank, uint32_t ctx, fy_comm_t **out);
int fy_commc_local(fy_comm_t *over, fy_comm_t **out);
int fy_commc_release(fy_comm_t *c);   /* MPI_Comm_free's work: attributes, contexts, object */
/* MPI_Intercomm_create's work once its arguments are checked: lc's
 * members, leader local_leader, meet the group whose leader is rank
 * remote_leader of bridge (the leaders' exchanges use bridge_tag, 0: the
 * construction tags); *out is the published intercommunicator. Also the
 * end of MPI_Comm_accept/connect and MPI_Comm_join (dpm.c). */
int fy_commc_inter(fy_comm_t *lc, int local_leader, fy_comm_t *bridge, int remote_leader, int bridge_tag,
                   fy_comm_t **out);
#endif
