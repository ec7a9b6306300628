/* Two-phase collective I/O for read_all / write_all (and their _at and
 * split forms): when the processes' accesses interleave in the file, the
 * data goes through a few aggregators, each of which reads and writes one
 * contiguous window of its file domain per round, instead of every process
 * sieving (and, for writes, locking) spans that the others' data fills.
 *
 * - Every process lists its access as file pieces (offset, length), sorted,
 *   with their positions in its packed data stream (filetype displacements
 *   are non-decreasing, so both orders agree).
 * - One allgather decides, identically everywhere, whether to use this path
 *   (romio_cb_read / romio_cb_write hints, else FERRY_IO_CB: automatic =
 *   the file's processes span several hosts, the accesses of two of them
 *   overlap in the file and one is noncontiguous; on one host the page
 *   cache makes each process's own sieving faster, see docs/io.md) and
 *   gives the global range [gmin, gmax). The range is
 *   split into equal file domains, one per aggregator (cb_nodes hint or
 *   FERRY_IO_CB_NODES; every process by default), walked in windows of
 *   cb_buffer_size (FERRY_IO_CB_BUFFER) bytes, one window per aggregator and
 *   round.
 * - A round: each process sends each aggregator the pieces of its access
 *   inside that aggregator's window (clipped), which are one contiguous
 *   range of its stream, and for a write the packed bytes (alltoallv). An
 *   aggregator writes its window's span with one pwrite (reading it first
 *   when the pieces leave holes, under the exclusive record lock every
 *   write takes), or reads the span with one pread and sends each process
 *   its bytes and how many lie before the end of the file.
 * - Errors are agreed each round (an allreduce), so every process leaves
 *   together; the ones without a local error report MPI_ERR_IO naming the
 *   failure elsewhere. */
#include "io/fy_io.h"
#include "core/fy_error.h"
#include "core/fy_info.h"
#include "core/fy_comm.h"
#include "binding/fy_impl.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#define FILE_PIECES 8192

typedef struct {
  int64_t off, len;
} span_t;

typedef struct { /* what every process tells the others first */
  int64_t lo, hi, total, noncontig, mode, remote;
} info_t;

/* 1 if a process of the file is on another host than this one (its
 * accesses then meet ours only through a shared file system). */
static int spans_hosts(fy_file_t *f) { return fy_comm_remote_rank(fy_comm_get(f->comm)) >= 0; }

/* One process's access: pieces sorted by offset, merged when they touch;
 * spos[i] = stream position of piece i. */
typedef struct {
  span_t *pc;
  int64_t *spos;
  int64_t n, cap;
} access_t;

static int add_piece(access_t *a, int64_t off, int64_t len, int64_t spos) {
  if (a->n && a->pc[a->n - 1].off + a->pc[a->n - 1].len == off) {
    a->pc[a->n - 1].len += len;
    return MPI_SUCCESS;
  }
  if (a->n == a->cap) {
    int64_t cap = a->cap ? 2 * a->cap : 256;
    span_t *pc = realloc(a->pc, (size_t)cap * sizeof *pc);
    if (pc) a->pc = pc;
    int64_t *sp = pc ? realloc(a->spos, (size_t)cap * sizeof *sp) : NULL;
    if (!pc || !sp) return fy_err(MPI_ERR_NO_MEM, "out of memory listing file pieces");
    a->spos = sp;
    a->cap = cap;
  }
  a->pc[a->n] = (span_t){off, len};
  a->spos[a->n++] = spos;
  return MPI_SUCCESS;
}

/* The view's pieces of `total` bytes from stream position pos (fy_io_xfer's walk). */
static int list_access(fy_file_t *f, MPI_Offset pos, int64_t total, access_t *a) {
  if (total == 0) return MPI_SUCCESS;
  fy_io_span_t sp;
  fy_io_span(f, pos, total, &sp);
  struct iovec *fv = malloc(FILE_PIECES * sizeof *fv);
  if (!fv) return fy_err(MPI_ERR_NO_MEM, "out of memory listing file pieces");
  int err = MPI_SUCCESS;
  for (int64_t moff = 0; moff < total && !err;) {
    size_t cover;
    int n = fy_io_span_pieces(f, &sp, (size_t)moff, (size_t)(total - moff), fv, FILE_PIECES, &cover);
    if (n <= 0 || cover == 0) {
      err = fy_err(MPI_ERR_INTERN, "view walk ended early at %lld bytes", (long long)moff);
      break;
    }
    for (int i = 0; i < n && !err; i++) {
      err = add_piece(a, (int64_t)(uintptr_t)fv[i].iov_base, (int64_t)fv[i].iov_len, moff);
      moff += (int64_t)fv[i].iov_len;
    }
  }
  free(fv);
  return err;
}

