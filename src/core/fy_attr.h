/* Attributes: caching of (keyval, value) pairs on communicators, datatypes
 * and windows (MPI 4.1 ch. 7.7).
 *
 * Contract
 * - Each object that can carry attributes holds one `fy_attr_t *` (NULL:
 *   no attributes) and calls these when it is duplicated or freed:
 *   fy_attr_copy_all() runs the copy callback of every attribute of `from`
 *   in the order the attributes were set, building `*to`; fy_attr_delete_all()
 *   runs the delete callbacks and empties the list. Both return MPI_SUCCESS
 *   or the error a callback returned (then the new object must not be
 *   created / the object is not freed).
 * - objkind is FY_OK_COMM, FY_OK_DATATYPE or FY_OK_WIN (core/fy_handle.h);
 *   the handles are what the callbacks receive. */
#ifndef FY_ATTR_H
#define FY_ATTR_H

typedef struct fy_attr fy_attr_t;

int fy_attr_copy_all(int objkind, int old_handle, fy_attr_t *const *from, int new_handle, fy_attr_t **to);
int fy_attr_delete_all(int objkind, int handle, fy_attr_t **list);
#endif
