/* Communicators: see fy_comm.h. The objects, their context slots and the
 * queries that need no communication. Construction and MPI_Comm_free are in
 * src/comm (they talk to the members or to point-to-point). */
#include "core/fy_comm.h"
#include "core/fy_group.h"
#include "core/fy_error.h"
#include "core/fy_errhandler.h"
#include "core/fy_init.h"
#include "core/fy_handle.h"
#include "core/fy_attr.h"
#include "core/fy_info.h"
#include "core/fy_topo.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

fy_comm_t fy_comm_world, fy_comm_self;
static int self_world_rank;
fy_htab_t fy_comm_tab = {.obj = FY_OK_COMM};

/* ---- context slots ---- */

static uint32_t ctx_mask[FY_CTX_WORDS];
static int ctx_mask_ready;

static void ctx_mask_init(void) {
  for (int i = 0; i < FY_CTX_WORDS; i++) ctx_mask[i] = 0xffffffffu;
  ctx_mask[0] &= ~3u; /* WORLD and SELF */
  ctx_mask_ready = 1;
}

void fy_ctx_mask_snapshot(uint32_t *words) {
  if (!ctx_mask_ready) ctx_mask_init();
  memcpy(words, ctx_mask, sizeof ctx_mask);
}

int fy_ctx_mask_claim(const uint32_t *agreed, uint32_t *ctx) {
  for (int i = 0; i < FY_CTX_WORDS; i++) {
    uint32_t w = agreed[i] & ctx_mask[i];
    if (w) {
      int b = __builtin_ctz(w);
      ctx_mask[i] &= ~(1u << b);
      *ctx = 2u * (uint32_t)(i * 32 + b);
      return 0;
    }
  }
  return -1;
}

void fy_ctx_release(uint32_t ctx) {
  uint32_t slot = ctx / 2;
  if (slot < 2 || slot >= FY_CTX_WORDS * 32u) return;
  ctx_mask[slot / 32] |= 1u << (slot % 32);
}

int fy_ctx_free_slots(void) {
  if (!ctx_mask_ready) ctx_mask_init();
  int n = 0;
  for (int i = 0; i < FY_CTX_WORDS; i++) n += __builtin_popcount(ctx_mask[i]);
  return n;
}

/* ---- objects ---- */

void fy_comm_predefined_init(int world_rank, int world_size) {
  ctx_mask_init();
  memset(&fy_comm_world, 0, sizeof fy_comm_world);
  fy_comm_world.handle = MPI_COMM_WORLD;
  fy_comm_world.refcount = 1;
  fy_comm_world.ctx = 0;
  fy_comm_world.rank = world_rank;
  fy_comm_world.size = world_size;
  fy_comm_world.errhandler = MPI_ERRORS_ARE_FATAL;
  fy_comm_world.info = MPI_INFO_NULL;
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
  fy_comm_self.info = MPI_INFO_NULL;
  strcpy(fy_comm_self.name, "MPI_COMM_SELF");
}

int fy_comm_remote_rank(const fy_comm_t *c) {
  for (int r = 0; r < c->size; r++)
    if (fy_state.local_of_world[fy_comm_world_rank(c, r)] < 0) return r;
  return -1;
}

fy_comm_t *fy_comm_new(uint32_t ctx, int rank, int size, int *world_of) {
  fy_comm_t *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->refcount = 1;
  c->ctx = ctx;
  c->rank = rank;
  c->size = size;
  c->world_of = world_of;
  c->errhandler = MPI_ERRORS_ARE_FATAL;
  c->info = MPI_INFO_NULL;
  return c;
}

int fy_comm_publish(fy_comm_t *c) {
  c->handle = fy_htab_add(&fy_comm_tab, c);
  return c->handle ? MPI_SUCCESS : fy_err(MPI_ERR_NO_MEM, "out of communicator handles");
}

void fy_comm_unpublish(fy_comm_t *c) {
  if (c->handle) fy_htab_remove(&fy_comm_tab, c->handle);
  c->handle = 0;
}

void fy_comm_destroy(fy_comm_t *c) {
  if (!c || c == &fy_comm_world || c == &fy_comm_self) return;
  if (c->local_comm) fy_comm_destroy(c->local_comm);
  if (c->handle) fy_htab_remove(&fy_comm_tab, c->handle);
  fy_errhandler_release(c->errhandler);
  fy_topo_free(c->topo);
  free(c->bpool); /* MPI_Comm_attach_buffer's bookkeeping (the buffer is the user's) */
  while (c->part_seq) {
    fy_part_seq_t *n = c->part_seq->next;
    free(c->part_seq);
    c->part_seq = n;
  }
  if (c->info != MPI_INFO_NULL) fy_info_release(c->info);
  fy_ctx_release(c->ctx);
  free(c->world_of);
  free(c);
}

