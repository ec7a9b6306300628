/* Intercommunicators: MPI_Intercomm_create between the lower and upper
 * halves of MPI_COMM_WORLD (odd sizes too), point-to-point across it
 * (ranks name the remote group, wildcards, statuses), remote size/group,
 * test_inter, compare, merge (high/low order), dup, split and create on
 * it, and the error classes of misuse. Needs at least 2 processes. */
#include "fytest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("comm_inter");
  int rank, size, rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (size < 2) return fy_finish();
  int lowsz = size / 2, low = rank < lowsz;
  MPI_Comm local, ic;
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local));
  int lr, ls;
  MPI_Comm_rank(local, &lr);
  MPI_Comm_size(local, &ls);
  /* leaders: world 0 and world lowsz; the tag is the user's */
  CHECK_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? lowsz : 0, 99, &ic));
  int flag = 0, rs = -1, r = -1, s = -1;
  MPI_Comm_test_inter(ic, &flag);
  CHECK(flag, "test_inter is false");
  MPI_Comm_remote_size(ic, &rs);
  MPI_Comm_rank(ic, &r);
  MPI_Comm_size(ic, &s);
  int remsz = low ? size - lowsz : lowsz;
  CHECK(rs == remsz && r == lr && s == ls, "remote size %d rank %d size %d", rs, r, s);
  /* remote group: world ranks of the other half */
  MPI_Group rg, wg;
  MPI_Comm_remote_group(ic, &rg);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  for (int i = 0; i < rs; i++) {
    int w;
    MPI_Group_translate_ranks(rg, 1, &i, wg, &w);
    CHECK(w == (low ? lowsz + i : i), "remote rank %d is world %d", i, w);
  }
  MPI_Group lg;
  MPI_Comm_group(ic, &lg);
  int lgs;
  MPI_Group_size(lg, &lgs);
  CHECK(lgs == ls, "local group size %d", lgs);
  MPI_Group_free(&lg);
  MPI_Group_free(&rg);

  /* point-to-point: each local rank i talks to remote rank i % rs */
  int peer = lr % rs, v = rank, got = -1;
  MPI_Request q;
  MPI_Status st;
  CHECK_OK(MPI_Isend(&v, 1, MPI_INT, peer, 3, ic, &q));
  /* receive from everyone on the other side that targets me */
  int expect = 0;
  for (int j = 0; j < rs; j++)
    if (j % ls == lr) expect++;
  for (int k = 0; k < expect; k++) {
    CHECK_OK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 3, ic, &st));
    int w = low ? lowsz + st.MPI_SOURCE : st.MPI_SOURCE;
    CHECK(got == w, "got %d from remote rank %d (world %d)", got, st.MPI_SOURCE, w);
  }
  CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
  rc = MPI_Send(&v, 1, MPI_INT, rs, 3, ic);
  CHECK_CLASS(rc, MPI_ERR_RANK);

  /* compare and dup */
  MPI_Comm d;
  CHECK_OK(MPI_Comm_dup(ic, &d));
  int res;
  MPI_Comm_compare(ic, d, &res);
  CHECK(res == MPI_CONGRUENT, "compare(ic, dup) = %d", res);
  MPI_Comm_compare(ic, local, &res);
  CHECK(res == MPI_UNEQUAL, "compare(ic, local) = %d", res);
  MPI_Comm_test_inter(d, &flag);
  CHECK(flag, "the dup is not an intercommunicator");
  if (lr == 0) {
    int x = 5, y = -1;
    CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, 0, 1, &y, 1, MPI_INT, 0, 1, d, MPI_STATUS_IGNORE));
    CHECK(y == 5, "dup sendrecv got %d", y);
  }

  /* merge: the upper half says high, so the lower half comes first */
  MPI_Comm m;
  CHECK_OK(MPI_Intercomm_merge(ic, !low, &m));
  int mr, ms;
  MPI_Comm_rank(m, &mr);
  MPI_Comm_size(m, &ms);
  CHECK(ms == size && mr == rank, "merge(low first): rank %d size %d", mr, ms);
  MPI_Comm_test_inter(m, &flag);
  CHECK(!flag, "merge gave an intercommunicator");
  int a = rank, b = -1;
  CHECK_OK(MPI_Sendrecv(&a, 1, MPI_INT, (mr + 1) % ms, 0, &b, 1, MPI_INT, (mr + ms - 1) % ms, 0, m,
                        MPI_STATUS_IGNORE));
  CHECK(b == (rank + size - 1) % size, "merged ring got %d", b);
  MPI_Comm_free(&m);
  CHECK_OK(MPI_Intercomm_merge(ic, low, &m)); /* now the upper half first */
  MPI_Comm_rank(m, &mr);
  CHECK(mr == (low ? (size - lowsz) + rank : rank - lowsz), "merge(high first): rank %d", mr);
  MPI_Comm_free(&m);

  /* split: colour = local rank parity; pairs across by equal colour */
  MPI_Comm sp;
  CHECK_OK(MPI_Comm_split(ic, lr % 2, -lr, &sp));
  int remote_with = 0;
  for (int j = 0; j < rs; j++) remote_with += (j % 2) == (lr % 2);
  if (remote_with == 0) {
    CHECK(sp == MPI_COMM_NULL, "split with no remote partner gave a communicator");
  } else {
    CHECK(sp != MPI_COMM_NULL, "split gave MPI_COMM_NULL");
    if (sp != MPI_COMM_NULL) {
      int srs, ssz, srk;
      MPI_Comm_remote_size(sp, &srs);
      MPI_Comm_size(sp, &ssz);
      MPI_Comm_rank(sp, &srk);
      CHECK(srs == remote_with, "split remote size %d, expected %d", srs, remote_with);
      int mine = 0;
      for (int j = 0; j < ls; j++) mine += (j % 2) == (lr % 2);
      CHECK(ssz == mine && srk == mine - 1 - lr / 2, "split size %d rank %d", ssz, srk);
      if (srk == 0) {
        int x = rank, y = -1;
        CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, 0, 2, &y, 1, MPI_INT, 0, 2, sp, MPI_STATUS_IGNORE));
        CHECK(y >= 0 && y < size && (y < lowsz) != low, "split sendrecv got %d", y);
      }
      MPI_Comm_free(&sp);
    }
  }
  /* create: each side keeps its local rank 0 only */
  MPI_Group lg0, g0;
  MPI_Comm_group(ic, &lg0);
  int zero = 0;
  MPI_Group_incl(lg0, 1, &zero, &g0);
  MPI_Comm cr;
  CHECK_OK(MPI_Comm_create(ic, g0, &cr));
  CHECK((lr == 0) == (cr != MPI_COMM_NULL), "create over the intercommunicator");
  if (cr != MPI_COMM_NULL) {
    int crs;
    MPI_Comm_remote_size(cr, &crs);
    CHECK(crs == 1, "created remote size %d", crs);
    int x = rank, y = -1;
    CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, 0, 4, &y, 1, MPI_INT, 0, 4, cr, MPI_STATUS_IGNORE));
    CHECK(y == (low ? lowsz : 0), "created sendrecv got %d", y);
    MPI_Comm_free(&cr);
  }
  MPI_Group_free(&g0);
  MPI_Group_free(&lg0);

  /* MPI 4 constructors from groups (no parent communicator) */
  {
    MPI_Group lgrp, rgrp;
    MPI_Comm_group(ic, &lgrp);
    MPI_Comm_remote_group(ic, &rgrp);
    MPI_Comm fg;
    /* leaders: the last rank of each group */
    int rsz;
    MPI_Group_size(rgrp, &rsz);
    CHECK_OK(MPI_Intercomm_create_from_groups(lgrp, ls - 1, rgrp, rsz - 1, "fytest", MPI_INFO_NULL,
                                              MPI_ERRORS_RETURN, &fg));
    MPI_Comm_compare(ic, fg, &res);
    CHECK(res == MPI_CONGRUENT, "from_groups vs Intercomm_create: %d", res);
    if (lr == 0) {
      int x = rank, y = -1;
      CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, 0, 6, &y, 1, MPI_INT, 0, 6, fg, MPI_STATUS_IGNORE));
      CHECK(y == (low ? lowsz : 0), "from_groups sendrecv got %d", y);
    }
    MPI_Comm_free(&fg);
    CHECK_OK(MPI_Comm_create_from_group(lgrp, "fytest-local", MPI_INFO_NULL, MPI_ERRORS_RETURN, &fg));
    MPI_Comm_compare(local, fg, &res);
    CHECK(res == MPI_CONGRUENT, "create_from_group vs local: %d", res);
    MPI_Comm_free(&fg);
    MPI_Group_free(&lgrp);
    MPI_Group_free(&rgrp);
  }

  /* errors */
  rc = MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &m);
  CHECK_CLASS(rc, MPI_ERR_COMM);
  rc = MPI_Intercomm_create(local, ls, MPI_COMM_WORLD, 0, 1, &m);
  CHECK_CLASS(rc, MPI_ERR_RANK);
  rc = MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 1, &m);
  CHECK_CLASS(rc, MPI_ERR_COMM);
  rc = MPI_Cart_create(ic, 1, &size, &zero, 0, &m);
  CHECK_CLASS(rc, MPI_ERR_COMM);

  MPI_Group_free(&wg);
  CHECK_OK(MPI_Comm_free(&d));
  CHECK_OK(MPI_Comm_free(&ic));
  CHECK_OK(MPI_Comm_free(&local));
  return fy_finish();
}
