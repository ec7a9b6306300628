/* mpiexec inside a Slurm allocation (a batch script, salloc), as Hydra.
 *
 * Contract
 * - fy_slurm_hosts(&list, err): when the environment is a Slurm job's
 *   (SLURM_JOB_ID, and SLURM_JOB_NODELIST or SLURM_NODELIST) returns 1
 *   with *list a -hosts list of its nodes (malloc'd), each with the tasks
 *   Slurm gives it as slots (SLURM_TASKS_PER_NODE, else
 *   SLURM_JOB_CPUS_PER_NODE, else 1): "n01:2,n02:2". The node names come
 *   from "scontrol show hostnames", which expands Slurm's ranges
 *   ("n[01-02]"). 0 outside a Slurm job; -1 with a message on err when
 *   the allocation cannot be read.
 * - fy_slurm_counts(spec, out, n): Slurm's per-node counts ("2(x3),1")
 *   into out[0..n-1]; 0, or -1 when spec is malformed or does not cover
 *   exactly n nodes.
 * - FY_SLURM_LAUNCHER: the launcher command that starts a rank on one node
 *   of the allocation ("CMD host command...", as -launcher-exec): an srun
 *   step of one task on that node, sharing the allocation's CPUs with the
 *   others (--overlap), with no PMI of Slurm's (the rank speaks to
 *   mpiexec's) and no binding of Slurm's (mpiexec's applies).
 * - FY_SLURM_GROUP_LAUNCHER: what mpiexec runs instead when that launcher
 *   is chosen (by default in a job, or -launcher slurm): one step for all
 *   the remote nodes, a task on each (mpiexec adds --nodes, --ntasks and
 *   --nodelist), as Hydra makes; srun merges its tasks' output, so each
 *   task, a proxy, connects back to mpiexec (fy_proxy_connect_main). No
 *   stdin of srun's (mpiexec's goes to rank 0 over the connection), and a
 *   proxy that fails to start ends the step (--kill-on-bad-exit), so that
 *   the job ends instead of waiting for its ranks. */
#ifndef FY_LAUNCH_SLURM_H
#define FY_LAUNCH_SLURM_H
#include <stdio.h>

#define FY_SLURM_LAUNCHER "srun --nodes=1 --ntasks=1 --mpi=none --overlap --cpu-bind=none --quiet -w"
#define FY_SLURM_GROUP_LAUNCHER \
  "srun --ntasks-per-node=1 --mpi=none --overlap --cpu-bind=none --quiet --input=none --kill-on-bad-exit=1"

int fy_slurm_hosts(char **list, FILE *err);
int fy_slurm_counts(const char *spec, int *out, int n);
#endif
