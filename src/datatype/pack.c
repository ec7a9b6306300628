/* The pack engine: a cursor over the flattened layout (item, repetition,
 * run, block, byte) that packs, unpacks or lists iovecs for any byte range
 * of the packed stream. Fast paths: contiguous types are one memcpy; runs
 * of 1- to 32-byte blocks copy with fixed-size moves; items of one block
 * each are one run of all the items; stride-2 8-byte blocks unpack with
 * AVX-512 masked stores where the CPU has them. See fy_datatype.h. */
#include "datatype/dt_impl.h"
#include "datatype/fy_copy.h"
#include <string.h>

enum { OP_PACK, OP_UNPACK, OP_IOV };

typedef struct {
  MPI_Count k, q, i, j; /* item, repetition, run, block */
  MPI_Aint b;           /* byte within the block */
} cur_t;

/* Position of packed byte `off` (< count * size). */
static void locate(const fy_flat_t *f, size_t off, cur_t *c) {
  MPI_Count per = f->pre[f->nsegs];
  c->k = (MPI_Count)off / f->size;
  MPI_Count r = (MPI_Count)off % f->size;
  c->q = r / per;
  r %= per;
  MPI_Count lo = 0, hi = f->nsegs - 1; /* last run with pre <= r */
  while (lo < hi) {
    MPI_Count mid = (lo + hi + 1) / 2;
    if (f->pre[mid] <= r) lo = mid; else hi = mid - 1;
  }
  c->i = lo;
  r -= f->pre[lo];
  c->j = r / f->segs[lo].len;
  c->b = r % f->segs[lo].len;
}

/* nb blocks of sizeof(T) bytes, st apart, to/from the stream s; unrolled
 * by four so that loads and stores overlap */
#define COPY_RUN(T)                                                         \
  do {                                                                      \
    MPI_Count x = 0;                                                        \
    const size_t z = sizeof(T);                                             \
    if (op == OP_PACK) {                                                    \
      for (; x + 4 <= nb; x += 4, p += 4 * st, s += 4 * z) {                \
        T v0, v1, v2, v3;                                                   \
        memcpy(&v0, p, z); memcpy(&v1, p + st, z);                          \
        memcpy(&v2, p + 2 * st, z); memcpy(&v3, p + 3 * st, z);             \
        memcpy(s, &v0, z); memcpy(s + z, &v1, z);                           \
        memcpy(s + 2 * z, &v2, z); memcpy(s + 3 * z, &v3, z);              \
      }                                                                     \
      for (; x < nb; x++, p += st, s += z) memcpy(s, p, z);                 \
    } else {                                                                \
      for (; x + 4 <= nb; x += 4, p += 4 * st, s += 4 * z) {                \
        T v0, v1, v2, v3;                                                   \
        memcpy(&v0, s, z); memcpy(&v1, s + z, z);                           \
        memcpy(&v2, s + 2 * z, z); memcpy(&v3, s + 3 * z, z);              \
        memcpy(p, &v0, z); memcpy(p + st, &v1, z);                          \
        memcpy(p + 2 * st, &v2, z); memcpy(p + 3 * st, &v3, z);             \
      }                                                                     \
      for (; x < nb; x++, p += st, s += z) memcpy(p, s, z);                 \
    }                                                                       \
  } while (0)

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
/* Stride-2 unpack with AVX-512: one 64-byte load of the stream, two
 * permutes, two masked 64-byte stores of the even lanes (the masked-out
 * odd lanes, the holes, are not written). */
__attribute__((target("avx512f"))) static void pair_unpack512(char *p, const char *s, MPI_Count nb) {
  const __m512i lo = _mm512_setr_epi64(0, 0, 1, 1, 2, 2, 3, 3), hi = _mm512_setr_epi64(4, 4, 5, 5, 6, 6, 7, 7);
  for (MPI_Count x = 0; x + 8 <= nb; x += 8, p += 128, s += 64) {
    __m512i v = _mm512_loadu_si512(s);
    _mm512_mask_storeu_epi64(p, 0x55, _mm512_permutexvar_epi64(lo, v));
    _mm512_mask_storeu_epi64(p + 64, 0x55, _mm512_permutexvar_epi64(hi, v));
  }
}
static int use512 = -1; /* the CPU (and the kernel) support AVX-512F; asked once */
static int have512(void) {
  if (use512 < 0) use512 = __builtin_cpu_supports("avx512f") != 0;
  return use512;
}
#define HAVE_PAIR512 1
#endif

