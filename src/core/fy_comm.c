/* Communicators: see fy_comm.h. Creation of new communicators comes with
 * the collectives; this file holds the predefined ones and their queries. */
#include "core/fy_comm.h"
#include "core/fy_error.h"
#include "core/fy_errhandler.h"
#include "core/fy_init.h"
#include "pt2pt/fy_pt2pt.h"
#include "binding/fy_impl.h"
#include "core/fy_handle.h"
#include "datatype/fy_datatype.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

fy_comm_t fy_comm_world, fy_comm_self;
static int self_world_rank;
static fy_htab_t comm_tab = {.obj = FY_OK_COMM};
static uint32_t next_ctx = 4; /* 0/1: WORLD, 2/3: SELF; each communicator takes two */

int fy_comm_init(int world_rank, int world_size) {
  memset(&fy_comm_world, 0, sizeof fy_comm_world);
  fy_comm_world.handle = MPI_COMM_WORLD;
  fy_comm_world.refcount = 1;
  fy_comm_world.ctx = 0;
  fy_comm_world.rank = world_rank;
  fy_comm_world.size = world_size;
  fy_comm_world.errhandler = MPI_ERRORS_ARE_FATAL;
  strcpy(fy_comm_world.name, "MPI_COMM_WORLD");

  memset(&fy_comm_self, 0, sizeof fy_comm_self);
  self_world_rank = world_rank;
  fy_comm_self.handle = MPI_COMM_SELF;
  fy_comm_self.refcount = 1;
  fy_comm_self.ctx = 2;
  fy_comm_self.rank = 0;
  fy_comm_self.size = 1;
  fy_comm_self.world_of = &self_world_rank;
  fy_comm_self.errhandler = MPI_ERRORS_ARE_FATAL;
  strcpy(fy_comm_self.name, "MPI_COMM_SELF");
  fy_pt2pt_ctx_open(&fy_comm_world);
  fy_pt2pt_ctx_open(&fy_comm_self);
  return MPI_SUCCESS;
}

fy_comm_t *fy_comm_get(MPI_Comm h) {
  if (h == MPI_COMM_WORLD) return &fy_comm_world;
  if (h == MPI_COMM_SELF) return &fy_comm_self;
  return fy_htab_get(&comm_tab, h);
}

#define FY_TAG_CTX 3

/* Agree on a context id unused by every member: the maximum of the
 * members' next free ids (gathered to rank 0, then sent back) over the
 * parent's collective context. */
static int agree_ctx(fy_comm_t *c, uint32_t *out) {
  fy_datatype_t *u32 = fy_type_get(MPI_UINT32_T);
  uint32_t v = next_ctx, w;
  fy_request_t *r = NULL;
  int err;
  if (c->rank == 0) {
    for (int i = 1; i < c->size; i++) {
      if ((err = fy_irecv_internal(&w, 1, u32, i, FY_TAG_CTX, c, &r))) return err;
      fy_req_wait_done(r);
      fy_req_release(r);
      if (w > v) v = w;
    }
    for (int i = 1; i < c->size; i++) {
      if ((err = fy_isend_internal(&v, 1, u32, i, FY_TAG_CTX, c, &r))) return err;
      fy_req_wait_done(r);
      fy_req_release(r);
    }
  } else {
    if ((err = fy_isend_internal(&v, 1, u32, 0, FY_TAG_CTX, c, &r))) return err;
    fy_req_wait_done(r);
    fy_req_release(r);
    if ((err = fy_irecv_internal(&v, 1, u32, 0, FY_TAG_CTX, c, &r))) return err;
    fy_req_wait_done(r);
    fy_req_release(r);
  }
  if (v >= 0xfffffff0u) return fy_err(MPI_ERR_OTHER, "out of context ids");
  next_ctx = v + 2;
  *out = v;
  return MPI_SUCCESS;
}

int fy_mpi_comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  fy_comm_t *c = fy_comm_get(comm), *n = calloc(1, sizeof *n);
  if (!n) return fy_err(MPI_ERR_NO_MEM, "out of memory duplicating %s", c->name);
  int err = agree_ctx(c, &n->ctx);
  if (err) goto fail;
  n->refcount = 1;
  n->rank = c->rank;
  n->size = c->size;
  n->errhandler = c->errhandler;
  fy_errhandler_retain(n->errhandler);
  n->world_of = malloc((size_t)c->size * sizeof(int));
  if (!n->world_of) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory duplicating %s", c->name);
    goto fail;
  }
  for (int i = 0; i < c->size; i++) n->world_of[i] = fy_comm_world_rank(c, i);
  n->handle = fy_htab_add(&comm_tab, n);
  if (!n->handle) {
    err = fy_err(MPI_ERR_NO_MEM, "out of communicator handles");
    goto fail;
  }
  fy_pt2pt_ctx_open(n);
  *newcomm = n->handle;
  return MPI_SUCCESS;
