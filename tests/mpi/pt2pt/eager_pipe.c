/* Messages between the eager threshold (16 KiB: CMakeLists.txt sets it,
 * the default being 64 KiB) and FERRY_EAGER_PIPE_MAX (64 KiB), which go
 * eagerly through the sender's pipe slots while they
 * have room and by rendezvous otherwise (src/pt2pt/send.c eager_piped,
 * recv.c piped_deliver): received into a posted buffer, unexpected (the
 * receive posted later, and found by MPI_Probe and MPI_Mprobe first), into
 * a strided datatype, truncated (MPI_ERR_TRUNCATE, the prefix delivered),
 * by MPI_Ssend (which must not complete before the receive matches), to
 * this process itself, many at once with one tag (more than the slots
 * hold: some by rendezvous, the order kept), and unexpected ones left in
 * the sender's slots while a large message streams through the rest.
 * Every byte is checked. */
#include "fytest.h"

static const int sizes[] = {16385, 20000, 32768, 40000, 65536};
#define NS ((int)(sizeof sizes / sizeof sizes[0]))

static unsigned seed(int k, int round) { return (unsigned)(round * 131 + k * 7 + 3); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("pt2pt_eager_pipe");
  int rank = fy_rank_, size = fy_size_;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int peer = rank ^ 1;
  int paired = peer < size;
  int sender = (rank & 1) == 0;
  enum { MAXN = 65536, MANY = 40 };
  unsigned char *a = malloc(MAXN), *b = malloc(2 * MAXN + 8);
  unsigned char *many = malloc((size_t)MANY * 32768);
  MPI_Request reqs[MANY];

  /* 1. posted first, then unexpected, for every size */
  for (int round = 0; round < 2 && paired; round++)
    for (int k = 0; k < NS; k++) {
      int n = sizes[k];
      if (sender) {
        fy_fill(a, (size_t)n, seed(k, round));
        if (round == 1) CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); /* the receive comes later */
        CHECK_OK(MPI_Send(a, n, MPI_BYTE, peer, k, MPI_COMM_WORLD));
      } else {
        MPI_Status st;
        memset(b, 0, (size_t)n);
        if (round == 0) {
          CHECK_OK(MPI_Recv(b, n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st));
        } else {
          CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
          fy_spin_us(3000); /* the message is in before the receive */
          CHECK_OK(MPI_Probe(peer, k, MPI_COMM_WORLD, &st));
          int c;
          MPI_Get_count(&st, MPI_BYTE, &c);
          CHECK(c == n, "probe of %d bytes says %d", n, c);
          CHECK_OK(MPI_Recv(b, n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st));
        }
        int c;
        MPI_Get_count(&st, MPI_BYTE, &c);
        CHECK(c == n && st.MPI_TAG == k, "round %d size %d: count %d tag %d", round, n, c, st.MPI_TAG);
        size_t bad = fy_verify(b, (size_t)n, seed(k, round));
        CHECK(bad == (size_t)-1, "round %d size %d: wrong at %zu", round, n, bad);
      }
    }
  if (!paired) { /* the odd one out takes part in the barriers */
    for (int k = 0; k < NS; k++) CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  }
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

  if (paired) {
    /* 2. Mprobe + Mrecv of an unexpected one */
    if (sender) {
      fy_fill(a, 30000, 77);
      CHECK_OK(MPI_Send(a, 30000, MPI_BYTE, peer, 50, MPI_COMM_WORLD));
    } else {
      fy_spin_us(2000);
      MPI_Message msg;
      MPI_Status st;
      CHECK_OK(MPI_Mprobe(peer, 50, MPI_COMM_WORLD, &msg, &st));
      memset(b, 0, 30000);
      CHECK_OK(MPI_Mrecv(b, 30000, MPI_BYTE, &msg, &st));
      CHECK(fy_verify(b, 30000, 77) == (size_t)-1, "mrecv data wrong");
    }
    /* 3. into a strided type: 8000 ints, every other int of the buffer */
    MPI_Datatype vec;
    MPI_Type_vector(8000, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    if (sender) {
      int *x = (int *)a;
      for (int i = 0; i < 8000; i++) x[i] = i * 3 + 1;
      CHECK_OK(MPI_Send(x, 8000, MPI_INT, peer, 51, MPI_COMM_WORLD));
    } else {
      int *y = (int *)b;
      for (int i = 0; i < 16000; i++) y[i] = -5;
      CHECK_OK(MPI_Recv(y, 1, vec, peer, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      int bad = -1;
      for (int i = 0; i < 16000 && bad < 0; i++)
        if (y[i] != (i % 2 ? -5 : (i / 2) * 3 + 1)) bad = i;
      CHECK(bad < 0, "strided receive wrong at int %d: %d", bad, bad >= 0 ? y[bad] : 0);
    }
    MPI_Type_free(&vec);
    /* 4. truncated: 40000 bytes into 20000 */
    if (sender) {
      fy_fill(a, 40000, 91);
      CHECK_OK(MPI_Send(a, 40000, MPI_BYTE, peer, 52, MPI_COMM_WORLD));
    } else {
      MPI_Status st;
      memset(b, 0, 40000);
      int e = MPI_Recv(b, 20000, MPI_BYTE, peer, 52, MPI_COMM_WORLD, &st);
      int cls = -1;
      MPI_Error_class(e, &cls);
      CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive: class %d", cls);
      CHECK(fy_verify(b, 20000, 91) == (size_t)-1, "truncated prefix wrong");
      CHECK(b[20000] == 0, "byte past the receive buffer written");
    }
    /* 5. Ssend: complete only once the receive matched (a message the
     * sender sends after it must not be there before that receive) */
    if (sender) {
      fy_fill(a, 24000, 92);
      CHECK_OK(MPI_Ssend(a, 24000, MPI_BYTE, peer, 53, MPI_COMM_WORLD));
      CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 55, MPI_COMM_WORLD));
    } else {
      fy_spin_us(5000);
      int early = 0;
      CHECK_OK(MPI_Iprobe(peer, 55, MPI_COMM_WORLD, &early, MPI_STATUS_IGNORE));
      CHECK(!early, "MPI_Ssend completed before its receive was posted");
      CHECK_OK(MPI_Recv(b, 24000, MPI_BYTE, peer, 53, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(fy_verify(b, 24000, 92) == (size_t)-1, "ssend data wrong");
      CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 55, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    /* 6. many with one tag: more than the slots hold, order kept */
    if (sender) {
      for (int i = 0; i < MANY; i++) fy_fill(many + (size_t)i * 32768, 32768, 200 + (unsigned)i);
      for (int i = 0; i < MANY; i++)
        CHECK_OK(MPI_Isend(many + (size_t)i * 32768, 32768, MPI_BYTE, peer, 54, MPI_COMM_WORLD, &reqs[i]));
      CHECK_OK(MPI_Waitall(MANY, reqs, MPI_STATUSES_IGNORE));
    } else {
      memset(many, 0, (size_t)MANY * 32768);
      fy_spin_us(2000); /* they are sent (or announced) first */
      for (int i = 0; i < MANY; i++)
        CHECK_OK(MPI_Irecv(many + (size_t)i * 32768, 32768, MPI_BYTE, peer, 54, MPI_COMM_WORLD, &reqs[i]));
      CHECK_OK(MPI_Waitall(MANY, reqs, MPI_STATUSES_IGNORE));
      for (int i = 0; i < MANY; i++) {
        size_t bad = fy_verify(many + (size_t)i * 32768, 32768, 200 + (unsigned)i);
        CHECK(bad == (size_t)-1, "message %d of the window wrong at %zu (out of order?)", i, bad);
      }
    }
  }
  /* 8. unexpected ones wait in the sender's slots until their receive
   *    (half of the slots at most); meanwhile a 1 MiB message of another
   *    tag, received first, streams through the other half */
  if (paired) {
    enum { HELD = 8, BIGN = 1 << 20 };
    unsigned char *big = malloc(BIGN);
    if (sender) {
      for (int i = 0; i < HELD; i++) fy_fill(many + (size_t)i * 32768, 32768, 400 + (unsigned)i);
      for (int i = 0; i < HELD; i++)
        CHECK_OK(MPI_Isend(many + (size_t)i * 32768, 32768, MPI_BYTE, peer, 70, MPI_COMM_WORLD, &reqs[i]));
      fy_fill(big, BIGN, 450);
      CHECK_OK(MPI_Send(big, BIGN, MPI_BYTE, peer, 71, MPI_COMM_WORLD));
      CHECK_OK(MPI_Waitall(HELD, reqs, MPI_STATUSES_IGNORE));
    } else {
      memset(many, 0, (size_t)HELD * 32768);
      memset(big, 0, BIGN);
      CHECK_OK(MPI_Recv(big, BIGN, MPI_BYTE, peer, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(fy_verify(big, BIGN, 450) == (size_t)-1, "1 MiB message behind held eager ones wrong");
      for (int i = HELD - 1; i >= 0; i--) /* any order of posting: matching keeps theirs */
        CHECK_OK(MPI_Irecv(many + (size_t)i * 32768, 32768, MPI_BYTE, peer, 70, MPI_COMM_WORLD, &reqs[i]));
      CHECK_OK(MPI_Waitall(HELD, reqs, MPI_STATUSES_IGNORE));
      for (int i = 0; i < HELD; i++) {
        size_t bad = fy_verify(many + (size_t)(HELD - 1 - i) * 32768, 32768, 400 + (unsigned)i);
        CHECK(bad == (size_t)-1, "held message %d wrong at %zu", i, bad);
      }
    }
    free(big);
  }
  /* 7. to ourselves */
  {
    MPI_Request r;
    fy_fill(a, 50000, 300);
    memset(b, 0, 50000);
    CHECK_OK(MPI_Isend(a, 50000, MPI_BYTE, rank, 60, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Recv(b, 50000, MPI_BYTE, rank, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(fy_verify(b, 50000, 300) == (size_t)-1, "self message wrong");
  }
  free(a);
  free(b);
  free(many);
  return fy_finish();
}
