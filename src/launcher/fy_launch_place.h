/* What mpiexec and its remote proxy both do to a rank's host: pin a rank
 * to CPUs, and remove a job's shared-memory segments.
 *
 * Contract
 * - A binding is "none", "auto", or KIND[:N]: N objects (1 if not given)
 *   of KIND per rank, KIND one of hwthread (a logical CPU), core (a
 *   physical core, its hardware threads together), socket (or package)
 *   and numa, of the CPUs the process may use. Local rank i of a node
 *   takes objects i*N .. i*N+N-1, counted round the node's objects (so
 *   socket and numa spread ranks over the domains). fy_bind_check(spec) is
 *   0 for such a string, else -1.
 * - auto: OMP_NUM_THREADS=T (1 if unset) CPUs per rank, T cores each when
 *   every local rank gets T cores of its own (core:T), else T hardware
 *   threads when those suffice (hwthread:T), else none: a hybrid rank's
 *   threads get cores of their own instead of one core for all.
 * - fy_topo_read() lists the CPUs this process may use, in increasing
 *   order, with the core, socket and NUMA node of each (from /sys; a CPU
 *   whose ids cannot be read is a core of its own on socket and node 0).
 *   fy_bind_cpus(topo, spec, i, nlocal, omp, out) is 1 with the CPU set of
 *   local rank i, or 0 for no binding (pure: the unit test gives it
 *   topologies by hand).
 * - fy_launch_bind(spec, i, nlocal) pins the calling process (a rank
 *   about to exec, its environment set) as fy_bind_cpus says.
 * - fy_launch_cleanup_shm(kvsname) unlinks every /dev/shm/fy-<kvsname>-*
 *   on this host (what ranks that died left behind). */
#ifndef FY_LAUNCH_PLACE_H
#define FY_LAUNCH_PLACE_H
#include <sched.h>

typedef struct fy_topo {
  int n;                  /* CPUs this process may use */
  int cpu[CPU_SETSIZE];   /* their numbers, increasing */
  int core[CPU_SETSIZE];  /* per CPU: its core (unique across sockets), */
  int socket[CPU_SETSIZE]; /* socket */
  int numa[CPU_SETSIZE];  /* and NUMA node */
} fy_topo_t;

int fy_bind_check(const char *spec);
void fy_topo_read(fy_topo_t *t);
int fy_bind_cpus(const fy_topo_t *t, const char *spec, int i, int nlocal, int omp, cpu_set_t *out);
void fy_launch_bind(const char *spec, int i, int nlocal);
void fy_launch_cleanup_shm(const char *kvsname);
#endif
