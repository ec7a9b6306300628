/* MPI_Barrier: dissemination algorithm, ceil(log2 p) rounds of zero-byte
 * messages; each round's receive is posted before its send. This direct
 * version (no schedule, fixed tag 1 of the reserved range) also serves
 * MPI_Init/Finalize; intercommunicators go through the schedule engine. */
#include "coll/fy_coll.h"
#include "coll/fy_coll_impl.h"
#include "coll/fy_coll_shm.h"
#include "pt2pt/fy_pt2pt.h"
#include "datatype/fy_datatype.h"

#define FY_TAG_BARRIER 1

int fy_coll_barrier(fy_comm_t *c) {
  if (c->is_inter) {
    fy_sched_t *s;
    int err = fy_sched_create(c, &s);
    if (err) return err;
    return fy_sched_finish(s, fy_build_inter_barrier(s), FY_SCHED_BLOCKING, NULL);
  }
  int e = fy_coll_shm_barrier(c);
  if (e != FY_COLL_SHM_DECLINED) return e;
  int p = c->size, me = c->rank;
  fy_datatype_t *byte = fy_type_get(MPI_BYTE);
  for (int k = 1; k < p; k <<= 1) {
    fy_request_t *rr, *sr;
    int err = fy_irecv_internal(NULL, 0, byte, (me - k + p) % p, FY_TAG_BARRIER, c, &rr);
    if (err) return err;
    err = fy_isend_internal(NULL, 0, byte, (me + k) % p, FY_TAG_BARRIER, c, &sr);
    if (err) return err;
    fy_req_wait_done(sr);
    fy_req_wait_done(rr);
    fy_req_release(sr);
    fy_req_release(rr);
  }
  return MPI_SUCCESS;
}
