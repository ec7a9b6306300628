/* shm transport: node-local packets, doorbells and bulk copy between the
 * processes of one job on one node.
 *
 * Contract
 * - One segment per job per node, created 0600 by local rank 0 under
 *   /dev/shm/fy-<job_id>-<n>, attached by the others after a barrier and
 *   unlinked by local rank 0 after a second barrier (so nothing is left in
 *   /dev/shm once init returns, even if the job is killed later). Memory is
 *   linear in the number of local ranks.
 * - Packets: each local rank owns one bounded multi-producer ring of cells
 *   (lock-free, C11 acquire/release). fy_shm_send() copies hdr then data into
 *   one cell of dst's ring; the packet is delivered whole, in per-sender FIFO
 *   order. hlen + dlen <= fy_shm_max_packet(). Never blocks: returns
 *   FY_SHM_EAGAIN when dst's ring is full (the caller queues and retries).
 *   Sending to oneself is allowed.
 * - fy_shm_pending() is one load of one cache line: "did anything arrive?".
 * - Doorbell: a per-rank futex word in the segment. A thread that wants to
 *   sleep arms (as FY_SHM_WAIT_ANY: any packet wakes it, used by blocking
 *   waits; or FY_SHM_WAIT_RNDV: only packets sent with FY_SHM_F_RNDV wake it,
 *   the selective interrupts of seed 003; with FERRY_INTR_SELECTIVE=0 any
 *   packet wakes it too), re-checks fy_shm_pending(), then sleeps. Senders
 *   only make the wake-up syscall when someone of the right kind is armed.
 * - Bulk copy: cross-memory attach (process_vm_readv/writev) when the kernel
 *   allows it (probed at init; errno checked on every call, with fallback),
 *   and a pipelined copy through per-sender shared slots that works always.
 * - Per-rank state words visible to every local rank (in-MPI flag, pid) for
 *   the protocols and the asynchronous agents.
 * - Thread safety: send/poll/pipe calls are made under the caller's progress
 *   lock; doorbell calls may come from any thread. */
#ifndef FY_SHM_H
#define FY_SHM_H
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <sys/uio.h>

#define FY_SHM_EAGAIN 1

typedef struct fy_shm_boot {
  const char *job_id;     /* unique per job (the PMI kvsname) */
  int local_rank, local_size;
  int (*barrier)(void);   /* job-wide barrier (PMI) used twice during init */
  long ring_cells;        /* cells per receive ring (power of two) */
  size_t cell_payload;    /* bytes of header+data a cell carries */
  size_t cell_payload_min; /* when /dev/shm has no room for the segment with
                              cell_payload, local rank 0 lays it out with
                              cells of this size if smaller (0: never); the
                              others read the size off the segment
                              (fy_shm_max_packet) */
  size_t rank_area;       /* bytes per rank reserved for the layers above
                             (zeroed, 64-byte aligned; see fy_shm_rank_area) */
  int pipe_slots;         /* slots per sender of the pipelined copy (0: 64 up to 16
                             local ranks, 32 above) */
  size_t pipe_chunk;      /* bytes per slot (0: 16 KiB; rounded up to 4 KiB) */
  size_t prefault_max;    /* map the whole segment at init when it is at most
                             this large (0: never; see fy_shm_prefault) */
} fy_shm_boot_t;
/* Zero fields take defaults (ring_cells 64, cell_payload 16 KiB + 256).
 * Geometry is decided by local rank 0; the others read it from the segment.
 * Segment bytes = 4 KiB + local_size * (640 + rank_area rounded to 128
 *   + ring_cells * roundup64(16 + cell_payload)
 *   + pipe_slots * (128 + pipe_chunk)), each part rounded to 4 KiB. */

/* 0 on success, -1 with a message in fy_shm_error(). */
int fy_shm_init(const fy_shm_boot_t *b);
void fy_shm_finalize(void);
const char *fy_shm_error(void);
int fy_shm_local_rank(void);
int fy_shm_local_size(void);

