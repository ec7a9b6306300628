/* Datatypes: the predefined types of the MPICH ABI, every derived-type
 * constructor, and the pack engine point-to-point and collectives use.
 *
 * Contract
 * - fy_type_get() maps any datatype handle (builtin, ABI pair type or
 *   user-created) to its object, or NULL if the handle is not a datatype.
 * - Every type (predefined or derived, committed or not) carries its
 *   flattened layout `flat`: an ordered list of strided runs (fy_seg_t: n
 *   blocks of len bytes at disp + k*stride, all of one basic type), the whole
 *   list repeated `rep` times rep_stride bytes apart. The packed stream of
 *   one item is the runs in order; of `count` items, items at buf + k*extent.
 *   Displacements are relative to buf (absolute when buf is MPI_BOTTOM).
 *   Adjacent runs are merged when they form one run; runs never mix basic
 *   types, so element counts and external32 conversion read the list alone.
 *   `pk` is the same layout with that last restriction lifted (for moving
 *   bytes: pack, unpack, iovecs).
 * - size = bytes of data, extent = ub - lb (stride between items),
 *   true_lb/true_extent = the span of the bytes actually touched.
 * - is_contig: the data of `count` items is one block of count*size bytes
 *   starting at buf + true_lb, so no packing is needed.
 * - fy_type_pack/unpack copy between a typed buffer and a packed byte
 *   stream; unpack stops after `bytes` (a truncated or short message).
 *   The _range variants move packed bytes [offset, offset+len) of `count`
 *   items (a cursor: chunks may be moved in any order, by either process).
 * - fy_flat_iov() lists the memory pieces of packed bytes [offset, ...)
 *   as iovecs (for process_vm_readv/writev), at most `max` of them and at
 *   most `maxbytes` bytes; *bytes gets the bytes they cover.
 * - fy_type_elements(): basic elements in `bytes` of packed data (for
 *   MPI_Get_elements), MPI_UNDEFINED if bytes ends inside an element.
 *   fy_type_elements_bytes(): packed bytes of the first n basic elements
 *   (for MPI_Status_set_elements), -1 if there are fewer.
 * - References: a request holding a type retains it; MPI_Type_free only
 *   drops the user's reference, and a derived type keeps the types it was
 *   built from alive (get_contents hands them out again).
 * - Attributes: t->attrs is the fy_attr.h list (copied by MPI_Type_dup,
 *   deleted by MPI_Type_free); fy_type_attrs(handle) gives its address to
 *   the MPI_Type_{set,get,delete}_attr implementation (NULL: not a type). */
#ifndef FY_DATATYPE_H
#define FY_DATATYPE_H
#include <mpi.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/uio.h>
#include "core/fy_attr.h"

typedef struct fy_seg {
  MPI_Aint disp, len;   /* first block, bytes per block */
  MPI_Count n;          /* blocks */
  MPI_Aint stride;      /* bytes between blocks (0 when n == 1) */
  int32_t esize;        /* bytes of one basic element */
  int32_t ebasic;       /* handle of that basic type (element kind) */
} fy_seg_t;

typedef struct fy_flat {
  fy_seg_t *segs;
  MPI_Count nsegs;
  MPI_Count *pre;       /* pre[i]: packed offset of run i in one repetition; pre[nsegs] = its bytes */
  MPI_Count rep;        /* the run list repeated rep times ... */
  MPI_Aint rep_stride;  /* ... this far apart */
  MPI_Count size;       /* packed bytes of one item (= rep * pre[nsegs]) */
  MPI_Aint extent;      /* stride between items */
} fy_flat_t;

typedef struct fy_datatype fy_datatype_t;
struct fy_datatype {
  int handle;
  int refcount;
  int committed;
  int builtin;              /* predefined (or an F90 type): never freed */
  MPI_Count size;
  MPI_Aint lb, extent, true_lb, true_extent;
  int is_contig;
  fy_flat_t flat;
  /* the same layout for moving bytes: runs of different basic types merged
   * too, a single repeated run turned into one strided run (pk.segs may be
   * flat.segs). The pack engine, iovec lists and is_contig use it. */
  fy_flat_t pk;
  int pk_owned;
  /* pk as a list of equal blocks (indexed types of equal block lengths,
   * whose runs hold a few blocks each): the bd_n blocks of bd_len bytes of
   * one repetition, at displacements bd[], in packed order; 8 bytes a
   * block instead of a 40-byte run, for pack and unpack (NULL when pk is
   * not of that form or has few runs) */
  MPI_Aint *bd;
  MPI_Count bd_n;
  MPI_Aint bd_len;
  MPI_Count pk_blocks;      /* blocks of pk in one item (set with pk by fy_dt_finish, for every type) */
  MPI_Count nbasic;         /* basic elements in one item */
  fy_datatype_t *red_basic; /* the one predefined type all elements are (or NULL) */
  MPI_Count red_n;          /* how many of it in one item */
  int align;                /* largest basic alignment (struct extent padding) */
  int sticky;               /* lb/ub set explicitly (resized, MPI_LB/MPI_UB): no padding */
  /* constructor and its arguments, for Type_get_envelope/get_contents */
  int combiner;
  int large;                /* built by a _c constructor: counts in `larges` */
  int ni, na, nl, nd;
  int *ints;
  MPI_Aint *addrs;
  MPI_Count *larges;
  fy_datatype_t **types;    /* retained */
  fy_attr_t *attrs;
  char name[MPI_MAX_OBJECT_NAME];
};

