/* Intercommunicators: MPI_Intercomm_create (and _from_groups),
 * MPI_Intercomm_merge, MPI_Comm_remote_group, and split/create over an
 * intercommunicator. An intercommunicator's context is agreed by both
 * groups at once: each group ANDs its bitmaps, the leaders swap and AND
 * the two results (fy_cx_agree_ctx with a bridge). */
#include "comm/fy_cx.h"
#include "comm/fy_commc.h"
#include "core/fy_error.h"
#include "core/fy_errhandler.h"
#include "core/fy_group.h"
#include "core/fy_info.h"
#include "pt2pt/fy_pt2pt.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>

enum { TAG_LEADERS = 9 };

/* The leaders swap a list of ints (sizes first) over bridge; everyone in
 * domain d gets the remote list. *remote is malloc'ed. */
static int swap_lists(const fy_cx_t *d, fy_comm_t *bridge, int peer, const int *mine, int nmine,
                      int **remote, int *nremote) {
  int n = 0, err = MPI_SUCCESS, tag = fy_cx_bridge_tag(d, TAG_LEADERS);
  *remote = NULL;
  if (d->me == d->root) err = fy_cx_swap(bridge, peer, tag, &nmine, sizeof nmine, &n, sizeof n);
  if (!err) err = fy_cx_bcast(d, &n, sizeof n);
  if (err) return err;
  int *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
  if (!r) return fy_err(MPI_ERR_NO_MEM, "out of memory building an intercommunicator");
  if (d->me == d->root)
    err = fy_cx_swap(bridge, peer, tag, mine, (size_t)nmine * sizeof *mine, r, (size_t)n * sizeof *r);
  if (!err) err = fy_cx_bcast(d, r, (size_t)n * sizeof *r);
  if (err) {
    free(r);
    return err;
  }
  *remote = r;
  *nremote = n;
  return MPI_SUCCESS;
}

static void drop_local(fy_comm_t *local) {
  if (!local) return;
  fy_pt2pt_ctx_close(local);
  fy_comm_destroy(local);
}

/* Publish an intercommunicator: local (unpublished, open) becomes its
 * local intracommunicator, remote its remote world ranks; both owned. */
static int make_inter_eh(MPI_Errhandler eh, fy_comm_t *local, int *remote, int nremote, uint32_t ctx,
                         fy_comm_t **out) {
  fy_comm_t *n = fy_comm_new(ctx, local->rank, local->size, remote);
  if (!n) {
    drop_local(local);
    free(remote);
    fy_ctx_release(ctx);
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating an intercommunicator");
  }
  n->is_inter = 1;
  n->remote_size = nremote;
  n->session = local->session;
  n->local_comm = local;
  n->errhandler = eh;
  fy_errhandler_retain(n->errhandler);
  int err = fy_comm_publish(n);
  if (err) {
    fy_pt2pt_ctx_close(local);
    fy_comm_destroy(n);
    return err;
  }
  fy_commc_open(n); /* opens the intercommunicator's context only: local is open */
  *out = n;
  return MPI_SUCCESS;
}

static int make_inter(fy_comm_t *parent, fy_comm_t *local, int *remote, int nremote, uint32_t ctx,
                      fy_comm_t **out) {
  return make_inter_eh(parent->errhandler, local, remote, nremote, ctx, out);
}

int fy_mpi_intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                            int tag, MPI_Comm *newintercomm) {
  fy_comm_t *lc = fy_comm_get(local_comm), *pc = NULL;
  if (lc->is_inter) return fy_err(MPI_ERR_COMM, "local_comm = %s is an intercommunicator", lc->name);
  if (local_leader < 0 || local_leader >= lc->size)
    return fy_err(MPI_ERR_RANK, "local_leader = %d is not a rank of %s (size %d)", local_leader, lc->name,
                  lc->size);
  if (lc->rank == local_leader) {
    /* peer_comm and remote_leader matter at the leader only */
    if (!(pc = fy_comm_get(peer_comm)))
      return fy_err(MPI_ERR_COMM, "peer_comm = %#x is not a valid communicator", (unsigned)peer_comm);
    if (remote_leader < 0 || remote_leader >= fy_comm_peer_size(pc))
      return fy_err(MPI_ERR_RANK, "remote_leader = %d is not a rank of %s (size %d)", remote_leader,
                    pc->name, fy_comm_peer_size(pc));
    if (tag < 0) return fy_err(MPI_ERR_TAG, "tag = %d is negative", tag);
  }
  fy_comm_t *n;
  /* non-leaders never use the bridge, but must know there is one */
  int err = fy_commc_inter(lc, local_leader, pc ? pc : &fy_comm_world, remote_leader,
                           lc->rank == local_leader ? fy_cx_user_tag(tag) : 0, &n);
  if (err) return err;
  *newintercomm = n->handle;
  return MPI_SUCCESS;
}

