/* MPI I/O (MPI 4.1 ch. 14) over a POSIX file system.
 *
 * Contract
 * - A file is an fy_file_t named by a direct handle of kind FY_OK_FILE; the
 *   MPI_File the user holds is that int handle cast to a pointer
 *   (fy_file_key() in core/fy_check.h turns it back), so MPI_File_c2f is the
 *   handle itself and error handlers find the file from the binding.
 *   fy_file_get() maps an MPI_File to its object, NULL if it is not a live
 *   file (MPI_FILE_NULL included).
 * - Every process of the group opens the file itself (open(2)); the file
 *   keeps a private intracommunicator over the group (its own contexts) for
 *   the synchronisation collective calls need, and the shared file pointer
 *   (etype units): a one-word RMA window at its rank 0 when the group is on
 *   one node, else 8 bytes of a hidden pointer file beside the file, moved
 *   under a POSIX record lock (shared.c).
 * - Data moves by preadv/pwritev: the view's filetype and the memory
 *   datatype are both walked as flattened segment lists (fy_flat_iov), the
 *   file one with the view's displacement as base, so each contiguous file
 *   piece is one system call over the memory iovecs it covers (memory of
 *   small blocks goes through a bounce buffer; many small file pieces are
 *   sieved: one pread of their span, and for writes a write-back of it
 *   under the exclusive record lock every write takes). Collective calls
 *   are independent I/O plus the synchronisation the standard asks for
 *   (none for data, a barrier where file state changes: set_size,
 *   preallocate, seek_shared, set_view).
 * - Positions: the individual pointer `fp` and explicit offsets are in
 *   etypes of the current view; fy_io_xfer takes a byte position in the
 *   view's data stream (offset * etype size).
 * - Errors: fy_io_errno() maps an errno to the standard class with a message
 *   naming the file; every fy_mpi_file_* validates its handle with
 *   fy_io_file() (MPI_ERR_FILE). The bindings raise them on the file's
 *   handler (open and delete on MPI_FILE_NULL's, MPI_ERRORS_RETURN by
 *   default).
 * - Data representations: "native" ("internal" is the same, and so is a
 *   datarep registered without conversion functions); "external32" when
 *   every basic type of the etype, the filetype and the memory type has
 *   its native size in external32 (the file layout is then the native one
 *   and only byte order changes: data is converted through a packed
 *   buffer with the pack_external engine). Others, and datareps with
 *   conversion functions, are MPI_ERR_UNSUPPORTED_DATAREP. */
#ifndef FY_IO_H
#define FY_IO_H
#include <mpi.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include "datatype/fy_datatype.h"

typedef struct fy_file {
  int handle;
  MPI_Comm comm;              /* private communicator over the group */
  int rank, size;
  int fd;
  int amode;
  char *name;                 /* path as opened (prefix such as "ufs:" removed) */
  MPI_Errhandler eh;
  MPI_Info hints;             /* hints reported by MPI_File_get_info */
  int atomic;
  int nolocks;                /* the file system refused a record lock: none taken */
  /* collective buffering (coll.c), as in force: the hints given at open,
   * else the FERRY_IO_CB* settings (resolved once, in open.c) */
  int cb_read, cb_write;      /* romio_cb_read / romio_cb_write: 1 enable, -1 disable, 0 automatic */
  int cb_nodes;               /* aggregators, 1 .. size */
  int64_t cb_buffer;          /* cb_buffer_size */
  char *cb_mem[4];            /* its buffers, kept between calls (coll.c) */
  size_t cb_cap[4];
  /* the view */
  MPI_Offset disp;
  MPI_Datatype etype_h, ftype_h;
  fy_datatype_t *etype, *ftype;  /* retained */
  char datarep[MPI_MAX_DATAREP_STRING];
  int ext32;                  /* datarep "external32": data converted on the way */
  MPI_Offset fp;              /* individual file pointer, etypes */
  /* shared file pointer: an int64 at rank 0 of sp_win (one node), else in
   * the pointer file sp_fd (several nodes; sp_path: rank 0's copy of its
   * name, which it removes at close); neither: sp_errno says why */
  MPI_Win sp_win;
  int64_t *sp_mem;
  int sp_fd;
  char *sp_path;
  int sp_errno;
  /* split collective in progress (one per file) */
  int split;                  /* 0 none, else the kind that began it */
  MPI_Status split_status;
  int split_err;
  const void *split_buf;
} fy_file_t;