/* 8-byte blocks 16 bytes apart (a vector of stride 2): every 16-byte load
 * of the layout holds one block, two loads make one 16-byte store of the
 * stream (pack); unpack loads the stream 16 bytes at a time and stores each
 * half. Holes are never written. */
typedef uint64_t v2u __attribute__((vector_size(16)));
static void pair_copy(char *p, char *s, MPI_Count nb, int pack) {
  MPI_Count x = 0;
  if (pack) {
    for (; x + 4 <= nb; x += 4, p += 64, s += 32) {
      v2u a, b, c, d;
      memcpy(&a, p, 16); memcpy(&b, p + 16, 16);
      memcpy(&c, p + 32, 16); memcpy(&d, p + 48, 16);
      v2u lo = __builtin_shuffle(a, b, (v2u){0, 2}), hi = __builtin_shuffle(c, d, (v2u){0, 2});
      memcpy(s, &lo, 16); memcpy(s + 16, &hi, 16);
    }
    for (; x < nb; x++, p += 16, s += 8) memcpy(s, p, 8);
  } else {
#ifdef HAVE_PAIR512
    if (nb >= 8 && have512()) {
      MPI_Count m = nb & ~(MPI_Count)7;
      pair_unpack512(p, s, m);
      x = m;
      p += 16 * m;
      s += 8 * m;
    }
#endif
    for (; x + 8 <= nb; x += 8, p += 128, s += 64) {
      for (int y = 0; y < 8; y++) {
        uint64_t a;
        memcpy(&a, s + 8 * y, 8);
        memcpy(p + 16 * y, &a, 8);
      }
    }
    for (; x < nb; x++, p += 16, s += 8) memcpy(p, s, 8);
  }
}

/* Equal blocks of L bytes at displacements d[0..m) from base, to/from the
 * stream s (the bd list: indexed types). L is a constant in the callers
 * below, so each block is a few register moves. */
#define BD_COPY(L)                                                          \
  do {                                                                      \
    MPI_Count x = 0;                                                        \
    if (pack) {                                                             \
      for (; x + 2 <= m; x += 2, s += 2 * (L)) {                            \
        memcpy(s, (const char *)(base + (uintptr_t)d[x]), (L));             \
        memcpy(s + (L), (const char *)(base + (uintptr_t)d[x + 1]), (L));   \
      }                                                                     \
      for (; x < m; x++, s += (L)) memcpy(s, (const char *)(base + (uintptr_t)d[x]), (L)); \
    } else {                                                                \
      for (; x + 2 <= m; x += 2, s += 2 * (L)) {                            \
        memcpy((char *)(base + (uintptr_t)d[x]), s, (L));                   \
        memcpy((char *)(base + (uintptr_t)d[x + 1]), s + (L), (L));         \
      }                                                                     \
      for (; x < m; x++, s += (L)) memcpy((char *)(base + (uintptr_t)d[x]), s, (L)); \
    }                                                                       \
  } while (0)

static char *bd_copy(uintptr_t base, const MPI_Aint *d, MPI_Count m, MPI_Aint L, char *s, int pack) {
  switch (L) {
  case 4: BD_COPY(4); break;
  case 8: BD_COPY(8); break;
  case 16: BD_COPY(16); break;
  case 24: BD_COPY(24); break;
  case 32: BD_COPY(32); break;
  case 48: BD_COPY(48); break;
  case 64: BD_COPY(64); break;
  default: BD_COPY((size_t)L); break;
  }
  return s;
}

/* pack/unpack over the bd list (see fy_datatype.h): packed bytes
 * [off, off+len) of count items, len already clipped to the data. */
