/* Barrier (dissemination) and broadcast (binomial tree; scatter then ring
 * allgather for large contiguous messages) as schedules. */
#include "coll/fy_coll_impl.h"
#include <string.h>

int fy_coll_pick(const char *setting, const char *const *names) {
  if (!setting) return 0;
  for (int i = 1; names[i]; i++)
    if (!strcmp(setting, names[i])) return i;
  return 0;
}

int fy_build_barrier(fy_sched_t *s) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  fy_datatype_t *byte = fy_type_get(MPI_BYTE);
  TRY(fy_sched_fence(s));
  /* Dissemination: in round k each rank signals rank+k and hears from
   * rank-k; after ceil(log2 p) rounds everyone has heard from everyone. */
  for (int k = 1; k < p; k <<= 1) {
    TRY(fy_sched_recv(s, NULL, 0, byte, (me - k + p) % p));
    TRY(fy_sched_send(s, NULL, 0, byte, (me + k) % p));
    TRY(fy_sched_fence(s));
  }
  return MPI_SUCCESS;
}

static int bcast_binomial(fy_sched_t *s, void *buf, MPI_Count count, fy_datatype_t *t, int root) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, vr = (c->rank - root + p) % p;
  int mask = 1;
  while (mask < p) {
    if (vr & mask) {
      TRY(fy_sched_recv(s, buf, count, t, (vr - mask + root) % p));
      TRY(fy_sched_fence(s));
      break;
    }
    mask <<= 1;
  }
  /* Children, largest subtree first. */
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < p) TRY(fy_sched_send(s, buf, count, t, (vr + mask + root) % p));
  return fy_sched_fence(s);
}

/* Van de Geijn: the root scatters p pieces, then a ring allgather. */
static int bcast_scatter_allgather(fy_sched_t *s, void *buf, MPI_Count count, fy_datatype_t *t,
                                   int root) {
  fy_comm_t *c = fy_sched_comm(s);
  int p = c->size, me = c->rank;
  fy_datatype_t *byte = fy_type_get(MPI_BYTE);
  char *base = (char *)buf + t->true_lb;
  MPI_Count n = count * t->size, chunk = (n + p - 1) / p;
#define LO(i) ((MPI_Count)(i) * chunk > n ? n : (MPI_Count)(i) * chunk)
#define LEN(i) (LO((i) + 1) - LO(i))
  if (me == root) {
    for (int i = 0; i < p; i++)
      if (i != root && LEN(i) > 0) TRY(fy_sched_send(s, base + LO(i), LEN(i), byte, i));
  } else if (LEN(me) > 0) {
    TRY(fy_sched_recv(s, base + LO(me), LEN(me), byte, root));
  }
  TRY(fy_sched_fence(s));
  int right = (me + 1) % p, left = (me - 1 + p) % p;
  for (int k = 0; k < p - 1; k++) {
    int sb = (me - k + p) % p, rb = (me - k - 1 + 2 * p) % p;
    if (LEN(sb) > 0) TRY(fy_sched_send(s, base + LO(sb), LEN(sb), byte, right));
    if (LEN(rb) > 0) TRY(fy_sched_recv(s, base + LO(rb), LEN(rb), byte, left));
    TRY(fy_sched_fence(s));
  }
#undef LO
#undef LEN
  return MPI_SUCCESS;
}

int fy_build_bcast(fy_sched_t *s, void *buf, MPI_Count count, fy_datatype_t *t, int root) {
  fy_comm_t *c = fy_sched_comm(s);
  if (c->size == 1 || count == 0) return MPI_SUCCESS;
  TRY(fy_sched_fence(s));
  static const char *const names[] = {"auto", "binomial", "scatter_allgather", NULL};
  int a = FY_COLL_PICK(fy_config.coll_bcast, names);
  MPI_Count bytes = count * t->size;
  int sa_ok = t->is_contig && bytes >= c->size;
  if (a == 0) a = (sa_ok && bytes >= fy_config.coll_large && c->size > 2) ? 2 : 1;
  if (a == 2 && sa_ok) return bcast_scatter_allgather(s, buf, count, t, root);
  return bcast_binomial(s, buf, count, t, root);
}
