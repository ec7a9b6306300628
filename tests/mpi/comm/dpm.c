/* Ports, accept/connect, join and the name service between processes of
 * one job (src/comm/dpm.c):
 * - names: publish, look up, unpublish; a second publish, a lookup or an
 *   unpublish of what is not published fail with MPI_ERR_SERVICE /
 *   MPI_ERR_NAME; Close_port of a port not open: MPI_ERR_PORT;
 * - world rank 0 accepts on MPI_COMM_SELF, the others connect together
 *   (root 0 of their communicator), and the other way round (mpi4py's
 *   test_dynproc does both); a bcast over the intercommunicator, then
 *   disconnect;
 * - one port accepting two connections that race (ranks 1 and 2);
 * - MPI_Comm_join over a TCP connection on the loopback;
 * - a bad port at the connecting root: MPI_ERR_PORT there and at the
 *   other members (nobody waits); a port of another job, an accept on a
 *   port this process did not open. */
#include <mpi.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fytest.h"

static int rank, size;

static void check_bcast(MPI_Comm inter, int sender_side) {
  int v[3] = {0, 0, 0};
  if (sender_side) {
    int me;
    MPI_Comm_rank(inter, &me);
    if (me == 0) v[0] = 11, v[1] = 22, v[2] = 33;
    CHECK_OK(MPI_Bcast(v, 3, MPI_INT, me == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
  } else {
    CHECK_OK(MPI_Bcast(v, 3, MPI_INT, 0, inter));
    CHECK(v[0] == 11 && v[1] == 22 && v[2] == 33, "bcast over the new intercommunicator: %d %d %d", v[0], v[1],
          v[2]);
  }
}

/* World rank `acceptor` accepts on SELF; everyone else connects together. */
static void one_vs_rest(int acceptor) {
  MPI_Comm rest, inter;
  char port[MPI_MAX_PORT_NAME] = "";
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == acceptor, rank, &rest));
  int rrank;
  MPI_Comm_rank(rest, &rrank);
  if (rank == acceptor) {
    CHECK_OK(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK_OK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, acceptor == 0 ? 1 : 0, 1, MPI_COMM_WORLD));
    CHECK_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
    CHECK_OK(MPI_Close_port(port));
  } else {
    if (rrank == 0) CHECK_OK(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, acceptor, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Comm_connect(rrank == 0 ? port : NULL, MPI_INFO_NULL, 0, rest, &inter));
  }
  int lsize, rsize, irank;
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Comm_rank(inter, &irank);
  if (rank == acceptor) CHECK(lsize == 1 && rsize == size - 1 && irank == 0, "acceptor: %d %d %d", lsize, rsize, irank);
  else CHECK(lsize == size - 1 && rsize == 1 && irank == rrank, "connector: %d %d %d", lsize, rsize, irank);
  check_bcast(inter, rank == acceptor);
  CHECK_OK(MPI_Comm_disconnect(&inter));
  CHECK_OK(MPI_Comm_free(&rest));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("comm_dpm");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

  /* names */
  char port[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME], service[64];
  snprintf(service, sizeof service, "ferry-test-%d", rank);
  CHECK_OK(MPI_Open_port(MPI_INFO_NULL, port));
  CHECK_OK(MPI_Publish_name(service, MPI_INFO_NULL, port));
  CHECK_CLASS(MPI_Publish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE);
  MPI_Barrier(MPI_COMM_WORLD);
  snprintf(service, sizeof service, "ferry-test-%d", (rank + 1) % size); /* another process's */
  CHECK_OK(MPI_Lookup_name(service, MPI_INFO_NULL, found));
  CHECK(!strncmp(found, "ferry-port:", 11), "looked up \"%s\"", found);
  MPI_Barrier(MPI_COMM_WORLD);
  snprintf(service, sizeof service, "ferry-test-%d", rank);
  CHECK_OK(MPI_Lookup_name(service, MPI_INFO_NULL, found));
  CHECK(!strcmp(found, port), "lookup gave \"%s\", published \"%s\"", found, port);
  CHECK_OK(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
  CHECK_CLASS(MPI_Lookup_name(service, MPI_INFO_NULL, found), MPI_ERR_NAME);
  CHECK_CLASS(MPI_Unpublish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE);
  CHECK_CLASS(MPI_Publish_name("has a space", MPI_INFO_NULL, port), MPI_ERR_SERVICE);
  CHECK_OK(MPI_Close_port(port));
  CHECK_CLASS(MPI_Close_port(port), MPI_ERR_PORT);

  /* errors: bad ports */
  MPI_Comm inter = MPI_COMM_NULL;
  CHECK_CLASS(MPI_Comm_connect("no-such-port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), MPI_ERR_PORT);
  CHECK(inter == MPI_COMM_NULL, "failed connect left a communicator");
  CHECK_CLASS(MPI_Comm_connect("ferry-port:another-job:0:1", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT);
  CHECK_CLASS(MPI_Comm_accept("ferry-port:x:0:1", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT);

  if (size > 1) {
    one_vs_rest(0);
    one_vs_rest(1);
  }

  /* two connections racing to one port */
  if (size > 2) {
    if (rank == 0) {
      CHECK_OK(MPI_Open_port(MPI_INFO_NULL, port));
      CHECK_OK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 2, MPI_COMM_WORLD));
      CHECK_OK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 2, 2, MPI_COMM_WORLD));
      int seen = 0;
      for (int i = 0; i < 2; i++) {
        int who = -1;
        CHECK_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
        CHECK_OK(MPI_Recv(&who, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE));
        CHECK(who == 1 || who == 2, "connection from world rank %d", who);
        seen |= 1 << who;
        CHECK_OK(MPI_Send(&who, 1, MPI_INT, 0, 4, inter));
        CHECK_OK(MPI_Comm_disconnect(&inter));
      }
      CHECK(seen == 6, "connections seen: %#x", seen);
      CHECK_OK(MPI_Close_port(port));
    } else if (rank <= 2) {
      int back = -1;
      CHECK_OK(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
      CHECK_OK(MPI_Send(&rank, 1, MPI_INT, 0, 3, inter));
      CHECK_OK(MPI_Recv(&back, 1, MPI_INT, 0, 4, inter, MPI_STATUS_IGNORE));
      CHECK(back == rank, "the acceptor answered %d to world rank %d", back, rank);
      CHECK_OK(MPI_Comm_disconnect(&inter));
    }
  }

  /* join over a TCP connection on the loopback */
  if (size > 1 && rank < 2) {
    int fd = -1;
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (rank == 0) {
      int l = socket(AF_INET, SOCK_STREAM, 0);
      socklen_t al = sizeof a;
      CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0 &&
                getsockname(l, (struct sockaddr *)&a, &al) == 0,
            "listening socket");
      int p = ntohs(a.sin_port);
      CHECK_OK(MPI_Send(&p, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
      fd = accept(l, NULL, NULL);
      close(l);
    } else {
      int p;
      CHECK_OK(MPI_Recv(&p, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      a.sin_port = htons((uint16_t)p);
      fd = socket(AF_INET, SOCK_STREAM, 0);
      CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect to the loopback");
    }
    CHECK(fd >= 0, "socket");
    CHECK_OK(MPI_Comm_join(fd, &inter));
    close(fd);
    int rsize = 0;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 1, "join: remote size %d", rsize);
    check_bcast(inter, rank == 0);
    CHECK_OK(MPI_Comm_free(&inter));
  }
  return fy_finish();
}
