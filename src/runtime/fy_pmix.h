/* PMIx client: the process manager interface of Slurm's srun --mpi=pmix
 * and of Open MPI's mpirun/prterun, behind fy_pmi.h (fy_pmi.c calls it
 * when a PMIx server is in the environment and no PMI-1 server is).
 *
 * Contract
 * - fy_pmix_wanted(): PMIX_NAMESPACE, PMIX_RANK and a PMIX_SERVER_URI*
 *   variable are set (a PMIx launcher started this process).
 * - libpmix.so.2 is loaded by fy_pmix_init (dlopen), not linked; built only
 *   where libpmix's headers were found (FY_HAVE_PMIX), else fy_pmix_init
 *   fails with a message.
 * - put = PMIx_Put(GLOBAL) of a string, fence = PMIx_Commit + PMIx_Fence
 *   collecting data over the namespace, get = PMIx_Get of another rank's
 *   key; the node's ranks come from PMIX_LOCAL_PEERS.
 * - All return 0 on success, -1 with a message in fy_pmix_error(). */
#ifndef FY_PMIX_H
#define FY_PMIX_H
#include <stddef.h>

int fy_pmix_wanted(void);
int fy_pmix_init(int *rank, int *size, int *appnum, char *nspace, size_t nspace_len);
int fy_pmix_put(const char *key, const char *val);
int fy_pmix_fence(void);
int fy_pmix_get(int rank, const char *key, char *val, size_t len);
/* node[r] = 0 for the ranks on this node, 1 for the others */
int fy_pmix_local_peers(int *node, int size);
void fy_pmix_abort(int code, const char *msg);
int fy_pmix_finalize(void);
const char *fy_pmix_error(void);
#endif
