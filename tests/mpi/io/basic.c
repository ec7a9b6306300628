/* MPI I/O calls one by one on the default view: open/close, explicit
 * offsets, the individual pointer, collective and split collective forms,
 * nonblocking forms, size/preallocate/sync, amode, group, info, byte
 * offsets, type extents, atomicity, statuses (Get_count/Get_elements). */
#include "iotest.h"

static void explicit_offsets(int rank, int size) {
  MPI_File fh;
  MPI_Status st;
  int cnt;
  const char *p = io_path("at.dat");
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK(fh != MPI_FILE_NULL, "open gave MPI_FILE_NULL");
  int buf[8], in[8];
  for (int i = 0; i < 8; i++) buf[i] = rank * 100 + i;
  CHECK_OK(MPI_File_write_at(fh, (MPI_Offset)rank * sizeof buf, buf, 8, MPI_INT, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &cnt));
  CHECK(cnt == 8, "write_at count %d", cnt);
  CHECK_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(MPI_File_sync(fh));
  int peer = (rank + 1) % size;
  memset(in, 0, sizeof in);
  CHECK_OK(MPI_File_read_at(fh, (MPI_Offset)peer * sizeof in, in, 8, MPI_INT, &st));
  for (int i = 0; i < 8; i++) CHECK(in[i] == peer * 100 + i, "read_at in[%d] = %d", i, in[i]);
  MPI_Offset fsz;
  CHECK_OK(MPI_File_get_size(fh, &fsz));
  CHECK(fsz == (MPI_Offset)(size * sizeof buf), "size %lld", (long long)fsz);
  /* reading past the end: a short count, not an error */
  CHECK_OK(MPI_File_read_at(fh, fsz - 2 * sizeof(int), in, 8, MPI_INT, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &cnt));
  CHECK(cnt == 2, "read at end: count %d, expected 2", cnt);
  CHECK_OK(MPI_Get_elements(&st, MPI_INT, &cnt));
  CHECK(cnt == 2, "read at end: elements %d", cnt);
  /* collective forms (after everyone has read the first values) */
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < 8; i++) buf[i] = -(rank * 100 + i);
  CHECK_OK(MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof buf, buf, 8, MPI_INT, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(MPI_File_sync(fh));
  CHECK_OK(MPI_File_read_at_all(fh, (MPI_Offset)peer * sizeof in, in, 8, MPI_INT, &st));
  for (int i = 0; i < 8; i++) CHECK(in[i] == -(peer * 100 + i), "read_at_all in[%d] = %d", i, in[i]);
  /* large-count forms */
  MPI_Count cc;
  CHECK_OK(MPI_File_read_at_c(fh, (MPI_Offset)peer * sizeof in, in, (MPI_Count)8, MPI_INT, &st));
  CHECK_OK(MPI_Get_count_c(&st, MPI_INT, &cc));
  CHECK(cc == 8, "read_at_c count %lld", (long long)cc);
  /* split collective */
  CHECK_OK(MPI_File_read_at_all_begin(fh, 0, in, 8, MPI_INT));
  CHECK_OK(MPI_File_read_at_all_end(fh, in, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &cnt));
  CHECK(cnt == 8 && in[3] == -3, "split read_at_all: count %d in[3] %d", cnt, in[3]);
  /* nonblocking */
  MPI_Request rq[2];
  int nb[4] = {7, 7, 7, 7}, nbin[4];
  MPI_Offset tail = (MPI_Offset)size * sizeof buf + (MPI_Offset)rank * sizeof nb;
  CHECK_OK(MPI_File_iwrite_at(fh, tail, nb, 4, MPI_INT, &rq[0]));
  CHECK_OK(MPI_Wait(&rq[0], &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &cnt));
  CHECK(cnt == 4, "iwrite_at count %d", cnt);
  CHECK_OK(MPI_File_iread_at(fh, tail, nbin, 4, MPI_INT, &rq[1]));
  int flag = 0;
  while (!flag) CHECK_OK(MPI_Test(&rq[1], &flag, &st));
  CHECK(nbin[0] == 7 && nbin[3] == 7, "iread_at %d %d", nbin[0], nbin[3]);
  CHECK_OK(MPI_File_iread_at_all(fh, tail, nbin, 4, MPI_INT, &rq[0]));
  CHECK_OK(MPI_File_iwrite_at_all(fh, tail, nb, 4, MPI_INT, &rq[1]));
  CHECK_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  CHECK_OK(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL, "close did not set MPI_FILE_NULL");
}

