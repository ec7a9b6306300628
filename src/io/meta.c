/* File state: size, preallocation, sync, access mode, group, hints,
 * atomicity. See fy_io.h. */
#include "io/fy_io.h"
#include "core/fy_error.h"
#include "core/fy_info.h"
#include "binding/fy_impl.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Collective size change: rank 0 does it, everyone learns the outcome. */
static int resize(fy_file_t *f, MPI_Offset size, int prealloc) {
  int err, e = 0;
  if ((err = fy_mpi_barrier(f->comm))) return err; /* earlier writes are done */
  if (f->rank == 0) {
    if (prealloc) {
      struct stat st;
      if (fstat(f->fd, &st)) e = errno;
      else if (st.st_size < size) {
        e = posix_fallocate(f->fd, 0, (off_t)size);
        /* a file system without fallocate: at least the size is right */
        if (e == EOPNOTSUPP || e == EINVAL) e = ftruncate(f->fd, (off_t)size) ? errno : 0;
      }
    } else if (ftruncate(f->fd, (off_t)size)) {
      e = errno;
    }
  }
  if ((err = fy_mpi_bcast(&e, 1, MPI_INT, 0, f->comm))) return err;
  if (e) return fy_io_errno(e, prealloc ? "cannot preallocate" : "cannot resize", f->name);
  return MPI_SUCCESS;
}

static fy_file_t *writable(MPI_File fh, MPI_Offset size, const char *what, int *err) {
  fy_file_t *f = fy_io_file(fh, err);
  if (!f) return NULL;
  if (size < 0) *err = fy_err(MPI_ERR_ARG, "size = %lld is negative", (long long)size);
  else if (f->amode & MPI_MODE_RDONLY)
    *err = fy_err(MPI_ERR_READ_ONLY, "cannot %s %s: it was opened MPI_MODE_RDONLY", what, f->name);
  else if (f->amode & MPI_MODE_SEQUENTIAL)
    *err = fy_err(MPI_ERR_UNSUPPORTED_OPERATION, "cannot %s %s: it was opened MPI_MODE_SEQUENTIAL", what, f->name);
  else return f;
  return NULL;
}

int fy_mpi_file_set_size(MPI_File fh, MPI_Offset size) {
  int err;
  fy_file_t *f = writable(fh, size, "resize", &err);
  return f ? resize(f, size, 0) : err;
}

int fy_mpi_file_preallocate(MPI_File fh, MPI_Offset size) {
  int err;
  fy_file_t *f = writable(fh, size, "preallocate", &err);
  return f ? resize(f, size, 1) : err;
}

int fy_mpi_file_get_size(MPI_File fh, MPI_Offset *size) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (!size) return fy_err(MPI_ERR_ARG, "size = NULL");
  struct stat st;
  if (fstat(f->fd, &st)) return fy_io_errno(errno, "cannot read the size of", f->name);
  *size = (MPI_Offset)st.st_size;
  return MPI_SUCCESS;
}

int fy_mpi_file_sync(MPI_File fh) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (f->split) return fy_err(MPI_ERR_OTHER, "a split collective is in progress on %s", f->name);
  /* data written here reaches the file system: other processes see it after
   * they sync too (sync-barrier-sync, MPI 4.1 14.6.1) */
  if (!(f->amode & MPI_MODE_RDONLY) && fsync(f->fd) && errno != EINVAL && errno != EROFS)
    return fy_io_errno(errno, "cannot sync", f->name);
  return MPI_SUCCESS;
}

int fy_mpi_file_get_amode(MPI_File fh, int *amode) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (!amode) return fy_err(MPI_ERR_ARG, "amode = NULL");
  *amode = f->amode;
  return MPI_SUCCESS;
}

int fy_mpi_file_get_group(MPI_File fh, MPI_Group *group) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (!group) return fy_err(MPI_ERR_ARG, "group = NULL");
  return fy_mpi_comm_group(f->comm, group);
}

int fy_mpi_file_set_info(MPI_File fh, MPI_Info info) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  char v[MPI_MAX_INFO_VAL];
  /* of the hints Ferry reports, only access_style may change after open */
  if (info != MPI_INFO_NULL && fy_info_lookup(info, "access_style", v, sizeof v))
    return fy_info_put(&f->hints, "access_style", v);
  return MPI_SUCCESS;
}

int fy_mpi_file_get_info(MPI_File fh, MPI_Info *info_used) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (!info_used) return fy_err(MPI_ERR_ARG, "info_used = NULL");
  if (f->hints != MPI_INFO_NULL) return fy_info_copy(f->hints, info_used);
  return fy_mpi_info_create(info_used);
}

int fy_mpi_file_set_atomicity(MPI_File fh, int flag) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  /* collective: the mode changes between everyone's accesses */
  if ((err = fy_mpi_barrier(f->comm))) return err;
  f->atomic = !!flag;
  return MPI_SUCCESS;
}

int fy_mpi_file_get_atomicity(MPI_File fh, int *flag) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (!flag) return fy_err(MPI_ERR_ARG, "flag = NULL");
  *flag = f->atomic;
  return MPI_SUCCESS;
}
