/* Collective I/O through aggregators (two-phase collective buffering,
 * src/io/coll.c), against the file's bytes read back independently:
 * - ints dealt round-robin to the processes (a resized one-int filetype at
 *   displacement rank), write_all then read_all, with every aggregator
 *   setting: the default (automatic: independent on one host), with
 *   romio_cb_write/read = enable cb_nodes = 1 and 2 and a cb_buffer_size of
 *   4 KiB (many rounds), romio_cb_write/read = disable, and read enabled
 *   alone;
 * - blocks of a 2-D array by a subarray filetype, write_at_all with an
 *   explicit offset, one process with nothing to write;
 * - a read_all past the end of the file: each process gets the count of
 *   its ints that exist;
 * - a memory datatype that is not contiguous (every other int);
 * - split collectives (write_all_begin/end) through the same path. */
#include "iotest.h"
#include <stdlib.h>
#include <string.h>

static int rank, size;

static int val(int i) { return i * 7 + 3; }

/* Rank 0 reads the whole file with the default view and checks n ints. */
static void check_file(MPI_File fh, int n, const char *what) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int *all = malloc(sizeof(int) * (size_t)n + 1);
    MPI_Status st;
    CHECK_OK(MPI_File_read_at(fh, 0, all, n, MPI_INT, &st));
    int bad = -1;
    for (int i = 0; i < n && bad < 0; i++)
      if (all[i] != val(i)) bad = i;
    CHECK(bad < 0, "%s: file int %d = %d, want %d", what, bad, bad < 0 ? 0 : all[bad], bad < 0 ? 0 : val(bad));
    free(all);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void cyclic(const char *name, MPI_Info info) {
  const int per = 3000; /* ints per process */
  int n = per * size;
  MPI_File fh;
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, io_path(name), MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Datatype one, ft;
  MPI_Type_contiguous(1, MPI_INT, &one);
  MPI_Type_create_resized(one, 0, (MPI_Aint)(sizeof(int) * (size_t)size), &ft);
  MPI_Type_commit(&ft);
  CHECK_OK(MPI_File_set_view(fh, (MPI_Offset)(sizeof(int) * (size_t)rank), MPI_INT, ft, "native", MPI_INFO_NULL));
  int *b = malloc(sizeof(int) * per), *r = malloc(sizeof(int) * per);
  for (int i = 0; i < per; i++) b[i] = val(i * size + rank);
  MPI_Status st;
  CHECK_OK(MPI_File_write_all(fh, b, per, MPI_INT, &st));
  int cnt = -1;
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == per, "%s: write_all count %d", name, cnt);
  CHECK_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  memset(r, 0, sizeof(int) * per);
  CHECK_OK(MPI_File_read_all(fh, r, per, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == per, "%s: read_all count %d", name, cnt);
  int bad = -1;
  for (int i = 0; i < per && bad < 0; i++)
    if (r[i] != val(i * size + rank)) bad = i;
  CHECK(bad < 0, "%s: read_all int %d = %d", name, bad, bad < 0 ? 0 : r[bad]);
  /* past the end: ask for twice as many */
  int *big = malloc(sizeof(int) * 2 * per);
  CHECK_OK(MPI_File_read_at_all(fh, 0, big, 2 * per, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == per, "%s: read_at_all past the end counted %d, want %d", name, cnt, per);
  /* memory every other int: read into the even slots */
  MPI_Datatype every2;
  MPI_Type_vector(per, 1, 2, MPI_INT, &every2);
  MPI_Type_commit(&every2);
  for (int i = 0; i < 2 * per; i++) big[i] = -5;
  CHECK_OK(MPI_File_read_at_all(fh, 0, big, 1, every2, &st));
  bad = -1;
  for (int i = 0; i < per && bad < 0; i++)
    if (big[2 * i] != val(i * size + rank) || big[2 * i + 1] != -5) bad = i;
  CHECK(bad < 0, "%s: strided memory read, item %d", name, bad);
  MPI_Type_free(&every2);
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  check_file(fh, n, name);
  MPI_Type_free(&ft);
  MPI_Type_free(&one);
  free(big);
  free(b);
  free(r);
  CHECK_OK(MPI_File_close(&fh));
}

/* A 2-D array of (rows x cols) ints in blocks of rows: process p owns the
 * column block p (the last one none at size > 1: nothing to write). */
static void blocks(void) {
  int writers = size > 1 ? size - 1 : 1, rows = 64, bc = 40, cols = bc * writers;
  MPI_File fh;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "cb_buffer_size", "4096");
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, io_path("blocks"), MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  int sizes[2] = {rows, cols}, sub[2] = {rows, bc}, start[2] = {0, (rank < writers ? rank : 0) * bc};
  MPI_Datatype ft;
  MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_INT, &ft);
  MPI_Type_commit(&ft);
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
  int *b = malloc(sizeof(int) * (size_t)(rows * bc));
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < bc; j++) b[i * bc + j] = val(i * cols + start[1] + j);
  int mine = rank < writers ? rows * bc : 0;
  MPI_Status st;
  /* split collective, then an explicit-offset one over the same bytes */
  CHECK_OK(MPI_File_write_all_begin(fh, b, mine, MPI_INT));
  CHECK_OK(MPI_File_write_all_end(fh, b, &st));
  CHECK_OK(MPI_File_write_at_all(fh, 0, b, mine, MPI_INT, &st));
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  check_file(fh, rows * cols, "blocks");
  MPI_Type_free(&ft);
  free(b);
  CHECK_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("io_coll");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_dir_init(MPI_COMM_WORLD);
  const char *hints[][2] = {{NULL, NULL},          {"cb_nodes", "1"},       {"cb_nodes", "2"},
                            {"cb_buffer_size", "4096"}, {"romio_cb_write", "disable"}, {"romio_cb_read", "enable"}};
  for (int h = 0; h < 6; h++) {
    MPI_Info info = MPI_INFO_NULL;
    char name[32];
    snprintf(name, sizeof name, "cyclic%d", h);
    if (hints[h][0]) {
      MPI_Info_create(&info);
      MPI_Info_set(info, hints[h][0], hints[h][1]);
      if (h == 4) MPI_Info_set(info, "romio_cb_read", "disable");
      if (h >= 1 && h <= 3) MPI_Info_set(info, "romio_cb_write", "enable"), MPI_Info_set(info, "romio_cb_read", "enable");
    }
    cyclic(name, info);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  }
  blocks();
  /* the hints a file reports */
  MPI_File fh;
  MPI_Info info, used;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_nodes", "1");
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, io_path("hints"), MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_File_get_info(fh, &used);
  char v[64];
  int len = sizeof v, flag = 0;
  MPI_Info_get_string(used, "cb_nodes", &len, v, &flag);
  CHECK(flag && !strcmp(v, "1"), "cb_nodes hint reported as %s", flag ? v : "(none)");
  len = sizeof v;
  MPI_Info_get_string(used, "romio_cb_write", &len, v, &flag);
  CHECK(flag && !strcmp(v, "automatic"), "romio_cb_write reported as %s", flag ? v : "(none)");
  MPI_Info_free(&used);
  MPI_Info_free(&info);
  CHECK_OK(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) io_rmdir();
  return fy_finish();
}