/* ---- packets ---- */
#define FY_SHM_F_RNDV 1u  /* a rendezvous start: wakes FY_SHM_WAIT_RNDV sleepers */
size_t fy_shm_max_packet(void);
int fy_shm_send(int dst_local, const void *hdr, size_t hlen,
                const void *data, size_t dlen, unsigned flags);
/* Delivers up to max packets (max <= 0: all present) to cb in arrival order.
 * cb returns 0 to consume the packet, nonzero to stop and leave it at the
 * head of the ring (it is delivered again by the next poll). The packet
 * memory is valid only during cb. Returns the number consumed. */
typedef int (*fy_shm_pkt_cb)(void *arg, int src_local, const void *pkt, size_t len);
int fy_shm_poll(fy_shm_pkt_cb cb, void *arg, int max);
bool fy_shm_pending(void);
/* A packet has been claimed in my ring (maybe not yet published). */
bool fy_shm_incoming(void);

/* ---- doorbell ---- */
enum { FY_SHM_WAIT_ANY = 0, FY_SHM_WAIT_RNDV = 1 };
void fy_shm_set_selective(bool selective);   /* default true */
uint32_t fy_shm_doorbell_arm(int kind);       /* returns the value to sleep on */
/* Sleeps until rung or timeout_us (<0: forever); returns 0 if rung, 1 on
 * timeout; EINTR is retried internally only until the timeout. */
int fy_shm_doorbell_sleep(uint32_t armed_value, long timeout_us);
void fy_shm_doorbell_disarm(int kind);
/* Wake every sleeper of a rank, after the caller has published (a release
 * store) what they wait for: only armed kinds are bumped and woken. */
void fy_shm_doorbell_ring(int local);
/* The same for some kinds only (a mask of 1 << FY_SHM_WAIT_*): the
 * fabric agent wakes its own rank's blocking waits, not its doorbell agent. */
void fy_shm_doorbell_ring_kinds(int local, unsigned kinds);
uint64_t fy_shm_wakeups_sent(void);           /* futex wakes this process issued */

/* ---- kick (the PEF's sender-side trigger) ----
 * A thread that computes outside the library while it waits for
 * rendezvous starts registers itself (its tid and the signal to send).
 * A rank that posts a rendezvous start to it then signals that thread once
 * (tgkill), unless the rank is waiting inside MPI (it polls anyway): one
 * signal per transfer instead of a timer's guesses. Registration is a
 * seq_cst store followed by a fence; the sender publishes the packet,
 * fences, then reads the registration (Dekker): so after registering, the
 * registering thread must re-check fy_shm_pending() itself. */
void fy_shm_kick_register(pid_t tid, int sig);
void fy_shm_kick_unregister(void);
/* Kick rank dst's registered thread now (e.g. its ring is full while it
 * computes); returns 1 if a signal was sent. */
int fy_shm_kick(int dst);
uint64_t fy_shm_kicks_sent(void);
/* Before a kick, watch the registration this long (0: signal at once); a
 * thread that enters an MPI call meanwhile gets no signal: it re-checks
 * its ring as the call returns. */
void fy_shm_set_kick_grace(double us);
/* The consumer position dst last published for its ring (it moves when dst
 * takes packets in). */
uint64_t fy_shm_ring_head(int dst);

/* ---- per-rank state ---- */
pid_t fy_shm_pid(int local);
/* Nonzero while that rank's application thread is inside the library
 * (written by the owner through fy_shm_set_in_mpi). */
_Atomic uint32_t *fy_shm_in_mpi_word(int local);
void fy_shm_set_in_mpi(uint32_t v);
/* The rank_area bytes of a local rank, shared by all local ranks (the
 * point-to-point layer keeps its rendezvous claim words there). */
void *fy_shm_rank_area(int local);

/* Sizes a new shared-memory file (shm_open'd) to len bytes and reserves
 * its pages: a /dev/shm too small for it (a container's default is 64 MiB)
 * fails here, with ENOSPC, instead of with SIGBUS at the first touch of a
 * page that finds no room, in the middle of a transfer. Returns 0 or an
 * errno value. */
