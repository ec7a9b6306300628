/* Moving data between memory and the view: both sides are walked as
 * flattened segment lists, each contiguous file piece is one preadv/pwritev
 * over the memory iovecs it covers (memory of small blocks is packed into,
 * or unpacked from, a bounce buffer instead). See fy_io.h. */
#include "io/fy_io.h"
#include "core/fy_error.h"
#include "core/fy_request.h"
#include "binding/fy_impl.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/uio.h>

#define FILE_PIECES 8192 /* file pieces listed per walk step */
#define MEM_IOV 1024     /* memory iovecs per system call (IOV_MAX on Linux) */

void fy_io_status(MPI_Status *status, MPI_Count bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  MPI_Status s;
  fy_status_empty(&s);
  fy_status_set_count(&s, bytes);
  fy_status_out(status, &s, 0);
}

int fy_io_check_access(fy_file_t *f, int write, MPI_Count count, MPI_Datatype dt, int explicit_or_indiv) {
  (void)count;
  (void)dt;
  if (write && (f->amode & MPI_MODE_RDONLY))
    return fy_err(MPI_ERR_READ_ONLY, "cannot write to %s: it was opened MPI_MODE_RDONLY", f->name);
  if (!write && (f->amode & MPI_MODE_WRONLY))
    return fy_err(MPI_ERR_ACCESS, "cannot read %s: it was opened MPI_MODE_WRONLY", f->name);
  if (explicit_or_indiv && (f->amode & MPI_MODE_SEQUENTIAL))
    return fy_err(MPI_ERR_UNSUPPORTED_OPERATION, "%s was opened MPI_MODE_SEQUENTIAL: only the shared file "
                  "pointer may be used", f->name);
  return MPI_SUCCESS;
}

/* Memory blocks smaller than this on average go through a bounce buffer:
 * a kernel iovec per few bytes costs more than copying them (pack engine). */
#define BOUNCE_MIN_BLOCK 512
#define BOUNCE_MAX (4u << 20)

static int small_blocks(const fy_datatype_t *t) {
  if (t->is_contig) return 0;
  MPI_Count blocks = 0;
  for (MPI_Count i = 0; i < t->pk.nsegs; i++) blocks += t->pk.segs[i].n;
  blocks *= t->pk.rep;
  return blocks > 0 && t->size / blocks < BOUNCE_MIN_BLOCK;
}

/* The piece through a bounce buffer: pread then unpack, or pack then pwrite. */
static int piece_bounce(fy_file_t *f, int write, off_t off, size_t len, const fy_datatype_t *t, MPI_Count count,
                        void *buf, size_t moff, size_t *done) {
  size_t cap = len < BOUNCE_MAX ? len : BOUNCE_MAX;
  char *b = malloc(cap);
  int err = MPI_SUCCESS;
  if (!b) return fy_err(MPI_ERR_NO_MEM, "out of memory for a %zu-byte I/O buffer", cap);
  *done = 0;
  while (*done < len) {
    size_t want = len - *done < cap ? len - *done : cap, got = 0;
    if (write) fy_type_pack_range(t, count, buf, moff + *done, want, b);
    while (got < want) {
      ssize_t r = write ? pwrite(f->fd, b + got, want - got, off + (off_t)(*done + got))
                        : pread(f->fd, b + got, want - got, off + (off_t)(*done + got));
      if (r < 0) {
        if (errno == EINTR) continue;
        err = fy_io_errno(errno, write ? "cannot write to" : "cannot read", f->name);
        goto out;
      }
      if (r == 0) {
        if (write) err = fy_err(MPI_ERR_IO, "cannot write to %s: no progress", f->name);
        break; /* end of file */
      }
      got += (size_t)r;
    }
    if (!write) fy_type_unpack_range(t, count, buf, moff + *done, got, b);
    *done += got;
    if (err || got < want) break;
  }
out:
  free(b);
  return err;
}

/* One contiguous file piece [off, off+len) from/to packed bytes
 * [moff, moff+len) of the memory layout; *done = bytes moved (less at end
 * of file on reads). */
