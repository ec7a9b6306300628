/* File views: MPI_File_set_view / get_view, byte offsets, type extents in
 * the file. See fy_io.h. */
#include "io/fy_io.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include <stdint.h>
#include <string.h>
#include <strings.h>

void fy_io_view_default(fy_file_t *f) {
  f->disp = 0;
  f->etype_h = f->ftype_h = MPI_BYTE;
  f->etype = f->ftype = fy_type_get(MPI_BYTE);
  strcpy(f->datarep, "native");
}

void fy_io_view_release(fy_file_t *f) {
  if (f->etype) fy_type_release(f->etype);
  if (f->ftype) fy_type_release(f->ftype);
  f->etype = f->ftype = NULL;
}

MPI_Offset fy_io_etype_size(const fy_file_t *f) { return (MPI_Offset)f->etype->size; }

/* "native" and "internal" (which may be native, MPI 4.1 14.5.2) are
 * supported; external32 and registered representations are not. */
static int datarep_ok(const char *datarep, const fy_datatype_t *et, const fy_datatype_t *ft) {
  if (!datarep) return fy_err(MPI_ERR_ARG, "datarep = NULL");
  if (!strcasecmp(datarep, "native") || !strcasecmp(datarep, "internal")) return MPI_SUCCESS;
  if (!strcasecmp(datarep, "external32")) {
    /* the file layout stays the native one only if no type changes size */
    const fy_datatype_t *bad = fy_type_ext32_size(et) != et->size ? et : fy_type_ext32_size(ft) != ft->size ? ft : NULL;
    if (!bad) return MPI_SUCCESS;
    return fy_err(MPI_ERR_UNSUPPORTED_DATAREP, "datarep = \"external32\" with %s = %s: Ferry supports external32 "
                  "views only of types whose external32 size is their native size", bad == et ? "etype" : "filetype",
                  bad->name);
  }
  int u = fy_io_datarep_usable(datarep);
  if (u > 0) return MPI_SUCCESS;
  if (u < 0)
    return fy_err(MPI_ERR_UNSUPPORTED_DATAREP, "datarep = \"%s\" has conversion functions: Ferry moves native "
                  "data only", datarep);
  return fy_err(MPI_ERR_UNSUPPORTED_DATAREP, "datarep = \"%s\": Ferry's MPI I/O supports \"native\" "
                "(and \"internal\", the same) only", datarep);
}

/* The file byte where etype `offset` of the view lies. */
static int byte_of(const fy_file_t *f, MPI_Offset offset, MPI_Offset *disp) {
  MPI_Offset pos = offset * fy_io_etype_size(f);
  const fy_datatype_t *ft = f->ftype;
  if (ft->size == 0) return fy_err(MPI_ERR_TYPE, "the view's filetype has no data");
  /* data-stream byte pos: the first piece of a walk from there */
  MPI_Count item = pos / ft->size, r = pos % ft->size;
  struct iovec v;
  size_t got;
  int n = fy_flat_iov(&ft->pk, 1, (uintptr_t)0, (size_t)r, &v, 1, 1, &got);
  if (n != 1) return fy_err(MPI_ERR_INTERN, "no file byte for offset %lld", (long long)offset);
  *disp = f->disp + item * (MPI_Offset)ft->extent + (MPI_Offset)(uintptr_t)v.iov_base;
  return MPI_SUCCESS;
}

/* MPI 4.1 14.3: the displacements of an etype's and a filetype's typemap
 * must be non-negative and monotonically non-decreasing, and in a file
 * opened for writing no two of their pieces may overlap. The class is
 * MPI_ERR_IO, as ROMIO's (MPICH's, Open MPI's) set_view reports these. */
static int shape_ok(const fy_datatype_t *t, const char *what, int writable) {
  const char *name = t->name[0] ? t->name : "(a derived type)";
  if (t->lb < 0 || t->true_lb < 0)
    return fy_err(MPI_ERR_IO, "%s = %s has a negative displacement (a view's types must not)", what, name);
  struct iovec v[64];
  /* (walked at a made-up base, not 0: the walk steps backwards through
   * decreasing displacements, and pointer arithmetic on NULL is undefined) */
  const uintptr_t base = (uintptr_t)1 << 40;
  uintptr_t start = 0, end = 0;
  size_t off = 0, got = 0;
  while (off < (size_t)t->size) {
    int n = fy_flat_iov(&t->pk, 1, base, off, v, 64, SIZE_MAX, &got);
    if (n <= 0 || !got) break;
    for (int i = 0; i < n; i++) {
      uintptr_t b = (uintptr_t)v[i].iov_base;
      if (off + i && b < start)
        return fy_err(MPI_ERR_IO, "%s = %s has decreasing displacements (a view's types must not)", what, name);
      if (off + i && writable && b < end)
        return fy_err(MPI_ERR_IO, "%s = %s has overlapping pieces, which a file opened for writing must not have",
                      what, name);
      start = b;
      if (b + v[i].iov_len > end) end = b + v[i].iov_len;
    }
    off += got;
  }
  return MPI_SUCCESS;
}

