/* The shared file pointer: concurrent write_shared/read_shared take
 * disjoint places, write_ordered/read_ordered go in rank order (also split
 * and through a view), seek_shared/get_position_shared, the nonblocking
 * forms, MPI_MODE_SEQUENTIAL and MPI_MODE_APPEND. With FERRY_NOLOCAL=1
 * (mpi.net.nolocal.io_shared) the processes count as on different nodes
 * and the pointer lives in a hidden pointer file instead of a window. */
#include "iotest.h"

#define N 20

int main(int argc, char **argv) {
  int rank, size, cnt;
  MPI_Init(&argc, &argv);
  fy_init("io_shared");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_dir_init(MPI_COMM_WORLD);
  MPI_File fh;
  MPI_Status st;
  MPI_Offset pos;
  const char *p = io_path("shared.dat");
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));

  /* N appends of one int each by every rank, all at once */
  for (int i = 0; i < N; i++) {
    int v = rank * N + i;
    if (i % 2) {
      CHECK_OK(MPI_File_write_shared(fh, &v, 1, MPI_INT, &st));
    } else {
      MPI_Request rq;
      CHECK_OK(MPI_File_iwrite_shared(fh, &v, 1, MPI_INT, &rq));
      CHECK_OK(MPI_Wait(&rq, &st));
    }
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(cnt == 1, "write_shared count %d", cnt);
  }
  CHECK_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(MPI_File_sync(fh));
  CHECK_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == (MPI_Offset)size * N, "shared position %lld, expected %d", (long long)pos, size * N);
  /* every value once */
  int total = size * N;
  int *all = malloc((size_t)total * sizeof *all), *seen = calloc((size_t)total, sizeof *seen);
  CHECK_OK(MPI_File_read_at(fh, 0, all, total, MPI_INT, &st));
  for (int i = 0; i < total; i++) {
    CHECK(all[i] >= 0 && all[i] < total, "value %d at %d", all[i], i);
    if (all[i] >= 0 && all[i] < total) seen[all[i]]++;
  }
  for (int i = 0; i < total; i++) CHECK(seen[i] == 1, "value %d written %d times", i, seen[i]);

  /* read them back through the shared pointer: disjoint pieces, together all */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  long long sum = 0, gsum = 0;
  for (int i = 0; i < N; i++) {
    int v = -1;
    if (i % 2) {
      CHECK_OK(MPI_File_read_shared(fh, &v, 1, MPI_INT, &st));
    } else {
      MPI_Request rq;
      CHECK_OK(MPI_File_iread_shared(fh, &v, 1, MPI_INT, &rq));
      CHECK_OK(MPI_Wait(&rq, &st));
    }
    sum += v;
  }
  MPI_Allreduce(&sum, &gsum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(gsum == (long long)total * (total - 1) / 2, "sum of shared reads %lld", gsum);
  CHECK_OK(MPI_File_seek_shared(fh, -1, MPI_SEEK_END));
  CHECK_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == total - 1, "seek_shared END-1: %lld", (long long)pos);
  CHECK_OK(MPI_File_seek_shared(fh, 1, MPI_SEEK_CUR));
  CHECK_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == total, "seek_shared CUR+1: %lld", (long long)pos);

  /* ordered: rank r writes r+1 copies of r after everything else */
  int mine[64];
  for (int i = 0; i <= rank; i++) mine[i] = 100 + rank;
  CHECK_OK(MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &cnt));
  CHECK(cnt == rank + 1, "write_ordered count %d", cnt);
  /* and once more, split */
  CHECK_OK(MPI_File_write_ordered_begin(fh, mine, rank + 1, MPI_INT));
  CHECK_OK(MPI_File_write_ordered_end(fh, mine, &st));
  CHECK_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(MPI_File_sync(fh));
  int ord = size * (size + 1) / 2;
  int *o = malloc(2 * (size_t)ord * sizeof *o);
  CHECK_OK(MPI_File_read_at(fh, total, o, 2 * ord, MPI_INT, &st));
  for (int rep = 0, k = 0; rep < 2; rep++)
    for (int r = 0; r < size; r++)
      for (int i = 0; i <= r; i++, k++) CHECK(o[k] == 100 + r, "ordered int %d = %d, expected %d", k, o[k], 100 + r);
  CHECK_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == total + 2 * ord, "shared position after ordered writes %lld", (long long)pos);
  /* read_ordered from the start of that region gives each rank its own */
  CHECK_OK(MPI_File_seek_shared(fh, total, MPI_SEEK_SET));
  int back[64];
  CHECK_OK(MPI_File_read_ordered(fh, back, rank + 1, MPI_INT, &st));
  for (int i = 0; i <= rank; i++) CHECK(back[i] == 100 + rank, "read_ordered %d = %d", i, back[i]);
  memset(back, 0, sizeof back);
  CHECK_OK(MPI_File_read_ordered_begin(fh, back, rank + 1, MPI_INT));
  CHECK_OK(MPI_File_read_ordered_end(fh, back, &st));
  for (int i = 0; i <= rank; i++) CHECK(back[i] == 100 + rank, "split read_ordered %d = %d", i, back[i]);
  /* set_view resets the shared pointer */
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  CHECK_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == 0, "shared position after set_view %lld", (long long)pos);
  CHECK_OK(MPI_File_close(&fh));
  free(all);
  free(seen);
  free(o);

  /* MPI_MODE_APPEND: both pointers start at the end */
  MPI_Offset fsz;
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_get_size(fh, &fsz));
  CHECK_OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == fsz, "append: individual pointer %lld, size %lld", (long long)pos, (long long)fsz);
  CHECK_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == fsz, "append: shared pointer %lld, size %lld", (long long)pos, (long long)fsz);
  CHECK_OK(MPI_File_close(&fh));

  /* MPI_MODE_SEQUENTIAL: only the shared pointer */
  const char *q = io_path("seq.dat");
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                         MPI_INFO_NULL, &fh));
  MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
  int v = rank;
  CHECK_OK(MPI_File_write_ordered(fh, &v, 1, MPI_INT, &st));
  CHECK_CLASS(MPI_File_write_at(fh, 0, &v, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_CLASS(MPI_File_write(fh, &v, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_CLASS(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_OK(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  CHECK_OK(MPI_File_write_ordered(fh, &v, 1, MPI_INT, &st));
  CHECK_OK(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(MPI_File_open(MPI_COMM_SELF, q, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE * (rank == 0),
                         MPI_INFO_NULL, &fh));
  int *sq = malloc(2 * (size_t)size * sizeof *sq);
  CHECK_OK(MPI_File_read_at(fh, 0, sq, 2 * size, MPI_INT, &st));
  for (int i = 0; i < 2 * size; i++) CHECK(sq[i] == i % size, "sequential file int %d = %d", i, sq[i]);
  free(sq);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(MPI_File_close(&fh));

  /* nothing of the shared pointers is left behind (over several nodes it
   * is a hidden file beside the data file, removed at close) */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    DIR *d = opendir(io_dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
      CHECK(!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "shared.dat"),
            "%s left in the directory after every close", e->d_name);
    if (d) closedir(d);
  }
  io_dir_done(MPI_COMM_WORLD);
  return fy_finish();
}
