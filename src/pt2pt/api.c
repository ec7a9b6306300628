/* The MPI point-to-point calls, expressed as request set-up + start (+ wait
 * for the blocking forms). Argument checks are done by the bindings. */
#include "pt2pt/pt2pt_impl.h"
#include "progress/fy_progress.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>

int fy_bsend_start(fy_request_t *r);

static int new_req_h(int kind, int mode, const void *buf, MPI_Count count, MPI_Datatype dt,
                     int peer, int tag, MPI_Comm comm, fy_request_t **out, int with_handle) {
  fy_request_t *r = fy_req_alloc(kind, with_handle);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of request objects");
  fy_req_setup(r, kind, mode, buf, count, fy_type_get(dt), peer, tag, fy_comm_get(comm), 0);
  *out = r;
  return MPI_SUCCESS;
}

static int new_req(int kind, int mode, const void *buf, MPI_Count count, MPI_Datatype dt,
                   int peer, int tag, MPI_Comm comm, fy_request_t **out) {
  return new_req_h(kind, mode, buf, count, dt, peer, tag, comm, out, 1);
}

static int start(fy_request_t *r) {
  if (r->kind == FY_REQ_RECV) return fy_recv_start(r);
  if (r->mode == FY_MODE_BUF) return fy_bsend_start(r);
  return fy_send_start(r);
}

/* A small standard or ready send that the ring takes at once has left:
 * it needs no request of its own. */
static int sent_now(int kind, int mode, const void *buf, MPI_Count count, MPI_Datatype dt,
                    int peer, int tag, MPI_Comm comm) {
  return kind == FY_REQ_SEND && (mode == FY_MODE_STD || mode == FY_MODE_READY) &&
         fy_send_eager_now(buf, count, fy_type_get(dt), peer, tag, fy_comm_get(comm), 0) == 0;
}

static int inonblocking(int kind, int mode, const void *buf, MPI_Count count, MPI_Datatype dt,
                        int peer, int tag, MPI_Comm comm, MPI_Request *request) {
  if (sent_now(kind, mode, buf, count, dt, peer, tag, comm)) {
    *request = FY_REQ_SENT; /* complete, shared (fy_request.h) */
    return MPI_SUCCESS;
  }
  fy_request_t *r = NULL;
  int err = new_req(kind, mode, buf, count, dt, peer, tag, comm, &r);
  if (err) return err;
  err = start(r);
  if (err) {
    fy_req_release(r);
    return err;
  }
  *request = r->handle;
  return MPI_SUCCESS;
}

static int blocking(int kind, int mode, const void *buf, MPI_Count count, MPI_Datatype dt,
                    int peer, int tag, MPI_Comm comm, MPI_Status *status) {
  if (sent_now(kind, mode, buf, count, dt, peer, tag, comm)) return MPI_SUCCESS;
  fy_request_t *r = NULL;
  /* No user handle is needed for a blocking call. */
  int err = new_req_h(kind, mode, buf, count, dt, peer, tag, comm, &r, 0);
  if (err) return err;
  r->blocking = 1;
  fy_req_set_waited(r, FY_WAITED_ALL); /* the call waits on it right after the start */
  err = start(r);
  if (!err) {
    fy_req_wait_done(r);
    err = r->status.MPI_ERROR;
    if (kind == FY_REQ_RECV) fy_status_out(status, &r->status, 0);
  }
  fy_req_release(r);
  return err;
}

static int persistent(int kind, int mode, const void *buf, MPI_Count count, MPI_Datatype dt,
                      int peer, int tag, MPI_Comm comm, MPI_Request *request) {
  fy_request_t *r = NULL;
  int err = new_req(kind, mode, buf, count, dt, peer, tag, comm, &r);
  if (err) return err;
  r->persistent = 1;
  r->active = 0;
  atomic_store(&r->done, 1);
  fy_status_empty(&r->status);
  *request = r->handle;
  return MPI_SUCCESS;
}