int fy_mpi_file_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                         const char *datarep, MPI_Info info) {
  int err;
  (void)info;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  fy_datatype_t *et = fy_type_get(etype), *ft = fy_type_get(filetype);
  if ((err = datarep_ok(datarep, et, ft))) return err;
  if (et->size == 0)
    return fy_err(MPI_ERR_TYPE, "etype = %s has no data (size 0)", et->name);
  int writable = !!(f->amode & (MPI_MODE_WRONLY | MPI_MODE_RDWR));
  if ((err = shape_ok(et, "etype", writable)) || (err = shape_ok(ft, "filetype", writable))) return err;
  if (ft->size % et->size)
    return fy_err(MPI_ERR_TYPE, "filetype = %s (%lld bytes of data) is not made of etype = %s (%lld bytes)",
                  ft->name, (long long)ft->size, et->name, (long long)et->size);
  if (f->split) return fy_err(MPI_ERR_OTHER, "a split collective is in progress on this file");
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    if (!(f->amode & MPI_MODE_SEQUENTIAL))
      return fy_err(MPI_ERR_ARG, "disp = MPI_DISPLACEMENT_CURRENT needs a file opened with MPI_MODE_SEQUENTIAL");
    MPI_Offset sp;
    if ((err = fy_io_shared_fetch_add(f, 0, &sp))) return err;
    if ((err = byte_of(f, sp, &disp))) return err;
  } else if (disp < 0) {
    return fy_err(MPI_ERR_ARG, "disp = %lld is negative", (long long)disp);
  }
  /* collective: every process is done with the old view before the shared
   * pointer goes back to 0 */
  if ((err = fy_mpi_barrier(f->comm))) return err;
  fy_type_retain(et);
  fy_type_retain(ft);
  fy_io_view_release(f);
  f->etype = et;
  f->ftype = ft;
  f->etype_h = etype;
  f->ftype_h = filetype;
  f->disp = disp;
  strcpy(f->datarep, "native");
  f->ext32 = !strcasecmp(datarep, "external32");
  if (f->ext32) strcpy(f->datarep, "external32");
  else if (!strcasecmp(datarep, "internal")) strcpy(f->datarep, "internal");
  else if (strcasecmp(datarep, "native")) strcpy(f->datarep, datarep); /* registered */
  f->fp = 0;
  if (f->rank == 0 && (err = fy_io_shared_set(f, 0))) return err;
  return fy_mpi_barrier(f->comm);
}

/* Derived types are handed out as new handles the caller frees. */
static int type_out(fy_datatype_t *t, MPI_Datatype h, MPI_Datatype *out) {
  if (t->builtin) {
    *out = h;
    return MPI_SUCCESS;
  }
  return fy_mpi_type_dup(t->handle, out);
}

int fy_mpi_file_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                         char *datarep) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (!disp || !etype || !filetype || !datarep)
    return fy_err(MPI_ERR_ARG, "disp, etype, filetype and datarep must not be NULL");
  if ((err = type_out(f->etype, f->etype_h, etype))) return err;
  if ((err = type_out(f->ftype, f->ftype_h, filetype))) {
    if (!f->etype->builtin) fy_mpi_type_free(etype);
    return err;
  }
  *disp = f->disp;
  strcpy(datarep, f->datarep);
  return MPI_SUCCESS;
}

int fy_mpi_file_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp) {
  int err;
  fy_file_t *f = fy_io_file(fh, &err);
  if (!f) return err;
  if (!disp) return fy_err(MPI_ERR_ARG, "disp = NULL");
  if (offset < 0) return fy_err(MPI_ERR_ARG, "offset = %lld is negative", (long long)offset);
  if (f->amode & MPI_MODE_SEQUENTIAL)
    return fy_err(MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_get_byte_offset on a file opened with MPI_MODE_SEQUENTIAL");
  return byte_of(f, offset, disp);
}

int fy_mpi_file_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent) {
  int err;
  if (!fy_io_file(fh, &err)) return err;
  if (!extent) return fy_err(MPI_ERR_ARG, "extent = NULL");
  fy_file_t *f = fy_file_get(fh);
  const fy_datatype_t *t = fy_type_get(datatype);
  MPI_Aint x = t->extent; /* native: the memory extent */
  if (f->ext32) {
    MPI_Count e = fy_type_ext32_size(t);
    if (e < 0) return fy_err(MPI_ERR_TYPE, "datatype = %s has no external32 representation", t->name);
    if (e != t->size) x = (MPI_Aint)e; /* a packed stream: no holes */
  }
  if ((err = fy_io_datarep_extent(f->datarep, datatype, &x))) return err;
  *extent = x;
  return MPI_SUCCESS;
}

int fy_mpi_file_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent) {
  MPI_Count e = 0;
  int err = fy_mpi_file_get_type_extent_c(fh, datatype, &e);
  if (!err) *extent = (MPI_Aint)e;
  return err;
}

MPI_Offset fy_io_end_etypes(const fy_file_t *f, MPI_Offset size) {
  const fy_datatype_t *ft = f->ftype;
  if (size <= f->disp || ft->size == 0) return 0;
  MPI_Offset rel = size - f->disp;
  MPI_Offset ext = ft->extent > 0 ? (MPI_Offset)ft->extent : (MPI_Offset)ft->size;
  MPI_Offset k = rel / ext, rest = rel % ext, data = k * (MPI_Offset)ft->size;
  /* data bytes of one item that lie below `rest` */
  size_t pos = 0, got;
  struct iovec v[64];
  for (;;) {
    int n = fy_flat_iov(&ft->pk, 1, 0, pos, v, 64, (size_t)ft->size, &got);
    if (n <= 0) break;
    for (int i = 0; i < n; i++) {
      MPI_Offset b = (MPI_Offset)(uintptr_t)v[i].iov_base, l = (MPI_Offset)v[i].iov_len;
      if (b >= rest) goto done;
      data += (b + l <= rest) ? l : rest - b;
    }
    pos += got;
  }
done:;
  MPI_Offset es = fy_io_etype_size(f);
  return (data + es - 1) / es;
}
