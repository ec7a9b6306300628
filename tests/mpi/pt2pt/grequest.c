/* Generalized requests: Wait/Test see the request complete only after
 * MPI_Grequest_complete, the status comes from query_fn, free_fn runs once
 * when the request is released, cancel_fn gets the completion state, and a
 * request freed before completion is released by the completion. */
#include <mpi.h>
#include "fytest.h"

static int queries, frees, cancels, cancel_complete = -1;

static int query_fn(void *extra, MPI_Status *st) {
  queries++;
  MPI_Status_set_source(st, *(int *)extra);
  MPI_Status_set_tag(st, 42);
  MPI_Status_set_cancelled(st, 0);
  MPI_Status_set_elements(st, MPI_INT, 3);
  return MPI_SUCCESS;
}
static int free_fn(void *extra) { (void)extra; frees++; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { (void)extra; cancels++; cancel_complete = complete; return MPI_SUCCESS; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("grequest");
  int src = 7, flag;
  MPI_Request r;
  MPI_Status st;
  CHECK_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &src, &r));
  CHECK_OK(MPI_Test(&r, &flag, &st));
  CHECK(!flag && r != MPI_REQUEST_NULL, "complete before MPI_Grequest_complete");
  CHECK_OK(MPI_Cancel(&r));
  CHECK(cancels == 1 && cancel_complete == 0, "cancel_fn %d/%d", cancels, cancel_complete);
  CHECK_OK(MPI_Grequest_complete(r));
  CHECK_OK(MPI_Wait(&r, &st));
  int n;
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(r == MPI_REQUEST_NULL && st.MPI_SOURCE == 7 && st.MPI_TAG == 42 && n == 3,
        "status from query_fn: %d %d %d", st.MPI_SOURCE, st.MPI_TAG, n);
  CHECK(queries == 1 && frees == 1, "query %d free %d", queries, frees);

  /* freed first: the completion releases it */
  CHECK_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &src, &r));
  MPI_Request keep = r;
  CHECK_OK(MPI_Request_free(&r));
  CHECK(frees == 1, "free_fn ran before completion");
  CHECK_OK(MPI_Grequest_complete(keep));
  CHECK(frees == 2, "free_fn after completing a freed request: %d", frees);
  return fy_finish();
}