int fy_commc_inter(fy_comm_t *lc, int local_leader, fy_comm_t *pc, int remote_leader, int bridge_tag,
                   fy_comm_t **out) {
  fy_comm_t *local = NULL, *n = NULL;
  int *mine = NULL, *remote = NULL, nremote = 0, err;
  fy_cx_t d = fy_cx_of(lc);
  d.root = local_leader;
  d.bridge_tag = bridge_tag; /* threads share peer_comm by tags */
  if (!(mine = malloc((size_t)lc->size * sizeof *mine)))
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating an intercommunicator");
  for (int i = 0; i < lc->size; i++) mine[i] = fy_comm_world_rank(lc, i);
  if ((err = swap_lists(&d, pc, remote_leader, mine, lc->size, &remote, &nremote))) goto fail;
  for (int i = 0; i < nremote; i++)
    for (int j = 0; j < lc->size; j++)
      if (remote[i] == mine[j]) {
        err = fy_err(MPI_ERR_COMM, "the local and remote groups overlap (world rank %d is in both)", mine[j]);
        goto fail;
      }
  if ((err = fy_commc_local(lc, &local))) goto fail;
  uint32_t ctx;
  if ((err = fy_cx_agree_ctx(&d, pc, remote_leader, &ctx))) goto fail;
  err = make_inter(lc, local, remote, nremote, ctx, &n);
  remote = NULL;
  local = NULL;
  if (err) goto fail;
  free(mine);
  *out = n;
  return MPI_SUCCESS;
fail:
  drop_local(local);
  free(mine);
  free(remote);
  return err;
}

int fy_mpi_intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
  fy_comm_t *c = fy_comm_get(intercomm), *n = NULL;
  if (!c->is_inter) return fy_err(MPI_ERR_COMM, "intercomm = %s is not an intercommunicator", c->name);
  fy_cx_t d = fy_cx_of(c->local_comm);
  /* Order: the group that said high = false first; on a tie, the group
   * whose leader has the lower world rank. */
  int mine[2] = {high ? 1 : 0, fy_comm_local_world(c, 0)}, theirs[2] = {0, 0}, err = MPI_SUCCESS;
  if (c->rank == 0) err = fy_cx_swap(c, 0, TAG_LEADERS, mine, sizeof mine, theirs, sizeof theirs);
  if (!err) err = fy_cx_bcast(&d, theirs, sizeof theirs);
  if (err) return err;
  int first = mine[0] != theirs[0] ? !mine[0] : mine[1] < theirs[1];
  uint32_t ctx;
  if ((err = fy_cx_agree_ctx(&d, c, 0, &ctx))) return err;
  int size = c->size + c->remote_size, *w = malloc((size_t)size * sizeof *w);
  if (!w) {
    fy_ctx_release(ctx);
    return fy_err(MPI_ERR_NO_MEM, "out of memory merging %s", c->name);
  }
  int at = 0, rank = 0;
  for (int pass = 0; pass < 2; pass++) {
    if ((pass == 0) == first) {
      rank = at + c->rank;
      for (int i = 0; i < c->size; i++) w[at++] = fy_comm_local_world(c, i);
    } else {
      for (int i = 0; i < c->remote_size; i++) w[at++] = fy_comm_world_rank(c, i);
    }
  }
  if ((err = fy_commc_finish(c, w, size, rank, ctx, &n))) return err;
  *newintracomm = n->handle;
  return MPI_SUCCESS;
}

int fy_mpi_comm_remote_group(MPI_Comm comm, MPI_Group *group) {
  fy_comm_t *c = fy_comm_get(comm);
  if (!c->is_inter) return fy_err(MPI_ERR_COMM, "comm = %s is not an intercommunicator", c->name);
  fy_group_t *g = fy_group_new(c->remote_size, c->world_of);
  if (!g) return fy_err(MPI_ERR_NO_MEM, "out of memory creating a group");
  int err = fy_group_publish(g);
  if (err) {
    fy_group_release(g);
    return err;
  }
  *group = g->handle;
  return MPI_SUCCESS;
}

/* ---- split and create over an intercommunicator ---- */

int fy_commc_split_intra(fy_comm_t *c, int color, int key, fy_comm_t **out);

typedef struct { int color, key, world; } ckw_t;

static int ckw_cmp(const void *a, const void *b) {
  const ckw_t *x = a, *y = b;
  return x->key != y->key ? (x->key < y->key ? -1 : 1) : 0;
}

