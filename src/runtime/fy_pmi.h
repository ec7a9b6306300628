/* PMI-1 client: how a Ferry process learns its rank, size and peers from
 * the process manager (Ferry's mpiexec, MPICH's Hydra, Slurm's PMI-1); with
 * a PMIx server in the environment instead (srun --mpi=pmix, Open MPI's
 * mpirun), the same calls go to the PMIx client (fy_pmix.h).
 *
 * Contract
 * - fy_pmi_init() reads PMI_FD (or PMI_PORT host:port) and PMI_RANK/PMI_SIZE
 *   from the environment and speaks the PMI-1 wire protocol ("cmd=init
 *   pmi_version=1 pmi_subversion=1", get_maxes, get_appnum, get_my_kvsname,
 *   put/get/barrier_in, finalize, abort). Without PMI variables it runs as a
 *   singleton: rank 0, size 1, kvsname "singleton-<pid>", put/get local.
 * - fy_pmi_put() then fy_pmi_barrier() publishes; fy_pmi_get() after the
 *   barrier reads another rank's value. Keys and values are shorter than
 *   the server's maxima (>= 64 / 1024 bytes) and may not contain spaces or
 *   line breaks (PMI-1 cannot carry them): such a put fails, never truncates.
 *   PMI_PORT mode (Hydra -pmi-port) connects by TCP and identifies with
 *   PMI_ID. The wire format lives in fy_pmi_wire.h.
 * - fy_pmi_local_ranks() (after a barrier, collective): node-local world
 *   ranks of this node, found from PMI_process_mapping when the server gives
 *   it, else by exchanging host names through the KVS.
 * - All functions return 0 on success, -1 on error with a message in
 *   fy_pmi_error(). Not thread-safe; called from MPI_Init/Finalize/Abort and
 *   the name-service calls (MPI_Publish_name and friends, under the API lock). */
#ifndef FY_PMI_H
#define FY_PMI_H
#include <stddef.h>

int fy_pmi_init(int *rank, int *size, int *appnum);
int fy_pmi_put(const char *key, const char *val);
int fy_pmi_barrier(void);
int fy_pmi_get(int src_rank, const char *key, char *val, size_t len); /* src_rank: hint for the error message */
const char *fy_pmi_kvsname(void);
int fy_pmi_is_singleton(void);
int fy_pmi_is_pmix(void); /* the calls go to a PMIx server (fy_pmix.h) */
/* Fills local[0..*nlocal-1] (sorted world ranks on this node; caller gives an
 * array of `size` ints) and *my_local (this process's index in it). */
int fy_pmi_local_ranks(int *local, int *nlocal, int *my_local);
/* Every rank's node (ids 0 .. nodes-1) as PMI_process_mapping gave it,
 * after fy_pmi_local_ranks(); NULL when the server gave none (host names
 * compared instead, PMIx, a singleton). */
const int *fy_pmi_nodes(void);
/* Prints msg on stderr, sends "cmd=abort exitcode=code" and returns (the
 * server kills the job; the caller should exit with code if it returns). */
int fy_pmi_abort(int code, const char *msg);
int fy_pmi_finalize(void);
/* The job's name service (MPI_Publish_name and friends): op is
 * "publish_name" (port given), "unpublish_name" or "lookup_name" (the port
 * is copied to out, len bytes). 0: done; 1: refused (already published,
 * not published: the reason in fy_pmi_error()); -1: error. Singletons keep
 * the names in the process; under PMIx: -1 (not supported). */
int fy_pmi_name(const char *op, const char *service, const char *port, char *out, size_t len);
const char *fy_pmi_error(void);
#endif