static inline MPI_File fy_file_handle(const fy_file_t *f) { return (MPI_File)(intptr_t)f->handle; }
fy_file_t *fy_file_get(MPI_File fh);
/* fy_file_get, or an MPI_ERR_FILE error in *err naming the call. */
fy_file_t *fy_io_file(MPI_File fh, int *err);
int fy_io_file_add(fy_file_t *f);      /* handle; MPI_ERR_NO_MEM */
void fy_io_file_remove(fy_file_t *f);

MPI_Errhandler fy_io_default_errhandler(void); /* MPI_FILE_NULL's, given to new files */
/* errno -> error class with a message "<what> <name>: strerror" */
int fy_io_errno(int e, const char *what, const char *name);

/* view.c */
void fy_io_view_default(fy_file_t *f);    /* disp 0, MPI_BYTE, MPI_BYTE, native */
void fy_io_view_release(fy_file_t *f);
MPI_Offset fy_io_etype_size(const fy_file_t *f);
/* Etypes of the view that lie before byte `size` of the file (SEEK_END). */
MPI_Offset fy_io_end_etypes(const fy_file_t *f, MPI_Offset size);

/* datarep.c: 1 if name is a registered datarep usable as native data, -1
 * if registered with conversion functions, 0 if not registered; its
 * extent function (0 and *extent untouched when it has none). */
int fy_io_datarep_usable(const char *name);
int fy_io_datarep_extent(const char *name, MPI_Datatype dt, MPI_Aint *extent);

/* xfer.c: move count items of dt between buf and the view's data stream
 * from byte `pos`; *moved = bytes moved (short at end of file when reading). */
int fy_io_xfer(fy_file_t *f, int write, MPI_Offset pos, void *buf, MPI_Count count, MPI_Datatype dt,
               MPI_Count *moved);
/* fy_io_xfer's checks of an access of datatype t at byte pos of the view. */
int fy_io_xfer_check(const fy_file_t *f, MPI_Offset pos, const fy_datatype_t *t);
/* Where stream bytes [pos, pos + total) of the view lie: the filetype
 * items walked (nitems from base, the data starting fpos bytes into their
 * packed stream), or one file range when the view is contiguous. */
typedef struct {
  MPI_Count nitems;
  uintptr_t base;
  size_t fpos;
  int contig;
} fy_io_span_t;
void fy_io_span(const fy_file_t *f, MPI_Offset pos, MPI_Count total, fy_io_span_t *s);
/* The file pieces of stream bytes [moff, moff + left) of s (at most max;
 * *cover = bytes they hold); the number of pieces, <= 0 on a walk error. */
int fy_io_span_pieces(const fy_file_t *f, const fy_io_span_t *s, size_t moff, size_t left, struct iovec *fv,
                      int max, size_t *cover);
/* coll.c: the same for a collective call (every process of the file calls
 * it): two-phase through aggregators when the accesses interleave, else
 * fy_io_xfer. */
int fy_io_xfer_all(fy_file_t *f, int write, MPI_Offset pos, void *buf, MPI_Count count, MPI_Datatype dt,
                   MPI_Count *moved);
/* All of [off, off+len) by pread/pwrite (EINTR retried); *got = bytes
 * moved, short only at the end of the file on a read. */
int fy_io_full(fy_file_t *f, int write, char *b, size_t len, off_t off, size_t *got);
/* fcntl(F_SETLKW) of a record lock of type F_RDLCK, F_WRLCK or F_UNLCK over
 * [start, start+len) of fd, EINTR retried; 0, or -1 with errno. */
int fy_io_record_lock(int fd, int type, off_t start, off_t len);
/* A POSIX record lock (lock = 1) or its release (0) over [start, end);
 * nothing when the file system has none (f->nolocks). */
int fy_io_lock_range(fy_file_t *f, int write, off_t start, off_t end, int lock);
/* Checks common to data access: access mode, datatype, count. */
int fy_io_check_access(fy_file_t *f, int write, MPI_Count count, MPI_Datatype dt, int explicit_or_indiv);
void fy_io_status(MPI_Status *status, MPI_Count bytes);

/* shared.c */
int fy_io_shared_create(fy_file_t *f);
void fy_io_shared_free(fy_file_t *f);
/* Atomically add delta (etypes) to the shared pointer; *old gets its value before. */
int fy_io_shared_fetch_add(fy_file_t *f, MPI_Offset delta, MPI_Offset *old);
int fy_io_shared_set(fy_file_t *f, MPI_Offset v);   /* rank 0 only */
/* read/write_ordered's work: collective, in rank order from the shared pointer */
int fy_io_ordered(fy_file_t *f, int write, void *buf, MPI_Count count, MPI_Datatype dt, MPI_Count *moved);
#endif
