/* FERRY_STATS=1: per-process counters (matching, protocols, progress)
 * printed at MPI_Finalize, and the job-wide summary on rank 0. */
#ifndef FY_STATS_H
#define FY_STATS_H
void fy_stats_report(void);
#endif