#define SEND_FAMILY(name, mode)                                                                  \
  int fy_mpi_##name(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,        \
                    MPI_Comm comm) {                                                             \
    return blocking(FY_REQ_SEND, mode, buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE); \
  }                                                                                              \
  int fy_mpi_##name##_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,       \
                        int tag, MPI_Comm comm) {                                                \
    return blocking(FY_REQ_SEND, mode, buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE); \
  }                                                                                              \
  int fy_mpi_i##name(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,       \
                     MPI_Comm comm, MPI_Request *request) {                                      \
    return inonblocking(FY_REQ_SEND, mode, buf, count, datatype, dest, tag, comm, request);      \
  }                                                                                              \
  int fy_mpi_i##name##_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,      \
                         int tag, MPI_Comm comm, MPI_Request *request) {                         \
    return inonblocking(FY_REQ_SEND, mode, buf, count, datatype, dest, tag, comm, request);      \
  }                                                                                              \
  int fy_mpi_##name##_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, \
                           MPI_Comm comm, MPI_Request *request) {                                \
    return persistent(FY_REQ_SEND, mode, buf, count, datatype, dest, tag, comm, request);        \
  }                                                                                              \
  int fy_mpi_##name##_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,  \
                             int tag, MPI_Comm comm, MPI_Request *request) {                     \
    return persistent(FY_REQ_SEND, mode, buf, count, datatype, dest, tag, comm, request);        \
  }

SEND_FAMILY(send, FY_MODE_STD)
SEND_FAMILY(ssend, FY_MODE_SYNC)
SEND_FAMILY(rsend, FY_MODE_READY)
SEND_FAMILY(bsend, FY_MODE_BUF)

int fy_mpi_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Status *status) {
  return blocking(FY_REQ_RECV, FY_MODE_STD, buf, count, datatype, source, tag, comm, status);
}
int fy_mpi_recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                  MPI_Comm comm, MPI_Status *status) {
  return blocking(FY_REQ_RECV, FY_MODE_STD, buf, count, datatype, source, tag, comm, status);
}
int fy_mpi_irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                 MPI_Request *request) {
  return inonblocking(FY_REQ_RECV, FY_MODE_STD, buf, count, datatype, source, tag, comm, request);
}
int fy_mpi_irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request *request) {
  return inonblocking(FY_REQ_RECV, FY_MODE_STD, buf, count, datatype, source, tag, comm, request);
}
int fy_mpi_recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request) {
  return persistent(FY_REQ_RECV, FY_MODE_STD, buf, count, datatype, source, tag, comm, request);
}
int fy_mpi_recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Request *request) {
  return persistent(FY_REQ_RECV, FY_MODE_STD, buf, count, datatype, source, tag, comm, request);
}

/* Sendrecv: post the receive first so a matching pair between two ranks
 * never depends on buffering. */
static int sendrecv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  fy_request_t *rr = NULL, *sr = NULL;
  int err = new_req_h(FY_REQ_RECV, FY_MODE_STD, recvbuf, recvcount, recvtype, source, recvtag, comm, &rr, 0);
  if (err) return err;
  err = new_req_h(FY_REQ_SEND, FY_MODE_STD, sendbuf, sendcount, sendtype, dest, sendtag, comm, &sr, 0);
  if (err) {
    fy_req_release(rr);
    return err;
  }
  sr->blocking = 1; /* waited on at once: a derived type packs while it copies */
  fy_recv_start(rr);
  err = fy_send_start(sr);
  if (!err) fy_req_wait_done(sr);
  fy_req_wait_done(rr);
  if (!err) err = rr->status.MPI_ERROR;
  fy_status_out(status, &rr->status, 0);
  fy_req_release(sr);
  fy_req_release(rr);
  return err;
}

int fy_mpi_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                    int recvtag, MPI_Comm comm, MPI_Status *status) {
  return sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                  source, recvtag, comm, status);
}
int fy_mpi_sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                      int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                      int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  return sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                  source, recvtag, comm, status);
}

static int sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status) {
  fy_datatype_t *t = fy_type_get(datatype);
  size_t bytes = (size_t)(count * t->size);
  void *copy = malloc(bytes ? bytes : 1);
  if (!copy) return fy_err(MPI_ERR_NO_MEM, "out of memory for %zu bytes in MPI_Sendrecv_replace", bytes);
  fy_type_pack(t, count, buf, copy);
  int err = sendrecv(copy, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype,
                     source, recvtag, comm, status);
  free(copy);
  return err;
}

int fy_mpi_sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  return sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}
int fy_mpi_sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int sendtag, int source, int recvtag, MPI_Comm comm,
                              MPI_Status *status) {
  return sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}

/* ---- probes ---- */

static void proc_null_status(MPI_Status *status) {
  if (status == MPI_STATUS_IGNORE) return;
  int e = status->MPI_ERROR;
  fy_status_empty(status);
  status->MPI_SOURCE = MPI_PROC_NULL;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = e;
}