static int piece(fy_file_t *f, int write, off_t off, size_t len, const fy_datatype_t *t, MPI_Count count,
                 void *buf, size_t moff, int bounce, size_t *done) {
  struct iovec iov[MEM_IOV];
  if (bounce) return piece_bounce(f, write, off, len, t, count, buf, moff, done);
  *done = 0;
  while (*done < len) {
    size_t cover;
    int n;
    if (t->is_contig) { /* one block: no walk */
      iov[0].iov_base = (char *)buf + t->true_lb + moff + *done;
      iov[0].iov_len = cover = len - *done;
      n = 1;
    } else {
      n = fy_flat_iov(&t->pk, count, (uintptr_t)buf, moff + *done, iov, MEM_IOV, len - *done, &cover);
    }
    if (n <= 0 || cover == 0) return fy_err(MPI_ERR_INTERN, "memory layout shorter than the data");
    ssize_t r = write ? pwritev(f->fd, iov, n, off + (off_t)*done) : preadv(f->fd, iov, n, off + (off_t)*done);
    if (r < 0) {
      if (errno == EINTR) continue;
      return fy_io_errno(errno, write ? "cannot write to" : "cannot read", f->name);
    }
    if (r == 0) {
      if (write) return fy_err(MPI_ERR_IO, "cannot write to %s: no progress", f->name);
      return MPI_SUCCESS; /* end of file */
    }
    *done += (size_t)r;
  }
  return MPI_SUCCESS;
}

/* A POSIX record lock over [start, end): atomic mode takes one for every
 * access, and every write takes one so that a sieving write (read, patch,
 * write back a span with holes) never overwrites bytes another process
 * writes meanwhile. A file system without record locks sets f->nolocks:
 * no locks are taken and writes are not sieved. */
