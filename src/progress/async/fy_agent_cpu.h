/* The CPU the progress agents' threads run on (FERRY_PROGRESS_THREAD_CPU).
 *
 * Contract
 * - fy_agent_cpu() gives the CPU an agent thread should be bound to, or -1
 *   to leave it where it was born (sharing its rank's CPUs).
 * - "auto" (the default) picks a CPU that the launcher offers
 *   (the parent process's affinity: mpiexec's, Hydra's proxy's, Slurm's
 *   step) and that no rank of this node is bound to; each local rank takes
 *   a different one while there are enough. With every CPU taken by a rank,
 *   or a rank unbound, or an affinity that cannot be read, or under
 *   FERRY_NOLOCAL (the host's other ranks are not known): -1. A number
 *   binds to that CPU; "none" never binds.
 * - Called at the agents' start, after MPI_Init's shm barrier (every local
 *   rank exists and was bound by its launcher before exec). */
#ifndef FY_AGENT_CPU_H
#define FY_AGENT_CPU_H
int fy_agent_cpu(void);
#endif