int fy_commc_split_inter(fy_comm_t *c, int color, int key, fy_comm_t **out) {
  fy_comm_t *lc = c->local_comm, *local = NULL;
  fy_cx_t d = fy_cx_of(lc);
  ckw_t me = {color, key, fy_comm_local_world(c, c->rank)};
  ckw_t *all = malloc((size_t)c->size * sizeof *all), *rem = NULL;
  int err, nrem = 0, *w = NULL;
  *out = NULL;
  if (!all) return fy_err(MPI_ERR_NO_MEM, "out of memory splitting %s", c->name);
  if ((err = fy_cx_allgather(&d, &me, sizeof me, all))) goto done;
  /* the remote (color, key, world) triples, as ints */
  int *ri;
  if ((err = swap_lists(&d, c, 0, (int *)all, 3 * c->size, &ri, &nrem))) goto done;
  rem = (ckw_t *)ri;
  nrem /= 3;
  /* the local half: a split of the local communicator (ranks by key) */
  if ((err = fy_commc_split_intra(lc, color, key, &local))) goto done;
  uint32_t ctx;
  if ((err = fy_cx_agree_ctx(&d, c, 0, &ctx))) goto done;
  int m = 0;
  for (int i = 0; i < nrem; i++)
    if (color != MPI_UNDEFINED && rem[i].color == color) rem[m++] = rem[i];
  /* stable by key: the remote group's old order breaks ties */
  for (int i = 1; i < m; i++)
    for (int j = i; j > 0 && ckw_cmp(&rem[j - 1], &rem[j]) > 0; j--) {
      ckw_t t = rem[j];
      rem[j] = rem[j - 1];
      rem[j - 1] = t;
    }
  if (!local || m == 0) {
    fy_ctx_release(ctx);
    goto done;
  }
  if (!(w = malloc((size_t)m * sizeof *w))) {
    fy_ctx_release(ctx);
    err = fy_err(MPI_ERR_NO_MEM, "out of memory splitting %s", c->name);
    goto done;
  }
  for (int i = 0; i < m; i++) w[i] = rem[i].world;
  fy_comm_unpublish(local); /* it now belongs to the intercommunicator */
  err = make_inter(c, local, w, m, ctx, out);
  local = NULL;
done:
  if (local) fy_commc_release(local);
  free(all);
  free(rem);
  return err;
}

