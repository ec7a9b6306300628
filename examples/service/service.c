/* A replicated storage service over MPI, after seed 002 ch. 6: the I/O
 * servers are ranks 0..S-1, the clients the other ranks of the job.
 *
 * - Connection (the thesis's listings 6.1 and 6.2): server 0 opens a port
 *   and publishes it under a service name; a client looks it up and
 *   connects with MPI_Comm_connect on MPI_COMM_SELF, the servers accept
 *   together (MPI_Comm_accept over their communicator, server 0 the
 *   root), and both sides merge the intercommunicator into the I/O
 *   communicator a window needs: servers 0..S-1, then the client. The
 *   window is over the client's buffer and every server keeps one
 *   standing lock_all epoch on it: the client is the passive target of
 *   the bulk transfers. (A server's single event loop cannot sit in
 *   MPI_Comm_accept as the thesis's connection thread does, so a client
 *   first tells server 0, which tells the others, and they accept.)
 * - Write: an RPC to the record's primary server, which reads the data out
 *   of the client's buffer (MPI_Get + flush) and relays the RPC to the
 *   secondaries, which do the same; once they have acknowledged it the
 *   primary answers. Read: any server writes the record into the client's
 *   buffer (MPI_Put + flush) and answers.
 * - Servers are event loops with one worker each: one MPI_Waitany over
 *   the control receive, one receive per connection and the requests of
 *   the disconnections under way.
 * - Disconnection: every client disconnects at the end (a batch, as a
 *   large job does before MPI_Finalize). Each server takes the batch in
 *   its own order, as independent worker pools do. Freeing a window, the
 *   I/O communicator and disconnecting are collective over the servers
 *   and the client, so with the blocking calls (--blocking-free) server 0
 *   waits in MPI_Win_free for client 0's window while server 1 waits in it
 *   for client 1's: the deadlock of the thesis's model (6.2), reported
 *   after 10 s. With Ferry's MPIX_Win_ifree, MPIX_Comm_ifree and
 *   MPIX_Comm_idisconnect (the default; listing 6.5) each server starts
 *   every free and goes on: they all complete (6.7).
 *
 * mpiexec -n N service [--servers S] [--records R] [--size BYTES] [--blocking-free]
 * N > S (default 2 servers); exit status 0 when every record read back
 * from a replica other than its primary matches what was written. Built
 * with another MPI (no FERRY_HAVE_MPIX_IFREE), it can only free blocking. */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FERRY_HAVE_MPIX_IFREE /* another MPI: the blocking calls only */
#define MPIX_Win_ifree(w, r) (*(r) = MPI_REQUEST_NULL, MPI_Win_free(w))
#define MPIX_Comm_ifree(c, r) (*(r) = MPI_REQUEST_NULL, MPI_Comm_free(c))
#define MPIX_Comm_idisconnect(c, r) (*(r) = MPI_REQUEST_NULL, MPI_Comm_disconnect(c))
#define NO_IFREE 1
#else
#define NO_IFREE 0
#endif

enum { T_CONN = 1, T_CTRL, T_RPC };                    /* tags */
#define SERVICE "ferry-example-storage"
enum { NFREE = 3 }; /* per connection: window, I/O communicator, connection */
enum { OP_WRITE = 1, OP_READ, OP_RELAY, OP_ACK, OP_REPLY, OP_DISC };

typedef struct { int op, key, len, pad; } msg_t;        /* every RPC */

static int nservers = 2, nrecords = 16, recsize = 65536, blocking_free = NO_IFREE;
static int rank, size, nclients;
static char port[MPI_MAX_PORT_NAME];

static uint8_t pattern(int key, int i) { return (uint8_t)(key * 131 + i * 7 + 1); }

static void rpc(const msg_t *m, int to, MPI_Comm io) {
  MPI_Send(m, sizeof *m, MPI_BYTE, to, T_RPC, io);
}

/* The I/O communicator of a connection: servers 0..S-1, then the client. */
static MPI_Comm merge(MPI_Comm conn, int client) {
  MPI_Comm io;
  MPI_Intercomm_merge(conn, client, &io);
  return io;
}

/* ---- server ---- */

typedef struct conn {
  MPI_Comm conn;     /* from MPI_Comm_accept */
  MPI_Comm io;       /* merged */
  MPI_Win win;
  msg_t in;          /* what the connection's receive takes in */
  int acks_left;     /* a write relayed to the secondaries */
  int closing;       /* the client said goodbye */
  int gone;
} conn_t;

