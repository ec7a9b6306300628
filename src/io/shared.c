/* The shared file pointer: one int64 (etypes) that any process reads and
 * advances without the others taking part.
 * - One node: an RMA window at rank 0 of the file's communicator, moved by
 *   MPI_Fetch_and_op on the shared segment.
 * - Several nodes: 8 bytes of a hidden pointer file beside the data file,
 *   ".<name>.fyshfp.<pid>.<n>", read and written under a POSIX record lock,
 *   as ROMIO does: a window across nodes would need rank 0 to poll for every
 *   access (src/rma/am.c), the file needs nobody. Every node reaches it,
 *   since every node opened the data file in that directory; record locks
 *   are what the data path takes already. Rank 0 creates it and removes it
 *   at close (not sooner: on NFS a file removed while other clients hold it
 *   open turns stale for them). Where it cannot be made, the window again.
 * MPI_File_read/write_shared, the ordered collectives, seek_shared and
 * get_position_shared live here. See fy_io.h. */
#include "io/fy_io.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include "core/fy_comm.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SP_NAME_MAX 4096

/* The record lock over the pointer's 8 bytes (lock = 0: its release). */
static int sp_lock(int fd, int lock) {
  return fy_io_record_lock(fd, lock ? F_WRLCK : F_UNLCK, 0, (off_t)sizeof(int64_t));
}

/* Rank 0: a fresh pointer file holding 0, its lock tried once; errno value
 * on failure (nothing left behind). */
static int sp_file_make(fy_file_t *f, char *name) {
  static unsigned seq;
  const char *slash = strrchr(f->name, '/');
  int dlen = slash ? (int)(slash - f->name) + 1 : 0;
  const char *base = slash ? slash + 1 : f->name;
  int e = 0;
  for (int tries = 0; tries < 64; tries++) {
    if (snprintf(name, SP_NAME_MAX, "%.*s.%s.fyshfp.%ld.%u", dlen, f->name, base, (long)getpid(), seq++) >=
        SP_NAME_MAX)
      return ENAMETOOLONG;
    f->sp_fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (f->sp_fd >= 0 || errno != EEXIST) break;
  }
  if (f->sp_fd < 0) return errno;
  int64_t zero = 0;
  if (pwrite(f->sp_fd, &zero, sizeof zero, 0) != (ssize_t)sizeof zero) e = errno ? errno : EIO;
  else if (sp_lock(f->sp_fd, 1) || sp_lock(f->sp_fd, 0)) e = errno;
  else if (!(f->sp_path = strdup(name))) e = ENOMEM;
  if (e) {
    close(f->sp_fd);
    f->sp_fd = -1;
    unlink(name);
  }
  return e;
}

/* Collective: every process opens rank 0's pointer file, or none keeps it
 * (sp_errno says why; fy_io_shared_create then tries a window). */
static int sp_file_create(fy_file_t *f) {
  char *name = calloc(1, SP_NAME_MAX);
  int e = 0, eall = 0, err;
  if (!name) return fy_err(MPI_ERR_NO_MEM, "out of memory opening %s", f->name);
  if (f->rank == 0) e = sp_file_make(f, name);
  if ((err = fy_mpi_bcast(&e, 1, MPI_INT, 0, f->comm))) goto out;
  if (!e && (err = fy_mpi_bcast(name, SP_NAME_MAX, MPI_CHAR, 0, f->comm))) goto out;
  if (!e && f->rank != 0 && (f->sp_fd = open(name, O_RDWR | O_CLOEXEC)) < 0) e = errno;
  if ((err = fy_mpi_allreduce(&e, &eall, 1, MPI_INT, MPI_MAX, f->comm))) goto out;
  if (eall) {
    fy_io_shared_free(f);
    f->sp_errno = eall;
  }
out:
  free(name);
  return err;
}