int fy_mpi_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  MPI_Status st;
  fy_comm_t *c = fy_comm_get(comm);
  *flag = fy_probe_peek(c, source, tag, &st);
  if (!*flag) {
    fy_progress_poll();
    *flag = fy_probe_peek(c, source, tag, &st);
  }
  if (*flag) fy_status_out(status, &st, 0);
  return MPI_SUCCESS;
}

typedef struct { fy_comm_t *c; int src, tag; MPI_Status st; fy_request_t *msg; int take; } probe_t;

static int probe_done(void *arg) {
  probe_t *p = arg;
  if (p->take) {
    p->msg = fy_probe_take(p->c, p->src, p->tag, &p->st);
    return p->msg != NULL;
  }
  return fy_probe_peek(p->c, p->src, p->tag, &p->st);
}

int fy_mpi_probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  if (source == MPI_PROC_NULL) {
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  probe_t p = {.c = fy_comm_get(comm), .src = source, .tag = tag};
  fy_progress_wait(probe_done, &p);
  fy_status_out(status, &p.st, 0);
  return MPI_SUCCESS;
}

int fy_mpi_improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                   MPI_Status *status) {
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    *message = MPI_MESSAGE_NO_PROC;
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  probe_t p = {.c = fy_comm_get(comm), .src = source, .tag = tag, .take = 1};
  *flag = probe_done(&p);
  if (!*flag) {
    fy_progress_poll();
    *flag = probe_done(&p);
  }
  if (*flag) {
    *message = p.msg->handle;
    fy_status_out(status, &p.st, 0);
  }
  return MPI_SUCCESS;
}

int fy_mpi_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) {
  if (source == MPI_PROC_NULL) {
    *message = MPI_MESSAGE_NO_PROC;
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  probe_t p = {.c = fy_comm_get(comm), .src = source, .tag = tag, .take = 1};
  fy_progress_wait(probe_done, &p);
  *message = p.msg->handle;
  fy_status_out(status, &p.st, 0);
  return MPI_SUCCESS;
}

static int message_get(MPI_Message *message, fy_request_t **out) {
  *out = NULL;
  fy_request_t *m = fy_req_get(*message);
  if (!m || m->kind != FY_REQ_MSG || !m->msg)
    return fy_err(MPI_ERR_REQUEST, "message = %#x is not a matched message from MPI_Mprobe",
                  (unsigned)*message);
  *out = m;
  return MPI_SUCCESS;
}

static int imrecv(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  fy_request_t **out) {
  fy_request_t *m = NULL;
  int err = message_get(message, &m);
  if (err) return err;
  fy_request_t *r = fy_req_alloc(FY_REQ_RECV, 1);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of request objects");
  fy_msg_recv_start(m, buf, count, fy_type_get(datatype), r);
  fy_req_release(m);
  *message = MPI_MESSAGE_NULL;
  *out = r;
  return MPI_SUCCESS;
}

static int mrecv(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status) {
  if (*message == MPI_MESSAGE_NO_PROC) {
    proc_null_status(status);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
  }
  fy_request_t *r = NULL;
  int err = imrecv(buf, count, datatype, message, &r);
  if (err) return err;
  fy_req_wait_done(r);
  err = r->status.MPI_ERROR;
  fy_status_out(status, &r->status, 0);
  fy_req_release(r);
  return err;
}

int fy_mpi_mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status) {
  return mrecv(buf, count, datatype, message, status);
}
int fy_mpi_mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                   MPI_Status *status) {
  return mrecv(buf, count, datatype, message, status);
}

static int imrecv_api(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                      MPI_Request *request) {
  if (*message == MPI_MESSAGE_NO_PROC) {
    fy_request_t *r = NULL;
    int err = new_req(FY_REQ_RECV, FY_MODE_STD, buf, count, datatype, MPI_PROC_NULL, 0,
                      MPI_COMM_SELF, &r);
    if (err) return err;
    fy_recv_start(r);
    *request = r->handle;
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
  }
  fy_request_t *r = NULL;
  int err = imrecv(buf, count, datatype, message, &r);
  if (!err) *request = r->handle;
  return err;
}

int fy_mpi_imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request) {
  return imrecv_api(buf, count, datatype, message, request);
}
int fy_mpi_imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                    MPI_Request *request) {
  return imrecv_api(buf, count, datatype, message, request);
}
