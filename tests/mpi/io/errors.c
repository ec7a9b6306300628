/* MPI I/O errors: the class of each bad input, and where it goes — the
 * file's error handler, MPI_FILE_NULL's for open and delete (and for
 * invalid handles), never the communicator's (MPI_COMM_WORLD keeps
 * MPI_ERRORS_ARE_FATAL here, so a misrouted error ends the test).
 * Also MPI_MODE_DELETE_ON_CLOSE. */
#include "iotest.h"

static int calls;
static MPI_File last_file;
static int last_code;

static void on_file_error(MPI_File *f, int *code, ...) {
  calls++;
  last_file = *f;
  last_code = *code;
}

static int ext_fn(MPI_Datatype dt, MPI_Aint *extent, void *extra) {
  MPI_Aint lb;
  (void)extra;
  MPI_Type_get_extent(dt, &lb, extent);
  *extent *= 2; /* visible in MPI_File_get_type_extent */
  return MPI_SUCCESS;
}

static int conv_fn(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset pos, void *extra) {
  (void)userbuf; (void)dt; (void)count; (void)filebuf; (void)pos; (void)extra;
  return MPI_SUCCESS;
}

static int cls(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  return c;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  fy_init("io_errors");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_dir_init(MPI_COMM_WORLD);
  MPI_File fh;
  MPI_Status st;
  MPI_Errhandler eh;
  int v = 0;

  /* the default file error handler */
  CHECK_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "MPI_FILE_NULL's handler is %#x, not MPI_ERRORS_RETURN", (unsigned)eh);
  MPI_Errhandler_free(&eh);

  /* access modes */
  char p[512];
  snprintf(p, sizeof p, "%s", io_path("e.dat"));
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_EXCL, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, io_path("none/x"), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
              MPI_ERR_NO_SUCH_FILE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, io_dir, MPI_MODE_RDWR, MPI_INFO_NULL, &fh), MPI_ERR_BAD_FILE);
  CHECK_CLASS(MPI_File_delete(p, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
  if (size > 1) /* access modes that differ between processes */
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | (rank ? MPI_MODE_RDWR : MPI_MODE_WRONLY),
                              MPI_INFO_NULL, &fh), MPI_ERR_NOT_SAME);
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_close(&fh));
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
              MPI_ERR_FILE_EXISTS);
  if (geteuid() != 0) { /* root opens anything */
    if (rank == 0) chmod(p, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_ACCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) chmod(p, 0644);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  /* bad use of an open file */
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_CLASS(MPI_File_write_at(fh, 0, &v, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
  CHECK_CLASS(MPI_File_set_size(fh, 0), MPI_ERR_READ_ONLY);
  CHECK_CLASS(MPI_File_read_at(fh, -1, &v, 1, MPI_INT, &st), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "mine", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_SHORT, "native", MPI_INFO_NULL), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_DATATYPE_NULL, "native", MPI_INFO_NULL), MPI_ERR_TYPE);
  /* registered datareps: without conversion functions they are native data */
  CHECK_OK(MPI_Register_datarep("ferry-plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, ext_fn, NULL));
  CHECK_CLASS(MPI_Register_datarep("ferry-plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, ext_fn, NULL),
              MPI_ERR_DUP_DATAREP);
  CHECK_CLASS(MPI_Register_datarep("native", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, ext_fn, NULL),
              MPI_ERR_DUP_DATAREP);
  CHECK_OK(MPI_Register_datarep("ferry-conv", conv_fn, conv_fn, ext_fn, NULL));
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "ferry-conv", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "ferry-plain", MPI_INFO_NULL));
  {
    MPI_Aint x;
    MPI_Offset dd;
    MPI_Datatype e1, f1;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_OK(MPI_File_get_type_extent(fh, MPI_INT, &x));
    CHECK(x == 8, "extent through the datarep's extent function: %ld", (long)x);
    CHECK_OK(MPI_File_get_view(fh, &dd, &e1, &f1, rep));
    CHECK(!strcmp(rep, "ferry-plain"), "datarep of the view: %s", rep);
  }
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  short sh[3];
  CHECK_CLASS(MPI_File_read_at(fh, 0, sh, 3, MPI_SHORT, &st), MPI_ERR_TYPE); /* 6 bytes: not whole ints */
  CHECK_CLASS(MPI_File_read_at(fh, 0, &v, -1, MPI_INT, &st), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_File_read_all_end(fh, &v, &st), MPI_ERR_OTHER); /* no begin */
  {
    int w[2];
    CHECK_OK(MPI_File_read_at_all_begin(fh, 0, w, 1, MPI_INT));
    CHECK_CLASS(MPI_File_read_all_begin(fh, w, 1, MPI_INT), MPI_ERR_OTHER);  /* one at a time */
    CHECK_CLASS(MPI_File_read_all_end(fh, w, &st), MPI_ERR_OTHER);           /* not the one begun */
    CHECK_CLASS(MPI_File_read_at_all_end(fh, w + 1, &st), MPI_ERR_BUFFER);   /* another buffer */
    CHECK_OK(MPI_File_read_at_all_end(fh, w, &st));
  }
  /* a view's types: displacements non-negative and non-decreasing, and
   * pieces that overlap only in a file not opened for writing (MPI_ERR_IO,
   * as ROMIO) */
  MPI_Datatype neg, dec, ovl;
  int bl[2] = {1, 1}, dneg[2] = {-2, 2}, ddec[2] = {3, 0}, bl3[2] = {3, 1}, dovl[2] = {0, 1};
  MPI_Type_indexed(2, bl, dneg, MPI_INT, &neg);
  MPI_Type_indexed(2, bl, ddec, MPI_INT, &dec);
  MPI_Type_indexed(2, bl3, dovl, MPI_INT, &ovl);
  MPI_Type_commit(&neg);
  MPI_Type_commit(&dec);
  MPI_Type_commit(&ovl);
  CHECK_CLASS(MPI_File_set_view(fh, 0, neg, neg, "native", MPI_INFO_NULL), MPI_ERR_IO);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, dec, "native", MPI_INFO_NULL), MPI_ERR_IO);
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, ovl, "native", MPI_INFO_NULL));
  CHECK_OK(MPI_File_close(&fh));
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_CLASS(MPI_File_read_at(fh, 0, &v, 1, MPI_INT, &st), MPI_ERR_ACCESS);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, ovl, "native", MPI_INFO_NULL), MPI_ERR_IO);
  CHECK_CLASS(MPI_File_set_view(fh, 0, dec, dec, "native", MPI_INFO_NULL), MPI_ERR_IO);
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  MPI_Type_free(&neg);
  MPI_Type_free(&dec);
  MPI_Type_free(&ovl);
  CHECK_OK(MPI_File_close(&fh));
  /* invalid handles */
  int amode;
  CHECK_CLASS(MPI_File_get_amode(MPI_FILE_NULL, &amode), MPI_ERR_FILE);
  CHECK_CLASS(MPI_File_close(&fh), MPI_ERR_FILE);
  CHECK_CLASS(MPI_File_read(MPI_FILE_NULL, &v, 1, MPI_INT, &st), MPI_ERR_FILE);

  /* a user handler on MPI_FILE_NULL gets open's and delete's errors */
  MPI_Errhandler mine, commeh;
  CHECK_OK(MPI_File_create_errhandler(on_file_error, &mine));
  CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, mine));
  calls = 0;
  int rc = MPI_File_open(MPI_COMM_WORLD, io_path("absent"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(cls(rc) == MPI_ERR_NO_SUCH_FILE, "open absent: class %d", cls(rc));
  CHECK(calls == 1 && last_file == MPI_FILE_NULL && cls(last_code) == MPI_ERR_NO_SUCH_FILE,
        "FILE_NULL handler: %d calls, file %p, class %d", calls, (void *)last_file, cls(last_code));
  rc = MPI_File_delete(io_path("absent"), MPI_INFO_NULL);
  CHECK(calls == 2 && cls(rc) == MPI_ERR_NO_SUCH_FILE, "delete absent: %d calls, class %d", calls, cls(rc));
  /* a file opened now inherits it */
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_get_errhandler(fh, &eh));
  CHECK(eh == mine, "a new file's handler %#x, expected FILE_NULL's %#x", (unsigned)eh, (unsigned)mine);
  MPI_Errhandler_free(&eh);
  CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  calls = 0;
  rc = MPI_File_seek(fh, -5, MPI_SEEK_SET);
  CHECK(calls == 1 && last_file == fh && cls(last_code) == MPI_ERR_ARG && cls(rc) == MPI_ERR_ARG,
        "file handler: %d calls, file ok %d, class %d", calls, last_file == fh, cls(last_code));
  /* (ROMIO's name for an I/O request, which MPICH's mpi.h brings in too) */
  MPIO_Request ior;
  CHECK_OK(MPI_File_iread_at(fh, 0, &v, 1, MPI_INT, &ior));
  CHECK_OK(MPIO_Wait(&ior, &st));
  CHECK_OK(MPI_File_call_errhandler(fh, MPI_ERR_IO));
  CHECK(calls == 2 && cls(last_code) == MPI_ERR_IO, "call_errhandler: %d calls", calls);
  /* binding checks go to the file's handler too */
  rc = MPI_File_write(fh, &v, 1, MPI_DATATYPE_NULL, &st);
  CHECK(calls == 3 && cls(rc) == MPI_ERR_TYPE, "bad datatype: %d calls, class %d", calls, cls(rc));
  /* a communicator handler does not fit a file */
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &commeh);
  CHECK_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
  MPI_Errhandler ceh;
  MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void (*)(void))on_file_error, &ceh);
  CHECK_CLASS(MPI_File_set_errhandler(fh, ceh), MPI_ERR_ARG);
  MPI_Errhandler_free(&ceh);
  MPI_Errhandler_free(&commeh);
  calls = 0;
  CHECK_CLASS(MPI_File_seek(fh, -5, MPI_SEEK_SET), MPI_ERR_ARG);
  CHECK(calls == 0, "MPI_ERRORS_RETURN on the file still called the user handler");
  CHECK_OK(MPI_File_close(&fh));
  /* MPI_FILE_NULL's handler again */
  CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, mine));
  CHECK_OK(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_AMODE));
  CHECK(calls == 1 && last_file == MPI_FILE_NULL, "call_errhandler on FILE_NULL: %d calls", calls);
  CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  MPI_Errhandler_free(&mine);

  /* MPI_MODE_DELETE_ON_CLOSE */
  const char *d = io_path("doc.dat");
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, d, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN,
                         MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_write_at(fh, rank, "x", 1, MPI_CHAR, &st));
  CHECK(access(d, F_OK) == 0, "file gone before close");
  CHECK_OK(MPI_File_close(&fh));
  CHECK(access(d, F_OK) != 0, "file still there after close with MPI_MODE_DELETE_ON_CLOSE");

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_OK(MPI_File_delete(p, MPI_INFO_NULL));
  io_dir_done(MPI_COMM_WORLD);
  return fy_finish();
}
