/* Blocking data access with explicit offsets and the individual file
 * pointer, their collective forms, split collectives, seek and position.
 * Collective calls are independent I/O: no data crosses processes, and the
 * standard asks for no synchronisation between them. See fy_io.h. */
#include "io/fy_io.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"

enum { AT, INDIV, ORDERED };

/* One access: `how` AT with an explicit offset (etypes), INDIV from the
 * individual pointer (advanced by the etypes moved), ORDERED through the
 * shared pointer in rank order (collective). */
static int access1(fy_file_t *f, int how, int coll, int write, MPI_Offset offset, void *buf, MPI_Count count,
                   MPI_Datatype dt, MPI_Count *moved) {
  int err;
  *moved = 0;
  if (how == ORDERED) return fy_io_ordered(f, write, buf, count, dt, moved);
  /* (the same on every process of a collective call: amode) */
  if ((err = fy_io_check_access(f, write, count, dt, 1))) return err;
  MPI_Offset es = fy_io_etype_size(f);
  int (*xfer)(fy_file_t *, int, MPI_Offset, void *, MPI_Count, MPI_Datatype, MPI_Count *) =
      coll ? fy_io_xfer_all : fy_io_xfer;
  if (how == AT) {
    /* (a negative offset: fy_io_xfer_all reports it after the others know) */
    if (offset < 0 && !coll) return fy_err(MPI_ERR_ARG, "offset = %lld is negative", (long long)offset);
    return xfer(f, write, offset * es, buf, count, dt, moved);
  }
  err = xfer(f, write, f->fp * es, buf, count, dt, moved);
  f->fp += *moved / es;
  return err;
}

static int blocking(MPI_File fh, int how, int coll, int write, MPI_Offset offset, void *buf, MPI_Count count,
                    MPI_Datatype dt, MPI_Status *status) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  MPI_Count moved;
  if ((err = access1(f, how, coll, write, offset, buf, count, dt, &moved))) return err;
  fy_io_status(status, moved);
  return MPI_SUCCESS;
}

#define RW(name, how, coll, write, CONST)                                                               \
  int fy_mpi_file_##name##_c(MPI_File fh, CONST void *buf, MPI_Count count, MPI_Datatype dt,            \
                             MPI_Status *status) {                                                      \
    return blocking(fh, how, coll, write, 0, (void *)buf, count, dt, status);                           \
  }                                                                                                     \
  int fy_mpi_file_##name(MPI_File fh, CONST void *buf, int count, MPI_Datatype dt, MPI_Status *status) { \
    return blocking(fh, how, coll, write, 0, (void *)buf, count, dt, status);                           \
  }
#define RW_AT(name, coll, write, CONST)                                                                 \
  int fy_mpi_file_##name##_c(MPI_File fh, MPI_Offset offset, CONST void *buf, MPI_Count count,          \
                             MPI_Datatype dt, MPI_Status *status) {                                     \
    return blocking(fh, AT, coll, write, offset, (void *)buf, count, dt, status);                       \
  }                                                                                                     \
  int fy_mpi_file_##name(MPI_File fh, MPI_Offset offset, CONST void *buf, int count, MPI_Datatype dt,    \
                         MPI_Status *status) {                                                          \
    return blocking(fh, AT, coll, write, offset, (void *)buf, count, dt, status);                       \
  }

RW(read, INDIV, 0, 0, )
RW(write, INDIV, 0, 1, const)
RW(read_all, INDIV, 1, 0, )
RW(write_all, INDIV, 1, 1, const)
RW_AT(read_at, 0, 0, )
RW_AT(write_at, 0, 1, const)
RW_AT(read_at_all, 1, 0, )
RW_AT(write_at_all, 1, 1, const)

/* ---- split collectives: the work is done by _begin, _end hands out the status ---- */

enum { SP_READ_ALL = 1, SP_WRITE_ALL, SP_READ_AT_ALL, SP_WRITE_AT_ALL, SP_READ_ORD, SP_WRITE_ORD };

static int split_begin(MPI_File fh, int kind, int how, int write, MPI_Offset offset, const void *buf,
                       MPI_Count count, MPI_Datatype dt) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (f->split) return fy_err(MPI_ERR_OTHER, "a split collective is already in progress on %s", f->name);
  MPI_Count moved;
  if ((err = access1(f, how, 1, write, offset, (void *)buf, count, dt, &moved))) return err;
  f->split = kind;
  f->split_buf = buf;
  fy_io_status(&f->split_status, moved);
  return MPI_SUCCESS;
}

