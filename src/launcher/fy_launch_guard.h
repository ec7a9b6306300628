/* A guardian for the process groups a launcher starts: when mpiexec (or
 * a host's proxy) is killed outright (SIGKILL, the OOM killer), its ranks
 * die with it (PR_SET_PDEATHSIG), but processes the ranks started do not:
 * nobody is left to signal their groups. The guardian is.
 *
 * Contract
 * - fy_guard_start(pgids, n): forks a process that holds no fd of its
 *   parent's (so no pipe or connection stays open because of it) and
 *   waits; when its parent dies, it sends SIGKILL to the process groups
 *   pgids[0..n-1] and exits. Returns its pid, or -1 (no guard: the
 *   launcher goes on without one).
 * - fy_guard_stop(pid): ends a guardian before its parent's normal end,
 *   which must not kill anything (pid -1: nothing). The parent reaps it
 *   as any child (its waitpid(-1) loops ignore pids they do not know).
 * - Process groups that are gone by then are skipped; a group id reused
 *   by then is the same risk as any kill of a group by id. */
#ifndef FY_LAUNCH_GUARD_H
#define FY_LAUNCH_GUARD_H
#include <sys/types.h>

pid_t fy_guard_start(const pid_t *pgids, int n);
void fy_guard_stop(pid_t pid);
#endif
