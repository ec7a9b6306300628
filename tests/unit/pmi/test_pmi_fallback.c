/* fy_pmi_local_ranks() without PMI_process_mapping: the client must fall
 * back to exchanging host names. This test is its own process manager: it
 * forks 3 clients and serves them with mpiexec's PMI server, mapping off. */
#include "launcher/fy_pmi_server.h"
#include "runtime/fy_pmi.h"
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 3

static int client(void) {
  int rank, size, appnum, local[N], nlocal, me;
  if (fy_pmi_init(&rank, &size, &appnum) < 0 || fy_pmi_barrier() < 0 ||
      fy_pmi_local_ranks(local, &nlocal, &me) < 0) {
    fprintf(stderr, "client: %s\n", fy_pmi_error());
    return 1;
  }
  int ok = size == N && nlocal == N && me == rank;
  for (int i = 0; i < nlocal; i++) ok &= local[i] == i;
  if (!ok) fprintf(stderr, "client %d: nlocal %d my_local %d\n", rank, nlocal, me);
  return fy_pmi_finalize() == 0 && ok ? 0 : 1;
}

int main(void) {
  fy_pmi_server_t *s = fy_pmi_server_create(N, "kvs_fallback");
  fy_pmi_server_set_mapping(s, 0);
  pid_t pid[N];
  for (int r = 0; r < N; r++) {
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) return 1;
    pid[r] = fork();
    if (pid[r] == 0) {
      char buf[16];
      snprintf(buf, sizeof buf, "%d", sp[1]);
      setenv("PMI_FD", buf, 1);
      snprintf(buf, sizeof buf, "%d", r);
      setenv("PMI_RANK", buf, 1);
      setenv("PMI_SIZE", "3", 1);
      _exit(client());
    }
    close(sp[1]);
    fcntl(sp[0], F_SETFL, O_NONBLOCK);
    fy_pmi_server_attach(s, r, sp[0]);
  }
  for (int open_fds = N; open_fds > 0;) {
    struct pollfd p[N];
    int idx[N], n = 0;
    for (int r = 0; r < N; r++)
      if (fy_pmi_server_rank(s, r)->fd >= 0) {
        idx[n] = r;
        p[n++] = (struct pollfd){fy_pmi_server_rank(s, r)->fd, POLLIN, 0};
      }
    open_fds = n;
    if (!n || poll(p, (nfds_t)n, 20000) <= 0) break;
    for (int k = 0; k < n; k++)
      if (p[k].revents && fy_pmi_server_handle(s, idx[k]) < 0) fprintf(stderr, "%s\n", fy_pmi_server_error(s));
  }
  int fails = 0;
  for (int r = 0; r < N; r++) {
    int st;
    waitpid(pid[r], &st, 0);
    fails += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  fy_pmi_server_destroy(s);
  if (fails) return 1;
  printf("test_pmi_fallback: ok\n");
  return 0;
}
