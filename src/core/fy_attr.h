/* Attributes: caching of (keyval, value) pairs on communicators, datatypes
 * and windows (MPI 4.1 ch. 7.7).
 *
 * Contract
 * - Each object that can carry attributes holds one `fy_attr_t *` (NULL:
 *   no attributes) and calls these when it is duplicated or freed:
 *   fy_attr_copy_all() runs the copy callback of every attribute of `from`
 *   in the order the attributes were set, building `*to`; fy_attr_delete_all()
 *   runs the delete callbacks, newest attribute first, and empties the list.
 *   Both return MPI_SUCCESS or the error a callback returned: then nothing
 *   is left half done (copy: `*to` is empty again, the copies made so far
 *   deleted; delete: the attributes not yet deleted stay, the object must
 *   not be freed).
 * - objkind is FY_OK_COMM, FY_OK_DATATYPE or FY_OK_WIN (core/fy_handle.h);
 *   the handles are what the callbacks receive.
 * - Keyvals: user keyvals are direct handles of kind FY_OK_KEYVAL with the
 *   object kind in bits 22-25 (the MPICH ABI's layout, as in MPI_TAG_UB =
 *   0x64400001); a keyval freed by the user lives on until its last
 *   attribute is deleted.
 * - Where the list lives: communicators use fy_comm_t.attrs; datatypes and
 *   windows are found through fy_type_attrs()/fy_win_attrs(), which the
 *   datatype and RMA layers define (return &obj->attrs, or NULL for an
 *   invalid handle).
 * - Predefined attributes: communicators answer MPI_TAG_UB, MPI_HOST,
 *   MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM and
 *   MPI_LASTUSEDCODE (values as pointers to int). The RMA layer stores its
 *   window attributes (MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR,
 *   _MODEL) with fy_attr_set_predefined() on the window's list; users
 *   cannot set or delete them (MPI_ERR_KEYVAL). */
#ifndef FY_ATTR_H
#define FY_ATTR_H
#include <mpi.h>

typedef struct fy_attr fy_attr_t;

int fy_attr_copy_all(int objkind, int old_handle, fy_attr_t *const *from, int new_handle, fy_attr_t **to);
int fy_attr_delete_all(int objkind, int handle, fy_attr_t **list);
int fy_attr_set_predefined(fy_attr_t **list, int keyval, void *value);

fy_attr_t **fy_type_attrs(MPI_Datatype type);
fy_attr_t **fy_win_attrs(MPI_Win win);
#endif