static void on_alarm(int sig) {
  (void)sig;
  static const char m[] = "service: a server is still in a blocking free after 10 s: deadlocked, as the "
                          "thesis's model predicts (nonblocking frees avoid it: MPIX_Win_ifree and "
                          "MPIX_Comm_idisconnect in Ferry)\n";
  ssize_t n = write(2, m, sizeof m - 1);
  (void)n;
  _exit(3);
}

static int server(MPI_Comm servers) {
  conn_t *cs = calloc((size_t)nclients, sizeof *cs);
  uint8_t *store = malloc((size_t)nclients * nrecords * recsize);
  /* requests: [0] control; [1 + c] connection c's receive; from 1 + n,
   * NFREE per connection: the frees of its disconnection */
  int nreq = 1 + (1 + NFREE) * nclients, connected = 0, closing = 0, gone = 0, ctl;
  MPI_Request *req = malloc((size_t)nreq * sizeof *req);
  for (int i = 0; i < nreq; i++) req[i] = MPI_REQUEST_NULL;
  MPI_Irecv(&ctl, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
  while (gone < nclients) {
    int i;
    MPI_Status st;
    MPI_Waitany(nreq, req, &i, &st);
    if (i == MPI_UNDEFINED) break; /* (nothing left to wait for: cannot happen) */
    if (i == 0) { /* a client is connecting: accept it, all servers together */
      if (rank == 0)
        for (int s = 1; s < nservers; s++) MPI_Send(&ctl, 1, MPI_INT, s, T_CTRL, MPI_COMM_WORLD);
      /* (connections are numbered in the order they are accepted: the
       * client that told server 0 first need not be the one accepted) */
      conn_t *c = &cs[connected];
      MPI_Comm_accept(port, MPI_INFO_NULL, 0, servers, &c->conn);
      c->io = merge(c->conn, 0);
      MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, c->io, &c->win);
      MPI_Win_lock_all(0, c->win);
      MPI_Irecv(&c->in, sizeof c->in, MPI_BYTE, MPI_ANY_SOURCE, T_RPC, c->io, &req[1 + connected]);
      if (++connected < nclients) MPI_Irecv(&ctl, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
      continue;
    }
    if (i > nclients) { /* a free completed */
      int k = (i - 1 - nclients) / NFREE, left = 0;
      for (int f = 0; f < NFREE; f++) left += req[1 + nclients + NFREE * k + f] != MPI_REQUEST_NULL;
      if (!left) {
        cs[k].gone = 1;
        gone++;
      }
      continue;
    }
    conn_t *c = &cs[i - 1];
    msg_t m = c->in, out = {.op = OP_REPLY, .key = m.key};
    uint8_t *rec = store + (size_t)m.key * recsize;
    int client = nservers; /* (its rank in c->io) */
    switch (m.op) {
    case OP_WRITE: /* primary: take the data, relay, answer once relayed */
    case OP_RELAY: /* secondary: take the data, acknowledge */
      MPI_Get(rec, m.len, MPI_BYTE, client, 0, m.len, MPI_BYTE, c->win);
      MPI_Win_flush(client, c->win);
      if (m.op == OP_RELAY) {
        out.op = OP_ACK;
        rpc(&out, st.MPI_SOURCE, c->io);
      } else if ((c->acks_left = nservers - 1) == 0) {
        rpc(&out, client, c->io);
      } else {
        m.op = OP_RELAY;
        for (int s = 0; s < nservers; s++)
          if (s != rank) rpc(&m, s, c->io);
      }
      break;
    case OP_ACK:
      if (--c->acks_left == 0) rpc(&out, client, c->io);
      break;
    case OP_READ:
      MPI_Put(rec, m.len, MPI_BYTE, client, 0, m.len, MPI_BYTE, c->win);
      MPI_Win_flush(client, c->win);
      rpc(&out, client, c->io);
      break;
    case OP_DISC: /* no receive left behind: nothing else comes on it */
      c->closing = 1;
      closing++;
      break;
    }
    if (!c->closing) {
      MPI_Irecv(&c->in, sizeof c->in, MPI_BYTE, MPI_ANY_SOURCE, T_RPC, c->io, &req[i]);
      continue;
    }
    if (closing < nclients) continue;
    /* The batch, each server in its own order. */
    if (blocking_free) {
      signal(SIGALRM, on_alarm);
      alarm(10);
    }
    for (int j = 0; j < nclients; j++) {
      int k = (j + rank) % nclients;
      MPI_Request *f = &req[1 + nclients + NFREE * k];
      MPI_Win_unlock_all(cs[k].win); /* no transfer is under way */
      if (blocking_free) {
        MPI_Win_free(&cs[k].win);
        MPI_Comm_free(&cs[k].io);
        MPI_Comm_disconnect(&cs[k].conn);
        cs[k].gone = 1;
        gone++;
      } else {
        MPIX_Win_ifree(&cs[k].win, &f[0]);
        MPIX_Comm_ifree(&cs[k].io, &f[1]);
        MPIX_Comm_idisconnect(&cs[k].conn, &f[2]);
      }
    }
  }
  alarm(0);
  free(req);
  free(store);
  free(cs);
  return 0;
}

/* ---- client ---- */

static int client(int *bad) {
  int me = rank - nservers;
  MPI_Comm conn;
  MPI_Lookup_name(SERVICE, MPI_INFO_NULL, port);
  MPI_Send(NULL, 0, MPI_BYTE, 0, T_CONN, MPI_COMM_WORLD);
  MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &conn);
  MPI_Comm io = merge(conn, 1);
  uint8_t *buf = malloc((size_t)recsize);
  MPI_Win win;
  MPI_Win_create(buf, recsize, 1, MPI_INFO_NULL, io, &win);
  msg_t m = {.len = recsize}, r;
  for (int i = 0; i < nrecords; i++) { /* write: to the primary */
    m.op = OP_WRITE;
    m.key = me * nrecords + i;
    for (int b = 0; b < recsize; b++) buf[b] = pattern(m.key, b);
    rpc(&m, m.key % nservers, io);
    MPI_Recv(&r, sizeof r, MPI_BYTE, m.key % nservers, T_RPC, io, MPI_STATUS_IGNORE);
  }
  for (int i = 0; i < nrecords; i++) { /* read: from a replica */
    m.op = OP_READ;
    m.key = me * nrecords + i;
    memset(buf, 0, (size_t)recsize);
    int from = (m.key + 1) % nservers;
    rpc(&m, from, io);
    MPI_Recv(&r, sizeof r, MPI_BYTE, from, T_RPC, io, MPI_STATUS_IGNORE);
    for (int b = 0; b < recsize; b++)
      if (buf[b] != pattern(m.key, b)) {
        fprintf(stderr, "service: client %d: record %d byte %d is %d, wrote %d\n", me, m.key, b, buf[b],
                pattern(m.key, b));
        ++*bad;
        break;
      }
  }
  m.op = OP_DISC;
  for (int s = 0; s < nservers; s++) rpc(&m, s, io);
  MPI_Win_free(&win);
  MPI_Comm_free(&io);
  MPI_Comm_disconnect(&conn);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--servers") && i + 1 < argc) nservers = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--records") && i + 1 < argc) nrecords = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--size") && i + 1 < argc) recsize = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--blocking-free")) blocking_free = 1;
    else {
      if (rank == 0) fprintf(stderr, "usage: service [--servers S] [--records R] [--size BYTES] [--blocking-free]\n");
      MPI_Finalize();
      return 2;
    }
  }
  nclients = size - nservers;
  if (nservers < 1 || nclients < 1 || nrecords < 1 || recsize < 1) {
    if (rank == 0) fprintf(stderr, "service: needs at least one server and one client (%d ranks)\n", size);
    MPI_Finalize();
    return 2;
  }
  int bad = 0, total = 0;
  double t0 = MPI_Wtime();
  /* Server 0 opens the service's port and publishes it. */
  MPI_Comm servers;
  MPI_Comm_split(MPI_COMM_WORLD, rank < nservers, rank, &servers);
  if (rank == 0) {
    MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Publish_name(SERVICE, MPI_INFO_NULL, port);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank < nservers) server(servers);
  else client(&bad);
  if (rank == 0) {
    MPI_Unpublish_name(SERVICE, MPI_INFO_NULL, port);
    MPI_Close_port(port);
  }
  MPI_Comm_free(&servers);
  double t = MPI_Wtime() - t0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("service: %d servers, %d clients, %d writes of %d bytes (each on every server), %d reads from a "
           "replica%s; %d disconnections in a different order on each server, %s: done in %.2f s\n",
           nservers, nclients, nclients * nrecords, recsize, nclients * nrecords,
           total ? " FAILED" : " verified", nclients,
           blocking_free ? "blocking" : "MPIX_Win_ifree, MPIX_Comm_ifree, MPIX_Comm_idisconnect", t);
  MPI_Finalize();
  return total ? 1 : 0;
}
