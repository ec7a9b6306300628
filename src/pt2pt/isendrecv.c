/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0): one user request
 * (FY_REQ_MULTI) over two internal ones, a receive posted first and a send;
 * it completes, with the receive's status, when both have. The children
 * complete through the normal paths (and, in a PEF turn, are deferred like
 * any request with a completion hook), so nothing here runs in a signal. */
#include "pt2pt/pt2pt_impl.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include <stdlib.h>

static void child_done(fy_request_t *ch) {
  fy_request_t *p = ch->parent;
  if (ch->kind == FY_REQ_RECV) p->status = ch->status;
  if (atomic_fetch_sub(&p->nchild, 1) == 1) fy_req_complete(p);
}

static fy_request_t *child(int kind, const void *buf, MPI_Count count, fy_datatype_t *t, int peer,
                           int tag, fy_comm_t *c, fy_request_t *p) {
  fy_request_t *r = fy_req_alloc(kind, 0);
  if (!r) return NULL;
  fy_req_setup(r, kind, FY_MODE_STD, buf, count, t, peer, tag, c, 0);
  r->parent = p;
  r->on_complete = child_done;
  r->user_freed = 1; /* released as soon as it completes */
  return r;
}

/* sendbuf may be the parent's own packed copy (replace): it lives until the
 * parent is released. */
static int isendrecv(const void *sendbuf, MPI_Count sendcount, fy_datatype_t *st, int dest, int sendtag,
                     void *recvbuf, MPI_Count recvcount, fy_datatype_t *rt, int source, int recvtag,
                     fy_comm_t *c, fy_request_t *p, MPI_Request *request) {
  fy_request_t *rr = child(FY_REQ_RECV, recvbuf, recvcount, rt, source, recvtag, c, p);
  fy_request_t *sr = rr ? child(FY_REQ_SEND, sendbuf, sendcount, st, dest, sendtag, c, p) : NULL;
  int err;
  if (!sr) {
    if (rr) fy_req_release(rr);
    fy_req_release(p);
    return fy_err(MPI_ERR_NO_MEM, "out of request objects");
  }
  atomic_store(&p->nchild, 2);
  p->status.MPI_ERROR = MPI_SUCCESS;
  *request = p->handle; /* before the children start: they may complete (and release) p */
  err = fy_recv_start(rr);
  if (err) {
    fy_req_release(sr);
    fy_req_release(rr);
    fy_req_release(p);
    return err;
  }
  err = fy_send_start(sr);
  if (err) {
    /* The receive is posted: cancel it; the parent goes with it. */
    fy_req_release(sr);
    p->user_freed = 1;
    atomic_store(&p->nchild, 1);
    *request = MPI_REQUEST_NULL;
    fy_recv_cancel(rr);
    return err;
  }
  return MPI_SUCCESS;
}

static int isendrecv_api(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                         MPI_Comm comm, MPI_Request *request) {
  fy_request_t *p = fy_req_alloc(FY_REQ_MULTI, 1);
  if (!p) return fy_err(MPI_ERR_NO_MEM, "out of request objects");
  return isendrecv(sendbuf, sendcount, fy_type_get(sendtype), dest, sendtag, recvbuf, recvcount,
                   fy_type_get(recvtype), source, recvtag, fy_comm_get(comm), p, request);
}

static int isendrecv_replace_api(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                 int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
  fy_datatype_t *t = fy_type_get(datatype);
  size_t bytes = (size_t)(count * t->size);
  fy_request_t *p = fy_req_alloc(FY_REQ_MULTI, 1);
  if (!p) return fy_err(MPI_ERR_NO_MEM, "out of request objects");
  p->tmp = malloc(bytes ? bytes : 1);
  if (!p->tmp) {
    fy_req_release(p);
    return fy_err(MPI_ERR_NO_MEM, "out of memory for %zu bytes in MPI_Isendrecv_replace", bytes);
  }
  p->tmp_owned = 1; /* freed with the request */
  fy_type_pack(t, count, buf, p->tmp);
  return isendrecv(p->tmp, (MPI_Count)bytes, fy_type_get(MPI_BYTE), dest, sendtag, buf, count, t, source,
                   recvtag, fy_comm_get(comm), p, request);
}

int fy_mpi_isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, MPI_Request *request) {
  return isendrecv_api(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                       recvtag, comm, request);
}
int fy_mpi_isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                       MPI_Comm comm, MPI_Request *request) {
  return isendrecv_api(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                       recvtag, comm, request);
}
int fy_mpi_isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                             int recvtag, MPI_Comm comm, MPI_Request *request) {
  return isendrecv_replace_api(buf, count, datatype, dest, sendtag, source, recvtag, comm, request);
}
int fy_mpi_isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                               int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
  return isendrecv_replace_api(buf, count, datatype, dest, sendtag, source, recvtag, comm, request);
}