int fy_comm_live(void) { return fy_comm_tab.live; }

/* ---- queries ---- */

/* World ranks of a communicator's local (or remote) group: a new array. */
static int *world_list(const fy_comm_t *c, int remote) {
  int n = remote ? c->remote_size : c->size;
  int *w = malloc((size_t)(n ? n : 1) * sizeof(int));
  if (!w) return NULL;
  for (int i = 0; i < n; i++) w[i] = remote ? fy_comm_world_rank(c, i) : fy_comm_local_world(c, i);
  return w;
}

/* The two groups' comparison (fy_group.c), on local or remote groups. */
static int compare_groups(const fy_comm_t *a, const fy_comm_t *b, int remote) {
  int *wa = world_list(a, remote), *wb = world_list(b, remote), r = -1;
  if (wa && wb)
    r = fy_group_compare_worlds(remote ? a->remote_size : a->size, wa, remote ? b->remote_size : b->size, wb);
  free(wa);
  free(wb);
  return r;
}

int fy_mpi_comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result) {
  fy_comm_t *a = fy_comm_get(comm1), *b = fy_comm_get(comm2);
  if (!b) return fy_err(MPI_ERR_COMM, "comm2 = %#x is not a valid communicator", (unsigned)comm2);
  if (a == b) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  if (a->is_inter != b->is_inter) {
    *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
  }
  int r = compare_groups(a, b, 0);
  if (a->is_inter && r != MPI_UNEQUAL && r >= 0) {
    int rr = compare_groups(a, b, 1);
    if (rr < 0) r = rr;
    else if (rr == MPI_UNEQUAL) r = MPI_UNEQUAL;
    else if (rr == MPI_SIMILAR) r = MPI_SIMILAR;
  }
  if (r < 0) return fy_err(MPI_ERR_NO_MEM, "out of memory comparing communicators");
  *result = r == MPI_IDENT ? MPI_CONGRUENT : r;
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

int fy_mpi_comm_remote_size(MPI_Comm comm, int *size) {
  fy_comm_t *c = fy_comm_get(comm);
  if (!c->is_inter) return fy_err(MPI_ERR_COMM, "comm = %s is not an intercommunicator", c->name);
  *size = c->remote_size;
  return MPI_SUCCESS;
}

int fy_mpi_comm_test_inter(MPI_Comm comm, int *flag) {
  *flag = fy_comm_get(comm)->is_inter;
  return MPI_SUCCESS;
}

int fy_mpi_comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen) {
  fy_comm_t *c = fy_comm_get(comm);
  if (!comm_name || !resultlen) return fy_err(MPI_ERR_ARG, "comm_name or resultlen = NULL");
  snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", c->name);
  *resultlen = (int)strlen(comm_name);
  return MPI_SUCCESS;
}

int fy_mpi_comm_set_name(MPI_Comm comm, const char *comm_name) {
  fy_comm_t *c = fy_comm_get(comm);
  if (!comm_name) return fy_err(MPI_ERR_ARG, "comm_name = NULL");
  snprintf(c->name, sizeof c->name, "%s", comm_name);
  return MPI_SUCCESS;
}


/* Predefined attributes (the standard returns a pointer to the value, so
 * the values live in static storage). */
static int attr_tag_ub = 0x7fffffff, attr_host = MPI_PROC_NULL, attr_io = MPI_ANY_SOURCE,
           attr_wtime_global = 0, attr_universe, attr_appnum, attr_lastused;

int fy_comm_predef_attr(int keyval, void *attribute_val, int *flag) {
  int *p = NULL;
  attr_universe = fy_comm_world.size;
  attr_appnum = fy_state.appnum;
  switch (keyval) {
    case MPI_TAG_UB: p = &attr_tag_ub; break;
    case MPI_HOST: p = &attr_host; break;
    case MPI_IO: p = &attr_io; break;
    case MPI_WTIME_IS_GLOBAL: p = &attr_wtime_global; break;
    case MPI_UNIVERSE_SIZE: p = &attr_universe; break;
    case MPI_APPNUM: p = &attr_appnum; break;
    case MPI_LASTUSEDCODE: attr_lastused = fy_err_last_used(); p = &attr_lastused; break;
    default: return 0;
  }
  *(int **)attribute_val = p;
  *flag = 1;
  return 1;
}