int fy_io_record_lock(int fd, int type, off_t start, off_t len) {
  struct flock fl = {.l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
  while (fcntl(fd, F_SETLKW, &fl) < 0)
    if (errno != EINTR) return -1;
  return 0;
}

int fy_io_lock_range(fy_file_t *f, int write, off_t start, off_t end, int lock) {
  if (f->nolocks || end <= start) return MPI_SUCCESS;
  if (fy_io_record_lock(f->fd, lock ? (write ? F_WRLCK : F_RDLCK) : F_UNLCK, start, end - start) < 0) {
    if (errno == ENOLCK || errno == EOPNOTSUPP || errno == ENOSYS || errno == EBADF) {
      /* EBADF: a read lock on a write-only file; the others: no locks here */
      if (errno != EBADF) f->nolocks = 1;
      return MPI_SUCCESS;
    }
    return fy_io_errno(errno, "cannot lock a range of", f->name);
  }
  return MPI_SUCCESS;
}

/* Data sieving: a batch of small file pieces with small holes between them
 * is one pread of their span (then unpacked piece by piece), or, for a
 * write under the call's lock, one pread, the pieces packed in, one pwrite. */
#define SIEVE_PIECE 4096          /* average piece below this ... */
#define SIEVE_HOLE (64 * 1024)    /* ... and average hole below this */
#define SIEVE_MAX (4u << 20)      /* bytes of span per batch */

typedef struct {
  off_t off;
  size_t len;
} fpiece_t;

int fy_io_full(fy_file_t *f, int write, char *b, size_t len, off_t off, size_t *got) {
  *got = 0;
  while (*got < len) {
    ssize_t r = write ? pwrite(f->fd, b + *got, len - *got, off + (off_t)*got)
                      : pread(f->fd, b + *got, len - *got, off + (off_t)*got);
    if (r < 0) {
      if (errno == EINTR) continue;
      return fy_io_errno(errno, write ? "cannot write to" : "cannot read", f->name);
    }
    if (r == 0) {
      if (write) return fy_err(MPI_ERR_IO, "cannot write to %s: no progress", f->name);
      break;
    }
    *got += (size_t)r;
  }
  return MPI_SUCCESS;
}

/* Pieces [0, np) of pc, sieved; *used = pieces consumed, *moved_b = bytes
 * moved, *eof when the file ended inside them. */
static int sieve(fy_file_t *f, int write, const fpiece_t *pc, int np, const fy_datatype_t *t, MPI_Count count,
                 void *buf, size_t moff, char **sbuf, int *used, size_t *moved_b, int *eof) {
  off_t start = pc[0].off;
  int k = 1;
  while (k < np && (size_t)(pc[k].off + (off_t)pc[k].len - start) <= SIEVE_MAX) k++;
  size_t span = (size_t)(pc[k - 1].off + (off_t)pc[k - 1].len - start), got;
  if (!*sbuf && !(*sbuf = malloc(SIEVE_MAX)))
    return fy_err(MPI_ERR_NO_MEM, "out of memory for a %u-byte sieve buffer", SIEVE_MAX);
  char *b = *sbuf;
  int err = fy_io_full(f, 0, b, span, start, &got);
  if (err) return err;
  *used = k;
  *moved_b = 0;
  *eof = 0;
  if (write) {
    if (got < span) memset(b + got, 0, span - got); /* beyond the end: only our pieces land there */
    for (int i = 0; i < k; i++) {
      fy_type_pack_range(t, count, buf, moff + *moved_b, pc[i].len, b + (pc[i].off - start));
      *moved_b += pc[i].len;
    }
    return fy_io_full(f, 1, b, span, start, &got);
  }
  for (int i = 0; i < k; i++) {
    size_t at = (size_t)(pc[i].off - start), avail = got > at ? got - at : 0;
    if (avail > pc[i].len) avail = pc[i].len;
    if (avail) fy_type_unpack_range(t, count, buf, moff + *moved_b, avail, b + at);
    *moved_b += avail;
    if (avail < pc[i].len) {
      *eof = 1;
      break;
    }
  }
  return MPI_SUCCESS;
}

static int xfer_raw(fy_file_t *f, int write, MPI_Offset pos, void *buf, MPI_Count count, const fy_datatype_t *t,
                    MPI_Count *moved);

/* external32: the data's packed stream is converted through a buffer, and
 * moved as bytes (the view's layout is the native one, fy_io.h). */
static int xfer_ext32(fy_file_t *f, int write, MPI_Offset pos, void *buf, MPI_Count count, MPI_Datatype dt,
                      MPI_Count *moved) {
  const fy_datatype_t *t = fy_type_get(dt);
  MPI_Count total = count * t->size, p = 0;
  if (fy_type_ext32_size(t) != t->size)
    return fy_err(MPI_ERR_UNSUPPORTED_DATAREP, "datatype = %s changes size in external32: Ferry's external32 "
                  "files take types of the same size only", t->name);
  char *b = malloc((size_t)total);
  if (!b) return fy_err(MPI_ERR_NO_MEM, "out of memory converting %lld bytes to external32", (long long)total);
  int err;
  const fy_datatype_t *bytes = fy_type_get(MPI_BYTE);
  if (write) {
    if (!(err = fy_mpi_pack_external_c("external32", buf, count, dt, b, total, &p)))
      err = xfer_raw(f, 1, pos, b, total, bytes, moved);
  } else if (!(err = xfer_raw(f, 0, pos, b, total, bytes, moved))) {
    /* whole items only: a partial one at the end of the file is not converted */
    MPI_Count items = *moved / (t->size ? t->size : 1);
    if (items) err = fy_mpi_unpack_external_c("external32", b, items * t->size, &p, buf, items, dt);
  }
  free(b);
  return err;
}

int fy_io_xfer_check(const fy_file_t *f, MPI_Offset pos, const fy_datatype_t *t) {
  if (pos < 0) return fy_err(MPI_ERR_ARG, "offset = %lld etypes is negative", (long long)(pos / fy_io_etype_size(f)));
  if (f->ftype->size == 0) return fy_err(MPI_ERR_TYPE, "the view's filetype has no data");
  if (t->size % f->etype->size)
    return fy_err(MPI_ERR_TYPE, "datatype = %s (%lld bytes) is not a whole number of etypes (%lld bytes)",
                  t->name, (long long)t->size, (long long)f->etype->size);
  return MPI_SUCCESS;
}

void fy_io_span(const fy_file_t *f, MPI_Offset pos, MPI_Count total, fy_io_span_t *s) {
  const fy_datatype_t *ft = f->ftype;
  MPI_Count first = pos / ft->size, last = (pos + total - 1) / ft->size;
  s->nitems = last - first + 1;
  s->base = (uintptr_t)(f->disp + first * (MPI_Offset)ft->extent);
  s->fpos = (size_t)(pos - first * ft->size);
  s->contig = ft->is_contig && ft->extent == (MPI_Aint)ft->size;
}

int fy_io_span_pieces(const fy_file_t *f, const fy_io_span_t *s, size_t moff, size_t left, struct iovec *fv,
                      int max, size_t *cover) {
  const fy_datatype_t *ft = f->ftype;
  if (s->contig) { /* the default view, or one of whole etypes: the data is one file range */
    fv[0].iov_base = (void *)(s->base + (uintptr_t)ft->true_lb + s->fpos + moff);
    fv[0].iov_len = *cover = left;
    return 1;
  }
  return fy_flat_iov(&ft->pk, s->nitems, s->base, s->fpos + moff, fv, max, left, cover);
}

int fy_io_xfer(fy_file_t *f, int write, MPI_Offset pos, void *buf, MPI_Count count, MPI_Datatype dt,
               MPI_Count *moved) {
  const fy_datatype_t *t = fy_type_get(dt);
  *moved = 0;
  if (count * t->size == 0) return MPI_SUCCESS;
  int err = fy_io_xfer_check(f, pos, t);
  if (err) return err;
  if (f->ext32) return xfer_ext32(f, write, pos, buf, count, dt, moved);
  return xfer_raw(f, write, pos, buf, count, t, moved);
}

static int xfer_raw(fy_file_t *f, int write, MPI_Offset pos, void *buf, MPI_Count count, const fy_datatype_t *t,
                    MPI_Count *moved) {
  const fy_datatype_t *ft = f->ftype;
  MPI_Count total = count * t->size;
  int err = MPI_SUCCESS, locked = 0;
  char *sbuf = NULL;
  *moved = 0;
  fy_io_span_t sp;
  fy_io_span(f, pos, total, &sp);
  int contig_view = sp.contig;
  off_t lo = (off_t)(sp.base + (uintptr_t)ft->true_lb);
  off_t hi = (off_t)(sp.base + (uintptr_t)((sp.nitems - 1) * ft->extent + ft->true_lb + ft->true_extent));
  if (contig_view) {
    lo = (off_t)(sp.base + (uintptr_t)ft->true_lb + sp.fpos);
    hi = lo + (off_t)total;
  }
  if (f->atomic || write) {
    if ((err = fy_io_lock_range(f, write, lo, hi, 1))) return err;
    locked = 1;
  }
  /* a write can sieve only where it may read and lock */
  int may_sieve = !contig_view && (!write || (!(f->amode & MPI_MODE_WRONLY) && !f->nolocks));
  int bounce = small_blocks(t);
  size_t left = (size_t)total, moff = 0;
  struct iovec fv1, *fv = &fv1;
  fpiece_t pc1, *pc = &pc1;
  if (!contig_view) {
    fv = malloc(FILE_PIECES * sizeof *fv);
    pc = malloc(FILE_PIECES * sizeof *pc);
    if (!fv || !pc) {
      err = fy_err(MPI_ERR_NO_MEM, "out of memory listing file pieces");
      goto out;
    }
  }
  while (left > 0) {
    size_t cover;
    int n = fy_io_span_pieces(f, &sp, moff, left, fv, FILE_PIECES, &cover);
    if (n <= 0 || cover == 0) {
      err = fy_err(MPI_ERR_INTERN, "view walk ended early at %zu bytes", moff);
      goto out;
    }
    /* merge file pieces that touch */
    int np = 0;
    for (int i = 0; i < n;) {
      pc[np].off = (off_t)(uintptr_t)fv[i].iov_base;
      pc[np].len = fv[i].iov_len;
      for (i++; i < n && (off_t)(uintptr_t)fv[i].iov_base == pc[np].off + (off_t)pc[np].len; i++)
        pc[np].len += fv[i].iov_len;
      np++;
    }
    size_t span = (size_t)(pc[np - 1].off + (off_t)pc[np - 1].len - pc[0].off);
    if (may_sieve && np > 1 && cover / (size_t)np < SIEVE_PIECE &&
        (span - cover) / (size_t)(np - 1) < SIEVE_HOLE) {
      for (int i = 0; i < np;) {
        int used = 0, eof = 0;
        size_t mb = 0;
        if ((err = sieve(f, write, pc + i, np - i, t, count, buf, moff, &sbuf, &used, &mb, &eof))) goto out;
        moff += mb;
        left -= mb;
        *moved = (MPI_Count)moff;
        if (eof) goto out;
        i += used;
      }
      continue;
    }
    for (int i = 0; i < np; i++) {
      size_t done = 0;
      if ((err = piece(f, write, pc[i].off, pc[i].len, t, count, buf, moff, bounce, &done))) goto out;
      moff += done;
      left -= done;
      *moved = (MPI_Count)moff;
      if (done < pc[i].len) goto out; /* end of file */
    }
  }
out:
  if (fv != &fv1) free(fv);
  if (pc != &pc1) free(pc);
  free(sbuf);
  if (locked) {
    int e = fy_io_lock_range(f, write, lo, hi, 0);
    if (!err) err = e;
  }
  return err;
}