/* First piece ending after lo (pieces sorted, disjoint). */
static int64_t first_after(const access_t *a, int64_t lo) {
  int64_t l = 0, h = a->n;
  while (l < h) {
    int64_t m = (l + h) / 2;
    if (a->pc[m].off + a->pc[m].len <= lo) l = m + 1;
    else h = m;
  }
  return l;
}

typedef struct {
  int64_t off, len;
  char *data;
} rpiece_t;

static int by_off(const void *x, const void *y) {
  const rpiece_t *a = x, *b = y;
  return a->off < b->off ? -1 : a->off > b->off;
}

/* Aggregator, write: the pieces of one window (sorted here) into the file. */
static int agg_write(fy_file_t *f, rpiece_t *p, int64_t n, char *win) {
  if (!n) return MPI_SUCCESS;
  qsort(p, (size_t)n, sizeof *p, by_off);
  int64_t lo = p[0].off, hi = lo, holes = 0;
  for (int64_t i = 0; i < n; i++) {
    if (p[i].off > hi) holes = 1;
    if (p[i].off + p[i].len > hi) hi = p[i].off + p[i].len;
  }
  size_t span = (size_t)(hi - lo), got;
  int err = fy_io_lock_range(f, 1, (off_t)lo, (off_t)hi, 1);
  if (err) return err;
  if (holes) {
    if ((err = fy_io_full(f, 0, win, span, (off_t)lo, &got))) goto out;
    if (got < span) memset(win + got, 0, span - got); /* beyond the end: only our pieces land there */
  }
  for (int64_t i = 0; i < n; i++) memcpy(win + (p[i].off - lo), p[i].data, (size_t)p[i].len);
  err = fy_io_full(f, 1, win, span, (off_t)lo, &got);
out:;
  int e = fy_io_lock_range(f, 1, (off_t)lo, (off_t)hi, 0);
  return err ? err : e;
}

/* A buffer of the file kept from one collective call to the next: the
 * pages of a fresh 16 MiB buffer cost more to fault in than the copies
 * through it (freed at close). */
enum { B_WIN, B_SEND, B_RECV, B_RESP };
static char *keep(fy_file_t *f, int which, size_t n) {
  if (n > f->cb_cap[which]) {
    free(f->cb_mem[which]);
    f->cb_mem[which] = malloc(n);
    f->cb_cap[which] = f->cb_mem[which] ? n : 0;
  }
  return f->cb_mem[which];
}

/* One round's exchange: per process, counts and displacements. */
typedef struct {
  MPI_Count *scnt, *rcnt;
  MPI_Aint *sdsp, *rdsp;
} xch_t;

static int64_t set_displs(xch_t *x, int n) {
  MPI_Aint d = 0, e = 0;
  for (int i = 0; i < n; i++) {
    x->sdsp[i] = d;
    d += (MPI_Aint)x->scnt[i];
    x->rdsp[i] = e;
    e += (MPI_Aint)x->rcnt[i];
  }
  return (int64_t)e; /* received in all */
}

/* Window of aggregator g in round k: [*wlo, *whi), empty when wlo >= whi. */
static void window(int64_t gmin, int64_t gmax, int64_t D, int64_t W, int g, int64_t k, int64_t *wlo,
                   int64_t *whi) {
  int64_t dlo = gmin + g * D, dhi = dlo + D < gmax ? dlo + D : gmax;
  *wlo = dlo + k * W;
  *whi = *wlo + W < dhi ? *wlo + W : dhi;
}

/* Every process learns whether any failed; 1 if so. */
static int any_failed(fy_file_t *f, int local_err, int *err) {
  int flag = local_err != MPI_SUCCESS, any = 0;
  *err = fy_mpi_allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, f->comm);
  return any || *err;
}

