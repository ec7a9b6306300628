/* Communicator construction over intracommunicators: dup (with info,
 * nonblocking), split, create, create_group; hints. See
 * fy_cx.h for the exchanges, fy_commc.h for the shared steps. */
#include "comm/fy_cx.h"
#include "comm/fy_commc.h"
#include "core/fy_attr.h"
#include "core/fy_error.h"
#include "core/fy_errhandler.h"
#include "core/fy_group.h"
#include "core/fy_handle.h"
#include "core/fy_info.h"
#include "core/fy_topo.h"
#include "core/fy_request.h"
#include "pt2pt/fy_pt2pt.h"
#include "coll/sched/fy_sched.h"
#include "progress/fy_progress.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>

int fy_comm_init(int world_rank, int world_size) {
  fy_comm_predefined_init(world_rank, world_size);
  fy_commc_open(&fy_comm_world);
  fy_commc_open(&fy_comm_self);
  return MPI_SUCCESS;
}

void fy_commc_open(fy_comm_t *c) {
  if (c->is_inter) {
    /* point-to-point sizes its per-source queues by the ranks that send
     * to it: on an intercommunicator, the remote group */
    fy_comm_t view = *c;
    view.size = c->remote_size;
    fy_pt2pt_ctx_open(&view);
    if (c->local_comm) fy_pt2pt_ctx_open(c->local_comm);
  } else {
    fy_pt2pt_ctx_open(c);
  }
}

void fy_commc_close(fy_comm_t *c) {
  fy_pt2pt_ctx_close(c);
  if (c->local_comm) fy_pt2pt_ctx_close(c->local_comm);
}

int fy_commc_finish(fy_comm_t *parent, int *world_of, int size, int rank, uint32_t ctx, fy_comm_t **out) {
  *out = NULL;
  if (rank < 0) {
    free(world_of);
    fy_ctx_release(ctx);
    return MPI_SUCCESS;
  }
  fy_comm_t *n = fy_comm_new(ctx, rank, size, world_of);
  if (!n) {
    free(world_of);
    fy_ctx_release(ctx);
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating a communicator");
  }
  n->errhandler = parent->errhandler;
  fy_errhandler_retain(n->errhandler);
  n->session = parent->session;
  int err = fy_comm_publish(n);
  if (err) {
    fy_comm_destroy(n);
    return err;
  }
  fy_commc_open(n);
  *out = n;
  return MPI_SUCCESS;
}

/* The local communicator over `over`'s group with the agreed slot ctx
 * (given back on error). */
static int local_with(fy_comm_t *over, uint32_t ctx, fy_comm_t **out) {
  int *w = malloc((size_t)over->size * sizeof *w);
  if (!w) {
    fy_ctx_release(ctx);
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating a communicator");
  }
  for (int i = 0; i < over->size; i++) w[i] = fy_comm_world_rank(over, i);
  fy_comm_t *n = fy_comm_new(ctx, over->rank, over->size, w);
  if (!n) {
    free(w);
    fy_ctx_release(ctx);
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating a communicator");
  }
  n->errhandler = MPI_ERRORS_RETURN;
  n->session = over->session;
  fy_pt2pt_ctx_open(n);
  *out = n;
  return MPI_SUCCESS;
}

int fy_commc_local(fy_comm_t *over, fy_comm_t **out) {
  fy_cx_t d = fy_cx_of(over);
  uint32_t ctx;
  int err = fy_cx_agree_ctx(&d, NULL, 0, &ctx);
  return err ? err : local_with(over, ctx, out);
}

int fy_commc_release(fy_comm_t *c) {
  int err = fy_attr_delete_all(FY_OK_COMM, c->handle, &c->attrs);
  if (err) return err;
  fy_commc_close(c);
  fy_comm_unpublish(c);   /* the user's handle dies now ... */
  fy_comm_release(c);     /* ... the object with the last pending operation */
  return MPI_SUCCESS;
}

/* ---- duplication ---- */

/* The object of a copy of c (inter or intra) with context ctx, published,
 * contexts not yet open; takes local (the intercommunicator's local group). */
