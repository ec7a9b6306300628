/* Shared by the MPI I/O tests: a temporary directory made by rank 0 and
 * known to all (io_dir_init), file names inside it (io_path), and its
 * removal with everything in it (io_dir_done, also on the watchdog's exit
 * path through atexit). */
#ifndef IOTEST_H
#define IOTEST_H
#include "fytest.h"
#include <dirent.h>
#include <sys/stat.h>

static char io_dir[256];

static void io_rmdir(void) {
  if (!io_dir[0]) return;
  DIR *d = opendir(io_dir);
  if (d) {
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(p, sizeof p, "%s/%s", io_dir, e->d_name);
        unlink(p);
      }
    closedir(d);
  }
  rmdir(io_dir);
  io_dir[0] = 0;
}

static inline void io_dir_init(MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  if (r == 0) {
    const char *t = getenv("TMPDIR");
    snprintf(io_dir, sizeof io_dir, "%s/ferry-io-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(io_dir)) {
      perror("mkdtemp");
      MPI_Abort(comm, 2);
    }
    atexit(io_rmdir);
  }
  MPI_Bcast(io_dir, sizeof io_dir, MPI_CHAR, 0, comm);
}

static inline const char *io_path(const char *name) {
  static char p[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s", io_dir, name);
  return p[k];
}

/* every rank is done with the directory before rank 0 removes it */
static inline void io_dir_done(MPI_Comm comm) {
  int r;
  MPI_Barrier(comm);
  MPI_Comm_rank(comm, &r);
  if (r == 0) io_rmdir();
  else io_dir[0] = 0;
}
#endif
