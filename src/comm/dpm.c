/* Dynamic process management, the part a service over MPI needs (seed 002
 * ch. 6): ports (MPI_Open_port/Close_port), MPI_Comm_accept and
 * MPI_Comm_connect, MPI_Comm_join, and the name service
 * (MPI_Publish_name/Lookup_name/Unpublish_name, kept by the process
 * manager: fy_pmi_name). Between processes of one job; a port or a socket
 * peer of another job is refused with MPI_ERR_PORT /
 * MPI_ERR_UNSUPPORTED_OPERATION (the transports only know the job's own
 * processes), and spawning is not implemented (docs/communicators.md).
 *
 * A port is "ferry-port:<job>:<world rank>:<serial>" of the process that
 * opened it. The connecting root sends a request to the port's process on
 * MPI_COMM_WORLD's internal context, tagged by the port; the accepting
 * root takes the first request for that port (any source), and from then
 * on the two roots build the intercommunicator exactly as
 * MPI_Intercomm_create does with MPI_COMM_WORLD as the bridge
 * (fy_commc_inter). A root that fails (bad port) tells its group first, so
 * nobody waits for a connection that will not come. */
#include "comm/fy_commc.h"
#include "comm/fy_cx.h"
#include "core/fy_error.h"
#include "core/fy_init.h"
#include "runtime/fy_pmi.h"
#include "binding/fy_impl.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PORT_PREFIX "ferry-port:"
#define REQ_MAGIC 0x46595043u /* "FYPC" */

typedef struct port {
  struct port *next;
  char name[MPI_MAX_PORT_NAME];
} port_t;

static port_t *ports; /* opened by this process */
static unsigned port_serial;

static port_t **port_find(const char *name) {
  port_t **pp = &ports;
  while (*pp && strcmp((*pp)->name, name)) pp = &(*pp)->next;
  return pp;
}

int fy_mpi_open_port(MPI_Info info, char *port_name) {
  (void)info;
  if (!port_name) return fy_err(MPI_ERR_ARG, "port_name = NULL");
  port_t *p = calloc(1, sizeof *p);
  if (!p) return fy_err(MPI_ERR_NO_MEM, "out of memory opening a port");
  int n = snprintf(p->name, sizeof p->name, PORT_PREFIX "%s:%d:%u", fy_pmi_kvsname(), fy_state.world_rank,
                   ++port_serial);
  if (n < 0 || n >= (int)sizeof p->name) {
    free(p);
    return fy_err(MPI_ERR_INTERN, "the job name is too long for a port name (%d bytes)", MPI_MAX_PORT_NAME);
  }
  p->next = ports;
  ports = p;
  strcpy(port_name, p->name);
  return MPI_SUCCESS;
}

int fy_mpi_close_port(const char *port_name) {
  if (!port_name) return fy_err(MPI_ERR_ARG, "port_name = NULL");
  port_t **pp = port_find(port_name), *p = *pp;
  if (!p) return fy_err(MPI_ERR_PORT, "port \"%s\" is not open in this process", port_name);
  *pp = p->next;
  free(p);
  return MPI_SUCCESS;
}

/* The world rank a port belongs to, or an error (a port of another job). */
static int port_owner(const char *port, int *world) {
  const char *job = fy_pmi_kvsname();
  size_t pl = strlen(PORT_PREFIX), jl = strlen(job);
  if (strncmp(port, PORT_PREFIX, pl))
    return fy_err(MPI_ERR_PORT, "\"%s\" is not a port name of Ferry (MPI_Open_port gives them)", port);
  if (strncmp(port + pl, job, jl) || port[pl + jl] != ':')
    return fy_err(MPI_ERR_PORT,
                  "port \"%s\" belongs to another job: Ferry connects processes of one job only (%s)", port,
                  job);
  char *end;
  long r = strtol(port + pl + jl + 1, &end, 10);
  if (end == port + pl + jl + 1 || *end != ':' || r < 0 || r >= fy_state.world_size)
    return fy_err(MPI_ERR_PORT, "port \"%s\" names no process of this job", port);
  *world = (int)r;
  return MPI_SUCCESS;
}

typedef struct { uint32_t magic; int32_t world; } conn_req_t;

/* The roots' part of accept/connect: the peer root's world rank. */
static int accept_root(const char *port, int tag, int *peer) {
  if (!port) return fy_err(MPI_ERR_ARG, "port_name = NULL at the root");
  if (!*port_find(port)) return fy_err(MPI_ERR_PORT, "port \"%s\" is not open in this process", port);
  conn_req_t q;
  int err = fy_cx_recv_from(&fy_comm_world, MPI_ANY_SOURCE, tag, &q, sizeof q, peer);
  if (err) return err;
  if (q.magic != REQ_MAGIC || q.world != *peer)
    return fy_err(MPI_ERR_INTERN, "a malformed connection request from world rank %d", *peer);
  return MPI_SUCCESS;
}

static int connect_root(const char *port, int tag, int *peer) {
  if (!port) return fy_err(MPI_ERR_ARG, "port_name = NULL at the root");
  int err = port_owner(port, peer);
  if (err) return err;
  conn_req_t q = {REQ_MAGIC, fy_state.world_rank};
  return fy_cx_send(&fy_comm_world, *peer, tag, &q, sizeof q);
}

