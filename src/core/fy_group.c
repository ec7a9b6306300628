/* Groups: see fy_group.h. Every set operation works on world ranks through a
 * membership map indexed by world rank (O(world size) per call), which keeps
 * each operation linear and the results in the order the standard fixes. */
#include "core/fy_group.h"
#include "core/fy_comm.h"
#include "core/fy_error.h"
#include "core/fy_handle.h"
#include "binding/fy_impl.h"
#include <stdlib.h>
#include <string.h>

static fy_htab_t group_tab = {.obj = FY_OK_GROUP};
static fy_group_t group_empty = {.handle = MPI_GROUP_EMPTY, .refcount = 1, .size = 0,
                                 .rank = MPI_UNDEFINED, .world_of = NULL};

fy_group_t *fy_group_get(MPI_Group h) {
  if (h == MPI_GROUP_EMPTY) return &group_empty;
  return fy_htab_get(&group_tab, h);
}

fy_group_t *fy_group_new(int size, const int *world) {
  fy_group_t *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->world_of = malloc((size_t)(size ? size : 1) * sizeof(int));
  if (!g->world_of) {
    free(g);
    return NULL;
  }
  g->refcount = 1;
  g->size = size;
  g->rank = MPI_UNDEFINED;
  for (int i = 0; i < size; i++) {
    g->world_of[i] = world[i];
    if (world[i] == fy_comm_world.rank) g->rank = i;
  }
  return g;
}

int fy_group_publish(fy_group_t *g) {
  if (g == &group_empty) return MPI_SUCCESS;
  g->handle = fy_htab_add(&group_tab, g);
  return g->handle ? MPI_SUCCESS : fy_err(MPI_ERR_NO_MEM, "out of group handles");
}

void fy_group_release(fy_group_t *g) {
  if (!g || g == &group_empty) return;
  if (--g->refcount > 0) return;
  if (g->handle) fy_htab_remove(&group_tab, g->handle);
  free(g->world_of);
  free(g);
}

int fy_group_rank_of(const fy_group_t *g, int world_rank) {
  for (int i = 0; i < g->size; i++)
    if (g->world_of[i] == world_rank) return i;
  return MPI_UNDEFINED;
}

/* A new group from world ranks, published to *out; an empty result is
 * MPI_GROUP_EMPTY (as MPICH returns it). */
static int make_group(int n, const int *world, int session, MPI_Group *out) {
  if (n == 0) {
    *out = MPI_GROUP_EMPTY;
    return MPI_SUCCESS;
  }
  fy_group_t *g = fy_group_new(n, world);
  if (!g) return fy_err(MPI_ERR_NO_MEM, "out of memory creating a group of %d", n);
  g->session = session;
  int err = fy_group_publish(g);
  if (err) {
    fy_group_release(g);
    return err;
  }
  *out = g->handle;
  return MPI_SUCCESS;
}

/* map[w] = 1 + index in g of world rank w, 0 if not a member. */
static int *member_map(const fy_group_t *g) {
  int *map = calloc((size_t)fy_comm_world.size, sizeof(int));
  if (!map) return NULL;
  for (int i = 0; i < g->size; i++) map[g->world_of[i]] = i + 1;
  return map;
}

int fy_mpi_comm_group(MPI_Comm comm, MPI_Group *group) {
  fy_comm_t *c = fy_comm_get(comm);
  if (c->is_inter && c->local_comm) c = c->local_comm;  /* the local group */
  int *w = malloc((size_t)c->size * sizeof(int));
  if (!w) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  for (int i = 0; i < c->size; i++) w[i] = fy_comm_world_rank(c, i);
  int err = make_group(c->size, w, c->session, group);
  free(w);
  return err;
}

int fy_mpi_group_size(MPI_Group group, int *size) {
  *size = fy_group_get(group)->size;
  return MPI_SUCCESS;
}

int fy_mpi_group_rank(MPI_Group group, int *rank) {
  *rank = fy_group_get(group)->rank;
  return MPI_SUCCESS;
}