static size_t bd_walk(const fy_datatype_t *t, MPI_Count count, uintptr_t base, size_t off, size_t len,
                      int pack, char *s) {
  const fy_flat_t *f = &t->pk;
  const MPI_Aint L = t->bd_len, *d = t->bd;
  const MPI_Count nb = t->bd_n, per = nb * L;
  MPI_Count k = (MPI_Count)off / f->size, r = (MPI_Count)off % f->size, q = r / per;
  r %= per;
  MPI_Count i = r / L;
  MPI_Aint b = r % L;
  size_t left = len;
  for (; k < count; k++, q = 0) {
    for (; q < f->rep; q++, i = 0) {
      uintptr_t rb = base + (uintptr_t)(k * f->extent) + (uintptr_t)(q * f->rep_stride);
      if (b) { /* finish a partial block */
        size_t m = (size_t)(L - b);
        if (m > left) m = left;
        char *p = (char *)(rb + (uintptr_t)d[i]) + b;
        if (pack) memcpy(s, p, m); else memcpy(p, s, m);
        s += m;
        left -= m;
        if (!left) return len;
        b = 0;
        i++;
      }
      MPI_Count m = nb - i;
      if ((size_t)(m * L) > left) m = (MPI_Count)(left / (size_t)L);
      s = bd_copy(rb, d + i, m, L, s, pack);
      left -= (size_t)(m * L);
      i += m;
      if (i < nb) { /* the range ends inside block i */
        if (left) {
          char *p = (char *)(rb + (uintptr_t)d[i]);
          if (pack) memcpy(s, p, left); else memcpy(p, s, left);
        }
        return len;
      }
      if (!left) return len;
    }
  }
  return len - left;
}

