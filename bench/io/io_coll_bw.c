/* Collective I/O bandwidth on an interleaved access (the case two-phase
 * collective buffering is for).
 *
 *   mpiexec -n P io_coll_bw [-m MIB_PER_RANK] [-b INTS_PER_BLOCK] [-r REPS] [-d DIR]
 *
 * Each process owns every P-th block of b ints of a shared file (a resized
 * contiguous filetype at displacement rank * b ints), writes its
 * MIB_PER_RANK with MPI_File_write_all, then reads it back with
 * MPI_File_read_all and checks it. Reported: aggregate MB/s (10^6 B/s) of
 * each, the median over REPS (file removed and recreated each time, after
 * an fsync-free close). CSV: ranks,block_bytes,mib_per_rank,write_MBps,read_MBps. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int mib = 8, blk = 1, reps = 5;
  const char *dir = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-m")) mib = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-b")) blk = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-r")) reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-d")) dir = argv[i + 1];
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = (long)mib * 1024 * 1024 / 4 / blk * blk; /* ints per rank, whole blocks */
  int *b = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n);
  for (long i = 0; i < n; i++) b[i] = (int)(i * 31 + rank);
  char path[512];
  snprintf(path, sizeof path, "%s/io_coll_bw.%d", dir, (int)getppid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Datatype blockt, ft;
  MPI_Type_contiguous(blk, MPI_INT, &blockt);
  MPI_Type_create_resized(blockt, 0, (MPI_Aint)sizeof(int) * blk * size, &ft);
  MPI_Type_commit(&ft);
  double *tw = malloc(sizeof(double) * (size_t)reps), *tr = malloc(sizeof(double) * (size_t)reps);
  int bad = 0;
  for (int k = 0; k < reps; k++) {
    MPI_File fh;
    if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * blk * rank, MPI_INT, ft, "native", MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_File_write_all(fh, b, (int)n, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    memset(r, 0, sizeof(int) * (size_t)n);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    MPI_File_read_all(fh, r, (int)n, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    double t3 = MPI_Wtime();
    if (memcmp(b, r, sizeof(int) * (size_t)n)) bad = 1;
    MPI_File_close(&fh);
    tw[k] = t1 - t0;
    tr[k] = t3 - t2;
  }
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  int anybad = 0;
  MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  qsort(tw, (size_t)reps, sizeof *tw, cmp);
  qsort(tr, (size_t)reps, sizeof *tr, cmp);
  double bytes = (double)n * 4 * size;
  if (rank == 0) {
    if (anybad) fprintf(stderr, "io_coll_bw: data read back differs\n");
    printf("ranks,block_bytes,mib_per_rank,write_MBps,read_MBps\n");
    printf("%d,%d,%d,%.1f,%.1f\n", size, blk * 4, mib, bytes / tw[reps / 2] / 1e6, bytes / tr[reps / 2] / 1e6);
  }
  MPI_Type_free(&ft);
  MPI_Type_free(&blockt);
  free(b);
  free(r);
  free(tw);
  free(tr);
  MPI_Finalize();
  return anybad;
}
