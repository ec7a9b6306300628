/* Building the flattened layout of a derived type from its blocks: runs
 * are appended in typemap order and merged with the previous run when the
 * two form one contiguous block or one regular strided run. See dt_impl.h. */
#include "datatype/dt_impl.h"
#include "core/fy_handle.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
  fy_seg_t *s;
  MPI_Count n, cap;
  int oom;
} segbuf_t;

static void norm(fy_seg_t *s) {
  if (s->n > 1 && s->stride == s->len) {
    s->len *= s->n;
    s->n = 1;
  }
  if (s->n == 1) s->stride = 0;
}

/* Append r, merging it into the last run if they form one run. */
static void push(segbuf_t *b, fy_seg_t r) {
  if (r.n == 0 || r.len == 0) return;
  norm(&r);
  if (b->n) {
    fy_seg_t *p = &b->s[b->n - 1];
    if (p->ebasic == r.ebasic) {
      if (p->n == 1 && r.n == 1 && p->disp + p->len == r.disp) {
        p->len += r.len;
        return;
      }
      if (p->len == r.len) {
        MPI_Aint st = p->n > 1 ? p->stride : (r.n > 1 ? r.stride : r.disp - p->disp);
        if ((r.n == 1 || r.stride == st) && r.disp == p->disp + p->n * st && st != 0) {
          p->stride = st;
          p->n += r.n;
          norm(p);
          return;
        }
      }
    }
  }
  if (b->n == b->cap) {
    MPI_Count nc = b->cap ? b->cap * 2 : 8;
    fy_seg_t *ns = realloc(b->s, (size_t)nc * sizeof *ns);
    if (!ns) {
      b->oom = 1;
      return;
    }
    b->s = ns;
    b->cap = nc;
  }
  b->s[b->n++] = r;
}

/* Append `times` copies of t's item, the k-th shifted by shift + k*step. */
static void push_repeat(segbuf_t *b, const fy_datatype_t *t, MPI_Count times, MPI_Aint shift, MPI_Aint step) {
  const fy_flat_t *f = &t->flat;
  if (times <= 0 || f->nsegs == 0) return;
  if (f->nsegs == 1 && f->rep == 1) {
    fy_seg_t s = f->segs[0];
    s.disp += shift;
    if (s.n == 1 && times > 1) { /* a block repeated: one strided run */
      s.n = times;
      s.stride = step;
      if (step != 0) { push(b, s); return; }
      s.n = 1;
      s.stride = 0;
    } else if (s.n > 1 && step == s.n * s.stride && step != 0) {
      s.n *= times;
      push(b, s);
      return;
    }
    for (MPI_Count k = 0; k < times && !b->oom; k++) {
      fy_seg_t r = s;
      r.disp += k * step;
      push(b, r);
    }
    return;
  }
  for (MPI_Count k = 0; k < times && !b->oom; k++)
    for (MPI_Count q = 0; q < f->rep; q++)
      for (MPI_Count i = 0; i < f->nsegs; i++) {
        fy_seg_t r = f->segs[i];
        r.disp += shift + k * step + q * f->rep_stride;
        push(b, r);
      }
}

void fy_flat_prefix(fy_flat_t *f) {
  MPI_Count o = 0;
  for (MPI_Count i = 0; i < f->nsegs; i++) {
    f->pre[i] = o;
    o += f->segs[i].len * f->segs[i].n;
  }
  f->pre[f->nsegs] = o;
  f->size = o * f->rep;
}

static int flat_set(fy_flat_t *f, segbuf_t *b, MPI_Count rep, MPI_Aint rep_stride) {
  f->segs = b->s;
  f->nsegs = b->n;
  f->rep = rep;
  f->rep_stride = rep_stride;
  f->pre = malloc((size_t)(b->n + 1) * sizeof *f->pre);
  if (!f->pre) return -1;
  fy_flat_prefix(f);
  return 0;
}

