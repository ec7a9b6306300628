/* A rank program for the launcher tests: `launch_helper MODE [ARGS]`.
 *   ok                      init, barrier, finalize
 *   exit R CODE             rank R exits with CODE after a barrier; others wait
 *   kill R                  rank R kills itself with SIGKILL; others wait
 *   abort R CODE            rank R calls PMI abort; others wait
 *   nofinalize R            rank R exits 0 without finalize; others wait
 *   plain CODE              no PMI at all; exit CODE
 *   echo                    lines on stdout and stderr, a last line without '\n'
 *   stdin                   print what stdin holds: "rank R stdin: <bytes>"
 *   env NAME                print "rank R NAME=<value>" (or "unset")
 *   shm                     create /dev/shm/fy-<kvsname>-<rank>, print its path
 *   shmfail                 as shm, then rank 0 exits 3 while others wait
 *   wait                    print "pid <pid>", barrier, rank 0 prints "ready", then
 *                           wait to be signalled
 * "Others wait" = they block in a second PMI barrier that never completes. */
#include "runtime/fy_pmi.h"
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void die(const char *what) {
  fprintf(stderr, "launch_helper rank %d: %s failed: %s\n", rank, what, fy_pmi_error());
  exit(99);
}

static void start(void) {
  int appnum;
  if (fy_pmi_init(&rank, &size, &appnum) < 0) die("init");
  if (fy_pmi_barrier() < 0) die("barrier");
}

static void block_forever(void) {
  fy_pmi_barrier(); /* never completes: the failing rank does not join */
  for (;;) pause();
}

static void make_shm(void) {
  char path[512];
  snprintf(path, sizeof path, "/dev/shm/fy-%s-%d", fy_pmi_kvsname(), rank);
  int fd = open(path, O_CREAT | O_WRONLY, 0600);
  if (fd < 0) die("creating the shm file");
  close(fd);
  printf("shm %s\n", path);
  fflush(stdout);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  int target = argc > 2 ? atoi(argv[2]) : 0, code = argc > 3 ? atoi(argv[3]) : 0;
  if (!strcmp(mode, "plain")) return target;
  if (!strcmp(mode, "env")) {
    const char *v = getenv(argv[2]);
    printf("rank %s %s=%s\n", getenv("PMI_RANK"), argv[2], v ? v : "unset");
    return 0;
  }
  start();
  if (!strcmp(mode, "exit") || !strcmp(mode, "kill") || !strcmp(mode, "abort") ||
      !strcmp(mode, "nofinalize")) {
    if (rank != target) block_forever();
    if (!strcmp(mode, "exit")) exit(code);
    if (!strcmp(mode, "kill")) raise(SIGKILL);
    if (!strcmp(mode, "abort")) {
      fy_pmi_abort(code, "test abort");
      for (;;) pause(); /* mpiexec must end us */
    }
    return 0;
  }
  if (!strcmp(mode, "echo")) {
    for (int i = 0; i < 3; i++) printf("out %d line %d\n", rank, i);
    fflush(stdout);
    fprintf(stderr, "err %d\n", rank);
    printf("tail %d", rank);
  } else if (!strcmp(mode, "stdin")) {
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, stdin);
    buf[n] = '\0';
    printf("rank %d stdin: %s\n", rank, buf);
  } else if (!strcmp(mode, "shm")) {
    make_shm();
  } else if (!strcmp(mode, "shmfail")) {
    make_shm();
    if (fy_pmi_barrier() < 0) die("barrier");
    if (rank == 0) exit(3);
    block_forever();
  } else if (!strcmp(mode, "wait")) {
    printf("pid %d\n", (int)getpid());
    fflush(stdout);
    if (fy_pmi_barrier() < 0) die("barrier"); /* every pid printed before "ready" */
    if (rank == 0) printf("ready\n");
    fflush(stdout);
    for (;;) pause();
  }
  if (fy_pmi_finalize() < 0) die("finalize");
  return 0;
}
