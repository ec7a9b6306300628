/* CPU lending between the ranks of one machine (FERRY_OFI_LEND).
 *
 * Where a job's ranks fill a machine's CPUs, a trigger-only fabric agent
 * (agent_thread.c) takes no eager data in while its thread computes: any
 * CPU it would run on is some rank's, and a computing peer's time is not
 * its to take. But a rank in a blocking wait that finds nothing to do
 * only polls: its CPU is free for that while. This module lets such a rank
 * lend it, and a computing rank's agent borrow it, across processes that
 * share the machine but not a shared-memory segment (ranks that talk over
 * the fabric: test hosts in network namespaces, FERRY_NOLOCAL).
 *
 * Contract
 * - A board in /dev/shm, named by the job's PMI kvsname, holds one
 *   cache-line slot per rank of this machine (its index among the job's
 *   ranks with this machine's boot id, fy_pt2pt_net_machine_index). Every
 *   rank maps it before the fabric's address exchange (whose PMI barrier
 *   orders every rank's open before anyone's unlink) and unlinks its name
 *   after: nothing stays in /dev/shm once the job is past MPI_Init.
 * - Lender: fy_lend_begin() when a blocking wait's poll found nothing
 *   (the first time in that wait), fy_lend_end() when the wait ends, if
 *   fy_lend_begin() returned 1. It
 *   publishes the CPU the thread is on and wakes the agents that asked for
 *   one (fy_lend_want). Cheap when nobody asks: two atomics and a load.
 * - Borrower (the fabric agent): fy_lend_want(1) while its rank has a
 *   nonblocking fabric receive of an eager size pending or a rendezvous
 *   receive in flight (set and cleared under the progress lock), and
 *   fy_lend_want_turn(1) from the agent itself while it holds a turn
 *   back for a lend (the two are separate bits of the slot's want);
 *   fy_lend_cpu() gives a CPU another rank lends now (-1: none). The
 *   process's agents park on fy_lend_word() (a futex in the shared board,
 *   so no FUTEX_PRIVATE_FLAG), which a lender bumps and wakes when it
 *   finds want set.
 * - Off (every call a no-op, fy_lend_cpu() -1) when FERRY_OFI_LEND=0, the
 *   board cannot be made, or this rank alone runs on this machine. */
#ifndef FY_LEND_H
#define FY_LEND_H
#include <stdint.h>

/* Before the address exchange: create or open the board (not when
 * FERRY_OFI_LEND=0). */
void fy_lend_open(const char *job);
/* After it: unlink the name, take slot index of count (off if count < 2). */
void fy_lend_setup(int index, int count);
void fy_lend_close(void);
int fy_lend_on(void);

/* 1 when it counted the wait (then call fy_lend_end once it ends). */
int fy_lend_begin(void);
void fy_lend_end(void);

int fy_lend_cpu(void);
/* This rank's agent borrows (before its start): fy_lend_want works. */
void fy_lend_borrow(void);
void fy_lend_want(int on);
void fy_lend_want_turn(int on);
/* This rank's slot's futex word (NULL when off). */
_Atomic uint32_t *fy_lend_word(void);

#endif