int fy_mpi_group_free(MPI_Group *group) {
  fy_group_t *g = fy_group_get(*group);
  if (!g) return fy_err(MPI_ERR_GROUP, "group = %#x is not a valid group", (unsigned)*group);
  if (g != &group_empty) {
    /* The user's handle dies now; layers holding a reference keep the object. */
    fy_htab_remove(&group_tab, g->handle);
    g->handle = 0;
    fy_group_release(g);
  }
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

/* Ranks given by the user must be distinct members of g. */
static int check_ranks(const fy_group_t *g, int n, const int ranks[], const char *fn, char **seen_out) {
  if (n < 0) return fy_err(MPI_ERR_ARG, "n = %d is negative", n);
  if (n > g->size) return fy_err(MPI_ERR_ARG, "n = %d exceeds the group size %d", n, g->size);
  if (n > 0 && !ranks) return fy_err(MPI_ERR_ARG, "ranks = NULL with n = %d", n);
  char *seen = calloc((size_t)g->size + 1, 1);
  if (!seen) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  for (int i = 0; i < n; i++) {
    if (ranks[i] < 0 || ranks[i] >= g->size) {
      free(seen);
      return fy_err(MPI_ERR_RANK, "ranks[%d] = %d is not a rank of the group (size %d)", i, ranks[i], g->size);
    }
    if (seen[ranks[i]]++) {
      free(seen);
      return fy_err(MPI_ERR_RANK, "ranks[%d] = %d appears twice", i, ranks[i]);
    }
  }
  (void)fn;
  *seen_out = seen;
  return MPI_SUCCESS;
}

int fy_mpi_group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
  fy_group_t *g = fy_group_get(group);
  char *seen = NULL;
  int err = check_ranks(g, n, ranks, "MPI_Group_incl", &seen);
  if (err) return err;
  int *w = malloc((size_t)(n ? n : 1) * sizeof(int));
  if (!w) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory");
    goto out;
  }
  for (int i = 0; i < n; i++) w[i] = g->world_of[ranks[i]];
  err = make_group(n, w, g->session, newgroup);
out:
  free(w);
  free(seen);
  return err;
}

int fy_mpi_group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
  fy_group_t *g = fy_group_get(group);
  char *seen = NULL;
  int err = check_ranks(g, n, ranks, "MPI_Group_excl", &seen);
  if (err) return err;
  int *w = malloc((size_t)(g->size ? g->size : 1) * sizeof(int)), k = 0;
  if (!w) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory");
    goto out;
  }
  for (int i = 0; i < g->size; i++)
    if (!seen[i]) w[k++] = g->world_of[i];
  err = make_group(k, w, g->session, newgroup);
out:
  free(w);
  free(seen);
  return err;
}

/* Expand (first, last, stride) triplets into a list of ranks; each rank must
 * be valid and appear once over all triplets. */
static int expand_ranges(const fy_group_t *g, int n, int ranges[][3], int **out, int *count) {
  if (n < 0) return fy_err(MPI_ERR_ARG, "n = %d is negative", n);
  if (n > 0 && !ranges) return fy_err(MPI_ERR_ARG, "ranges = NULL with n = %d", n);
  int *list = malloc((size_t)(g->size ? g->size : 1) * sizeof(int)), k = 0, err = MPI_SUCCESS;
  char *seen = calloc((size_t)g->size + 1, 1);
  if (!list || !seen) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory");
    goto fail;
  }
  for (int i = 0; i < n; i++) {
    int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0) {
      err = fy_err(MPI_ERR_ARG, "ranges[%d] has stride 0", i);
      goto fail;
    }
    if (first < 0 || first >= g->size || last < 0 || last >= g->size) {
      err = fy_err(MPI_ERR_RANK, "ranges[%d] = (%d, %d, %d) names a rank outside the group (size %d)",
                   i, first, last, stride, g->size);
      goto fail;
    }
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) continue; /* empty */
    for (long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (seen[r]++) {
        err = fy_err(MPI_ERR_RANK, "rank %ld appears twice in ranges", r);
        goto fail;
      }
      list[k++] = (int)r;
    }
  }
  free(seen);
  *out = list;
  *count = k;
  return MPI_SUCCESS;
fail:
  free(list);
  free(seen);
  return err;
}

int fy_mpi_group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
  fy_group_t *g = fy_group_get(group);
  int *list, k;
  int err = expand_ranges(g, n, ranges, &list, &k);
  if (err) return err;
  for (int i = 0; i < k; i++) list[i] = g->world_of[list[i]];
  err = make_group(k, list, g->session, newgroup);
  free(list);
  return err;
}

