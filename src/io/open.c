/* MPI_File_open, MPI_File_close, MPI_File_delete. See fy_io.h. */
#include "io/fy_io.h"
#include "core/fy_comm.h"
#include "core/fy_error.h"
#include "core/fy_errhandler.h"
#include "core/fy_info.h"
#include "comm/fy_commc.h"
#include "binding/fy_impl.h"
#include "runtime/fy_config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KNOWN_MODES                                                                                  \
  (MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL |             \
   MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND)

static int check_amode(int amode) {
  int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_RDWR) + !!(amode & MPI_MODE_WRONLY);
  if (amode & ~KNOWN_MODES)
    return fy_err(MPI_ERR_AMODE, "amode = %#x has bits that are no MPI_MODE_* constant", (unsigned)amode);
  if (rw != 1)
    return fy_err(MPI_ERR_AMODE, "amode = %#x: exactly one of MPI_MODE_RDONLY, MPI_MODE_RDWR and "
                  "MPI_MODE_WRONLY is required", (unsigned)amode);
  if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return fy_err(MPI_ERR_AMODE, "amode = %#x: MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL",
                  (unsigned)amode);
  if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
    return fy_err(MPI_ERR_AMODE, "amode = %#x: MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR", (unsigned)amode);
  return MPI_SUCCESS;
}

/* "ufs:/path" names the file system as ROMIO does; every one here is POSIX. */
static const char *strip_prefix(const char *name) {
  static const char *const pfx[] = {"ufs:", "nfs:", "lustre:", "gpfs:", "file:", "posix:"};
  for (size_t i = 0; i < sizeof pfx / sizeof *pfx; i++)
    if (!strncmp(name, pfx[i], strlen(pfx[i]))) return name + strlen(pfx[i]);
  return name;
}

static int open_flags(int amode, int creator) {
  int fl = O_CLOEXEC;
  if (amode & MPI_MODE_RDONLY) fl |= O_RDONLY;
  else if (amode & MPI_MODE_WRONLY) fl |= O_WRONLY;
  else fl |= O_RDWR;
  if (creator && (amode & MPI_MODE_CREATE)) fl |= O_CREAT;
  if (creator && (amode & MPI_MODE_EXCL)) fl |= O_EXCL;
  return fl;
}

/* file_perm (octal) from the hints, else 0666 (the umask applies). */
static mode_t file_perm(MPI_Info info, char *val, int len) {
  if (info == MPI_INFO_NULL || !fy_info_lookup(info, "file_perm", val, len)) return 0666;
  char *end;
  long p = strtol(val, &end, 8);
  return (*end || p < 0 || p > 07777) ? 0666 : (mode_t)p;
}

/* A romio_cb_read/write mode: 1 enable, -1 disable, 0 automatic. ROMIO's
 * three names; FERRY_IO_CB also takes true/false (as_setting). Returns 0
 * for another value, which a hint ignores and a setting reads as automatic. */
