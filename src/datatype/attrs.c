/* Where a datatype's attribute list lives, for core/fy_attr.c (keyvals and
 * MPI_Type_set/get/delete_attr): in the type object, predefined or derived. */
#include "datatype/fy_datatype.h"

fy_attr_t **fy_type_attrs(MPI_Datatype type) {
  fy_datatype_t *t = fy_type_get(type);
  return t ? &t->attrs : NULL;
}