static int dup_object(fy_comm_t *c, uint32_t ctx, fy_comm_t *local, fy_comm_t **out) {
  int n = fy_comm_peer_size(c);
  int *w = malloc((size_t)n * sizeof *w);
  fy_comm_t *nc = w ? fy_comm_new(ctx, c->rank, c->size, w) : NULL;
  if (!nc) {
    free(w);
    return fy_err(MPI_ERR_NO_MEM, "out of memory duplicating %s", c->name);
  }
  for (int i = 0; i < n; i++) w[i] = fy_comm_world_rank(c, i);
  nc->is_inter = c->is_inter;
  nc->remote_size = c->remote_size;
  nc->local_comm = local;
  nc->errhandler = c->errhandler;
  fy_errhandler_retain(nc->errhandler);
  nc->session = c->session;
  int err = fy_comm_publish(nc);
  if (err) {
    nc->local_comm = NULL; /* the caller still owns it */
    fy_comm_destroy(nc);
    return err;
  }
  *out = nc;
  return MPI_SUCCESS;
}

/* An exact copy of c (inter or intra) with new contexts; attributes, topology
 * and info are the caller's business. */
static int dup_core(fy_comm_t *c, fy_comm_t **out) {
  uint32_t ctx;
  int err;
  fy_comm_t *local = NULL;
  *out = NULL;
  if (c->is_inter) {
    fy_cx_t d = fy_cx_of(c->local_comm);
    if ((err = fy_commc_local(c->local_comm, &local))) return err;
    err = fy_cx_agree_ctx(&d, c, 0, &ctx);
  } else {
    fy_cx_t d = fy_cx_of(c);
    err = fy_cx_agree_ctx(&d, NULL, 0, &ctx);
  }
  if (err) goto fail;
  if ((err = dup_object(c, ctx, local, out))) {
    fy_ctx_release(ctx);
    goto fail;
  }
  fy_commc_open(*out);
  return MPI_SUCCESS;
fail:
  if (local) {
    fy_pt2pt_ctx_close(local);
    fy_comm_destroy(local);
  }
  return err;
}

/* What a duplicate takes from c besides its group: topology, info, attributes. */
static int dup_extras(fy_comm_t *c, fy_comm_t *n, MPI_Info info, int use_info) {
  if (c->topo && !(n->topo = fy_topo_dup(c->topo)))
    return fy_err(MPI_ERR_NO_MEM, "out of memory duplicating the topology of %s", c->name);
  int err = fy_info_copy(use_info ? info : c->info, &n->info);
  if (err) return err;
  return fy_attr_copy_all(FY_OK_COMM, c->handle, &c->attrs, n->handle, &n->attrs);
}

static int dup_full(MPI_Comm comm, MPI_Info info, int use_info, MPI_Comm *newcomm) {
  fy_comm_t *c = fy_comm_get(comm), *n;
  int err = dup_core(c, &n);
  if (err) return err;
  if ((err = dup_extras(c, n, info, use_info))) {
    fy_commc_close(n);
    fy_comm_destroy(n);
    return err;
  }
  *newcomm = n->handle;
  return MPI_SUCCESS;
}

int fy_mpi_comm_dup(MPI_Comm comm, MPI_Comm *newcomm) { return dup_full(comm, MPI_INFO_NULL, 0, newcomm); }

int fy_mpi_comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
  return dup_full(comm, info, 1, newcomm);
}

/* ---- nonblocking duplication ----
 * MPI_Comm_idup returns at once: the new object is published (the handle
 * is the user's now, unusable until the request completes, as the standard
 * says) with its topology, info and attributes, and the context agreement
 * runs as progress passes of the application thread advance it
 * (fy_cx_nb_*); its completion opens the contexts and completes the
 * request. An intercommunicator needs two agreements, one after the other,
 * both over its local group: the slot of its new local communicator, then
 * (bridged through the two groups' rank 0) the slot of the
 * intercommunicator itself. */

typedef struct idup {
  struct idup *next;
  fy_cx_nb_t *a;
  fy_comm_t *c;         /* retained: the communicator duplicated */
  fy_comm_t *nc;
  fy_comm_t *local;     /* intercommunicator: its new local group, once agreed */
  int tag;              /* the collective tag taken at the call (+1 for the second agreement) */
  fy_request_t *req;
} idup_t;

static idup_t *idups;
static int idup_hooked;

