/* File views: the classic strided interleave (each rank's filetype a vector
 * of blocks with the other ranks' blocks as holes), a displacement, an etype
 * other than a byte, get_view, get_byte_offset, SEEK_END in a view, and a
 * non-contiguous memory type into a non-contiguous view. */
#include "iotest.h"

#define BLK 3    /* ints per block */
#define NBLK 5   /* blocks per rank */
#define HDR 16   /* bytes of header before the data */

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  fy_init("io_view");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_dir_init(MPI_COMM_WORLD);
  const char *p = io_path("strided.dat");
  MPI_File fh;
  MPI_Status st;
  int cnt;
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));

  /* rank r owns blocks r, r+size, r+2*size, ... of BLK ints after HDR bytes */
  MPI_Datatype blk;
  MPI_Type_contiguous(BLK, MPI_INT, &blk);
  MPI_Datatype filetype;
  /* shift by rank blocks: an indexed-block type with one displacement */
  int disp_blk = rank;
  MPI_Datatype shifted;
  MPI_Type_create_indexed_block(1, 1, &disp_blk, blk, &shifted);
  MPI_Type_create_resized(shifted, 0, (MPI_Aint)size * BLK * sizeof(int), &filetype);
  MPI_Type_free(&shifted);
  MPI_Type_commit(&filetype);
  CHECK_OK(MPI_File_set_view(fh, HDR, MPI_INT, filetype, "native", MPI_INFO_NULL));

  int data[NBLK * BLK];
  for (int i = 0; i < NBLK * BLK; i++) data[i] = rank * 1000 + i;
  CHECK_OK(MPI_File_write_all(fh, data, NBLK * BLK, MPI_INT, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &cnt));
  CHECK(cnt == NBLK * BLK, "write_all count %d", cnt);
  MPI_Offset pos;
  CHECK_OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == NBLK * BLK, "position in etypes %lld", (long long)pos);
  MPI_Offset boff;
  CHECK_OK(MPI_File_get_byte_offset(fh, BLK + 1, &boff));
  CHECK(boff == HDR + (MPI_Offset)((size + rank) * BLK + 1) * 4, "byte offset of etype %d: %lld", BLK + 1,
        (long long)boff);
  CHECK_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(MPI_File_sync(fh));

  /* the whole file through the default view: the interleave */
  MPI_Offset fsz;
  CHECK_OK(MPI_File_get_size(fh, &fsz));
  CHECK(fsz == HDR + (MPI_Offset)size * NBLK * BLK * 4, "file size %lld", (long long)fsz);
  int n = size * NBLK * BLK;
  int *all = calloc((size_t)n, sizeof *all);
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  CHECK_OK(MPI_File_read_at(fh, HDR, all, n, MPI_INT, &st));
  for (int b = 0; b < size * NBLK; b++)
    for (int k = 0; k < BLK; k++) {
      int owner = b % size, idx = (b / size) * BLK + k;
      CHECK(all[b * BLK + k] == owner * 1000 + idx, "file int %d = %d, expected %d", b * BLK + k,
            all[b * BLK + k], owner * 1000 + idx);
    }
  free(all);

  /* read a neighbour's stripe back through its view, into every other int */
  int peer = (rank + 1) % size;
  MPI_Datatype pf, pshift;
  MPI_Type_create_indexed_block(1, 1, &peer, blk, &pshift);
  MPI_Type_create_resized(pshift, 0, (MPI_Aint)size * BLK * sizeof(int), &pf);
  MPI_Type_free(&pshift);
  MPI_Type_commit(&pf);
  CHECK_OK(MPI_File_set_view(fh, HDR, MPI_INT, pf, "native", MPI_INFO_NULL));
  MPI_Datatype every2;
  MPI_Type_vector(NBLK * BLK, 1, 2, MPI_INT, &every2);
  MPI_Type_commit(&every2);
  int back[2 * NBLK * BLK];
  memset(back, 0xff, sizeof back);
  CHECK_OK(MPI_File_read_at_all(fh, 0, back, 1, every2, &st));
  CHECK_OK(MPI_Get_elements(&st, every2, &cnt));
  CHECK(cnt == NBLK * BLK, "elements %d", cnt);
  for (int i = 0; i < NBLK * BLK; i++) {
    CHECK(back[2 * i] == peer * 1000 + i, "peer int %d = %d", i, back[2 * i]);
    CHECK(back[2 * i + 1] == -1, "hole in memory written at %d", i);
  }
  /* SEEK_END in the view: the end of the peer's stripe */
  CHECK_OK(MPI_File_seek(fh, 0, MPI_SEEK_END));
  CHECK_OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == NBLK * BLK, "SEEK_END position %lld", (long long)pos);
  /* reading past the last block of the view: a short count */
  CHECK_OK(MPI_File_read_at(fh, (NBLK - 1) * BLK + 1, back, 2 * BLK, MPI_INT, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &cnt));
  CHECK(cnt == BLK - 1, "short read count %d", cnt);

  MPI_Offset d;
  MPI_Datatype et, ftq;
  char rep[MPI_MAX_DATAREP_STRING];
  CHECK_OK(MPI_File_get_view(fh, &d, &et, &ftq, rep));
  CHECK(d == HDR && et == MPI_INT && !strcmp(rep, "native"), "get_view %lld %s", (long long)d, rep);
  int sz;
  MPI_Type_size(ftq, &sz);
  CHECK(sz == BLK * 4, "filetype size %d", sz);
  MPI_Type_free(&ftq);

  /* external32: big-endian in the file, the native layout */
  CHECK_OK(MPI_File_set_view(fh, HDR, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
  CHECK_OK(MPI_File_get_view(fh, &d, &et, &ftq, rep));
  CHECK(!strcmp(rep, "external32"), "datarep of the external32 view: %s", rep);
  int x[2] = {0x01020304, -2}, y[2] = {0, 0};
  CHECK_OK(MPI_File_write_at(fh, 2 * rank, x, 2, MPI_INT, &st));
  CHECK_OK(MPI_File_read_at(fh, 2 * rank, y, 2, MPI_INT, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &cnt));
  CHECK(cnt == 2 && y[0] == x[0] && y[1] == -2, "external32 round trip %d: %#x %d", cnt, y[0], y[1]);
  MPI_Aint ext;
  CHECK_OK(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
  CHECK(ext == 4, "MPI_LONG in external32: %ld bytes", (long)ext);
  long lv = 1;
  CHECK_CLASS(MPI_File_write_at(fh, 0, &lv, 1, MPI_LONG, &st), MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_CLASS(MPI_File_set_view(fh, HDR, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_OK(MPI_File_set_view(fh, HDR, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  unsigned char raw[8];
  CHECK_OK(MPI_File_read_at(fh, 8 * rank, raw, 8, MPI_BYTE, &st));
  CHECK(raw[0] == 1 && raw[1] == 2 && raw[2] == 3 && raw[3] == 4 && raw[4] == 0xff && raw[7] == 0xfe,
        "external32 bytes %02x %02x %02x %02x %02x %02x", raw[0], raw[1], raw[2], raw[3], raw[4], raw[7]);

  MPI_Type_free(&every2);
  MPI_Type_free(&pf);
  MPI_Type_free(&filetype);
  MPI_Type_free(&blk);
  CHECK_OK(MPI_File_close(&fh));
  io_dir_done(MPI_COMM_WORLD);
  return fy_finish();
}
