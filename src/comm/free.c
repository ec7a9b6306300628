/* Freeing communicators: MPI_Comm_free, MPI_Comm_disconnect and their
 * nonblocking forms MPIX_Comm_ifree and MPIX_Comm_idisconnect (seed 002
 * ch. 6: a service that frees a client's communicators in a blocking call
 * serializes its disconnections and can deadlock; docs/communicators.md).
 *
 * The handle dies at the call in every form: attributes are deleted, the
 * contexts stop being indexed (pending matches still complete), the user's
 * reference goes. The object lives until the last operation pending on it
 * is released (fy_comm.h). A nonblocking form's request holds one more
 * reference and completes when it is the only one left, so its completion
 * says the communicator's resources are gone: every operation on it has
 * completed and been waited for (or freed), and, for idisconnect, every
 * member of both groups has called it (a barrier, started at the call in
 * collective order). */
#include "comm/fy_commc.h"
#include "comm/fy_cx.h"
#include "core/fy_error.h"
#include "core/fy_request.h"
#include "pt2pt/fy_pt2pt.h"
#include "progress/fy_progress.h"
#include "binding/fy_impl.h"
#include <stdlib.h>

static int predefined(fy_comm_t *c, const char *what) {
  if (c != &fy_comm_world && c != &fy_comm_self) return MPI_SUCCESS;
  return fy_err(MPI_ERR_COMM, "comm = %s is predefined and cannot be %s", c->name, what);
}

int fy_mpi_comm_free(MPI_Comm *comm) {
  fy_comm_t *c = fy_comm_get(*comm);
  int err = predefined(c, "freed");
  if (err) return err;
  /* Operations still pending on it complete normally: their requests keep
   * the context, and the queue keeps unmatched items as a plain list. */
  if ((err = fy_commc_release(c))) return err;
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int fy_mpi_comm_disconnect(MPI_Comm *comm) {
  fy_comm_t *c = fy_comm_get(*comm);
  int err = predefined(c, "disconnected");
  if (err) return err;
  /* Disconnect waits for the communication on it: every member reaches
   * this point (a barrier over the construction tags). */
  fy_cx_t d = fy_cx_of(c->is_inter ? c->local_comm : c);
  uint32_t w = 0, o = 0;
  err = fy_cx_allreduce_band(&d, &w, 1);
  if (!err && c->is_inter && c->rank == 0) err = fy_cx_swap(c, 0, 8, &w, sizeof w, &o, sizeof o);
  if (!err && c->is_inter) err = fy_cx_bcast(&d, &w, sizeof w);
  if (err) return err;
  return fy_mpi_comm_free(comm);
}

/* ---- nonblocking forms ---- */

typedef struct pending_free {
  struct pending_free *next;
  fy_comm_t *c;       /* the request's reference */
  fy_request_t *req;
} pending_free_t;

static pending_free_t *pending;
static int hooked;

static int ifree_progress(void) {
  /* Destroying the object frees memory: never in a signal turn or on an
   * agent thread (as for Comm_idup, create.c). */
  if (!pending || fy_progress_agent || fy_pt2pt_in_signal) return 0;
  int n = 0;
  for (pending_free_t **pp = &pending; *pp;) {
    pending_free_t *p = *pp;
    if (__atomic_load_n(&p->c->refcount, __ATOMIC_ACQUIRE) > 1) {
      pp = &p->next;
      continue;
    }
    *pp = p->next;
    fy_comm_release(p->c); /* the last reference: contexts back to the pool */
    fy_req_complete(p->req);
    free(p);
    n++;
  }
  return n;
}

/* The shared part: the request and its reference, then the handle dies.
 * barrier: an internal MPI_Ibarrier on the communicator, started first
 * (collective order is the call's), freed at once so that its completion
 * releases it and with it its reference. */
static int ifree(MPI_Comm *comm, MPI_Request *request, int barrier, const char *what) {
  fy_comm_t *c = fy_comm_get(*comm);
  int err = predefined(c, what);
  if (err) return err;
  pending_free_t *p = calloc(1, sizeof *p);
  fy_request_t *r = fy_req_alloc(FY_REQ_SEND, 1);
  if (!p || !r) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory freeing %s", c->name);
    goto fail;
  }
  if (!hooked) {
    if (fy_progress_hook_add(ifree_progress) != 0) {
      err = fy_err(MPI_ERR_INTERN, "no progress hook left for MPIX_Comm_i%s", barrier ? "disconnect" : "free");
      goto fail;
    }
    hooked = 1;
  }
  if (barrier) {
    MPI_Request b;
    if ((err = fy_mpi_ibarrier(*comm, &b))) goto fail;
    fy_mpi_request_free(&b);
  }
  fy_comm_retain(c);
  if ((err = fy_commc_release(c))) {
    /* a delete callback failed: the handle stays (as in Comm_free), the
     * barrier, if any, has started and completes on its own */
    fy_comm_release(c);
    goto fail;
  }
  fy_status_empty(&r->status);
  p->c = c;
  p->req = r;
  fy_plock();
  p->next = pending;
  pending = p;
  fy_punlock();
  *comm = MPI_COMM_NULL;
  *request = r->handle;
  ifree_progress(); /* nothing pending on it: complete at once */
  return MPI_SUCCESS;
fail:
  if (r) fy_req_release(r);
  free(p);
  return err;
}

int fy_mpix_comm_ifree(MPI_Comm *comm, MPI_Request *request) { return ifree(comm, request, 0, "freed"); }

int fy_mpix_comm_idisconnect(MPI_Comm *comm, MPI_Request *request) {
  return ifree(comm, request, 1, "disconnected");
}
