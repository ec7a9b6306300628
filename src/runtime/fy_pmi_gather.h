/* Gathering every rank's value of one key family from the PMI KVS with
 * a get per rank per node rather than per rank per rank.
 *
 * Contract
 * - fy_pmi_gather(prefix, vlen, out), collective over the job, after the
 *   puts of keys <prefix><rank> and a barrier: leaves in out + r * vlen the
 *   value of key <prefix><r> for every rank r (a NUL-terminated string of
 *   at most vlen - 1 bytes), "" where it could not be read. Returns 0 when
 *   every value was read, -1 otherwise (fy_pmi_error() says why, from the
 *   last failure).
 * - Under a PMI-1 server with several ranks (Ferry's mpiexec, Hydra, Slurm's
 *   pmi2) the ranks of a node share the work: rank r is read by the node's
 *   local rank r % nlocal into a transient shared file,
 *   /dev/shm/fy-<kvsname>-n<node's first rank>-g<count> (under mpiexec's
 *   cleanup prefix, apart per node where hosts share /dev/shm), made by the
 *   node's first rank before a barrier and unlinked after a second one.
 *   Every rank of such a job makes exactly those two barriers, whatever
 *   fails locally: a slot a neighbour did not fill (it could not attach or
 *   its get failed) is read by each reader with a get of its own, and a
 *   node whose file cannot be made reads everything rank by rank. Under
 *   PMIx (the node's server answers gets) and as a singleton: a get per
 *   rank, no barrier.
 * - fy_pmi_gather_ops() is the same with the PMI calls and the node given
 *   by the caller (tests fail a neighbour's gets or attach with it).
 * - Not thread-safe (as fy_pmi.h). */
#ifndef FY_PMI_GATHER_H
#define FY_PMI_GATHER_H
#include <stddef.h>

typedef struct fy_pmi_gather_ops {
  int (*get)(int rank, const char *key, char *val, size_t len);
  int (*barrier)(void);
  const char *job;  /* names the shared file (the kvsname) */
  int size;         /* ranks in the job */
  int split;        /* 1: the two-barrier path (the same on every rank of the job) */
  const int *local; /* this node's world ranks, sorted (NULL: unknown, read alone) */
  int nlocal, my_local;
} fy_pmi_gather_ops_t;

int fy_pmi_gather(const char *prefix, size_t vlen, char *out);
int fy_pmi_gather_ops(const fy_pmi_gather_ops_t *ops, const char *prefix, size_t vlen, char *out);
#endif
