/* mpi_f08 array sections shared by fy_f08_buf.c (how a call passes them)
 * and fy_f08_req.c (the copies a pending collective keeps).
 *
 * Contract
 * - fy_f08_copy_sec(d, t, back): copies the elements of the (non-contiguous)
 *   section d, in array element order, to the contiguous t (back = 0) or
 *   from it into the section (back = 1). */
#ifndef FY_F08_SEC_H
#define FY_F08_SEC_H
#include <ISO_Fortran_binding.h>

void fy_f08_copy_sec(const CFI_cdesc_t *d, char *t, int back);

#endif
