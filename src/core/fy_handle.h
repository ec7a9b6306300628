/* Handles: the MPICH ABI's integer encoding of MPI objects, and a table per
 * object kind mapping user-created handles to objects.
 *
 * Contract
 * - A handle is an int: bits 30-31 the handle kind (0 invalid, 1 builtin,
 *   2 direct = table entry, 3 indirect unused), bits 26-29 the object kind
 *   (MPICH's numbering), bits 0-25 the index. Builtin handles are the
 *   constants of mpi.h; null handles have kind bits 0.
 * - fy_htab_* store pointers to objects created by Ferry; indices are reused
 *   after free. Direct indices below FY_HTAB_FIRST are reserved for the
 *   ABI's predefined "direct" handles (e.g. MPI_FLOAT_INT = 0x8c000000).
 * - Not thread-safe on its own: callers hold the API lock (or the progress
 *   lock for requests; the datatype table's additions and removals take
 *   fy_type_tab_lock, since a progress agent may drop a type's last
 *   reference). A lookup reads its slot atomically. */
#ifndef FY_HANDLE_H
#define FY_HANDLE_H
#include <stdint.h>
#include <stddef.h>

enum {
  FY_HK_INVALID = 0, FY_HK_BUILTIN = 1, FY_HK_DIRECT = 2, FY_HK_INDIRECT = 3
};
enum { /* object kinds, as encoded in bits 26-29 */
  FY_OK_COMM = 1, FY_OK_GROUP = 2, FY_OK_DATATYPE = 3, FY_OK_FILE = 4,
  FY_OK_ERRHANDLER = 5, FY_OK_OP = 6, FY_OK_INFO = 7, FY_OK_WIN = 8,
  FY_OK_KEYVAL = 9, FY_OK_ATTR = 10, FY_OK_REQUEST = 11, FY_OK_SESSION = 13
};

static inline int fy_h_kind(int h) { return (int)(((unsigned)h >> 30) & 3u); }
static inline int fy_h_obj(int h) { return (int)(((unsigned)h >> 26) & 0xfu); }
static inline int fy_h_index(int h) { return (int)((unsigned)h & 0x3ffffffu); }
static inline int fy_h_make(int kind, int obj, int idx) {
  return (int)(((unsigned)kind << 30) | ((unsigned)obj << 26) | (unsigned)idx);
}

#define FY_HTAB_FIRST 16

typedef struct fy_htab {
  int obj;         /* object kind */
  void **slots;
  int cap, next;   /* next: first never-used index */
  int *freelist;
  int nfree, freecap;
  int live;
} fy_htab_t;

/* Returns the new handle, or 0 on out of memory. */
int fy_htab_add(fy_htab_t *t, void *obj);
/* The object for a direct handle of this table, or NULL. */
static inline void *fy_htab_get(const fy_htab_t *t, int h) {
  if (fy_h_kind(h) != FY_HK_DIRECT || fy_h_obj(h) != t->obj) return NULL;
  int i = fy_h_index(h);
  /* (relaxed: a progress agent may empty another slot meanwhile) */
  return (i < t->next) ? __atomic_load_n(&t->slots[i], __ATOMIC_RELAXED) : NULL;
}
void fy_htab_remove(fy_htab_t *t, int h);
void fy_htab_destroy(fy_htab_t *t);
#endif
