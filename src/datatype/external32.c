/* external32 (MPI 4.1 §11.7.5): big-endian, IEEE formats, the standard's
 * sizes (4-byte long, 2-byte wchar_t, 16-byte IEEE quad long double).
 * Pack_external / Unpack_external / Pack_external_size (+_c) walk the
 * flattened layout block by block and convert each basic element. */
#include "datatype/dt_impl.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include <string.h>

static int is_ldouble(int h) {
  return h == MPI_LONG_DOUBLE || h == MPI_C_LONG_DOUBLE_COMPLEX || h == MPI_CXX_LONG_DOUBLE_COMPLEX;
}
static int is_signed_narrowed(int h) { return h == MPI_LONG || h == MPI_WCHAR; }

static void put_be(unsigned char *o, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; i--, v >>= 8) o[i] = (unsigned char)v;
}
static uint64_t get_be(const unsigned char *in, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v = (v << 8) | in[i];
  return v;
}

/* x87 80-bit extended (in 16 bytes) <-> IEEE binary128, big-endian */
static void ld_to_quad(const unsigned char *x, unsigned char *o) {
  uint64_t m, hi, lo;
  uint16_t se;
  memcpy(&m, x, 8);
  memcpy(&se, x + 8, 2);
  uint64_t f = m & 0x7fffffffffffffffULL; /* drop the explicit integer bit */
  hi = ((uint64_t)se << 48) | (f >> 15);
  lo = f << 49;
  put_be(o, hi, 8);
  put_be(o + 8, lo, 8);
}
static void quad_to_ld(const unsigned char *in, unsigned char *x) {
  uint64_t hi = get_be(in, 8), lo = get_be(in + 8, 8);
  uint16_t se = (uint16_t)(hi >> 48);
  uint64_t f = ((hi & 0xffffffffffffULL) << 15) | (lo >> 49);
  if (se & 0x7fff) f |= 1ULL << 63;
  memset(x, 0, 16);
  memcpy(x, &f, 8);
  memcpy(x + 8, &se, 2);
}

/* one element: native at p (es bytes) <-> external32 at q (xs bytes) */
static void conv(int h, int es, int xs, int unit, unsigned char *p, unsigned char *q, int to_ext) {
  if (is_ldouble(h)) {
    for (int o = 0; o < es; o += 16)
      to_ext ? ld_to_quad(p + o, q + o) : quad_to_ld(q + o, p + o);
    return;
  }
  if (xs < es) { /* narrowed integers */
    uint64_t v = 0;
    if (to_ext) {
      memcpy(&v, p, (size_t)es);
      put_be(q, v, xs);
    } else {
      v = get_be(q, xs);
      if (is_signed_narrowed(h) && (v >> (8 * xs - 1)) & 1) v |= ~0ULL << (8 * xs);
      memcpy(p, &v, (size_t)es);
    }
    return;
  }
  for (int o = 0; o < es; o += unit)
    for (int i = 0; i < unit; i++) {
      if (to_ext) q[o + i] = p[o + unit - 1 - i];
      else p[o + unit - 1 - i] = q[o + i];
    }
}

MPI_Count fy_type_ext32_size(const fy_datatype_t *t) {
  const fy_flat_t *f = &t->flat;
  MPI_Count n = 0;
  for (MPI_Count i = 0; i < f->nsegs; i++) {
    int unit, xs = fy_dt_ext32(f->segs[i].ebasic, &unit);
    if (xs <= 0) return -1;
    n += f->segs[i].len / f->segs[i].esize * xs * f->segs[i].n;
  }
  return n * f->rep;
}