int fy_io_xfer_all(fy_file_t *f, int write, MPI_Offset pos, void *buf, MPI_Count count, MPI_Datatype dt,
                   MPI_Count *moved) {
  const fy_datatype_t *t = fy_type_get(dt);
  int64_t total = (int64_t)(count * t->size);
  int np = f->size, me = f->rank, err = MPI_SUCCESS, local_err = MPI_SUCCESS;
  *moved = 0;
  /* What this process finds wrong, it reports only after taking part in
   * the decision, so no one waits for it (fy_io_xfer's checks). */
  if (total) local_err = fy_io_xfer_check(f, pos, t);
  access_t a = {0};
  info_t mine = {0, 0, total, 0, write ? f->cb_write : f->cb_read, spans_hosts(f)};
  if (local_err || f->ext32 || f->atomic || np == 1) mine.mode = -2; /* not this path */
  else if ((local_err = list_access(f, pos, total, &a))) mine.mode = -2;
  if (a.n) {
    mine.lo = a.pc[0].off;
    mine.hi = a.pc[a.n - 1].off + a.pc[a.n - 1].len;
    mine.noncontig = a.n > 1;
  }
  info_t *all = malloc((size_t)np * sizeof *all);
  xch_t x = {0};
  int64_t *s0 = NULL, *slen = NULL, *first = NULL, *npc = NULL, *hdr_s = NULL, *hdr_r = NULL;
  int64_t *valid_s = NULL, *valid_r = NULL, *smeta = NULL, *rmeta = NULL;
  char *sbuf = NULL, *rbuf = NULL, *win = NULL, *resp = NULL;
  rpiece_t *rp = NULL;
  if (!all) { /* (the others then wait in the allgather: out of memory is fatal here) */
    err = fy_err(MPI_ERR_NO_MEM, "out of memory for collective I/O");
    goto out;
  }
  if ((err = fy_mpi_allgather(&mine, 6, MPI_INT64_T, all, 6, MPI_INT64_T, f->comm))) goto out;
  /* the decision, the same on every process */
  int use = 1, interleave = 0, noncontig = 0, remote = 0, mode = (int)all[0].mode;
  int64_t gmin = INT64_MAX, gmax = 0;
  for (int r = 0; r < np; r++) {
    if (all[r].mode == -2) use = 0;
    remote |= (int)all[r].remote;
    if (!all[r].total) continue;
    noncontig |= (int)all[r].noncontig;
    if (all[r].lo < gmin) gmin = all[r].lo;
    if (all[r].hi > gmax) gmax = all[r].hi;
    for (int q = 0; q < r; q++)
      if (all[q].total && all[q].lo < all[r].hi && all[r].lo < all[q].hi) interleave = 1;
  }
  if (mode == -1 || (mode == 0 && !(interleave && noncontig && remote)) || gmax <= gmin) use = 0;
  if (!use) {
    free(all);
    free(a.pc);
    free(a.spos);
    if (local_err) return local_err;
    return fy_io_xfer(f, write, pos, buf, count, dt, moved);
  }
  /* aggregators (g-th is process g * np / na) and their domains */
  int na = f->cb_nodes < 1 ? 1 : f->cb_nodes; /* (1 .. np from open.c; the compiler cannot see it) */
  int64_t W = f->cb_buffer < 4096 ? 4096 : f->cb_buffer;
  int64_t D = (gmax - gmin + na - 1) / na, rounds = (D + W - 1) / W, eof_at = total;
  int isagg = 0;
  for (int g = 0; g < na; g++) isagg |= g * np / na == me;
  x.scnt = calloc((size_t)np, sizeof *x.scnt);
  x.rcnt = calloc((size_t)np, sizeof *x.rcnt);
  x.sdsp = calloc((size_t)np, sizeof *x.sdsp);
  x.rdsp = calloc((size_t)np, sizeof *x.rdsp);
  hdr_s = calloc((size_t)np * 2, sizeof *hdr_s);
  hdr_r = calloc((size_t)np * 2, sizeof *hdr_r);
  valid_s = calloc((size_t)np, sizeof *valid_s);
  valid_r = calloc((size_t)np, sizeof *valid_r);
  s0 = calloc((size_t)na, sizeof *s0);
  slen = calloc((size_t)na, sizeof *slen);
  first = calloc((size_t)na, sizeof *first);
  npc = calloc((size_t)na, sizeof *npc);
  if (isagg) win = keep(f, B_WIN, (size_t)W);
  if (!x.scnt || !x.rcnt || !x.sdsp || !x.rdsp || !hdr_s || !hdr_r || !valid_s || !valid_r || !s0 || !slen ||
      !first || !npc || (isagg && !win))
    local_err = fy_err(MPI_ERR_NO_MEM, "out of memory for collective I/O");
  for (int64_t k = 0; k < rounds; k++) {
    /* 1. this process's pieces in each aggregator's window: a contiguous
     * range of its stream, [s0, s0 + slen) */
    int64_t nmeta = 0, nbytes = 0;
    if (!local_err) memset(hdr_s, 0, (size_t)np * 2 * sizeof *hdr_s);
    for (int g = 0; g < na && !local_err; g++) {
      int64_t wlo, whi, c = 0;
      window(gmin, gmax, D, W, g, k, &wlo, &whi);
      npc[g] = slen[g] = 0;
      if (wlo >= whi || !a.n) continue;
      int64_t i = first[g] = first_after(&a, wlo);
      for (; i < a.n && a.pc[i].off < whi; i++, c++) {
        int64_t lo = a.pc[i].off > wlo ? a.pc[i].off : wlo;
        int64_t hi = a.pc[i].off + a.pc[i].len < whi ? a.pc[i].off + a.pc[i].len : whi;
        if (c == 0) s0[g] = a.spos[i] + (lo - a.pc[i].off);
        slen[g] += hi - lo;
      }
      npc[g] = c;
      hdr_s[2 * (g * np / na)] = c;
      hdr_s[2 * (g * np / na) + 1] = slen[g];
      nmeta += 2 * c;
      nbytes += slen[g];
    }
    if (!local_err) {
      free(smeta);
      smeta = malloc((size_t)(nmeta ? nmeta : 1) * sizeof *smeta);
      sbuf = keep(f, B_SEND, (size_t)(write && nbytes ? nbytes : 1));
      if (!smeta || !sbuf) local_err = fy_err(MPI_ERR_NO_MEM, "out of memory for collective I/O");
    }
    for (int g = 0, mi = 0; g < na && !local_err; g++) {
      int64_t wlo, whi;
      window(gmin, gmax, D, W, g, k, &wlo, &whi);
      for (int64_t i = first[g], c = 0; c < npc[g]; i++, c++) {
        int64_t lo = a.pc[i].off > wlo ? a.pc[i].off : wlo;
        int64_t hi = a.pc[i].off + a.pc[i].len < whi ? a.pc[i].off + a.pc[i].len : whi;
        smeta[mi++] = lo;
        smeta[mi++] = hi - lo;
      }
    }
    if (write && !local_err)
      for (int64_t g = 0, di = 0; g < na; di += slen[g], g++)
        if (slen[g]) fy_type_pack_range(t, count, buf, (size_t)s0[g], (size_t)slen[g], sbuf + di);
    /* 2. nothing is exchanged once a process has failed */
    if (any_failed(f, local_err, &err)) break;
    /* 3. how much, the pieces, and for a write the data */
    if ((err = fy_mpi_alltoall(hdr_s, 2, MPI_INT64_T, hdr_r, 2, MPI_INT64_T, f->comm))) goto out;
    for (int r = 0; r < np; r++) x.scnt[r] = (MPI_Count)(2 * hdr_s[2 * r]), x.rcnt[r] = (MPI_Count)(2 * hdr_r[2 * r]);
    int64_t rn = set_displs(&x, np);
    free(rmeta);
    if (!(rmeta = malloc((size_t)(rn ? rn : 1) * sizeof *rmeta))) {
      err = fy_err(MPI_ERR_NO_MEM, "out of memory for collective I/O"); /* (fatal: the others wait for us) */
      goto out;
    }
    if ((err = fy_mpi_alltoallv_c(smeta, x.scnt, x.sdsp, MPI_INT64_T, rmeta, x.rcnt, x.rdsp, MPI_INT64_T, f->comm)))
      goto out;
    for (int r = 0; r < np; r++) x.scnt[r] = (MPI_Count)hdr_s[2 * r + 1], x.rcnt[r] = (MPI_Count)hdr_r[2 * r + 1];
    int64_t rb = set_displs(&x, np);
    free(rp);
    rbuf = keep(f, B_RECV, (size_t)((write ? rb : nbytes) + 1)); /* a write receives data, a read its answers */
    rp = malloc((size_t)(rn / 2 + 1) * sizeof *rp);
    if (!rbuf || !rp) {
      err = fy_err(MPI_ERR_NO_MEM, "out of memory for collective I/O");
      goto out;
    }
    /* the received pieces, with where their bytes are (write) or go (read) */
    int64_t n = 0;
    for (int r = 0, md = 0; r < np; md += (int)(2 * hdr_r[2 * r]), r++) {
      int64_t d = (int64_t)x.rdsp[r];
      for (int64_t j = 0; j < hdr_r[2 * r]; j++, n++) {
        rp[n].off = rmeta[md + 2 * j];
        rp[n].len = rmeta[md + 2 * j + 1];
        rp[n].data = (char *)(intptr_t)d; /* offset for now */
        d += rp[n].len;
      }
    }
    if (write) {
      if ((err = fy_mpi_alltoallv_c(sbuf, x.scnt, x.sdsp, MPI_BYTE, rbuf, x.rcnt, x.rdsp, MPI_BYTE, f->comm)))
        goto out;
      for (int64_t j = 0; j < n; j++) rp[j].data = rbuf + (intptr_t)rp[j].data;
      if (isagg && !local_err) local_err = agg_write(f, rp, n, win); /* 4w: reported at the next agreement */
      continue;
    }
    /* 4r. the aggregator reads its window's span and answers each process
     * with its bytes and how many of them lie before the end of the file */
    resp = keep(f, B_RESP, (size_t)(rb + 1));
    if (!resp) local_err = fy_err(MPI_ERR_NO_MEM, "out of memory for collective I/O");
    memset(valid_s, 0, (size_t)np * sizeof *valid_s);
    if (isagg && !local_err && n) {
      int64_t lo = INT64_MAX, hi = 0;
      for (int64_t j = 0; j < n; j++) {
        if (rp[j].off < lo) lo = rp[j].off;
        if (rp[j].off + rp[j].len > hi) hi = rp[j].off + rp[j].len;
      }
      size_t got = 0;
      if (f->atomic) local_err = fy_io_lock_range(f, 0, (off_t)lo, (off_t)hi, 1);
      if (!local_err) local_err = fy_io_full(f, 0, win, (size_t)(hi - lo), (off_t)lo, &got);
      if (f->atomic) fy_io_lock_range(f, 0, (off_t)lo, (off_t)hi, 0);
      for (int r = 0, j = 0; r < np && !local_err; r++) {
        int stop = 0;
        for (int64_t c = 0; c < hdr_r[2 * r]; c++, j++) {
          int64_t at = rp[j].off - lo, avail = (int64_t)got > at ? (int64_t)got - at : 0;
          char *dst = resp + (intptr_t)rp[j].data;
          if (avail > rp[j].len) avail = rp[j].len;
          memcpy(dst, win + at, (size_t)avail);
          memset(dst + avail, 0, (size_t)(rp[j].len - avail));
          if (!stop) valid_s[r] += avail;
          stop |= avail < rp[j].len;
        }
      }
    }
    if (any_failed(f, local_err, &err)) break;
    if ((err = fy_mpi_alltoall(valid_s, 1, MPI_INT64_T, valid_r, 1, MPI_INT64_T, f->comm)) ||
        (err = fy_mpi_alltoallv_c(resp, x.rcnt, x.rdsp, MPI_BYTE, rbuf, x.scnt, x.sdsp, MPI_BYTE, f->comm)))
      goto out;
    for (int g = 0; g < na; g++) {
      int r = g * np / na;
      if (!slen[g]) continue;
      int64_t v = valid_r[r] < slen[g] ? valid_r[r] : slen[g];
      if (v) fy_type_unpack_range(t, count, buf, (size_t)s0[g], (size_t)v, rbuf + x.sdsp[r]);
      if (v < slen[g] && s0[g] + v < eof_at) eof_at = s0[g] + v;
    }
  }
  /* the last round's write, and any failure that ended the rounds */
  if (!err && any_failed(f, local_err, &err) && !err && !local_err)
    local_err = fy_err(MPI_ERR_IO, "collective %s of %s failed on another process", write ? "write" : "read",
                       f->name);
  if (!err && !local_err) *moved = (MPI_Count)(write ? total : eof_at);
  if (!err) err = local_err;
out:
  free(all);
  free(a.pc);
  free(a.spos);
  free(x.scnt);
  free(x.rcnt);
  free(x.sdsp);
  free(x.rdsp);
  free(hdr_s);
  free(hdr_r);
  free(valid_s);
  free(valid_r);
  free(s0);
  free(slen);
  free(first);
  free(npc);
  free(smeta);
  free(rmeta);
  free(rp);
  return err;
}