int fy_dt_flat_copy(fy_flat_t *dst, const fy_flat_t *src) {
  *dst = *src;
  dst->segs = malloc((size_t)(src->nsegs ? src->nsegs : 1) * sizeof *dst->segs);
  dst->pre = malloc((size_t)(src->nsegs + 1) * sizeof *dst->pre);
  if (!dst->segs || !dst->pre) {
    free(dst->segs);
    free(dst->pre);
    dst->segs = NULL;
    dst->pre = NULL;
    return -1;
  }
  if (src->nsegs) memcpy(dst->segs, src->segs, (size_t)src->nsegs * sizeof *dst->segs);
  memcpy(dst->pre, src->pre, (size_t)(src->nsegs + 1) * sizeof *dst->pre);
  return 0;
}

void fy_dt_pk_free(fy_datatype_t *t) {
  if (t->pk_owned) {
    free(t->pk.segs);
    free(t->pk.pre);
    t->pk_owned = 0;
  }
  free(t->bd);
  t->bd = NULL;
}

/* Many runs of a few equal blocks each: list the blocks' displacements
 * (bd). A missing list (out of memory) only costs speed. */
static void build_bd(fy_datatype_t *t) {
  const fy_flat_t *p = &t->pk;
  if (p->nsegs < 8) return;
  MPI_Aint L = p->segs[0].len;
  MPI_Count nb = 0;
  for (MPI_Count i = 0; i < p->nsegs; i++) {
    if (p->segs[i].len != L) return;
    nb += p->segs[i].n;
  }
  if (nb > 4 * p->nsegs) return; /* long strided runs: the run walk is better */
  t->bd = malloc((size_t)nb * sizeof *t->bd);
  if (!t->bd) return;
  MPI_Count k = 0;
  for (MPI_Count i = 0; i < p->nsegs; i++)
    for (MPI_Count j = 0; j < p->segs[i].n; j++) t->bd[k++] = p->segs[i].disp + j * p->segs[i].stride;
  t->bd_n = nb;
  t->bd_len = L;
}

/* The packing layout: runs merged regardless of their basic type. */
static void build_pk(fy_datatype_t *t) {
  const fy_flat_t *f = &t->flat;
  fy_dt_pk_free(t);
  t->pk = *f;
  t->pk_owned = 0;
  segbuf_t b = {0};
  for (MPI_Count i = 0; i < f->nsegs && !b.oom; i++) {
    fy_seg_t r = f->segs[i];
    r.ebasic = 0;
    r.esize = 1;
    push(&b, r);
  }
  MPI_Count rep = f->rep;
  MPI_Aint rep_stride = f->rep_stride;
  if (!b.oom && b.n == 1 && rep > 1 && b.s[0].n == 1 && rep_stride != 0) {
    b.s[0].n = rep; /* one block repeated: a strided run */
    b.s[0].stride = rep_stride;
    norm(&b.s[0]);
    rep = 1;
    rep_stride = 0;
  }
  if (b.oom || (b.n == f->nsegs && rep == f->rep)) { /* nothing gained: share */
    free(b.s);
    build_bd(t);
    return;
  }
  fy_flat_t pk = {0};
  if (flat_set(&pk, &b, rep, rep_stride)) {
    free(b.s);
    build_bd(t);
    return;
  }
  pk.extent = t->extent;
  t->pk = pk;
  t->pk_owned = 1;
  build_bd(t);
}