int fy_io_shared_create(fy_file_t *f) {
  int err;
  if (fy_comm_remote_rank(fy_comm_get(f->comm)) >= 0) { /* (every process finds the same) */
    if ((err = sp_file_create(f)) || f->sp_fd >= 0) return err;
  }
  err = fy_mpi_win_allocate(f->rank == 0 ? (MPI_Aint)sizeof(int64_t) : 0, (int)sizeof(int64_t), MPI_INFO_NULL,
                            f->comm, &f->sp_mem, &f->sp_win);
  if (err) {
    f->sp_win = MPI_WIN_NULL;
    /* (no window either: the file works without a shared pointer) */
    return fy_err_class_of(err) == MPI_ERR_UNSUPPORTED_OPERATION ? MPI_SUCCESS : err;
  }
  if (f->rank == 0) *f->sp_mem = 0;
  return fy_mpi_barrier(f->comm); /* the counter is 0 before anyone moves it */
}

void fy_io_shared_free(fy_file_t *f) {
  if (f->sp_win != MPI_WIN_NULL) fy_mpi_win_free(&f->sp_win);
  f->sp_win = MPI_WIN_NULL;
  if (f->sp_fd >= 0) close(f->sp_fd);
  f->sp_fd = -1;
  if (f->sp_path) unlink(f->sp_path); /* rank 0, once every process is done with it */
  free(f->sp_path);
  f->sp_path = NULL;
}

/* Every process of a file has the pointer or none has: the check is
 * consistent, so collective callers may return before communicating. */
static int no_shared(fy_file_t *f) {
  if (f->sp_win != MPI_WIN_NULL || f->sp_fd >= 0) return MPI_SUCCESS;
  return fy_err(MPI_ERR_UNSUPPORTED_OPERATION, "%s has no shared file pointer: its processes are on more than "
                "one node, its pointer file could not be made beside it (%s) and no window either", f->name,
                strerror(f->sp_errno));
}

/* The pointer file's fetch-and-op: read, change, write under the lock. */
static int sp_file_op(fy_file_t *f, int64_t in, int64_t *out, MPI_Op op) {
  int64_t cur = 0, next;
  int e = 0;
  if (sp_lock(f->sp_fd, 1)) return fy_io_errno(errno, "cannot lock the shared file pointer of", f->name);
  ssize_t got = pread(f->sp_fd, &cur, sizeof cur, 0);
  if (got != (ssize_t)sizeof cur) {
    e = got < 0 ? errno : EIO;
    goto unlock;
  }
  next = op == MPI_SUM ? cur + in : op == MPI_REPLACE ? in : cur;
  if (next != cur && pwrite(f->sp_fd, &next, sizeof next, 0) != (ssize_t)sizeof next) e = errno ? errno : EIO;
unlock:
  if (sp_lock(f->sp_fd, 0) && !e) e = errno;
  if (e) return fy_io_errno(e, "cannot move the shared file pointer of", f->name);
  *out = cur;
  return MPI_SUCCESS;
}

static int fop(fy_file_t *f, int64_t in, int64_t *out, MPI_Op op) {
  int err = no_shared(f);
  if (err) return err;
  if (f->sp_win == MPI_WIN_NULL) return sp_file_op(f, in, out, op);
  err = fy_mpi_win_lock(MPI_LOCK_SHARED, 0, 0, f->sp_win);
  if (err) return err;
  err = fy_mpi_fetch_and_op(&in, out, MPI_INT64_T, 0, 0, op, f->sp_win);
  int e = fy_mpi_win_unlock(0, f->sp_win);
  return err ? err : e;
}

int fy_io_shared_fetch_add(fy_file_t *f, MPI_Offset delta, MPI_Offset *old) {
  int64_t o = 0;
  int err = fop(f, (int64_t)delta, &o, delta ? MPI_SUM : MPI_NO_OP);
  *old = (MPI_Offset)o;
  return err;
}

int fy_io_shared_set(fy_file_t *f, MPI_Offset v) {
  int64_t o;
  if (f->sp_win == MPI_WIN_NULL && f->sp_fd < 0) return MPI_SUCCESS; /* nothing to reset */
  return fop(f, (int64_t)v, &o, MPI_REPLACE);
}

/* etypes in count items of dt (the datatype is a whole number of etypes,
 * checked again by the transfer) */
static MPI_Offset etypes_of(fy_file_t *f, MPI_Count count, MPI_Datatype dt) {
  return (MPI_Offset)(count * fy_type_get(dt)->size / f->etype->size);
}