/* Convert count items at buf to/from the external32 stream s. */
static void ext_walk(const fy_datatype_t *t, MPI_Count count, uintptr_t buf, unsigned char *s, int to_ext) {
  const fy_flat_t *f = &t->flat;
  for (MPI_Count k = 0; k < count; k++)
    for (MPI_Count r = 0; r < f->rep; r++)
      for (MPI_Count i = 0; i < f->nsegs; i++) {
        const fy_seg_t *g = &f->segs[i];
        int unit, xs = fy_dt_ext32(g->ebasic, &unit), es = g->esize;
        for (MPI_Count j = 0; j < g->n; j++) {
          unsigned char *p = (unsigned char *)(buf + (uintptr_t)(k * f->extent + r * f->rep_stride + g->disp +
                                                                 j * g->stride));
          for (MPI_Aint e = 0; e < g->len; e += es, s += xs) conv(g->ebasic, es, xs, unit, p + e, s, to_ext);
        }
      }
}

static int check_rep(const char *datarep) {
  if (!datarep || strcmp(datarep, "external32") != 0)
    return fy_err(MPI_ERR_ARG, "datarep = \"%s\": only \"external32\" is supported", datarep ? datarep : "(null)");
  return MPI_SUCCESS;
}

static int ext_size(MPI_Count count, fy_datatype_t *t, MPI_Count *n) {
  MPI_Count one = fy_type_ext32_size(t);
  if (one < 0) return fy_err(MPI_ERR_TYPE, "datatype %s has no external32 representation", t->name);
  *n = count * one;
  return MPI_SUCCESS;
}

static int pack_ext(const char *datarep, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                    void *outbuf, MPI_Count outsize, MPI_Count *position) {
  fy_datatype_t *t = fy_type_get(datatype);
  MPI_Count need = 0;
  int err = check_rep(datarep);
  if (err || (err = ext_size(incount, t, &need))) return err;
  if (*position < 0 || *position > outsize || outsize - *position < need)
    return fy_err(MPI_ERR_TRUNCATE, "MPI_Pack_external: %lld bytes do not fit at position %lld of %lld",
                  (long long)need, (long long)*position, (long long)outsize);
  ext_walk(t, incount, (uintptr_t)inbuf, (unsigned char *)outbuf + *position, 1);
  *position += need;
  return MPI_SUCCESS;
}

static int unpack_ext(const char *datarep, const void *inbuf, MPI_Count insize, MPI_Count *position,
                      void *outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  fy_datatype_t *t = fy_type_get(datatype);
  MPI_Count need = 0;
  int err = check_rep(datarep);
  if (err || (err = ext_size(outcount, t, &need))) return err;
  if (*position < 0 || *position > insize || insize - *position < need)
    return fy_err(MPI_ERR_TRUNCATE, "MPI_Unpack_external: %lld bytes wanted at position %lld of %lld",
                  (long long)need, (long long)*position, (long long)insize);
  ext_walk(t, outcount, (uintptr_t)outbuf, (unsigned char *)inbuf + *position, 0);
  *position += need;
  return MPI_SUCCESS;
}

int fy_mpi_pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                         void *outbuf, MPI_Aint outsize, MPI_Aint *position) {
  MPI_Count pos = *position;
  int err = pack_ext(datarep, inbuf, incount, datatype, outbuf, outsize, &pos);
  if (!err) *position = (MPI_Aint)pos;
  return err;
}

int fy_mpi_pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                           void *outbuf, MPI_Count outsize, MPI_Count *position) {
  return pack_ext(datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

int fy_mpi_unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                           void *outbuf, int outcount, MPI_Datatype datatype) {
  MPI_Count pos = *position;
  int err = unpack_ext(datarep, inbuf, insize, &pos, outbuf, outcount, datatype);
  if (!err) *position = (MPI_Aint)pos;
  return err;
}

int fy_mpi_unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
                             void *outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  return unpack_ext(datarep, inbuf, insize, position, outbuf, outcount, datatype);
}

int fy_mpi_pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size) {
  MPI_Count n = 0;
  int err = check_rep(datarep);
  if (err || (err = ext_size(incount, fy_type_get(datatype), &n))) return err;
  *size = (MPI_Aint)n;
  return MPI_SUCCESS;
}

int fy_mpi_pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count *size) {
  int err = check_rep(datarep);
  if (err) return err;
  return ext_size(incount, fy_type_get(datatype), size);
}