static int cb_parse(const char *v, int as_setting, int *mode) {
  static const struct { const char *name; int mode, setting_only; } known[] = {
      {"enable", 1, 0}, {"disable", -1, 0}, {"automatic", 0, 0}, {"true", 1, 1}, {"false", -1, 1}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (!strcmp(v, known[i].name) && (as_setting || !known[i].setting_only)) {
      *mode = known[i].mode;
      return 1;
    }
  *mode = 0;
  return 0;
}

static const char *cb_name(int mode) { return mode > 0 ? "enable" : mode < 0 ? "disable" : "automatic"; }

static int set_hints(fy_file_t *f, MPI_Info info) {
  char v[MPI_MAX_INFO_VAL];
  int err;
  if ((err = fy_info_put(&f->hints, "filename", f->name))) return err;
  snprintf(v, sizeof v, "%o", (unsigned)file_perm(info, v, sizeof v));
  if ((err = fy_info_put(&f->hints, "file_perm", v))) return err;
  /* collective buffering (src/io/coll.c): the romio_cb_* and cb_* hints,
   * else the FERRY_IO_CB* settings */
  int mode;
  cb_parse(fy_config.io_cb, 1, &mode);
  f->cb_read = f->cb_write = mode;
  f->cb_nodes = fy_config.io_cb_nodes > 0 ? (int)fy_config.io_cb_nodes : f->size;
  f->cb_buffer = (int64_t)fy_config.io_cb_buffer;
  if (info != MPI_INFO_NULL) {
    if (fy_info_lookup(info, "romio_cb_read", v, sizeof v) && cb_parse(v, 0, &mode)) f->cb_read = mode;
    if (fy_info_lookup(info, "romio_cb_write", v, sizeof v) && cb_parse(v, 0, &mode)) f->cb_write = mode;
    if (fy_info_lookup(info, "cb_nodes", v, sizeof v) && atoi(v) > 0) f->cb_nodes = atoi(v);
    if (fy_info_lookup(info, "cb_buffer_size", v, sizeof v) && atoll(v) > 0) f->cb_buffer = atoll(v);
  }
  if (f->cb_nodes > f->size) f->cb_nodes = f->size;
  if ((err = fy_info_put(&f->hints, "collective_buffering", f->cb_write < 0 ? "false" : "true"))) return err;
  if ((err = fy_info_put(&f->hints, "romio_cb_read", cb_name(f->cb_read)))) return err;
  if ((err = fy_info_put(&f->hints, "romio_cb_write", cb_name(f->cb_write)))) return err;
  snprintf(v, sizeof v, "%lld", (long long)f->cb_buffer);
  if ((err = fy_info_put(&f->hints, "cb_buffer_size", v))) return err;
  snprintf(v, sizeof v, "%d", f->cb_nodes);
  if ((err = fy_info_put(&f->hints, "cb_nodes", v))) return err;
  if (info != MPI_INFO_NULL && fy_info_lookup(info, "access_style", v, sizeof v))
    if ((err = fy_info_put(&f->hints, "access_style", v))) return err;
  return MPI_SUCCESS;
}

static void destroy(fy_file_t *f) {
  if (f->fd >= 0) close(f->fd);
  for (int i = 0; i < 4; i++) free(f->cb_mem[i]);
  fy_io_shared_free(f);
  if (f->comm != MPI_COMM_NULL) fy_commc_release(fy_comm_get(f->comm));
  fy_io_view_release(f);
  if (f->hints != MPI_INFO_NULL) fy_info_release(f->hints);
  fy_errhandler_release(f->eh);
  fy_io_file_remove(f);
  free(f->name);
  free(f);
}

/* A private intracommunicator over c's group: the file's collective calls
 * never meet the user's messages. */
static int private_comm(fy_comm_t *c, MPI_Comm *out) {
  fy_comm_t *n;
  int err = fy_commc_local(c, &n);
  if (err) return err;
  if ((err = fy_comm_publish(n))) {
    fy_commc_close(n);
    fy_comm_destroy(n);
    return err;
  }
  snprintf(n->name, sizeof n->name, "%s", "MPI I/O file communicator");
  *out = n->handle;
  return MPI_SUCCESS;
}

int fy_mpi_file_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) {
  fy_comm_t *c = fy_comm_get(comm);
  int err;
  if (c->is_inter) return fy_err(MPI_ERR_COMM, "comm = %s is an intercommunicator", c->name);
  if (!filename) return fy_err(MPI_ERR_BAD_FILE, "filename = NULL");
  if ((err = check_amode(amode))) return err;
  const char *path = strip_prefix(filename);
  if (!*path) return fy_err(MPI_ERR_BAD_FILE, "filename = \"%s\" is empty", filename);

  fy_file_t *f = calloc(1, sizeof *f);
  if (!f) return fy_err(MPI_ERR_NO_MEM, "out of memory opening %s", filename);
  f->fd = -1;
  f->comm = MPI_COMM_NULL;
  f->hints = MPI_INFO_NULL;
  f->sp_win = MPI_WIN_NULL;
  f->sp_fd = -1;
  f->amode = amode;
  f->eh = fy_io_default_errhandler();
  fy_errhandler_retain(f->eh);
  fy_io_view_default(f);
  if (!(f->name = strdup(path))) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory opening %s", filename);
    goto fail;
  }
  if ((err = private_comm(c, &f->comm))) goto fail;
  f->rank = c->rank;
  f->size = c->size;

  /* Rank 0 creates the file (so MPI_MODE_EXCL fails for one process only),
   * then the others open what now exists. */
  char pv[MPI_MAX_INFO_VAL];
  mode_t perm = file_perm(info, pv, sizeof pv);
  int e0 = 0, emine = 0, eall = 0;
  /* every process must give the same amode (the others decide with rank 0's) */
  int am[2] = {amode, -amode}, amax[2];
  if ((err = fy_mpi_allreduce(am, amax, 2, MPI_INT, MPI_MAX, f->comm))) goto fail;
  if (amax[0] != -amax[1]) {
    err = fy_err(MPI_ERR_NOT_SAME, "amode = %#x: the processes of comm gave different access modes to "
                 "MPI_File_open", (unsigned)amode);
    goto fail;
  }
  if (f->rank == 0) {
    f->fd = open(f->name, open_flags(amode, 1), perm);
    if (f->fd < 0) e0 = errno;
  }
  if ((err = fy_mpi_bcast(&e0, 1, MPI_INT, 0, f->comm))) goto fail;
  if (e0) {
    err = fy_io_errno(e0, "cannot open", f->name);
    goto fail;
  }
  if (f->rank != 0) {
    f->fd = open(f->name, open_flags(amode, 0), perm);
    if (f->fd < 0) emine = errno;
  }
  if ((err = fy_mpi_allreduce(&emine, &eall, 1, MPI_INT, MPI_MAX, f->comm))) goto fail;
  if (eall) {
    err = fy_io_errno(emine ? emine : eall, emine ? "cannot open" : "another process cannot open", f->name);
    goto fail;
  }
  struct stat st;
  if (fstat(f->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    err = fy_err(MPI_ERR_BAD_FILE, "cannot open %s: it is a directory", f->name);
    goto fail; /* every process sees the same directory */
  }
  if ((err = fy_io_shared_create(f))) goto fail;
  if (amode & MPI_MODE_APPEND) {
    /* all file pointers start at the end (the default view's etype is a byte) */
    f->fp = (MPI_Offset)st.st_size;
    if (f->rank == 0 && (err = fy_io_shared_set(f, f->fp))) goto fail;
    if ((err = fy_mpi_barrier(f->comm))) goto fail;
  }
  if ((err = set_hints(f, info))) goto fail;
  if ((err = fy_io_file_add(f))) goto fail;
  *fh = fy_file_handle(f);
  return MPI_SUCCESS;
fail:
  destroy(f);
  return err;
}

int fy_mpi_file_close(MPI_File *fh) {
  int err = MPI_SUCCESS, e;
  fy_file_t *f = fy_io_file(*fh, &err);
  if (!f) return err;
  /* everyone has finished with the file before it is deleted */
  if ((e = fy_mpi_barrier(f->comm))) err = e;
  if (close(f->fd) && !err) err = fy_io_errno(errno, "cannot close", f->name);
  f->fd = -1;
  if ((e = fy_mpi_barrier(f->comm)) && !err) err = e;
  if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->rank == 0 && unlink(f->name) && errno != ENOENT && !err)
    err = fy_io_errno(errno, "cannot delete", f->name);
  destroy(f);
  *fh = MPI_FILE_NULL;
  return err;
}

int fy_mpi_file_delete(const char *filename, MPI_Info info) {
  (void)info;
  if (!filename) return fy_err(MPI_ERR_BAD_FILE, "filename = NULL");
  const char *path = strip_prefix(filename);
  if (unlink(path)) return fy_io_errno(errno, "cannot delete", path);
  return MPI_SUCCESS;
}
