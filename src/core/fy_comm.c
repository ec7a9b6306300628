/* Communicators: see fy_comm.h. Creation of new communicators comes with
 * the collectives; this file holds the predefined ones and their queries. */
#include "core/fy_comm.h"
#include "core/fy_error.h"
#include "core/fy_errhandler.h"
#include "core/fy_init.h"
#include "pt2pt/fy_pt2pt.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

fy_comm_t fy_comm_world, fy_comm_self;
static int self_world_rank;

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

void fy_comm_finalize(void) {}

fy_comm_t *fy_comm_get(MPI_Comm h) {
  if (h == MPI_COMM_WORLD) return &fy_comm_world;
  if (h == MPI_COMM_SELF) return &fy_comm_self;
  return NULL;
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