int fy_commc_create_inter(fy_comm_t *c, fy_group_t *g, fy_comm_t **out) {
  fy_comm_t *lc = c->local_comm, *local = NULL;
  fy_cx_t d = fy_cx_of(lc);
  int *rem = NULL, nrem = 0, err, rank = -1, *w = NULL;
  uint32_t ctx;
  *out = NULL;
  for (int i = 0; i < g->size; i++) {
    int found = 0;
    for (int j = 0; j < lc->size && !found; j++) found = fy_comm_world_rank(lc, j) == g->world_of[i];
    if (!found)
      return fy_err(MPI_ERR_GROUP, "group member %d (world rank %d) is not in the local group of %s", i,
                    g->world_of[i], c->name);
    if (g->world_of[i] == fy_comm_world_rank(lc, lc->rank)) rank = i;
  }
  if ((err = swap_lists(&d, c, 0, g->world_of, g->size, &rem, &nrem))) return err;
  /* the local half */
  if ((err = fy_cx_agree_ctx(&d, NULL, 0, &ctx))) goto done;
  if (rank >= 0 && !(w = malloc((size_t)(g->size ? g->size : 1) * sizeof *w))) {
    fy_ctx_release(ctx);
    err = fy_err(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    goto done;
  }
  if (w) memcpy(w, g->world_of, (size_t)g->size * sizeof *w);
  if ((err = fy_commc_finish(lc, w, g->size, rank, ctx, &local))) goto done;
  if ((err = fy_cx_agree_ctx(&d, c, 0, &ctx))) goto done;
  if (!local || nrem == 0) {
    fy_ctx_release(ctx);
    goto done;
  }
  fy_comm_unpublish(local);
  err = make_inter(c, local, rem, nrem, ctx, out);
  rem = NULL;
  local = NULL;
done:
  if (local) fy_commc_release(local);
  free(rem);
  return err;
}

/* ---- from groups (MPI 4): MPI_COMM_WORLD's context carries the
 * exchanges, addressed by world rank, on a tag made from the string tag,
 * which tells threads' concurrent calls apart. ---- */

static int check_eh(MPI_Errhandler eh) {
  if (!fy_errhandler_valid(eh))
    return fy_err(MPI_ERR_ARG, "errhandler = %#x is not a valid error handler", (unsigned)eh);
  return MPI_SUCCESS;
}

/* An unpublished, open intracommunicator over g (the caller a member). */
static int local_over_group(const fy_cx_t *d, fy_group_t *g, fy_comm_t **out) {
  uint32_t ctx;
  int err = fy_cx_agree_ctx(d, NULL, 0, &ctx);
  if (err) return err;
  int *w = malloc((size_t)g->size * sizeof *w);
  fy_comm_t *n = w ? fy_comm_new(ctx, g->rank, g->size, w) : NULL;
  if (!n) {
    free(w);
    fy_ctx_release(ctx);
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating a communicator");
  }
  memcpy(w, g->world_of, (size_t)g->size * sizeof *w);
  n->errhandler = MPI_ERRORS_RETURN;
  n->session = g->session;
  fy_pt2pt_ctx_open(n);
  *out = n;
  return MPI_SUCCESS;
}

int fy_mpi_comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
                                  MPI_Comm *newcomm) {
  fy_group_t *g = fy_group_get(group);
  fy_comm_t *n;
  int err;
  if (!g) return fy_err(MPI_ERR_GROUP, "group = %#x is not a valid group", (unsigned)group);
  if (!stringtag) return fy_err(MPI_ERR_ARG, "stringtag = NULL");
  if (g->size == 0) { /* nobody to agree with: MPI_COMM_NULL, as Comm_create gives (and MPICH) */
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  if (g->rank == MPI_UNDEFINED) return fy_err(MPI_ERR_GROUP, "the calling process is not in group");
  if ((err = check_eh(errhandler))) return err;
  fy_cx_t d = {.c = &fy_comm_world, .n = g->size, .me = g->rank, .root = 0, .members = g->world_of,
              .tag = fy_cx_string_tag(stringtag)};
  uint32_t ctx;
  if ((err = fy_cx_agree_ctx(&d, NULL, 0, &ctx))) return err;
  int *w = malloc((size_t)g->size * sizeof *w);
  if (!w) {
    fy_ctx_release(ctx);
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating a communicator");
  }
  memcpy(w, g->world_of, (size_t)g->size * sizeof *w);
  if ((err = fy_commc_finish(&fy_comm_world, w, g->size, g->rank, ctx, &n))) return err;
  n->session = g->session;
  fy_errhandler_retain(errhandler);
  fy_errhandler_release(n->errhandler);
  n->errhandler = errhandler;
  if (info != MPI_INFO_NULL) fy_info_copy(info, &n->info);
  *newcomm = n->handle;
  return MPI_SUCCESS;
}

int fy_mpi_intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                        int remote_leader, const char *stringtag, MPI_Info info,
                                        MPI_Errhandler errhandler, MPI_Comm *newintercomm) {
  fy_group_t *lg = fy_group_get(local_group), *rg = fy_group_get(remote_group);
  fy_comm_t *local = NULL, *n;
  int err;
  if (!lg) return fy_err(MPI_ERR_GROUP, "local_group = %#x is not a valid group", (unsigned)local_group);
  if (!rg) return fy_err(MPI_ERR_GROUP, "remote_group = %#x is not a valid group", (unsigned)remote_group);
  if (lg->rank == MPI_UNDEFINED) return fy_err(MPI_ERR_GROUP, "the calling process is not in local_group");
  if (local_leader < 0 || local_leader >= lg->size)
    return fy_err(MPI_ERR_RANK, "local_leader = %d is not a rank of local_group (size %d)", local_leader, lg->size);
  if (remote_leader < 0 || remote_leader >= rg->size)
    return fy_err(MPI_ERR_RANK, "remote_leader = %d is not a rank of remote_group (size %d)", remote_leader,
                  rg->size);
  if (!stringtag) return fy_err(MPI_ERR_ARG, "stringtag = NULL");
  if ((err = check_eh(errhandler))) return err;
  for (int i = 0; i < rg->size; i++)
    if (fy_group_rank_of(lg, rg->world_of[i]) != MPI_UNDEFINED)
      return fy_err(MPI_ERR_GROUP, "local_group and remote_group overlap (world rank %d)", rg->world_of[i]);
  int tag = fy_cx_string_tag(stringtag);
  fy_cx_t d = {.c = &fy_comm_world, .n = lg->size, .me = lg->rank, .root = local_leader, .members = lg->world_of,
               .tag = tag, .bridge_tag = tag};
  if ((err = local_over_group(&d, lg, &local))) return err;
  uint32_t ctx;
  if ((err = fy_cx_agree_ctx(&d, &fy_comm_world, rg->world_of[remote_leader], &ctx))) {
    drop_local(local);
    return err;
  }
  int *rw = malloc((size_t)rg->size * sizeof *rw);
  if (!rw) {
    drop_local(local);
    fy_ctx_release(ctx);
    return fy_err(MPI_ERR_NO_MEM, "out of memory creating an intercommunicator");
  }
  memcpy(rw, rg->world_of, (size_t)rg->size * sizeof *rw);
  if ((err = make_inter_eh(errhandler, local, rw, rg->size, ctx, &n))) return err;
  if (info != MPI_INFO_NULL) fy_info_copy(info, &n->info);
  *newintercomm = n->handle;
  return MPI_SUCCESS;
}