static int idup_progress(void) {
  /* Starts point-to-point requests and may free memory: never in a signal
   * turn or an agent thread (src/comm's own state is not theirs). */
  if (!idups || fy_progress_agent || fy_pt2pt_in_signal) return 0;
  int n = 0;
  for (idup_t **pp = &idups; *pp;) {
    idup_t *p = *pp;
    int err;
    uint32_t ctx;
    if (!fy_cx_nb_step(p->a, &err, &ctx)) {
      pp = &p->next;
      continue;
    }
    fy_cx_nb_free(p->a);
    p->a = NULL;
    if (p->c->is_inter && !p->local && !err) {
      /* first agreement done: build the local group, start the bridged one */
      if (!(err = local_with(p->c->local_comm, ctx, &p->local)) &&
          !(err = fy_cx_nb_start(p->c->local_comm, p->c, p->tag + 1, &p->a)))
        continue; /* (and step it now) */
    }
    *pp = p->next;
    n++;
    if (p->local && (err || !p->nc->handle)) {
      fy_pt2pt_ctx_close(p->local);
      fy_comm_destroy(p->local);
      p->local = NULL;
    }
    if (!err && !p->nc->handle) {
      fy_ctx_release(ctx); /* freed before completion (erroneous): nobody uses it */
    } else if (!err) {
      p->nc->ctx = ctx;
      p->nc->local_comm = p->local;
      fy_commc_open(p->nc);
    } else if (p->nc->handle) {
      /* No context: the handle dies (its contexts were never opened). */
      fy_attr_delete_all(FY_OK_COMM, p->nc->handle, &p->nc->attrs);
      fy_comm_unpublish(p->nc);
      fy_comm_release(p->nc);
    }
    fy_comm_release(p->nc); /* the pending operation's reference */
    fy_comm_release(p->c);
    p->req->status.MPI_ERROR = err;
    fy_req_complete(p->req);
    free(p);
  }
  return n;
}

enum { CTX_PENDING = 0xfffffffeu }; /* never a slot's: nothing matches it */

static int idup(MPI_Comm comm, MPI_Info info, int use_info, MPI_Comm *newcomm, MPI_Request *request) {
  if (!request) return fy_err(MPI_ERR_ARG, "request = NULL");
  fy_comm_t *c = fy_comm_get(comm), *n = NULL;
  int err;
  idup_t *p = calloc(1, sizeof *p);
  fy_request_t *r = fy_req_alloc(FY_REQ_SEND, 1);
  if (!p || !r) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory duplicating %s", c->name);
    goto fail;
  }
  if (!idup_hooked) {
    if (fy_progress_hook_add(idup_progress) != 0) {
      err = fy_err(MPI_ERR_INTERN, "no progress hook left for MPI_Comm_idup");
      goto fail;
    }
    idup_hooked = 1;
  }
  if ((err = dup_object(c, CTX_PENDING, NULL, &n))) goto fail;
  if ((err = dup_extras(c, n, info, use_info))) goto fail;
  /* The agreement's tag is taken now, in program order, like a collective's
   * (an intercommunicator's from itself: its collectives' tags serve on its
   * local communicator too, see src/coll/inter.c). */
  p->tag = fy_sched_next_tag(c);
  if ((err = fy_cx_nb_start(c->is_inter ? c->local_comm : c, NULL, p->tag, &p->a))) goto fail;
  fy_status_empty(&r->status);
  p->c = c;
  fy_comm_retain(c);
  p->nc = n;
  fy_comm_retain(n);
  p->req = r;
  p->next = NULL;
  idup_t **tail = &idups;
  while (*tail) tail = &(*tail)->next;
  *tail = p;
  *newcomm = n->handle;
  *request = r->handle;
  idup_progress(); /* one step now: a lone process finishes here */
  return MPI_SUCCESS;
fail:
  if (n) {
    fy_attr_delete_all(FY_OK_COMM, n->handle, &n->attrs);
    fy_comm_unpublish(n);
    fy_comm_release(n);
  }
  if (r) fy_req_release(r);
  free(p);
  return err;
}

int fy_mpi_comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) {
  return idup(comm, MPI_INFO_NULL, 0, newcomm, request);
}

int fy_mpi_comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request) {
  return idup(comm, info, 1, newcomm, request);
}

/* ---- split ---- */

