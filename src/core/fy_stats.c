/* FERRY_STATS report: see fy_stats.h. Every rank prints one line per
 * subsystem; rank 0 adds the job-wide maximum (MASL) and mean (ASL) of the
 * average search length, gathered over the collective context. */
#include "core/fy_stats.h"
#include "core/fy_init.h"
#include "core/fy_comm.h"
#include "datatype/fy_datatype.h"
#include "pt2pt/fy_pt2pt.h"
#include "pt2pt/mq/fy_mq.h"
#include "progress/fy_progress.h"
#include "runtime/fy_config.h"
#include <stdio.h>

#define FY_TAG_STATS 2
void fy_async_stats(FILE *f);

void fy_stats_report(void) {
  fy_mq_stats_t s;
  fy_mq_get_stats(fy_mq, &s);
  double asl = s.searches ? (double)s.items_visited / (double)s.searches : 0.0;
  double prq_avg = s.searches ? (double)s.sum_prq / (double)s.searches : 0.0;
  double umq_avg = s.searches ? (double)s.sum_umq / (double)s.searches : 0.0;
  double mem_avg = s.searches ? (double)s.mem_sum / (double)s.searches : 0.0;
  int r = fy_state.world_rank;
  /* The thesis's metrics: MQL = maximum and AQL = average queue length,
   * per queue; the average search length covers both queues. */
  fprintf(stderr,
          "ferry-stats rank=%d mq: backend=%s PRQ MQL=%llu AQL=%.2f UMQ MQL=%llu AQL=%.2f searches=%llu "
          "avg_search=%.2f skipped=%llu mem_avg=%.0fB mem_peak=%zuB\n",
          r, fy_config.mq, (unsigned long long)s.max_prq, prq_avg, (unsigned long long)s.max_umq, umq_avg,
          (unsigned long long)s.searches, asl, (unsigned long long)s.items_skipped, mem_avg, s.mem_peak);
  fprintf(stderr,
          "ferry-stats rank=%d pt2pt: eager=%llu rndv=%llu cma_by_recv=%llu cma_by_send=%llu pipe=%llu "
          "unexpected=%llu queued_pkts=%llu direct_published=%llu direct_sent=%llu direct_recv=%llu share=%llu joined=%llu "
          "eager_piped=%llu\n",
          r, (unsigned long long)fy_pt2pt_stats.eager_sent, (unsigned long long)fy_pt2pt_stats.rndv_sent,
          (unsigned long long)fy_pt2pt_stats.rndv_cma_recv, (unsigned long long)fy_pt2pt_stats.rndv_cma_send,
          (unsigned long long)fy_pt2pt_stats.rndv_pipe, (unsigned long long)fy_pt2pt_stats.unexpected,
          (unsigned long long)fy_pt2pt_stats.queued_pkts, (unsigned long long)fy_pt2pt_stats.direct_published,
          (unsigned long long)fy_pt2pt_stats.direct_sent, (unsigned long long)fy_pt2pt_stats.direct_recv,
          (unsigned long long)fy_pt2pt_stats.rndv_share, (unsigned long long)fy_pt2pt_stats.rndv_joined,
          (unsigned long long)fy_pt2pt_stats.eager_piped);
  fprintf(stderr,
          "ferry-stats rank=%d progress: polls=%llu waits=%llu spins=%llu yields=%llu sleeps=%llu wakeups=%llu "
          "wake_cost_us=%.0f\n",
          r, (unsigned long long)fy_progress_stats.polls, (unsigned long long)fy_progress_stats.waits,
          (unsigned long long)fy_progress_stats.spins, (unsigned long long)fy_progress_stats.yields,
          (unsigned long long)fy_progress_stats.sleeps, (unsigned long long)fy_progress_stats.wakeups,
          (double)fy_progress_stats.wake_cost_ns / 1e3);
  fy_async_stats(stderr);
  /* Job-wide ASL/MASL on rank 0. */
  fy_comm_t *c = &fy_comm_world;
  fy_datatype_t *dbl = fy_type_get(MPI_DOUBLE);
  if (c->rank == 0) {
    double max = asl, sum = asl, v;
    for (int i = 1; i < c->size; i++) {
      fy_request_t *rr;
      fy_irecv_internal(&v, 1, dbl, i, FY_TAG_STATS, c, &rr);
      fy_req_wait_done(rr);
      fy_req_release(rr);
      if (v > max) max = v;
      sum += v;
    }
    fprintf(stderr, "ferry-stats job: ranks=%d MASL=%.2f ASL=%.2f (largest and mean per-process average search length)\n", c->size, max, sum / c->size);
  } else {
    fy_request_t *sr;
    fy_isend_internal(&asl, 1, dbl, 0, FY_TAG_STATS, c, &sr);
    fy_req_wait_done(sr);
    fy_req_release(sr);
  }
}
