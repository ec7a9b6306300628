/* MPI_Pack / MPI_Unpack / MPI_Pack_size (+_c) and MPI_Get_address. The
 * "native" packed format is the packed stream itself (no header). */
#include "datatype/dt_impl.h"
#include "core/fy_error.h"
#include "binding/fy_impl.h"
#include <string.h>

static int do_pack(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                   MPI_Count outsize, MPI_Count *position) {
  fy_datatype_t *t = fy_type_get(datatype);
  if (incount < 0) return fy_err(MPI_ERR_COUNT, "incount = %lld is negative", (long long)incount);
  MPI_Count need = incount * t->size;
  if (*position < 0 || *position > outsize || outsize - *position < need)
    return fy_err(MPI_ERR_TRUNCATE, "MPI_Pack: %lld bytes do not fit at position %lld of a %lld-byte buffer",
                  (long long)need, (long long)*position, (long long)outsize);
  if (need) fy_type_pack(t, incount, inbuf, (char *)outbuf + *position);
  *position += need;
  return MPI_SUCCESS;
}

static int do_unpack(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                     MPI_Datatype datatype) {
  fy_datatype_t *t = fy_type_get(datatype);
  if (outcount < 0) return fy_err(MPI_ERR_COUNT, "outcount = %lld is negative", (long long)outcount);
  MPI_Count need = outcount * t->size;
  if (*position < 0 || *position > insize || insize - *position < need)
    return fy_err(MPI_ERR_TRUNCATE, "MPI_Unpack: %lld bytes wanted at position %lld of a %lld-byte buffer",
                  (long long)need, (long long)*position, (long long)insize);
  if (need) fy_type_unpack(t, outcount, (const char *)inbuf + *position, (size_t)need, outbuf);
  *position += need;
  return MPI_SUCCESS;
}

int fy_mpi_pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
                MPI_Comm comm) {
  (void)comm;
  MPI_Count pos = *position;
  int err = do_pack(inbuf, incount, datatype, outbuf, outsize, &pos);
  if (!err) *position = (int)pos;
  return err;
}

int fy_mpi_pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                  MPI_Count *position, MPI_Comm comm) {
  (void)comm;
  return do_pack(inbuf, incount, datatype, outbuf, outsize, position);
}

int fy_mpi_unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                  MPI_Datatype datatype, MPI_Comm comm) {
  (void)comm;
  MPI_Count pos = *position;
  int err = do_unpack(inbuf, insize, &pos, outbuf, outcount, datatype);
  if (!err) *position = (int)pos;
  return err;
}

int fy_mpi_unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                    MPI_Datatype datatype, MPI_Comm comm) {
  (void)comm;
  return do_unpack(inbuf, insize, position, outbuf, outcount, datatype);
}

int fy_mpi_pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size) {
  (void)comm;
  MPI_Count n = (MPI_Count)incount * fy_type_get(datatype)->size;
  if (n > INT32_MAX) return fy_err(MPI_ERR_ARG, "MPI_Pack_size: %lld bytes do not fit an int: use MPI_Pack_size_c",
                                   (long long)n);
  *size = (int)n;
  return MPI_SUCCESS;
}

int fy_mpi_pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size) {
  (void)comm;
  *size = incount * fy_type_get(datatype)->size;
  return MPI_SUCCESS;
}

int fy_mpi_get_address(const void *location, MPI_Aint *address) {
  *address = (MPI_Aint)(uintptr_t)location;
  return MPI_SUCCESS;
}