static inline __attribute__((always_inline)) size_t
walk(const fy_flat_t *f, MPI_Count count, uintptr_t base, size_t off, size_t len, int op, char *s,
     struct iovec *iov, int maxiov, int *niov) {
  size_t total = (size_t)(count * f->size);
  if (off >= total || len == 0) return 0;
  if (len > total - off) len = total - off;
  size_t left = len;
  int nv = 0;
  cur_t c;
  locate(f, off, &c);
  for (; c.k < count; c.k++, c.q = 0) {
    uintptr_t ib = base + (uintptr_t)(c.k * f->extent);
    for (; c.q < f->rep; c.q++, c.i = 0) {
      uintptr_t rb = ib + (uintptr_t)(c.q * f->rep_stride);
      for (; c.i < f->nsegs; c.i++, c.j = 0) {
        const fy_seg_t *g = &f->segs[c.i];
        if (op != OP_IOV && g->n <= 4 && c.j == 0 && c.b == 0 && (size_t)(g->len * g->n) <= left) {
          /* a whole run of a few blocks (indexed and struct types): no cursor work */
          char *q = (char *)(rb + (uintptr_t)g->disp);
          size_t L = (size_t)g->len;
          for (MPI_Count k = 0; k < g->n; k++, q += g->stride, s += L) {
            char *from = op == OP_PACK ? q : s, *to = op == OP_PACK ? s : q;
            if (L == 32) memcpy(to, from, 32);
            else if (L == 16) memcpy(to, from, 16);
            else if (L == 8) memcpy(to, from, 8);
            else memcpy(to, from, L);
          }
          left -= L * (size_t)g->n;
          if (!left) goto out;
          continue;
        }
        char *p = (char *)(rb + (uintptr_t)(g->disp + c.j * g->stride));
        MPI_Aint st = g->stride;
        if (c.b) { /* finish a partial block */
          size_t m = (size_t)(g->len - c.b);
          if (m > left) m = left;
          if (op == OP_PACK) memcpy(s, p + c.b, m);
          else if (op == OP_UNPACK) memcpy(p + c.b, s, m);
          else {
            if (nv == maxiov) goto out;
            iov[nv].iov_base = p + c.b;
            iov[nv++].iov_len = m;
          }
          s += m;
          left -= m;
          if (!left) goto out;
          c.b = 0;
          c.j++;
          p += st;
        }
        MPI_Count nb = g->n - c.j;
        size_t blen = (size_t)g->len;
        if ((size_t)nb * blen > left) nb = (MPI_Count)(left / blen);
        if (op == OP_IOV) {
          if (nb > maxiov - nv) nb = maxiov - nv;
          for (MPI_Count x = 0; x < nb; x++, p += st) {
            iov[nv].iov_base = p;
            iov[nv++].iov_len = blen;
          }
          s += nb * blen;
        } else if (blen == 8 && st == 16) {
          pair_copy(p, s, nb, op == OP_PACK);
          p += nb * 16;
          s += nb * 8;
        } else if (blen == 8 && op == OP_UNPACK) {
          /* 8-byte blocks out of the stream: 16-byte loads, 8-byte stores */
          typedef double v2d __attribute__((vector_size(16)));
          MPI_Count x = 0;
          for (; x + 4 <= nb; x += 4, p += 4 * st, s += 32) {
            v2d a, b;
            memcpy(&a, s, 16);
            memcpy(&b, s + 16, 16);
            double a0 = a[0], a1 = a[1], b0 = b[0], b1 = b[1];
            memcpy(p, &a0, 8); memcpy(p + st, &a1, 8);
            memcpy(p + 2 * st, &b0, 8); memcpy(p + 3 * st, &b1, 8);
          }
          for (; x < nb; x++, p += st, s += 8) memcpy(p, s, 8);
        } else if (blen == 8) COPY_RUN(uint64_t);
        else if (blen == 4) COPY_RUN(uint32_t);
        else if (blen == 2) COPY_RUN(uint16_t);
        else if (blen == 1) COPY_RUN(uint8_t);
        else if (blen == 16) {
          typedef struct { uint64_t a, b; } u128;
          COPY_RUN(u128);
        } else if (blen == 32) {
          typedef struct { uint64_t a, b, c, d; } u256;
          COPY_RUN(u256);
        } else if (blen == 24) {
          typedef struct { uint64_t a, b, c; } u192;
          COPY_RUN(u192);
        } else if (op == OP_PACK) {
          for (MPI_Count x = 0; x < nb; x++, p += st, s += blen) memcpy(s, p, blen);
        } else {
          for (MPI_Count x = 0; x < nb; x++, p += st, s += blen) memcpy(p, s, blen);
        }
        left -= (size_t)nb * blen;
        c.j += nb;
        if (c.j < g->n) { /* the range (or the iovec list) ends inside this run */
          if (!left || (op == OP_IOV && nv == maxiov)) goto out;
          if (op == OP_PACK) memcpy(s, p, left);
          else if (op == OP_UNPACK) memcpy(p, s, left);
          else {
            iov[nv].iov_base = p;
            iov[nv++].iov_len = left;
          }
          s += left;
          left = 0;
          goto out;
        }
        if (!left) goto out;
      }
    }
  }
out:
  if (niov) *niov = nv;
  return len - left;
}

/* count items of one block each (a resized basic type, a one-block
 * struct): one run of count blocks an extent apart, so that the run copies
 * of walk serve them, rather than every loop of the cursor once per item
 * (16 Mi resized chars: 5.7 ns an item, MPICH 0.28). fold() fills *one
 * (with *g and pre) and returns it, setting *count to 1; f itself otherwise. */
static const fy_flat_t *fold(const fy_flat_t *f, MPI_Count *count, fy_flat_t *one, fy_seg_t *g, MPI_Count pre[2]) {
  if (*count < 2 || f->nsegs != 1 || f->rep != 1 || f->segs[0].n != 1) return f;
  *g = f->segs[0];
  g->n = *count;
  g->stride = f->extent;
  pre[0] = 0;
  pre[1] = g->len * *count;
  *one = (fy_flat_t){.segs = g, .nsegs = 1, .pre = pre, .rep = 1, .rep_stride = 0, .size = pre[1],
                     .extent = f->extent * *count};
  *count = 1;
  return one;
}

