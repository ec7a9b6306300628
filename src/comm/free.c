/* Freeing communicators: MPI_Comm_free, MPI_Comm_disconnect and their
 * nonblocking forms MPIX_Comm_ifree and MPIX_Comm_idisconnect (seed 002
 * ch. 6: a service that frees a client's communicators in a blocking call
 * serializes its disconnections and can deadlock; docs/communicators.md).
 *
 * The handle dies at the call in every form: attributes are deleted, the
 * contexts stop being indexed (pending matches still complete), the user's
 * reference goes. The object lives until the last operation pending on it
 * is released (fy_comm.h).
 * - ifree's request holds one more reference and completes when it is the
 *   only one left: the communicator's resources are gone, every operation
 *   on it has completed and been waited for or freed (requests, inactive
 *   persistent ones too, hold it).
 * - idisconnect's request completes when every member of both groups has
 *   called it: a barrier (MPI_Ibarrier, so in collective order), started
 *   at the call. MPI_Comm_disconnect is the same request waited for at
 *   once, so the blocking and the nonblocking forms meet. */
#include "comm/fy_commc.h"
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

/* ---- nonblocking forms ---- */

typedef struct pending_free {
  struct pending_free *next;
  fy_comm_t *c;       /* ifree: the request's reference */
  fy_request_t *bar;  /* idisconnect: the barrier */
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
    if (p->bar ? !fy_req_done(p->bar) : __atomic_load_n(&p->c->refcount, __ATOMIC_ACQUIRE) > 1) {
      pp = &p->next;
      continue;
    }
    *pp = p->next;
    if (p->bar) {
      p->req->status.MPI_ERROR = p->bar->status.MPI_ERROR;
      fy_req_release(p->bar); /* with it the barrier's reference */
    } else {
      fy_comm_release(p->c); /* the last reference: contexts back to the pool */
    }
    fy_req_complete(p->req);
    free(p);
    n++;
  }
  return n;
}

/* The request (request NULL: waited for here), then the handle dies.
 * barrier: an MPI_Ibarrier on the communicator, started first (collective
 * order is the call's), released when it completes. */
static int ifree(MPI_Comm *comm, MPI_Request *request, int barrier, const char *what) {
  fy_comm_t *c = fy_comm_get(*comm);
  int err = predefined(c, what);
  if (err) return err;
  pending_free_t *p = calloc(1, sizeof *p);
  fy_request_t *r = fy_req_alloc(FY_REQ_SEND, request != NULL);
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
    p->bar = fy_req_get(b);
  } else {
    fy_comm_retain(c);
    p->c = c;
  }
  if ((err = fy_commc_release(c))) {
    /* a delete callback failed: the handle stays (as in Comm_free), the
     * barrier, if any, has started and completes on its own */
    if (p->bar) {
      MPI_Request b = p->bar->handle;
      fy_mpi_request_free(&b);
    }
    fy_comm_release(p->c);
    goto fail;
  }
  fy_status_empty(&r->status);
  r->status.MPI_ERROR = MPI_SUCCESS;
  p->req = r;
  fy_plock();
  p->next = pending;
  pending = p;
  *comm = MPI_COMM_NULL;
  ifree_progress(); /* nothing pending on it: complete at once (under the lock, as from a pass) */
  fy_punlock();
  return fy_req_give_or_wait(r, request);
fail:
  if (r) fy_req_release(r);
  free(p);
  return err;
}

int fy_mpix_comm_ifree(MPI_Comm *comm, MPI_Request *request) { return ifree(comm, request, 0, "freed"); }

int fy_mpix_comm_idisconnect(MPI_Comm *comm, MPI_Request *request) {
  return ifree(comm, request, 1, "disconnected");
}

int fy_mpi_comm_disconnect(MPI_Comm *comm) { return ifree(comm, NULL, 1, "disconnected"); }