int fy_type_init(void);
void fy_type_finalize(void);
/* Builtins are looked up inline: every call that takes a buffer does it,
 * twice (argument check, then the operation). */
#define FY_TYPE_NBUILTIN 0x80
extern fy_datatype_t fy_type_builtin[FY_TYPE_NBUILTIN];
fy_datatype_t *fy_type_get_other(MPI_Datatype h); /* pair types, created types */
static inline fy_datatype_t *fy_type_get(MPI_Datatype h) {
  unsigned u = (unsigned)h;
  if (u >> 26 == 0x13u) { /* builtin kind, datatype object: 0x4c00SSII */
    fy_datatype_t *t = &fy_type_builtin[u & (FY_TYPE_NBUILTIN - 1)];
    return t->handle == h ? t : NULL; /* (unused indices have handle 0) */
  }
  return fy_type_get_other(h);
}
void fy_type_release(fy_datatype_t *t);  /* drop a reference (free at 0) */
fy_attr_t **fy_type_attrs(MPI_Datatype h);
static inline void fy_type_retain(fy_datatype_t *t) { if (!t->builtin) __atomic_add_fetch(&t->refcount, 1, __ATOMIC_RELAXED); }

/* Pack count items of type t from buf into out (count*t->size bytes). */
void fy_type_pack(const fy_datatype_t *t, MPI_Count count, const void *buf, void *out);
/* Unpack up to `bytes` of packed data into count items at buf. */
void fy_type_unpack(const fy_datatype_t *t, MPI_Count count, const void *in, size_t bytes, void *buf);
/* A local copy of scount items of st at src into rcount items of rt at
 * dst (the caller checked that they fit); tmp holds scount * st->size
 * bytes when neither type is contiguous, else may be NULL. */
void fy_type_copy(const void *src, MPI_Count scount, const fy_datatype_t *st, void *dst, MPI_Count rcount,
                  const fy_datatype_t *rt, void *tmp);
/* Packed bytes [offset, offset+len) of count items (clipped to the data);
 * return the bytes moved. */
size_t fy_type_pack_range(const fy_datatype_t *t, MPI_Count count, const void *buf, size_t offset,
                          size_t len, void *out);
size_t fy_type_unpack_range(const fy_datatype_t *t, MPI_Count count, void *buf, size_t offset,
                            size_t len, const void *in);
/* iovecs of packed bytes [offset, ...) of count items at base (see above). */
int fy_flat_iov(const fy_flat_t *f, MPI_Count count, uintptr_t base, size_t offset, struct iovec *iov,
                int max, size_t maxbytes, size_t *bytes);
/* Fill f->pre from f->segs (a layout read from another process). */
void fy_flat_prefix(fy_flat_t *f);
MPI_Count fy_type_elements(const fy_datatype_t *t, MPI_Count bytes);
MPI_Count fy_type_elements_bytes(const fy_datatype_t *t, MPI_Count n);
/* Number of basic elements in one item */
MPI_Count fy_type_nbasic(const fy_datatype_t *t);
/* For reductions: if every basic element of t is the same predefined type
 * (or t is built from one predefined pair type such as MPI_DOUBLE_INT),
 * return 1 and set *basic to that predefined type and *per_item to the
 * number of them in one item of t; the packed stream of count items is
 * then count * per_item consecutive values of *basic. Otherwise 0. */
int fy_type_reduce_basic(const fy_datatype_t *t, fy_datatype_t **basic, MPI_Count *per_item);
/* external32 size of one item; -1 if it holds a type with no external32 form */
MPI_Count fy_type_ext32_size(const fy_datatype_t *t);
#endif
