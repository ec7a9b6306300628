/* What mpiexec and its remote proxy both do to a rank's host: pin a rank
 * to a CPU, and remove a job's shared-memory segments.
 *
 * Contract
 * - fy_launch_bind_cpu(i) pins the calling process to the (i mod n)-th CPU
 *   of the n it may use (nothing if the affinity cannot be read).
 * - fy_launch_cleanup_shm(kvsname) unlinks every /dev/shm/fy-<kvsname>-*
 *   on this host (what ranks that died left behind). */
#ifndef FY_LAUNCH_PLACE_H
#define FY_LAUNCH_PLACE_H

void fy_launch_bind_cpu(int i);
void fy_launch_cleanup_shm(const char *kvsname);
#endif
