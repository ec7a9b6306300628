/* Datatype internals shared by the files of src/datatype.
 *
 * Contract
 * - A constructor describes its type as blocks (fy_blocks_t): block b is
 *   bl[b] consecutive items of child[b] (at the child's extent) placed at
 *   byte displacement displ[b]; uniform vectors give one bl/stride/child
 *   instead of arrays. fy_dt_build() makes the (unregistered) type object
 *   with its flattened layout, bounds, sizes and element facts;
 *   fy_dt_register() gives it a handle and stores the constructor
 *   arguments (copied) for get_contents, retaining the datatypes.
 * - fy_dt_destroy() frees an object that was never registered. */
#ifndef FY_DT_IMPL_H
#define FY_DT_IMPL_H
#include "datatype/fy_datatype.h"
#include "core/fy_handle.h"
#include <pthread.h>

/* The handle table of derived types (builtin.c). Additions and removals
 * take the lock: a request may drop a type's last reference on a progress
 * agent thread while the application creates types. */
extern fy_htab_t fy_type_tab;
extern pthread_mutex_t fy_type_tab_lock;

typedef struct fy_blocks {
  MPI_Count count;
  /* uniform: every block has bl items of child, block b at b*stride */
  int uniform;
  MPI_Count bl;
  MPI_Aint stride;
  fy_datatype_t *child;
  /* otherwise (NULL array: the uniform value) */
  const MPI_Count *bls;
  const MPI_Aint *displs;
  fy_datatype_t *const *children;
} fy_blocks_t;

fy_datatype_t *fy_dt_build(const fy_blocks_t *b, int is_struct);
/* resized copy of old's layout with new bounds */
fy_datatype_t *fy_dt_resized(const fy_datatype_t *old, MPI_Aint lb, MPI_Aint extent);
int fy_dt_register(fy_datatype_t *t, int combiner, int large, int ni, const int *ints, int na,
                   const MPI_Aint *addrs, int nl, const MPI_Count *larges, int nd,
                   fy_datatype_t *const *types, MPI_Datatype *out);
void fy_dt_destroy(fy_datatype_t *t);
void fy_dt_pk_free(fy_datatype_t *t); /* the packing layout (pk, bd) if owned */
int fy_dt_flat_copy(fy_flat_t *dst, const fy_flat_t *src);
void fy_dt_finish(fy_datatype_t *t); /* size, true bounds, is_contig from the layout */
int fy_dt_basic_align(int handle);
void fy_dt_f90_reset(void); /* forget the cached F90 types (at finalize) */
/* external32 facts of a basic type: bytes in external32 (0: none), and the
 * byte-swap unit (element bytes, or half of it for complex types) */
int fy_dt_ext32(int ebasic, int *unit);
#endif
