/* MPI_THREAD_MULTIPLE: two threads per process build and free
 * communicators at the same time, each from its own parent; the context
 * agreements interleave (one offers its bitmap per round) and every
 * communicator still gets a context of its own; then the same in crossed
 * order with MPI_COMM_SELF duplicated in between; then threads calling
 * MPI_Comm_create_group and MPI_Comm_create_from_group on one parent
 * (MPI_COMM_WORLD) at once, told apart by their tags alone, over groups
 * that differ (MPICH's threads/comm/comm_create_group_threads2); and
 * threads calling MPI_Intercomm_create over one peer communicator, each
 * from its own local communicator, told apart by their tags. */
#include "fytest.h"
#include <pthread.h>
#include <unistd.h>

enum { ROUNDS = 300 };
static MPI_Comm parent[2];
static int rank, size;

static void *work(void *arg) {
  int t = (int)(long)arg;
  for (int i = 0; i < ROUNDS; i++) {
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(parent[t], &c));
    int v = t * 100000 + i * 10 + rank, got = -1;
    CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, t, &got, 1, MPI_INT, (rank + size - 1) % size, t, c,
                          MPI_STATUS_IGNORE));
    CHECK(got == t * 100000 + i * 10 + (rank + size - 1) % size, "thread %d round %d got %d", t, i, got);
    CHECK_OK(MPI_Comm_free(&c));
  }
  return NULL;
}

/* Crossed order: on each process one thread duplicates its parent at
 * once, the other late, so the two agreements start in opposite orders on
 * neighbouring processes; each thread first duplicates MPI_COMM_SELF under
 * a lock the late thread of a neighbour also needs. A one-process
 * agreement must not wait for the other agreement's round (MPICH's
 * threads/comm/comm_dup_deadlock). */
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;
static void *crossed(void *arg) {
  int t = (int)(long)arg;
  if (t == rank % 2) usleep(200000);
  MPI_Comm self, c;
  pthread_mutex_lock(&self_lock);
  CHECK_OK(MPI_Comm_dup(MPI_COMM_SELF, &self));
  pthread_mutex_unlock(&self_lock);
  CHECK_OK(MPI_Comm_free(&self));
  CHECK_OK(MPI_Comm_dup(parent[t], &c));
  CHECK_OK(MPI_Barrier(c));
  CHECK_OK(MPI_Comm_free(&c));
  return NULL;
}

/* Thread t: the first t + 1 ranks (all of them for the last thread), or
 * not a member. The tag alone tells the calls apart. */
enum { TAGGED = 3, TAGGED_ROUNDS = 60 };
static void *tagged(void *arg) {
  int t = (int)(long)arg, n = t + 1 < size && t < TAGGED - 1 ? t + 1 : size;
  MPI_Group world, g;
  char stringtag[32];
  snprintf(stringtag, sizeof stringtag, "ferry.test.thread%d", t);
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int range[1][3] = {{0, n - 1, 1}};
  CHECK_OK(MPI_Group_range_incl(world, 1, range, &g));
  for (int i = 0; i < TAGGED_ROUNDS; i++) {
    if (rank >= n) break;
    MPI_Comm c = MPI_COMM_NULL;
    if (i % 2 == 0)
      CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 1000 + t, &c));
    else
      CHECK_OK(MPI_Comm_create_from_group(g, stringtag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int csize = -1, sum = -1;
    CHECK_OK(MPI_Comm_size(c, &csize));
    CHECK(csize == n, "thread %d round %d: size %d, want %d", t, i, csize, n);
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == n * (n - 1) / 2, "thread %d round %d: sum %d", t, i, sum);
    CHECK_OK(MPI_Comm_free(&c));
  }
  CHECK_OK(MPI_Group_free(&g));
  CHECK_OK(MPI_Group_free(&world));
  return NULL;
}

/* Thread t joins the even and odd halves (its own copy of the parity
 * split) through MPI_COMM_WORLD with tag 2000 + t; the leaders' exchanges
 * of both threads run on MPI_COMM_WORLD at once. */
static MPI_Comm half[2];
static void *inter(void *arg) {
  int t = (int)(long)arg;
  for (int i = 0; i < 50; i++) {
    MPI_Comm ic;
    CHECK_OK(MPI_Intercomm_create(half[t], 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 2000 + t, &ic));
    int rs = -1, sum = -1, want = 0;
    CHECK_OK(MPI_Comm_remote_size(ic, &rs));
    for (int w = 0; w < size; w++)
      if (w % 2 != rank % 2) want += w;
    CHECK(rs == (rank % 2 ? (size + 1) / 2 : size / 2), "thread %d: remote size %d", t, rs);
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ic));
    CHECK(sum == want, "thread %d round %d: sum over the remote group %d, want %d", t, i, sum, want);
    CHECK_OK(MPI_Comm_free(&ic));
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  fy_init("comm_threads");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (provided < MPI_THREAD_MULTIPLE) return fy_finish();
  MPI_Comm_dup(MPI_COMM_WORLD, &parent[0]);
  MPI_Comm_dup(MPI_COMM_WORLD, &parent[1]);
  pthread_t th[2];
  for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, work, (void *)t);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, crossed, (void *)t);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  pthread_t tt[TAGGED];
  for (long t = 0; t < TAGGED; t++) pthread_create(&tt[t], NULL, tagged, (void *)t);
  for (int t = 0; t < TAGGED; t++) pthread_join(tt[t], NULL);
  MPI_Comm split;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
  MPI_Comm_dup(split, &half[0]);
  MPI_Comm_dup(split, &half[1]);
  MPI_Comm_free(&split);
  for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, inter, (void *)t);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  MPI_Comm_free(&half[0]);
  MPI_Comm_free(&half[1]);
  MPI_Comm_free(&parent[0]);
  MPI_Comm_free(&parent[1]);
  return fy_finish();
}