typedef struct { int color, key, idx; } ck_t;

static int ck_cmp(const void *a, const void *b) {
  const ck_t *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->idx - y->idx;
}

/* From every member's (color, key): the caller's new group as world ranks
 * (world_of over c's ranks), sorted by key then old rank. */
static int members_of(fy_comm_t *c, const ck_t *all, int n, int color, int **world, int *size, int *rank) {
  *world = NULL;
  *size = 0;
  *rank = -1;
  if (color == MPI_UNDEFINED) return MPI_SUCCESS;
  ck_t *mine = malloc((size_t)n * sizeof *mine);
  int *w = malloc((size_t)n * sizeof *w);
  if (!mine || !w) {
    free(mine);
    free(w);
    return fy_err(MPI_ERR_NO_MEM, "out of memory splitting %s", c->name);
  }
  int m = 0;
  for (int i = 0; i < n; i++)
    if (all[i].color == color) mine[m++] = all[i];
  qsort(mine, (size_t)m, sizeof *mine, ck_cmp);
  for (int i = 0; i < m; i++) {
    w[i] = fy_comm_world_rank(c, mine[i].idx);
    if (mine[i].idx == c->rank) *rank = i;
  }
  free(mine);
  *world = w;
  *size = m;
  return MPI_SUCCESS;
}

int fy_commc_split_intra(fy_comm_t *c, int color, int key, fy_comm_t **out);

int fy_commc_split_intra(fy_comm_t *c, int color, int key, fy_comm_t **out) {
  fy_cx_t d = fy_cx_of(c);
  ck_t me = {color, key, c->rank}, *all = malloc((size_t)c->size * sizeof *all);
  *out = NULL;
  if (!all) return fy_err(MPI_ERR_NO_MEM, "out of memory splitting %s", c->name);
  int err = fy_cx_allgather(&d, &me, sizeof me, all), bad = -1;
  if (err) goto done;
  for (int i = 0; i < c->size; i++)
    if (all[i].color < 0 && all[i].color != MPI_UNDEFINED) bad = i;
  if (bad >= 0) { /* every member sees it: all fail alike */
    err = fy_err(MPI_ERR_ARG, "color = %d (given by rank %d) is negative and not MPI_UNDEFINED",
                 all[bad].color, bad);
    goto done;
  }
  uint32_t ctx;
  if ((err = fy_cx_agree_ctx(&d, NULL, 0, &ctx))) goto done;
  int *w, size, rank;
  if ((err = members_of(c, all, c->size, color, &w, &size, &rank))) {
    fy_ctx_release(ctx);
    goto done;
  }
  err = fy_commc_finish(c, w, size, rank, ctx, out);
done:
  free(all);
  return err;
}

int fy_commc_split_inter(fy_comm_t *c, int color, int key, fy_comm_t **out);

int fy_mpi_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  fy_comm_t *c = fy_comm_get(comm), *n;
  int err = c->is_inter ? fy_commc_split_inter(c, color, key, &n) : fy_commc_split_intra(c, color, key, &n);
  if (err) return err;
  *newcomm = n ? n->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}

/* ---- create from a group ---- */

/* The new members as world ranks; the caller's rank in it (-1: not a member).
 * Every member of g must belong to c (MPI_ERR_GROUP otherwise). */
static int group_members(fy_comm_t *c, fy_group_t *g, int **world, int *rank) {
  *world = NULL;
  *rank = -1;
  for (int i = 0; i < g->size; i++) {
    int found = 0;
    for (int j = 0; j < c->size && !found; j++) found = fy_comm_local_world(c, j) == g->world_of[i];
    if (!found)
      return fy_err(MPI_ERR_GROUP, "group member %d (world rank %d) is not in %s", i, g->world_of[i], c->name);
  }
  int me = fy_comm_local_world(c, c->rank);
  for (int i = 0; i < g->size; i++)
    if (g->world_of[i] == me) *rank = i;
  if (*rank < 0) return MPI_SUCCESS;
  int *w = malloc((size_t)(g->size ? g->size : 1) * sizeof *w);
  if (!w) return fy_err(MPI_ERR_NO_MEM, "out of memory creating a communicator");
  memcpy(w, g->world_of, (size_t)g->size * sizeof *w);
  *world = w;
  return MPI_SUCCESS;
}