static int accept_or_connect(int accept, const char *port, int root, MPI_Comm comm, MPI_Comm *newcomm) {
  fy_comm_t *c = fy_comm_get(comm), *n;
  const char *fname = accept ? "MPI_Comm_accept" : "MPI_Comm_connect";
  if (c->is_inter) return fy_err(MPI_ERR_COMM, "%s: comm = %s is an intercommunicator", fname, c->name);
  if (root < 0 || root >= c->size)
    return fy_err(MPI_ERR_ROOT, "root = %d is not a rank of %s (size %d)", root, c->name, c->size);
  int peer = -1, tag = 0;
  int32_t st = MPI_SUCCESS;
  if (c->rank == root) {
    tag = port ? fy_cx_string_tag(port) : 0;
    st = accept ? accept_root(port, tag, &peer) : connect_root(port, tag, &peer);
  }
  fy_cx_t d = fy_cx_of(c);
  d.root = root;
  int err = fy_cx_bcast(&d, &st, sizeof st);
  if (err) return err;
  if (st) {
    if (c->rank == root) return st;
    return fy_err(fy_err_class_of(st), "%s failed at the root (rank %d of %s)", fname, root, c->name);
  }
  if ((err = fy_commc_inter(c, root, &fy_comm_world, peer, tag, &n))) return err;
  *newcomm = n->handle;
  return MPI_SUCCESS;
}

int fy_mpi_comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm) {
  (void)info;
  return accept_or_connect(1, port_name, root, comm, newcomm);
}

int fy_mpi_comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm) {
  (void)info;
  return accept_or_connect(0, port_name, root, comm, newcomm);
}

/* ---- MPI_Comm_join: the two processes swap who they are over fd ---- */

typedef struct { char job[200]; int32_t world; uint32_t magic; } join_id_t;

static int fd_io(int fd, void *buf, size_t n, int out) {
  char *p = buf;
  while (n) {
    ssize_t k = out ? write(fd, p, n) : read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      return fy_err(MPI_ERR_OTHER, "MPI_Comm_join: cannot %s the socket: %s", out ? "write to" : "read from",
                    k < 0 ? strerror(errno) : "the other side closed it");
    p += k;
    n -= (size_t)k;
  }
  return MPI_SUCCESS;
}

int fy_mpi_comm_join(int fd, MPI_Comm *intercomm) {
  join_id_t me = {.world = fy_state.world_rank, .magic = REQ_MAGIC}, other;
  snprintf(me.job, sizeof me.job, "%s", fy_pmi_kvsname());
  int err = fd_io(fd, &me, sizeof me, 1);
  if (!err) err = fd_io(fd, &other, sizeof other, 0);
  if (err) return err;
  other.job[sizeof other.job - 1] = 0;
  if (other.magic != REQ_MAGIC)
    return fy_err(MPI_ERR_OTHER, "MPI_Comm_join: the other side of fd %d is not a Ferry process in MPI_Comm_join",
                  fd);
  if (strcmp(other.job, me.job))
    return fy_err(MPI_ERR_UNSUPPORTED_OPERATION,
                  "MPI_Comm_join: the other process belongs to job %s: Ferry joins processes of one job only",
                  other.job);
  if (other.world == me.world || other.world < 0 || other.world >= fy_state.world_size)
    return fy_err(MPI_ERR_OTHER, "MPI_Comm_join: the other side is world rank %d", (int)other.world);
  char key[64];
  int lo = me.world < other.world ? me.world : other.world, hi = me.world ^ other.world ^ lo;
  snprintf(key, sizeof key, "ferry-join:%d:%d", lo, hi);
  fy_comm_t *n;
  if ((err = fy_commc_inter(&fy_comm_self, 0, &fy_comm_world, other.world, fy_cx_string_tag(key), &n))) return err;
  *intercomm = n->handle;
  return MPI_SUCCESS;
}

/* ---- names ---- */

static int name_op(const char *op, const char *service, const char *port, char *out, int refused_class) {
  if (!service) return fy_err(MPI_ERR_ARG, "service_name = NULL");
  int rc = fy_pmi_name(op, service, port, out, MPI_MAX_PORT_NAME);
  if (rc == 0) return MPI_SUCCESS;
  return fy_err(rc > 0 ? refused_class : MPI_ERR_SERVICE, "%s", fy_pmi_error());
}

int fy_mpi_publish_name(const char *service_name, MPI_Info info, const char *port_name) {
  (void)info;
  if (!port_name) return fy_err(MPI_ERR_ARG, "port_name = NULL");
  return name_op("publish_name", service_name, port_name, NULL, MPI_ERR_SERVICE);
}

int fy_mpi_unpublish_name(const char *service_name, MPI_Info info, const char *port_name) {
  (void)info;
  (void)port_name; /* (the service names its port) */
  return name_op("unpublish_name", service_name, NULL, NULL, MPI_ERR_SERVICE);
}

int fy_mpi_lookup_name(const char *service_name, MPI_Info info, char *port_name) {
  (void)info;
  if (!port_name) return fy_err(MPI_ERR_ARG, "port_name = NULL");
  return name_op("lookup_name", service_name, NULL, port_name, MPI_ERR_NAME);
}
