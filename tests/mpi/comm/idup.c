/* MPI_Comm_idup is local: it returns before the other processes call it,
 * so these programs, valid MPI, must finish:
 * - rank 0 starts an idup, then sends to rank 1, which receives first and
 *   starts its own idup after (small and rendezvous-sized messages);
 * - several idups of different parents outstanding at once, completed in
 *   reverse order, mixed with a blocking MPI_Comm_dup and a collective;
 * - attributes (copy callback), topology and info are the parent's, and
 *   the new communicator works: point-to-point and collectives on it never
 *   meet the parent's messages;
 * - idups of an intercommunicator, local in the same way;
 * - Request_free on an idup request before it completes;
 * - a blocking MPI_Comm_create_group and an idup of its parent, called in
 *   opposite orders on even and odd ranks (the blocking one must not wait
 *   for the idup, which the even ranks only start after it). */
#include "fytest.h"
#include <stdlib.h>
#include <string.h>

static int copies;
static int copy_fn(MPI_Comm o, int k, void *extra, void *in, void *out, int *flag) {
  (void)o; (void)k; (void)extra;
  copies++;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static void check_works(MPI_Comm c, MPI_Comm parent, int tag) {
  int r, s, pr;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &s);
  MPI_Comm_rank(parent, &pr);
  CHECK(r == pr, "rank %d in the copy, %d in the parent", r, pr);
  int v = r * 100 + tag, got = -1, pv = -7, pgot = -1;
  MPI_Request q;
  /* a parent message with the same tag must not be taken by the copy */
  CHECK_OK(MPI_Irecv(&pgot, 1, MPI_INT, (r + s - 1) % s, tag, parent, &q));
  CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % s, tag, &got, 1, MPI_INT, (r + s - 1) % s, tag, c,
                        MPI_STATUS_IGNORE));
  CHECK(got == ((r + s - 1) % s) * 100 + tag, "ring on the copy got %d", got);
  CHECK_OK(MPI_Send(&pv, 1, MPI_INT, (r + 1) % s, tag, parent));
  CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
  CHECK(pgot == -7, "parent message %d", pgot);
  int sum = 0;
  CHECK_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == s * (s - 1) / 2, "allreduce on the copy %d", sum);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("comm_idup");
  int rank = fy_rank_, size = fy_size_;

  /* 1. idup, then a message the peer receives before its own idup. */
  for (int n = 1; n <= 1 << 17; n <<= 8) { /* 4 B and 256 KiB: eager and rendezvous */
    int *buf = malloc((size_t)n * sizeof *buf);
    MPI_Comm d;
    MPI_Request q = MPI_REQUEST_NULL;
    if (rank == 0) {
      CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &q));
      for (int i = 0; i < n; i++) buf[i] = i;
      if (size > 1) CHECK_OK(MPI_Send(buf, n, MPI_INT, 1, 5, MPI_COMM_WORLD));
    } else {
      if (rank == 1) {
        CHECK_OK(MPI_Recv(buf, n, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(buf[n - 1] == n - 1, "message before idup: [%d] = %d", n - 1, buf[n - 1]);
      }
      CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &q));
    }
    CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    check_works(d, MPI_COMM_WORLD, 1);
    MPI_Comm_free(&d);
    free(buf);
  }

  /* 2. Outstanding idups of several parents, a blocking dup and a
   * collective in between; completed in reverse order. */
  MPI_Comm half, cart;
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  int dims[1] = {size}, periods[1] = {1};
  CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
  int key;
  CHECK_OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
  static int payload = 42;
  CHECK_OK(MPI_Comm_set_attr(cart, key, &payload));
  MPI_Info hint;
  MPI_Info_create(&hint);
  MPI_Info_set(hint, "mpi_assert_no_any_source", "true");
  MPI_Comm a, b, c, e, blk;
  MPI_Request q[4];
  CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &q[0]));
  CHECK_OK(MPI_Comm_idup(half, &b, &q[1]));
  CHECK_OK(MPI_Comm_idup_with_info(cart, hint, &c, &q[2]));
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &blk));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &e, &q[3]));
  MPI_Info_free(&hint);
  for (int i = 3; i >= 0; i--) CHECK_OK(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
  CHECK(copies == 1, "attribute copy callback ran %d times", copies);
  void *val;
  int flag = 0;
  MPI_Comm_get_attr(c, key, &val, &flag);
  CHECK(flag && val == &payload, "attribute on the idup copy");
  int topo = -1;
  MPI_Topo_test(c, &topo);
  CHECK(topo == MPI_CART, "topology of the idup copy %d", topo);
  MPI_Info used;
  char v[16];
  int len = sizeof v;
  flag = 0;
  MPI_Comm_get_info(c, &used);
  MPI_Info_get_string(used, "mpi_assert_no_any_source", &len, v, &flag);
  CHECK(flag && !strcmp(v, "true"), "idup_with_info hint");
  MPI_Info_free(&used);
  check_works(a, MPI_COMM_WORLD, 2);
  check_works(b, half, 3);
  check_works(c, cart, 4);
  check_works(e, MPI_COMM_WORLD, 5);
  check_works(blk, MPI_COMM_WORLD, 6);
  int res;
  MPI_Comm_compare(a, e, &res);
  CHECK(res == MPI_CONGRUENT, "compare(idup, idup) = %d", res);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_free(&c);
  MPI_Comm_free(&e);
  MPI_Comm_free(&blk);
  MPI_Comm_free_keyval(&key);

  /* 3. Request_free before completion (the copy is freed at the end,
   * whether or not its agreement finished by then). */
  MPI_Comm f, f3;
  MPI_Request fq;
  CHECK_OK(MPI_Comm_idup(half, &f3, &fq));
  CHECK_OK(MPI_Request_free(&fq));
  CHECK(fq == MPI_REQUEST_NULL, "request_free");
  CHECK_OK(MPI_Barrier(half));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

  /* 4. An intercommunicator between the two halves: local too (the even
   * leader's idup returns before the odd leader, which first receives a
   * message sent after it, calls its own), two outstanding at once with
   * an intracommunicator's, completed in reverse order; the copies work. */
  if (size > 1) {
    MPI_Comm inter, id, id2, hd;
    MPI_Request iq[3];
    int lr, odd = rank % 2, rs = 0;
    CHECK_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, odd ? 0 : 1, 9, &inter));
    MPI_Comm_rank(inter, &lr);
    int token = 77, got = 0;
    if (!odd) {
      CHECK_OK(MPI_Comm_idup(inter, &id, &iq[0]));
      if (lr == 0) CHECK_OK(MPI_Send(&token, 1, MPI_INT, 0, 3, inter));
    } else {
      if (lr == 0) CHECK_OK(MPI_Recv(&got, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE));
      CHECK_OK(MPI_Comm_idup(inter, &id, &iq[0]));
    }
    CHECK_OK(MPI_Comm_idup(half, &hd, &iq[1]));
    CHECK_OK(MPI_Comm_idup(inter, &id2, &iq[2]));
    for (int i = 2; i >= 0; i--) CHECK_OK(MPI_Wait(&iq[i], MPI_STATUS_IGNORE));
    CHECK(!odd || lr != 0 || got == 77, "message before the intercommunicator idup: %d", got);
    MPI_Comm_remote_size(id, &rs);
    CHECK(rs == size / 2 + (odd ? size % 2 : 0), "remote size %d", rs);
    int flag = 0;
    MPI_Comm_test_inter(id2, &flag);
    CHECK(flag, "the idup of an intercommunicator is one");
    for (int k = 0; k < 2; k++) {
      MPI_Comm x = k ? id2 : id;
      /* leader to leader on the copy; a same-tag message on the parent stays there */
      int pv = -1, v = 0;
      MPI_Request pq = MPI_REQUEST_NULL;
      if (lr == 0) {
        CHECK_OK(MPI_Irecv(&pv, 1, MPI_INT, 0, 8, inter, &pq));
        int mine = 1000 * odd + k;
        CHECK_OK(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 8, &v, 1, MPI_INT, 0, 8, x, MPI_STATUS_IGNORE));
        CHECK(v == 1000 * !odd + k, "leaders' exchange on the copy got %d", v);
        int m = -5;
        CHECK_OK(MPI_Send(&m, 1, MPI_INT, 0, 8, inter));
        CHECK_OK(MPI_Wait(&pq, MPI_STATUS_IGNORE));
        CHECK(pv == -5, "parent message %d", pv);
      }
      /* an intercommunicator allreduce: the sum of the other group's ranks */
      int sum = -1, want = 0;
      for (int w = 0; w < size; w++)
        if (w % 2 != odd) want += w;
      CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, x));
      CHECK(sum == want, "allreduce over the copy %d, want %d", sum, want);
    }
    check_works(hd, half, 7);
    MPI_Comm_free(&id);
    MPI_Comm_free(&id2);
    MPI_Comm_free(&hd);
    MPI_Comm_free(&inter);
  }
  CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &f, &fq));
  CHECK_OK(MPI_Wait(&fq, MPI_STATUS_IGNORE));
  MPI_Comm_free(&f);
  {
    MPI_Group wg;
    MPI_Comm g, d;
    MPI_Request dq;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (rank % 2 == 0) {
      CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, wg, 5, &g));
      CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &dq));
    } else {
      CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &dq));
      CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, wg, 5, &g));
    }
    CHECK_OK(MPI_Wait(&dq, MPI_STATUS_IGNORE));
    check_works(d, MPI_COMM_WORLD, 9);
    check_works(g, MPI_COMM_WORLD, 10);
    MPI_Comm_free(&d);
    MPI_Comm_free(&g);
    MPI_Group_free(&wg);
  }
  MPI_Comm_free(&f3);
  MPI_Comm_free(&half);
  MPI_Comm_free(&cart);
  return fy_finish();
}