static int shared_rw(MPI_File fh, int write, void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *status) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if ((err = fy_io_check_access(f, write, count, dt, 0))) return err;
  MPI_Offset at;
  if ((err = fy_io_shared_fetch_add(f, etypes_of(f, count, dt), &at))) return err;
  MPI_Count moved;
  err = fy_io_xfer(f, write, at * fy_io_etype_size(f), buf, count, dt, &moved);
  if (!err) fy_io_status(status, moved);
  return err;
}

int fy_mpi_file_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *status) {
  return shared_rw(fh, 0, buf, count, dt, status);
}
int fy_mpi_file_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *status) {
  return shared_rw(fh, 0, buf, count, dt, status);
}
int fy_mpi_file_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *status) {
  return shared_rw(fh, 1, (void *)buf, count, dt, status);
}
int fy_mpi_file_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *status) {
  return shared_rw(fh, 1, (void *)buf, count, dt, status);
}

/* Ordered: rank i's data follows ranks 0..i-1's. An exclusive prefix sum of
 * the sizes gives each rank's place; rank 0 moves the pointer past all of
 * them before anyone can start another shared access (the broadcast). */
int fy_io_ordered(fy_file_t *f, int write, void *buf, MPI_Count count, MPI_Datatype dt, MPI_Count *moved) {
  int err;
  *moved = 0;
  if ((err = fy_io_check_access(f, write, count, dt, 0)) || (err = no_shared(f))) return err;
  int64_t mine = (int64_t)etypes_of(f, count, dt), before = 0, total = 0, base = 0;
  if ((err = fy_mpi_exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, f->comm))) return err;
  if (f->rank == 0) before = 0; /* exscan leaves rank 0's undefined */
  if ((err = fy_mpi_allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, f->comm))) return err;
  if (f->rank == 0) {
    MPI_Offset old;
    if ((err = fy_io_shared_fetch_add(f, total, &old))) return err;
    base = old;
  }
  if ((err = fy_mpi_bcast(&base, 1, MPI_INT64_T, 0, f->comm))) return err;
  return fy_io_xfer(f, write, (base + before) * fy_io_etype_size(f), buf, count, dt, moved);
}

static int ordered(MPI_File fh, int write, void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *status) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  MPI_Count moved;
  if ((err = fy_io_ordered(f, write, buf, count, dt, &moved))) return err;
  fy_io_status(status, moved);
  return MPI_SUCCESS;
}

int fy_mpi_file_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *status) {
  return ordered(fh, 0, buf, count, dt, status);
}
int fy_mpi_file_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *status) {
  return ordered(fh, 0, buf, count, dt, status);
}
int fy_mpi_file_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *status) {
  return ordered(fh, 1, (void *)buf, count, dt, status);
}
int fy_mpi_file_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *status) {
  return ordered(fh, 1, (void *)buf, count, dt, status);
}

int fy_mpi_file_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  MPI_Offset cur = 0, to;
  if ((err = no_shared(f))) return err;
  /* collective: everyone agrees on the new place (rank 0's computation) */
  if ((err = fy_mpi_barrier(f->comm))) return err;
  if (f->rank == 0) {
    switch (whence) {
      case MPI_SEEK_SET: to = offset; break;
      case MPI_SEEK_CUR:
        if ((err = fy_io_shared_fetch_add(f, 0, &cur))) return err;
        to = cur + offset;
        break;
      case MPI_SEEK_END: {
        MPI_Offset size;
        if ((err = fy_mpi_file_get_size(fh, &size))) return err;
        to = fy_io_end_etypes(f, size) + offset;
        break;
      }
      default: to = -1; break;
    }
    if (to >= 0 && (err = fy_io_shared_set(f, to))) return err;
  } else {
    to = 0;
  }
  int64_t t = (int64_t)to;
  if ((err = fy_mpi_bcast(&t, 1, MPI_INT64_T, 0, f->comm))) return err;
  if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
    return fy_err(MPI_ERR_ARG, "whence = %d is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END", whence);
  if (t < 0) return fy_err(MPI_ERR_ARG, "offset = %lld would put the shared file pointer before the view", (long long)offset);
  return MPI_SUCCESS;
}

int fy_mpi_file_get_position_shared(MPI_File fh, MPI_Offset *offset) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (!offset) return fy_err(MPI_ERR_ARG, "offset = NULL");
  return fy_io_shared_fetch_add(f, 0, offset);
}