int fy_commc_create_inter(fy_comm_t *c, fy_group_t *g, fy_comm_t **out);

int fy_mpi_comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  fy_comm_t *c = fy_comm_get(comm), *n = NULL;
  fy_group_t *g = fy_group_get(group);
  if (!g) return fy_err(MPI_ERR_GROUP, "group = %#x is not a valid group", (unsigned)group);
  int err;
  if (c->is_inter) {
    err = fy_commc_create_inter(c, g, &n);
  } else {
    int *w, rank;
    if ((err = group_members(c, g, &w, &rank))) return err;
    fy_cx_t d = fy_cx_of(c);
    uint32_t ctx;
    if ((err = fy_cx_agree_ctx(&d, NULL, 0, &ctx))) {
      free(w);
      return err;
    }
    err = fy_commc_finish(c, w, g->size, rank, ctx, &n);
  }
  if (err) return err;
  *newcomm = n ? n->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int fy_mpi_comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
  fy_comm_t *c = fy_comm_get(comm), *n = NULL;
  fy_group_t *g = fy_group_get(group);
  if (c->is_inter) return fy_err(MPI_ERR_COMM, "comm = %s is an intercommunicator", c->name);
  if (!g) return fy_err(MPI_ERR_GROUP, "group = %#x is not a valid group", (unsigned)group);
  if (tag < 0) return fy_err(MPI_ERR_TAG, "tag = %d is negative", tag);
  int *w, rank, err;
  if ((err = group_members(c, g, &w, &rank))) return err;
  if (rank < 0) {
    *newcomm = MPI_COMM_NULL; /* not a member: nothing to agree on */
    return MPI_SUCCESS;
  }
  /* Only the group's members take part: the domain is their ranks in c. */
  int *members = malloc((size_t)g->size * sizeof *members);
  if (!members) {
    free(w);
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating a communicator");
  }
  for (int i = 0; i < g->size; i++)
    for (int j = 0; j < c->size; j++)
      if (fy_comm_world_rank(c, j) == g->world_of[i]) members[i] = j;
  fy_cx_t d = {.c = c, .n = g->size, .me = rank, .root = 0, .members = members, .tag = fy_cx_user_tag(tag)};
  uint32_t ctx;
  err = fy_cx_agree_ctx(&d, NULL, 0, &ctx);
  free(members);
  if (err) {
    free(w);
    return err;
  }
  if ((err = fy_commc_finish(c, w, g->size, rank, ctx, &n))) return err;
  *newcomm = n->handle;
  return MPI_SUCCESS;
}

/* ---- hints ---- */

int fy_mpi_comm_set_info(MPI_Comm comm, MPI_Info info) {
  fy_comm_t *c = fy_comm_get(comm);
  MPI_Info copy;
  if (info == MPI_INFO_NULL || !fy_info_valid(info))
    return fy_err(MPI_ERR_INFO, "info = %#x is not a valid info object", (unsigned)info);
  int err = fy_info_copy(info, &copy);
  if (err) return err;
  if (c->info != MPI_INFO_NULL) fy_info_release(c->info);
  c->info = copy;
  return MPI_SUCCESS;
}

int fy_mpi_comm_get_info(MPI_Comm comm, MPI_Info *info_used) {
  fy_comm_t *c = fy_comm_get(comm);
  if (c->info != MPI_INFO_NULL) return fy_info_copy(c->info, info_used);
  return fy_mpi_info_create(info_used);
}

/* No process of a Ferry job was spawned (MPI_Comm_spawn is not offered). */
int fy_mpi_comm_get_parent(MPI_Comm *parent) {
  if (!parent) return fy_err(MPI_ERR_ARG, "parent = NULL");
  *parent = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

/* MPI_Finalize's first step (MPI 4.1 11.2.2): MPI_COMM_SELF's attributes
 * are deleted, newest first, as if it were freed; then MPI_COMM_WORLD's. */
int fy_comm_finalize_attrs(void) {
  int err = fy_attr_delete_all(FY_OK_COMM, MPI_COMM_SELF, &fy_comm_self.attrs);
  int err2 = fy_attr_delete_all(FY_OK_COMM, MPI_COMM_WORLD, &fy_comm_world.attrs);
  return err ? err : err2;
}