static void individual(int rank) {
  MPI_File fh;
  MPI_Status st;
  MPI_Offset pos;
  int cnt;
  char name[32];
  snprintf(name, sizeof name, "self%d.dat", rank);
  CHECK_OK(MPI_File_open(MPI_COMM_SELF, io_path(name), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  double d[10], e[10];
  for (int i = 0; i < 10; i++) d[i] = i + 0.5;
  CHECK_OK(MPI_File_write(fh, d, 4, MPI_DOUBLE, &st));
  CHECK_OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == 32, "position after 4 doubles: %lld", (long long)pos);
  CHECK_OK(MPI_File_write_all(fh, d + 4, 3, MPI_DOUBLE, &st));
  CHECK_OK(MPI_File_write_all_begin(fh, d + 7, 3, MPI_DOUBLE));
  CHECK_OK(MPI_File_write_all_end(fh, d + 7, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
  CHECK(cnt == 3, "write_all_end count %d", cnt);
  CHECK_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  CHECK_OK(MPI_File_read(fh, e, 2, MPI_DOUBLE, &st));
  CHECK(e[0] == 0.5 && e[1] == 1.5, "read %g %g", e[0], e[1]);
  CHECK_OK(MPI_File_seek(fh, 8, MPI_SEEK_CUR));
  CHECK_OK(MPI_File_read_all(fh, e, 1, MPI_DOUBLE, &st));
  CHECK(e[0] == 3.5, "read after seek cur %g", e[0]);
  CHECK_OK(MPI_File_seek(fh, -16, MPI_SEEK_END));
  CHECK_OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == 64, "seek end position %lld", (long long)pos);
  MPI_Request rq;
  CHECK_OK(MPI_File_iread(fh, e, 2, MPI_DOUBLE, &rq));
  CHECK_OK(MPI_Wait(&rq, &st));
  CHECK(e[0] == 8.5 && e[1] == 9.5, "iread %g %g", e[0], e[1]);
  CHECK_OK(MPI_File_read_all_begin(fh, e, 2, MPI_DOUBLE));
  CHECK_OK(MPI_File_read_all_end(fh, e, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
  CHECK(cnt == 0, "read_all at end of file: count %d", cnt);
  CHECK_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  CHECK_OK(MPI_File_iwrite(fh, d, 1, MPI_DOUBLE, &rq));
  CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_File_iwrite_all(fh, d, 1, MPI_DOUBLE, &rq));
  CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_File_iread_all(fh, e, 1, MPI_DOUBLE, &rq));
  CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  CHECK(e[0] == 2.5, "iread_all %g", e[0]);
  /* a non-contiguous memory type: every other int of a buffer */
  MPI_Datatype vec;
  MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int src[8] = {1, -1, 2, -1, 3, -1, 4, -1}, dst[8] = {0};
  CHECK_OK(MPI_File_write_at(fh, 0, src, 1, vec, &st));
  CHECK_OK(MPI_Get_elements(&st, vec, &cnt));
  CHECK(cnt == 4, "elements of the vector write %d", cnt);
  int flat[4];
  CHECK_OK(MPI_File_read_at(fh, 0, flat, 4, MPI_INT, &st));
  CHECK(flat[0] == 1 && flat[3] == 4, "packed in the file: %d %d", flat[0], flat[3]);
  CHECK_OK(MPI_File_read_at(fh, 0, dst, 1, vec, &st));
  CHECK(dst[0] == 1 && dst[2] == 2 && dst[6] == 4 && dst[1] == 0, "vector read %d %d %d %d", dst[0], dst[2],
        dst[6], dst[1]);
  MPI_Type_free(&vec);
  /* large memory blocks (moved by iovecs, not a bounce buffer): 3 blocks of
   * 1024 ints, 2048 apart */
  MPI_Type_vector(3, 1024, 2048, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int *big = malloc(5 * 2048 * sizeof *big), *lin = malloc(3 * 1024 * sizeof *lin);
  for (int i = 0; i < 5 * 2048; i++) big[i] = i;
  CHECK_OK(MPI_File_write_at(fh, 0, big, 1, vec, &st));
  CHECK_OK(MPI_File_read_at(fh, 0, lin, 3 * 1024, MPI_INT, &st));
  for (int b = 0, bad = 0; b < 3 && !bad; b++)
    for (int i = 0; i < 1024 && !bad; i++)
      if (lin[b * 1024 + i] != b * 2048 + i) {
        bad = 1;
        CHECK(0, "big-block write: file int %d = %d", b * 1024 + i, lin[b * 1024 + i]);
      }
  memset(big, 0xff, 5 * 2048 * sizeof *big);
  CHECK_OK(MPI_File_read_at(fh, 0, big, 2, vec, &st)); /* 2 items: 6 blocks, the file has 3 */
  CHECK_OK(MPI_Get_count(&st, vec, &cnt));
  CHECK(cnt == 1, "count of the items read: %d", cnt);
  CHECK_OK(MPI_Get_elements(&st, vec, &cnt));
  CHECK(cnt == 3 * 1024, "elements %d", cnt);
  CHECK(big[0] == 0 && big[2048 + 1023] == 2048 + 1023 && big[1024] == -1 && big[4096] == 2048 * 2,
        "big-block read %d %d %d %d", big[0], big[2048 + 1023], big[1024], big[4096]);
  int *part = malloc(5 * 2048 * sizeof *part);
  CHECK_OK(MPI_File_read_at(fh, 512 * sizeof(int), part, 1, vec, &st)); /* 2560 of 3072 ints left */
  CHECK_OK(MPI_Get_count(&st, vec, &cnt));
  CHECK(cnt == MPI_UNDEFINED, "count of part of an item: %d", cnt);
  CHECK_OK(MPI_Get_elements(&st, vec, &cnt));
  CHECK(cnt == 2560, "elements of part of an item: %d", cnt);
  CHECK(part[0] == 512 && part[4096 + 511] == 2 * 2048 + 1023, "partial read %d %d", part[0], part[4096 + 511]);
  free(part);
  free(big);
  free(lin);
  MPI_Type_free(&vec);
  CHECK_OK(MPI_File_close(&fh));
}

static void state(int rank, int size) {
  MPI_File fh;
  const char *p = io_path("state.dat");
  int amode;
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_get_amode(fh, &amode));
  CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_WRONLY), "amode %#x", amode);
  CHECK_OK(MPI_File_set_size(fh, 1000));
  MPI_Offset s;
  CHECK_OK(MPI_File_get_size(fh, &s));
  CHECK(s == 1000, "size after set_size %lld", (long long)s);
  CHECK_OK(MPI_File_set_size(fh, 10));
  CHECK_OK(MPI_File_get_size(fh, &s));
  CHECK(s == 10, "size after shrinking %lld", (long long)s);
  CHECK_OK(MPI_File_preallocate(fh, 4096));
  CHECK_OK(MPI_File_get_size(fh, &s));
  CHECK(s == 4096, "size after preallocate %lld", (long long)s);
  CHECK_OK(MPI_File_preallocate(fh, 100)); /* never shrinks */
  CHECK_OK(MPI_File_get_size(fh, &s));
  CHECK(s == 4096, "size after a smaller preallocate %lld", (long long)s);
  MPI_Group g, wg;
  int res;
  CHECK_OK(MPI_File_get_group(fh, &g));
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_compare(g, wg, &res);
  CHECK(res == MPI_IDENT, "file group vs world: %d", res);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  MPI_Info info;
  char v[MPI_MAX_INFO_VAL];
  int flag;
  CHECK_OK(MPI_File_get_info(fh, &info));
  MPI_Info_get(info, "filename", MPI_MAX_INFO_VAL - 1, v, &flag);
  CHECK(flag && !strcmp(v, p), "filename hint: %s", flag ? v : "(none)");
  MPI_Info_free(&info);
  MPI_Info_create(&info);
  MPI_Info_set(info, "access_style", "write_once");
  CHECK_OK(MPI_File_set_info(fh, info));
  MPI_Info_free(&info);
  CHECK_OK(MPI_File_get_info(fh, &info));
  MPI_Info_get(info, "access_style", MPI_MAX_INFO_VAL - 1, v, &flag);
  CHECK(flag && !strcmp(v, "write_once"), "access_style hint: %s", flag ? v : "(none)");
  MPI_Info_free(&info);
  CHECK_OK(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 0, "atomicity by default %d", flag);
  CHECK_OK(MPI_File_set_atomicity(fh, 1));
  CHECK_OK(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 1, "atomicity after set %d", flag);
  /* atomic mode: conflicting writes of whole blocks, each all or nothing */
  char blk[256];
  memset(blk, 'a' + rank, sizeof blk);
  CHECK_OK(MPI_File_write_at(fh, 0, blk, sizeof blk, MPI_CHAR, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_File_set_atomicity(fh, 0));
  MPI_Offset off;
  CHECK_OK(MPI_File_get_byte_offset(fh, 5, &off));
  CHECK(off == 5, "byte offset in the default view %lld", (long long)off);
  MPI_Aint ext;
  CHECK_OK(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
  CHECK(ext == 8, "type extent %ld", (long)ext);
  CHECK_OK(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    /* the atomic block is one writer's */
    FILE *fp = fopen(p, "rb");
    CHECK(fp != NULL, "reopen");
    if (fp) {
      CHECK(fread(blk, 1, sizeof blk, fp) == sizeof blk, "short file");
      fclose(fp);
      for (size_t i = 1; i < sizeof blk; i++) CHECK(blk[i] == blk[0], "mixed block at %zu", i);
      CHECK(blk[0] >= 'a' && blk[0] < 'a' + size, "block byte %c", blk[0]);
    }
  }
  if (rank == 0) CHECK_OK(MPI_File_delete(p, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
  /* the file_perm hint sets the mode of a created file */
  MPI_Info_create(&info);
  MPI_Info_set(info, "file_perm", "600");
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info, &fh));
  MPI_Info_free(&info);
  struct stat sb;
  CHECK(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0600, "mode of a file created with file_perm 600: %o",
        (unsigned)(sb.st_mode & 0777));
  CHECK_OK(MPI_File_get_info(fh, &info));
  MPI_Info_get(info, "file_perm", MPI_MAX_INFO_VAL - 1, v, &flag);
  CHECK(flag && !strcmp(v, "600"), "file_perm hint: %s", flag ? v : "(none)");
  MPI_Info_free(&info);
  CHECK_OK(MPI_File_close(&fh));
  /* c2f/f2c round trip */
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
  MPI_Fint fi = MPI_File_c2f(fh);
  CHECK(MPI_File_f2c(fi) == fh, "f2c(c2f(fh)) != fh");
  CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0 && MPI_File_f2c(0) == MPI_FILE_NULL, "FILE_NULL conversions");
  CHECK_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  fy_init("io_basic");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_dir_init(MPI_COMM_WORLD);
  explicit_offsets(rank, size);
  individual(rank);
  state(rank, size);
  io_dir_done(MPI_COMM_WORLD);
  return fy_finish();
}