/* size, true bounds and contiguity from the layout */
void fy_dt_finish(fy_datatype_t *t) {
  const fy_flat_t *f = &t->flat;
  t->size = f->size;
  MPI_Aint lo = 0, hi = 0;
  int any = 0;
  for (MPI_Count i = 0; i < f->nsegs; i++) {
    const fy_seg_t *s = &f->segs[i];
    MPI_Aint a = s->disp, z = s->disp + (s->n - 1) * s->stride;
    MPI_Aint l = a < z ? a : z, h = (a < z ? z : a) + s->len;
    if (!any || l < lo) lo = l;
    if (!any || h > hi) hi = h;
    any = 1;
  }
  if (any && f->rep > 1) {
    MPI_Aint d = (f->rep - 1) * f->rep_stride;
    if (d < 0) lo += d; else hi += d;
  }
  t->true_lb = any ? lo : 0;
  t->true_extent = any ? hi - lo : 0;
  t->flat.extent = t->extent;
  build_pk(t);
  t->pk.extent = t->extent;
  const fy_flat_t *p = &t->pk;
  t->is_contig = t->size == 0 ||
                 (p->nsegs == 1 && p->rep == 1 && p->segs[0].n == 1 && p->segs[0].len == t->size &&
                  t->extent == t->size);
  t->pk_blocks = 0;
  for (MPI_Count i = 0; i < p->nsegs; i++) t->pk_blocks += p->segs[i].n;
  t->pk_blocks *= p->rep;
}

static void bounds_add(MPI_Aint *lb, MPI_Aint *ub, int *any, MPI_Aint l, MPI_Aint u) {
  if (!*any || l < *lb) *lb = l;
  if (!*any || u > *ub) *ub = u;
  *any = 1;
}

fy_datatype_t *fy_dt_build(const fy_blocks_t *bk, int is_struct) {
  fy_datatype_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->refcount = 1;
  segbuf_t b = {0};
  MPI_Aint lb = 0, ub = 0, mlb = 0, mub = 0;
  int any = 0, anylb = 0, anyub = 0, align = 1, sticky = 0, first_red = 1;
  MPI_Count nbasic = 0, red_n = 0;
  fy_datatype_t *red = NULL;
  MPI_Count rep = 1;
  MPI_Aint rep_stride = 0;
  for (MPI_Count i = 0; i < bk->count; i++) {
    fy_datatype_t *c = bk->children ? bk->children[i] : bk->child;
    MPI_Count bl = bk->bls ? bk->bls[i] : bk->bl;
    MPI_Aint d = bk->displs ? bk->displs[i] : i * bk->stride;
    if (c->handle == MPI_LB || c->handle == MPI_UB) { /* legacy markers */
      if (c->handle == MPI_LB) { if (!anylb || d < mlb) mlb = d; anylb = 1; }
      else { if (!anyub || d > mub) mub = d; anyub = 1; }
      continue;
    }
    if (bl <= 0) continue;
    /* bounds of bl items of c at d (markers in c are sticky) */
    MPI_Aint e = c->extent, span = (bl - 1) * e;
    bounds_add(&lb, &ub, &any, d + c->lb + (span < 0 ? span : 0), d + c->lb + c->extent + (span > 0 ? span : 0));
    if (c->align > align) align = c->align;
    sticky |= c->sticky;
    nbasic += bl * c->nbasic;
    if (first_red) { red = c->red_basic; first_red = 0; }
    if (red != c->red_basic) red = NULL;
    red_n += bl * c->red_n;
    if (bk->uniform && bk->count > 1 && i == 0 &&
        (c->flat.nsegs > 1 || c->flat.rep > 1) && bk->stride != 0) {
      /* vector of a multi-run block: keep the block once, repeated */
      if (bl == 1 && c->flat.rep > 1 && c->flat.rep * c->flat.rep_stride == bk->stride) {
        /* contiguous of a repeated type: one longer repetition */
        for (MPI_Count j = 0; j < c->flat.nsegs; j++) {
          fy_seg_t r = c->flat.segs[j];
          r.disp += d;
          push(&b, r);
        }
        rep = c->flat.rep * bk->count;
        rep_stride = c->flat.rep_stride;
      } else {
        push_repeat(&b, c, bl, d, e);
        rep = bk->count;
        rep_stride = bk->stride;
      }
      /* the other blocks are the repetitions: account for them and stop */
      MPI_Aint last = (bk->count - 1) * bk->stride;
      bounds_add(&lb, &ub, &any, lb + last, ub + last);
      nbasic *= bk->count;
      red_n *= bk->count;
      break;
    }
    if (bk->uniform && bk->count > 1 && i == 0 && c->flat.nsegs == 1 && c->flat.rep == 1 &&
        (bl == 1 || (c->flat.segs[0].n == 1 && c->flat.segs[0].len == e))) {
      /* vector of single-run blocks: one strided run when the runs line up */
      fy_seg_t s = c->flat.segs[0];
      if (s.n == 1) {
        s.len *= bl;
        s.disp += d;
        s.n = bk->count;
        s.stride = bk->stride;
        if (bk->stride != 0) {
          push(&b, s);
          MPI_Aint last = (bk->count - 1) * bk->stride;
          bounds_add(&lb, &ub, &any, lb + last, ub + last);
          nbasic *= bk->count;
          red_n *= bk->count;
          break;
        }
      }
    }
    push_repeat(&b, c, bl, d, e);
  }
  if (b.oom || flat_set(&t->flat, &b, rep, rep_stride)) {
    free(b.s);
    free(t);
    return NULL;
  }
  if (anylb || anyub) sticky = 1;
  /* explicit MPI_LB/MPI_UB markers win over the data's bounds */
  if (!any) lb = ub = 0;
  if (anylb) lb = mlb;
  if (anyub) ub = mub;
  if (is_struct && !sticky && align > 1) {
    MPI_Aint ext = ub - lb, r = ext % align;
    if (r) ub += align - r;
  }
  t->lb = lb;
  t->extent = ub - lb;
  t->align = align;
  t->sticky = sticky;
  t->nbasic = nbasic;
  t->red_basic = first_red ? NULL : red;
  t->red_n = red_n;
  fy_dt_finish(t);
  return t;
}