size_t fy_type_pack_range(const fy_datatype_t *t, MPI_Count count, const void *buf, size_t offset,
                          size_t len, void *out) {
  size_t total = (size_t)(count * t->size);
  if (offset >= total) return 0;
  if (len > total - offset) len = total - offset;
  if (t->is_contig) {
    fy_copy(out, (const char *)buf + t->true_lb + offset, len);
    return len;
  }
  if (t->bd) return bd_walk(t, count, (uintptr_t)buf, offset, len, 1, out);
  fy_flat_t one;
  fy_seg_t g;
  MPI_Count pre[2];
  const fy_flat_t *f = fold(&t->pk, &count, &one, &g, pre);
  return walk(f, count, (uintptr_t)buf, offset, len, OP_PACK, out, NULL, 0, NULL);
}

size_t fy_type_unpack_range(const fy_datatype_t *t, MPI_Count count, void *buf, size_t offset,
                            size_t len, const void *in) {
  size_t total = (size_t)(count * t->size);
  if (offset >= total) return 0;
  if (len > total - offset) len = total - offset;
  if (t->is_contig) {
    fy_copy((char *)buf + t->true_lb + offset, in, len);
    return len;
  }
  if (t->bd) return bd_walk(t, count, (uintptr_t)buf, offset, len, 0, (char *)in);
  fy_flat_t one;
  fy_seg_t g;
  MPI_Count pre[2];
  const fy_flat_t *f = fold(&t->pk, &count, &one, &g, pre);
  return walk(f, count, (uintptr_t)buf, offset, len, OP_UNPACK, (char *)in, NULL, 0, NULL);
}

void fy_type_pack(const fy_datatype_t *t, MPI_Count count, const void *buf, void *out) {
  fy_type_pack_range(t, count, buf, 0, (size_t)(count * t->size), out);
}

void fy_type_unpack(const fy_datatype_t *t, MPI_Count count, const void *in, size_t bytes, void *buf) {
  fy_type_unpack_range(t, count, buf, 0, bytes, in);
}

int fy_flat_iov(const fy_flat_t *f, MPI_Count count, uintptr_t base, size_t offset, struct iovec *iov,
                int max, size_t maxbytes, size_t *bytes) {
  int nv = 0;
  *bytes = walk(f, count, base, offset, maxbytes, OP_IOV, NULL, iov, max, &nv);
  return nv;
}

/* ---- element counts ---- */

MPI_Count fy_type_elements(const fy_datatype_t *t, MPI_Count bytes) {
  if (t->size == 0) return 0;
  MPI_Count full = bytes / t->size, rest = bytes % t->size;
  MPI_Count n = full * t->nbasic;
  const fy_flat_t *f = &t->flat;
  MPI_Count per = f->pre[f->nsegs], perel = f->rep ? t->nbasic / f->rep : 0;
  n += (rest / per) * perel;
  rest %= per;
  for (MPI_Count i = 0; i < f->nsegs && rest > 0; i++) {
    const fy_seg_t *s = &f->segs[i];
    MPI_Count sb = s->len * s->n;
    MPI_Count m = rest < sb ? rest : sb;
    if (m % s->esize) return MPI_UNDEFINED;
    n += m / s->esize;
    rest -= m;
  }
  return n;
}

MPI_Count fy_type_elements_bytes(const fy_datatype_t *t, MPI_Count n) {
  if (n == 0) return 0;
  if (t->nbasic == 0) return -1;
  MPI_Count full = n / t->nbasic, rest = n % t->nbasic;
  MPI_Count bytes = full * t->size;
  const fy_flat_t *f = &t->flat;
  MPI_Count per = f->pre[f->nsegs], perel = t->nbasic / f->rep;
  bytes += (rest / perel) * per;
  rest %= perel;
  for (MPI_Count i = 0; i < f->nsegs && rest > 0; i++) {
    const fy_seg_t *s = &f->segs[i];
    MPI_Count se = s->len * s->n / s->esize, m = rest < se ? rest : se;
    bytes += m * s->esize;
    rest -= m;
  }
  return bytes;
}