static int split_end(MPI_File fh, int kind, const void *buf, MPI_Status *status) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (f->split != kind) return fy_err(MPI_ERR_OTHER, "no matching split collective was begun on %s", f->name);
  if (buf != f->split_buf)
    return fy_err(MPI_ERR_BUFFER, "buf = %p is not the buffer the split collective began with (%p)", buf,
                  f->split_buf);
  f->split = 0;
  if (status != MPI_STATUS_IGNORE) {
    int keep = status->MPI_ERROR;
    *status = f->split_status;
    status->MPI_ERROR = keep;
  }
  return MPI_SUCCESS;
}

#define SPLIT(name, kind, how, write, CONST)                                                           \
  int fy_mpi_file_##name##_begin_c(MPI_File fh, CONST void *buf, MPI_Count count, MPI_Datatype dt) {   \
    return split_begin(fh, kind, how, write, 0, buf, count, dt);                                       \
  }                                                                                                    \
  int fy_mpi_file_##name##_begin(MPI_File fh, CONST void *buf, int count, MPI_Datatype dt) {            \
    return split_begin(fh, kind, how, write, 0, buf, count, dt);                                       \
  }                                                                                                    \
  int fy_mpi_file_##name##_end(MPI_File fh, CONST void *buf, MPI_Status *status) {                     \
    return split_end(fh, kind, buf, status);                                                           \
  }
#define SPLIT_AT(name, kind, write, CONST)                                                             \
  int fy_mpi_file_##name##_begin_c(MPI_File fh, MPI_Offset offset, CONST void *buf, MPI_Count count,   \
                                   MPI_Datatype dt) {                                                  \
    return split_begin(fh, kind, AT, write, offset, buf, count, dt);                                   \
  }                                                                                                    \
  int fy_mpi_file_##name##_begin(MPI_File fh, MPI_Offset offset, CONST void *buf, int count,           \
                                 MPI_Datatype dt) {                                                    \
    return split_begin(fh, kind, AT, write, offset, buf, count, dt);                                   \
  }                                                                                                    \
  int fy_mpi_file_##name##_end(MPI_File fh, CONST void *buf, MPI_Status *status) {                     \
    return split_end(fh, kind, buf, status);                                                           \
  }

SPLIT(read_all, SP_READ_ALL, INDIV, 0, )
SPLIT(write_all, SP_WRITE_ALL, INDIV, 1, const)
SPLIT(read_ordered, SP_READ_ORD, ORDERED, 0, )
SPLIT(write_ordered, SP_WRITE_ORD, ORDERED, 1, const)
SPLIT_AT(read_at_all, SP_READ_AT_ALL, 0, )
SPLIT_AT(write_at_all, SP_WRITE_AT_ALL, 1, const)

/* ---- the individual file pointer ---- */

int fy_mpi_file_seek(MPI_File fh, MPI_Offset offset, int whence) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (f->amode & MPI_MODE_SEQUENTIAL)
    return fy_err(MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_seek on %s, opened MPI_MODE_SEQUENTIAL", f->name);
  MPI_Offset to;
  switch (whence) {
    case MPI_SEEK_SET: to = offset; break;
    case MPI_SEEK_CUR: to = f->fp + offset; break;
    case MPI_SEEK_END: {
      MPI_Offset size;
      if ((err = fy_mpi_file_get_size(fh, &size))) return err;
      to = fy_io_end_etypes(f, size) + offset;
      break;
    }
    default:
      return fy_err(MPI_ERR_ARG, "whence = %d is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END", whence);
  }
  if (to < 0) return fy_err(MPI_ERR_ARG, "offset = %lld would put the file pointer before the view", (long long)offset);
  f->fp = to;
  return MPI_SUCCESS;
}

int fy_mpi_file_get_position(MPI_File fh, MPI_Offset *offset) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (!offset) return fy_err(MPI_ERR_ARG, "offset = NULL");
  if (f->amode & MPI_MODE_SEQUENTIAL)
    return fy_err(MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_get_position on %s, opened MPI_MODE_SEQUENTIAL", f->name);
  *offset = f->fp;
  return MPI_SUCCESS;
}
