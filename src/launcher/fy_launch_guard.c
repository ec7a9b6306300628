/* The process groups' guardian: see fy_launch_guard.h. */
#include "launcher/fy_launch_guard.h"
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

pid_t fy_guard_start(const pid_t *pgids, int n) {
  pid_t parent = getpid();
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  /* (blocked before the fork: a parent dying at once is not missed) */
  sigprocmask(SIG_BLOCK, &term, &old);
  pid_t pid = fork();
  if (pid != 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    return pid < 0 ? -1 : pid;
  }
  /* (no fd of the parent's: a pipe or connection it holds must end with
   * it; kernels before 5.9 have no close_range) */
  if (close_range(0, ~0u, 0) != 0)
    for (long fd = 0, max = sysconf(_SC_OPEN_MAX); fd < max; fd++) close((int)fd);
  setpgid(0, 0); /* (out of the groups it guards and of the terminal's) */
  prctl(PR_SET_NAME, "fy-guard");
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() == parent) {
    int sig;
    sigwait(&term, &sig); /* from the parent's death, or from fy_guard_stop */
  }
  if (getppid() != parent)
    for (int i = 0; i < n; i++)
      if (pgids[i] > 0) kill(-pgids[i], SIGKILL);
  _exit(0);
}

void fy_guard_stop(pid_t pid) {
  if (pid > 0) kill(pid, SIGKILL);
}
