/* File objects: handles, conversions, the error handler slot, errno
 * mapping. See fy_io.h. */
#include "io/fy_io.h"
#include "core/fy_handle.h"
#include "core/fy_error.h"
#include "core/fy_errhandler.h"
#include "binding/fy_impl.h"
#include <errno.h>
#include <string.h>

static fy_htab_t file_tab = {.obj = FY_OK_FILE};
/* MPI_FILE_NULL's handler: the default for files opened later (MPI 4.1 14.7). */
static MPI_Errhandler file_null_eh = MPI_ERRORS_RETURN;

fy_file_t *fy_file_get(MPI_File fh) {
  if (fh == MPI_FILE_NULL) return NULL;
  intptr_t v = (intptr_t)fh;
  if (v != (intptr_t)(int)v) return NULL; /* not one of our handles */
  return fy_htab_get(&file_tab, (int)v);
}

fy_file_t *fy_io_file(MPI_File fh, int *err) {
  fy_file_t *f = fy_file_get(fh);
  if (!f)
    *err = fh == MPI_FILE_NULL ? fy_err(MPI_ERR_FILE, "fh = MPI_FILE_NULL is not an open file")
                               : fy_err(MPI_ERR_FILE, "fh = %p is not an open file", (void *)fh);
  return f;
}

int fy_io_file_add(fy_file_t *f) {
  f->handle = fy_htab_add(&file_tab, f);
  return f->handle ? MPI_SUCCESS : fy_err(MPI_ERR_NO_MEM, "out of file handles");
}

void fy_io_file_remove(fy_file_t *f) {
  if (f->handle) fy_htab_remove(&file_tab, f->handle);
  f->handle = 0;
}

MPI_Errhandler *fy_file_errhandler_slot(MPI_File file) {
  if (file == MPI_FILE_NULL) return &file_null_eh;
  fy_file_t *f = fy_file_get(file);
  return f ? &f->eh : NULL;
}

MPI_Errhandler fy_io_default_errhandler(void) { return file_null_eh; }

MPI_Fint fy_mpi_file_c2f(MPI_File file) {
  fy_file_t *f = fy_file_get(file);
  return f ? (MPI_Fint)f->handle : 0;
}
MPI_File fy_mpi_file_f2c(MPI_Fint file) {
  fy_file_t *f = fy_file_get((MPI_File)(intptr_t)file);
  return f ? fy_file_handle(f) : MPI_FILE_NULL;
}
int fy_mpi_file_toint(MPI_File file) { return fy_mpi_file_c2f(file); }
MPI_File fy_mpi_file_fromint(int file) { return fy_mpi_file_f2c(file); }

int fy_io_errno(int e, const char *what, const char *name) {
  int cls;
  switch (e) {
    case ENOENT: cls = MPI_ERR_NO_SUCH_FILE; break;
    case EACCES: case EPERM: cls = MPI_ERR_ACCESS; break;
    case EEXIST: cls = MPI_ERR_FILE_EXISTS; break;
    case ENOSPC: case EDQUOT: case EFBIG: cls = MPI_ERR_NO_SPACE; break;
    case EROFS: cls = MPI_ERR_READ_ONLY; break;
    case ENAMETOOLONG: case EISDIR: case ENOTDIR: case ELOOP: case EINVAL: cls = MPI_ERR_BAD_FILE; break;
    case ETXTBSY: case EBUSY: cls = MPI_ERR_FILE_IN_USE; break;
    case ENOMEM: cls = MPI_ERR_NO_MEM; break;
    default: cls = MPI_ERR_IO; break;
  }
  return fy_err(cls, "%s %s: %s", what, name ? name : "", strerror(e));
}