int fy_shm_size_file(int fd, size_t len);
/* Maps [p, p + len) of a shared mapping into this process's page tables
 * now, allocating what no process has touched yet, if len is at most max
 * (FERRY_SHM_PREFAULT; 0: never). Each process otherwise takes a page
 * fault at its first touch of each page: one per ring cell and pipe slot
 * in the first lap (3-4 us each on a VM), and a benchmark's or an
 * application's first 64 messages pay them. Best effort: a kernel without
 * MADV_POPULATE_WRITE (before 5.14) leaves them to fault in. */
void fy_shm_prefault(void *p, size_t len, size_t max);

/* ---- bulk copy ---- */
bool fy_shm_cma_available(void);
/* Copy len bytes between local memory and peer memory; 0 on success, -1 with
 * errno (EPERM/ENOSYS/ESRCH/EFAULT...) on failure. Partial copies are
 * resumed internally. */
int fy_shm_cma_read(int peer_local, void *dst, const void *peer_src, size_t len);
int fy_shm_cma_write(int peer_local, void *peer_dst, const void *src, size_t len);
/* One process_vm_readv (write: writev) call over iovec lists (each at most
 * IOV_MAX long): the bytes moved (may be fewer than asked), or -1 with errno;
 * 0 moved is reported as -1/EFAULT. Retries EINTR. */
ssize_t fy_shm_cma_v(int peer_local, const struct iovec *local, unsigned long nl, const struct iovec *remote,
                     unsigned long nr, bool write);

/* Pipelined copy: the sender pushes chunks of buf into its own shared slots,
 * tagged with (receiver, xfer_id); the receiver pulls them in order. Each
 * side calls its function repeatedly from progress until it returns 1. */
typedef struct fy_shm_pipe {
  int peer;          /* the other side's local rank */
  uint64_t xfer_id;  /* unique per (sender, transfer), chosen by the sender */
  size_t len, done;  /* total bytes, bytes pushed (sender) or pulled (receiver) */
  uint32_t next_seq; /* next chunk sequence number */
  uint32_t hint;     /* private: the slot to look at first */
} fy_shm_pipe_t;
void fy_shm_pipe_init(fy_shm_pipe_t *p, int peer, uint64_t xfer_id, size_t len);
int fy_shm_pipe_push(fy_shm_pipe_t *p, const void *buf);  /* sender */
/* receiver: bytes past cap are drained and dropped (truncation) */
int fy_shm_pipe_pull(fy_shm_pipe_t *p, void *buf, size_t cap);
/* The same with a callback that fills (sender) or takes (receiver) the
 * bytes [off, off+len) of the transfer in a slot: derived datatypes pack
 * into and unpack from the slots directly. */
typedef void (*fy_shm_pipe_fn)(void *arg, size_t off, void *data, size_t len);
int fy_shm_pipe_push_fn(fy_shm_pipe_t *p, fy_shm_pipe_fn fill, void *arg);
int fy_shm_pipe_pull_fn(fy_shm_pipe_t *p, fy_shm_pipe_fn drain, void *arg, size_t cap);
/* A count the sender bumps (release) after each push that filled slots:
 * a receiver that has pulled everything its transfers from that sender
 * could take since it last read an unchanged count has nothing to look
 * for in the sender's slots. */
uint64_t fy_shm_pipe_pushes(int sender);
/* This process's free pipe slots (only we fill them, receivers free them:
 * the count can only grow until our next push). */
int fy_shm_pipe_free(void);
/* Whether rank dst wants to hear of rendezvous starts at once: a helper
 * sleeps for them, or a thread is registered for kicks (it computes with
 * a receive watched by its agent). */
bool fy_shm_rndv_watched(int dst);
/* Whether chunk `seq` of transfer xfer_id from `sender` to us is in its
 * slots (a sender pushes a transfer's chunks in order: then all before it
 * are there or were taken). */
bool fy_shm_pipe_has(int sender, uint64_t xfer_id, uint32_t seq);
size_t fy_shm_pipe_chunk(void);
int fy_shm_pipe_slots(void);
/* Turn cross-memory attach off (FERRY_CMA=0), after fy_shm_init (which
 * enables it); it cannot be turned on when the probe at init failed. */
void fy_shm_set_cma(bool enabled);
#endif