fail:
  if (n) free(n->world_of);
  free(n);
  return err;
}

int fy_mpi_comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
  return fy_mpi_comm_dup(comm, newcomm);
}

int fy_mpi_comm_free(MPI_Comm *comm) {
  fy_comm_t *c = fy_comm_get(*comm);
  if (c == &fy_comm_world || c == &fy_comm_self)
    return fy_err(MPI_ERR_COMM, "comm = %s is predefined and cannot be freed", c->name);
  /* Operations still pending on it complete normally: their requests keep
   * the context, and the queue keeps unmatched items as a plain list. */
  fy_pt2pt_ctx_close(c);
  fy_htab_remove(&comm_tab, c->handle);
  fy_errhandler_release(c->errhandler);
  free(c->world_of);
  free(c);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int fy_mpi_comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result) {
  fy_comm_t *a = fy_comm_get(comm1), *b = fy_comm_get(comm2);
  if (a == b) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  int same = a->size == b->size, order = 1;
  for (int i = 0; same && i < a->size; i++) {
    int wa = fy_comm_world_rank(a, i), found = 0;
    if (wa != fy_comm_world_rank(b, i)) order = 0;
    for (int j = 0; j < b->size && !found; j++) found = fy_comm_world_rank(b, j) == wa;
    same = found;
  }
  *result = !same ? MPI_UNEQUAL : order ? MPI_CONGRUENT : MPI_SIMILAR;
  return MPI_SUCCESS;
}

int fy_mpi_comm_rank(MPI_Comm comm, int *rank) {
  *rank = fy_comm_get(comm)->rank;
  return MPI_SUCCESS;
}

int fy_mpi_comm_size(MPI_Comm comm, int *size) {
  *size = fy_comm_get(comm)->size;
  return MPI_SUCCESS;
}

int fy_mpi_comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen) {
  fy_comm_t *c = fy_comm_get(comm);
  snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", c->name);
  *resultlen = (int)strlen(comm_name);
  return MPI_SUCCESS;
}

int fy_mpi_comm_set_name(MPI_Comm comm, const char *comm_name) {
  fy_comm_t *c = fy_comm_get(comm);
  snprintf(c->name, sizeof c->name, "%s", comm_name);
  return MPI_SUCCESS;
}

int fy_mpi_comm_test_inter(MPI_Comm comm, int *flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

/* Predefined attributes of MPI_COMM_WORLD (and any communicator). The
 * values live in static storage because the standard returns a pointer. */
static int attr_tag_ub = 0x7fffffff, attr_host = MPI_PROC_NULL, attr_io = MPI_ANY_SOURCE,
           attr_wtime_global = 0, attr_universe, attr_appnum, attr_lastused;

int fy_mpi_comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag) {
  int *p = NULL;
  attr_universe = fy_comm_world.size;
  attr_appnum = fy_state.appnum;
  switch (comm_keyval) {
    case MPI_TAG_UB: p = &attr_tag_ub; break;
    case MPI_HOST: p = &attr_host; break;
    case MPI_IO: p = &attr_io; break;
    case MPI_WTIME_IS_GLOBAL: p = &attr_wtime_global; break;
    case MPI_UNIVERSE_SIZE: p = &attr_universe; break;
    case MPI_APPNUM: p = &attr_appnum; break;
    case MPI_LASTUSEDCODE: attr_lastused = MPI_ERR_LASTCODE; p = &attr_lastused; break; /* user codes are below it */
    default:
      if (comm_keyval == MPI_KEYVAL_INVALID)
        return fy_err(MPI_ERR_KEYVAL, "comm_keyval = MPI_KEYVAL_INVALID");
      *flag = 0;
      return fy_err(MPI_ERR_KEYVAL, "comm_keyval = %#x is not a valid keyval (user keyvals are not supported yet)",
                    (unsigned)comm_keyval);
  }
  *(int **)attribute_val = p;
  *flag = 1;
  return MPI_SUCCESS;
}

int fy_mpi_attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
  return fy_mpi_comm_get_attr(comm, keyval, attribute_val, flag);
}