fy_datatype_t *fy_dt_resized(const fy_datatype_t *old, MPI_Aint lb, MPI_Aint extent) {
  fy_datatype_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->refcount = 1;
  if (fy_dt_flat_copy(&t->flat, &old->flat)) {
    free(t);
    return NULL;
  }
  t->lb = lb;
  t->extent = extent;
  t->align = old->align;
  t->sticky = 1;
  t->nbasic = old->nbasic;
  t->red_basic = old->red_basic;
  t->red_n = old->red_n;
  fy_dt_finish(t);
  return t;
}

void fy_dt_destroy(fy_datatype_t *t) {
  for (int i = 0; i < t->nd; i++) fy_type_release(t->types[i]);
  fy_dt_pk_free(t);
  free(t->flat.segs);
  free(t->flat.pre);
  free(t->ints);
  free(t->addrs);
  free(t->larges);
  free(t->types);
  free(t);
}

static void *dupmem(const void *p, size_t n) {
  if (!n) return NULL;
  void *q = malloc(n);
  if (q) memcpy(q, p, n);
  return q;
}

int fy_dt_register(fy_datatype_t *t, int combiner, int large, int ni, const int *ints, int na,
                   const MPI_Aint *addrs, int nl, const MPI_Count *larges, int nd,
                   fy_datatype_t *const *types, MPI_Datatype *out) {
  t->combiner = combiner;
  t->large = large;
  t->ni = ni;
  t->na = na;
  t->nl = nl;
  t->ints = dupmem(ints, (size_t)ni * sizeof *ints);
  t->addrs = dupmem(addrs, (size_t)na * sizeof *addrs);
  t->larges = dupmem(larges, (size_t)nl * sizeof *larges);
  t->types = dupmem(types, (size_t)nd * sizeof *types);
  if ((ni && !t->ints) || (na && !t->addrs) || (nl && !t->larges) || (nd && !t->types)) goto oom;
  t->nd = nd;
  for (int i = 0; i < nd; i++) fy_type_retain(t->types[i]);
  pthread_mutex_lock(&fy_type_tab_lock); /* (fy_type_release) */
  int h = fy_htab_add(&fy_type_tab, t);
  pthread_mutex_unlock(&fy_type_tab_lock);
  if (!h) goto oom;
  t->handle = h;
  *out = h;
  return MPI_SUCCESS;
oom:
  fy_dt_destroy(t);
  return MPI_ERR_NO_MEM;
}