int fy_mpi_group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
  fy_group_t *g = fy_group_get(group);
  int *list, k;
  int err = expand_ranges(g, n, ranges, &list, &k);
  if (err) return err;
  char *drop = calloc((size_t)g->size + 1, 1);
  int *w = malloc((size_t)(g->size ? g->size : 1) * sizeof(int)), m = 0;
  if (!drop || !w) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory");
    goto out;
  }
  for (int i = 0; i < k; i++) drop[list[i]] = 1;
  for (int i = 0; i < g->size; i++)
    if (!drop[i]) w[m++] = g->world_of[i];
  err = make_group(m, w, g->session, newgroup);
out:
  free(drop);
  free(w);
  free(list);
  return err;
}

enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int set_op(MPI_Group group1, MPI_Group group2, int op, MPI_Group *newgroup) {
  fy_group_t *a = fy_group_get(group1), *b = fy_group_get(group2);
  int *inb = member_map(b), *w = malloc((size_t)(a->size + b->size + 1) * sizeof(int)), k = 0, err;
  if (!inb || !w) {
    err = fy_err(MPI_ERR_NO_MEM, "out of memory");
    goto out;
  }
  for (int i = 0; i < a->size; i++) {
    int in = inb[a->world_of[i]] != 0;
    if (op == SET_UNION || (op == SET_INTERSECTION) == in) w[k++] = a->world_of[i];
  }
  if (op == SET_UNION) {
    int *ina = member_map(a);
    if (!ina) {
      err = fy_err(MPI_ERR_NO_MEM, "out of memory");
      goto out;
    }
    for (int i = 0; i < b->size; i++)
      if (!ina[b->world_of[i]]) w[k++] = b->world_of[i];
    free(ina);
  }
  err = make_group(k, w, a->session ? a->session : b->session, newgroup);
out:
  free(inb);
  free(w);
  return err;
}

int fy_mpi_group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
  return set_op(group1, group2, SET_UNION, newgroup);
}
int fy_mpi_group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
  return set_op(group1, group2, SET_INTERSECTION, newgroup);
}
int fy_mpi_group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
  return set_op(group1, group2, SET_DIFFERENCE, newgroup);
}

int fy_mpi_group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  fy_group_t *a = fy_group_get(group1), *b = fy_group_get(group2);
  if (n < 0) return fy_err(MPI_ERR_ARG, "n = %d is negative", n);
  if (n > 0 && (!ranks1 || !ranks2)) return fy_err(MPI_ERR_ARG, "ranks1 or ranks2 is NULL with n = %d", n);
  for (int i = 0; i < n; i++)
    if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size))
      return fy_err(MPI_ERR_RANK, "ranks1[%d] = %d is not a rank of group1 (size %d)", i, ranks1[i], a->size);
  int *inb = member_map(b);
  if (!inb) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  for (int i = 0; i < n; i++) {
    if (ranks1[i] == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    int m = inb[a->world_of[ranks1[i]]];
    ranks2[i] = m ? m - 1 : MPI_UNDEFINED;
  }
  free(inb);
  return MPI_SUCCESS;
}

int fy_group_compare_worlds(int na, const int *a, int nb, const int *b) {
  if (na != nb) return MPI_UNEQUAL;
  int same_order = 1;
  for (int i = 0; i < na; i++)
    if (a[i] != b[i]) same_order = 0;
  if (same_order) return MPI_IDENT;
  int *inb = calloc((size_t)fy_comm_world.size, sizeof(int));
  if (!inb) return -1;
  for (int i = 0; i < nb; i++) inb[b[i]] = 1;
  int r = MPI_SIMILAR;
  for (int i = 0; i < na && r == MPI_SIMILAR; i++)
    if (!inb[a[i]]) r = MPI_UNEQUAL;
  free(inb);
  return r;
}

int fy_mpi_group_compare(MPI_Group group1, MPI_Group group2, int *result) {
  fy_group_t *a = fy_group_get(group1), *b = fy_group_get(group2);
  int r = fy_group_compare_worlds(a->size, a->world_of, b->size, b->world_of);
  if (r < 0) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  *result = r;
  return MPI_SUCCESS;
}
