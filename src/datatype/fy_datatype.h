/* Datatypes: the predefined types of the MPICH ABI and derived types built
 * from them, with the pack engine point-to-point uses.
 *
 * Contract
 * - fy_type_get() maps any datatype handle (builtin, ABI pair type or
 *   user-created) to its object, or NULL if the handle is not a datatype.
 * - A type is either a leaf (one basic element, or a pair type made of two
 *   basic elements at fixed offsets) or a contiguous repetition of another
 *   type. size = bytes of data, extent = stride between consecutive items.
 * - is_contig: the data of `count` items is one block of count*size bytes
 *   starting at buf + true_lb, so no packing is needed.
 * - fy_type_pack/unpack copy between a typed buffer and a packed byte
 *   stream; unpack stops after `bytes` (a truncated or short message).
 * - fy_type_elements(): basic elements in `bytes` of packed data (for
 *   MPI_Get_elements), MPI_UNDEFINED if bytes ends inside an element. */
#ifndef FY_DATATYPE_H
#define FY_DATATYPE_H
#include <mpi.h>
#include <stdint.h>
#include <stddef.h>

typedef struct fy_datatype fy_datatype_t;
struct fy_datatype {
  int handle;
  int refcount;
  int committed;
  int builtin;              /* predefined: never freed */
  MPI_Count size;
  MPI_Aint lb, extent, true_lb, true_extent;
  int is_contig;
  /* leaf: nelem basic elements at elem_off[i] of elem_size[i] bytes */
  int nelem;
  MPI_Aint elem_off[2];
  int elem_size[2];
  /* derived contiguous: count copies of base */
  fy_datatype_t *base;
  MPI_Count rep;
  int combiner;
  char name[MPI_MAX_OBJECT_NAME];
};

int fy_type_init(void);
void fy_type_finalize(void);
fy_datatype_t *fy_type_get(MPI_Datatype h);
void fy_type_release(fy_datatype_t *t);  /* drop a reference (free at 0) */
static inline void fy_type_retain(fy_datatype_t *t) { if (!t->builtin) t->refcount++; }

/* Pack count items of type t from buf into out (count*t->size bytes). */
void fy_type_pack(const fy_datatype_t *t, MPI_Count count, const void *buf, void *out);
/* Unpack up to `bytes` of packed data into count items at buf. */
void fy_type_unpack(const fy_datatype_t *t, MPI_Count count, const void *in, size_t bytes, void *buf);
MPI_Count fy_type_elements(const fy_datatype_t *t, MPI_Count bytes);
/* Number of basic elements in one item */
MPI_Count fy_type_nbasic(const fy_datatype_t *t);
/* For reductions: if every basic element of t is the same predefined type
 * (or t is built from one predefined pair type such as MPI_DOUBLE_INT),
 * return 1 and set *basic to that predefined type and *per_item to the
 * number of them in one item of t; the packed stream of count items is
 * then count * per_item consecutive values of *basic. Otherwise 0. */
int fy_type_reduce_basic(const fy_datatype_t *t, fy_datatype_t **basic, MPI_Count *per_item);
#endif
