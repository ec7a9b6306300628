/* ofi transport: Ferry's inter-node transport over libfabric.
 *
 * Contract
 * - One reliable-datagram endpoint (FI_EP_RDM) per process, untagged
 *   messages (FI_MSG) for packets, FI_RMA (fi_read/fi_write) for bulk data,
 *   one completion queue with a wait object (FI_WAIT_FD when the provider
 *   has one). Messages between a pair of processes arrive in send order
 *   (FI_ORDER_SAS is required at init).
 * - fy_ofi_init() is collective over the job: it opens the endpoint,
 *   publishes its address (and boot->machine) with boot->put, runs
 *   boot->barrier once and reads every rank's with boot->gather where
 *   the caller gives it, else with a boot->get per rank.
 *   Returns 0, or -1 with a message in fy_ofi_error(). Without libfabric
 *   at build time (no FY_HAVE_OFI) it always fails with a message saying
 *   so.
 * - fy_ofi_send() copies the message (at most fy_ofi_msg_max() bytes; an
 *   empty one is a marker the receiver does not deliver; fy_ofi_send_ref()
 *   sends the data part from the caller's buffer instead) and
 *   never blocks nor drops it: what the provider cannot take now
 *   (-FI_EAGAIN, no free send buffer) is queued and retried by
 *   fy_ofi_poll(), in order, so per-pair order holds.
 * - Memory: fy_ofi_mr_get() registers (or finds in a small cache) a region
 *   for local and remote access; fy_ofi_mr_put() releases it. The address a
 *   peer must use is fy_ofi_mr_raddr() (virtual address or offset, as the
 *   provider's FI_MR_VIRT_ADDR says), the key fy_ofi_mr_key().
 *   fy_ofi_local_mr() says whether the local side of a transfer must be
 *   registered too (FI_MR_LOCAL); if not, fy_ofi_rma() takes mr NULL.
 * - fy_ofi_rma() reads (op FY_OFI_READ) or writes (FY_OFI_WRITE) len
 *   bytes between a local region and a peer's registered one; it is split
 *   at the provider's max_msg_size and queued on -FI_EAGAIN. cb.on_rma(ctx)
 *   is called once, from fy_ofi_poll(), when every piece has completed (for
 *   a write: once a message sent afterwards will find the data in place).
 *   A write with FY_OFI_NOTIFY also leaves an entry in the target's
 *   completion queue (remote CQ data, where the provider has it) that its
 *   fy_ofi_poll() counts and drops: a target that waits on the queue's fd
 *   then sees the write land.
 * - fy_ofi_poll() reads the completion queue and retries queued work;
 *   cb.on_msg(src, data, len) gets each arriving message (the bytes are
 *   valid during the call only, and 8-byte aligned). Callbacks may send
 *   and start RMA, not poll.
 *   Returns the number of events handled; cheap when nothing happened.
 * - Tagged messages (fy_ofi_tsend, fy_ofi_trecv), where boot->tagged
 *   asks for them and the provider has FI_TAGGED (fy_ofi_tagged_max() > 0): a send
 *   by reference that goes out in order behind the messages sent to dst
 *   before it, and a receive posted for one tag. For bulk data that a
 *   message announces: the receiver must post the receive, of exactly the
 *   length sent, as soon as the announcement arrives, since a provider
 *   may stop reading the connection at an unmatched tagged message
 *   (libfabric's net and tcp do, above a few bytes).
 * - Sleeping: fy_ofi_wait_fd() is the completion queue's file descriptor
 *   (-1 if the provider has none); fy_ofi_trywait() returns 1 when it is
 *   safe to block on it (nothing is pending), 0 when the caller must poll.
 * - Not thread-safe: callers serialise (Ferry's progress lock). Never
 *   called from a signal handler. */
#ifndef FY_OFI_H
#define FY_OFI_H
#include <stddef.h>
#include <stdint.h>

typedef struct fy_ofi_boot {
  int rank, size;
  const char *provider;   /* "" or "auto": FI_PROVIDER, else the best found */
  size_t msg_max;         /* largest message fy_ofi_send must carry */
  int mr_cache;           /* entries of the registration cache (0: none,
                           * negative: fy_ofi_mr_cache_auto of the provider) */
  int multi_recv;         /* receive into FI_MULTI_RECV buffers where the
                           * provider offers them (0: one buffer per message) */
  double connect_timeout; /* seconds the provider may refuse the first
                           * message to a peer (connecting) before the rank
                           * aborts naming the peer's address; 0: for ever */
  int (*put)(const char *key, const char *val);
  int (*barrier)(void);
  int (*get)(int rank, const char *key, char *val, size_t len);
  /* Every rank's value of key <prefix><r> into out + r * vlen ("" where
   * it could not be read), collective, after put and barrier: how the
   * addresses are read where given (fy_pmi_gather: a node's ranks share
   * the gets), else by a get per rank. */
  int (*gather)(const char *prefix, size_t vlen, char *out);
  /* Published beside the address ("" or NULL: none): ranks that give the
   * same one run on the same machine, whatever their host names say
   * (fy_ofi_machine_ranks). */
  const char *machine;
  /* Every rank of the job runs on this machine (FERRY_NOLOCAL=1 on one
   * host): take the provider's loopback address where it offers one,
   * rather than the first interface's, which may be a bridge or a
   * container's that goes away while the job runs. */
  int loopback;
  /* Every rank's node as the process manager gave it (NULL: unknown): a
   * job spanning hosts reads the interface list of one rank per other
   * node, not of every rank. */
  const int *node_of;
  /* Whether tagged messages are wanted over the provider chosen (named as
   * fy_ofi_provider() says); NULL: never. */
  int (*tagged)(const char *prov);
  /* The caller's settings that every rank must share over the provider
   * chosen, written into buf as "NAME=value ..."; they must determine
   * msg_max. NULL: none (msg_max itself is compared). Published beside
   * the address with the transport's own (provider, FI_MR_LOCAL): a rank
   * whose settings differ from another's fails fy_ofi_init with both
   * named, rather than send what the other cannot take. */
  void (*agree)(const char *prov, char *buf, size_t len);
  /* For tests (FERRY_OFI_EMULATE), what an RDMA NIC's provider would ask
   * of this one: local buffers registered (FI_MR_LOCAL), a smaller
   * max_msg_size (0: the provider's), every Nth send, injection, RMA piece
   * and tagged receive refused with FI_EAGAIN (0: never), memory keys
   * with their high 32 bits set (as a provider's own may be). */
  int emu_local_mr, emu_key64;
  size_t emu_max_msg;
  unsigned emu_eagain;
} fy_ofi_boot_t;

typedef struct fy_ofi_cb {
  void (*on_msg)(int src, const void *data, size_t len);
  void (*on_rma)(void *ctx);
  void (*on_sent)(void *ctx); /* fy_ofi_send_ref's data is free again (may be NULL) */
  void (*on_tsent)(void *ctx); /* fy_ofi_tsend's data is free again */
  void (*on_trecv)(void *ctx); /* fy_ofi_trecv's buffer holds the message */
} fy_ofi_cb_t;

typedef struct fy_ofi_mr fy_ofi_mr_t;

int fy_ofi_init(const fy_ofi_boot_t *boot, const fy_ofi_cb_t *cb);
void fy_ofi_finalize(void);
const char *fy_ofi_error(void);
/* The provider in use ("tcp;ofi_rxm"), its domain (over TCP the
 * interface: "eth0", "lo") and its limits. */
const char *fy_ofi_provider(void);
const char *fy_ofi_domain(void);
size_t fy_ofi_msg_max(void);
size_t fy_ofi_inject_size(void);
/* The largest message (the caller's bytes, as fy_ofi_send takes them) that
 * provider prov (named as fy_ofi_provider() names it) moves whole, at once:
 * above it ofi_rxm segments a message or runs a rendezvous of its own
 * (above its bounce buffers, FI_OFI_RXM_BUFFER_SIZE, 16 KiB by default),
 * slower than the caller's rendezvous. SIZE_MAX where no such limit is
 * known. Depends only on prov and the environment, so every rank that
 * chose prov gets the same. */
size_t fy_ofi_whole_max(const char *prov);
/* Ranks of the job (this one included) that published boot->machine equal
 * to ours; 0 without one. */
int fy_ofi_machine_ranks(void);
/* This rank's place among them (0 .. fy_ofi_machine_ranks() - 1). */
int fy_ofi_machine_index(void);

int fy_ofi_send(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen);
/* The same message, but dlen bytes go out of the caller's buffer (no copy):
 * it must stay untouched until cb.on_sent(ctx), called from fy_ofi_poll().
 * Same order and queueing as fy_ofi_send. Returns -1 (nothing sent) when
 * the provider wants local buffers registered or on_sent is NULL: then
 * copy with fy_ofi_send. */
int fy_ofi_send_ref(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen, void *ctx);
/* Tagged messages: fy_ofi_tagged_max() is the largest one this endpoint
 * sends (the provider's message size), 0 without them. fy_ofi_tsend sends
 * len bytes of data (at most that) under tag, out of
 * the caller's buffer, which stays untouched until cb.on_tsent(ctx);
 * returns -1 (nothing sent) without tagged messages, or where the
 * provider wants local buffers registered. fy_ofi_trecv posts a receive
 * of exactly len bytes for tag, from any peer (the tag must say which),
 * completed by cb.on_trecv(ctx); another length is fatal. */
size_t fy_ofi_tagged_max(void);
int fy_ofi_tsend(int dst, const void *data, size_t len, uint64_t tag, void *ctx);
void fy_ofi_trecv(void *buf, size_t len, uint64_t tag, void *ctx);
int fy_ofi_poll(void);
/* Make every message sent so far trackable: after it, fy_ofi_busy() stays
 * nonzero until all of them have left this process (small messages go out
 * by fi_inject, which reports no completion). Before closing. */
void fy_ofi_flush(void);
/* Work in flight or queued (sends, RMA pieces, tagged receives). */
int fy_ofi_busy(void);
/* Work queued here that the provider refused for now (-FI_EAGAIN). */
int fy_ofi_queued(void);
/* The send queue waits on a connection: its first message goes to a peer
 * that has taken none yet and was refused for more than a millisecond
 * (the provider connecting; it needs the peer's progress, which polling
 * here does not make faster). A wait may then sleep rather than poll.
 * Under the progress lock, as the queue's other calls. */
int fy_ofi_connect_stalled(void);
/* 1 when a message sent from now on reaches its peer after every write
 * started so far has landed: the provider orders sends after writes
 * (FI_ORDER_SAW) and no write waits in Ferry's queue. */
int fy_ofi_writes_ordered(void);

/* Registration cache entries for provider prov ("tcp;ofi_rxm") by
 * default: 16 where registering pins no pages (tcp, net, sockets, udp,
 * shm), 0 on RDMA NICs, where a cache without memory hooks would keep
 * the pages of a freed buffer registered under its address. */
int fy_ofi_mr_cache_auto(const char *prov);
fy_ofi_mr_t *fy_ofi_mr_get(const void *buf, size_t len);
void fy_ofi_mr_put(fy_ofi_mr_t *mr);
int fy_ofi_local_mr(void);
uint64_t fy_ofi_mr_key(const fy_ofi_mr_t *mr);
uint64_t fy_ofi_mr_raddr(const fy_ofi_mr_t *mr, const void *buf);
enum { FY_OFI_READ = 0, FY_OFI_WRITE = 1, FY_OFI_NOTIFY = 2 };
void fy_ofi_rma(int op, int peer, void *buf, size_t len, fy_ofi_mr_t *mr, uint64_t raddr, uint64_t key,
                void *ctx);

int fy_ofi_wait_fd(void);
int fy_ofi_trywait(void);

/* Without opening anything (ferry-info): the providers that offer what
 * Ferry needs, each named once, comma-separated, into offered, and the one
 * fy_ofi_init would take for `provider` into chosen, with its domain
 * ("net on eth0, lo for a job on one node"). Returns how many are
 * offered, or -1 with a message in fy_ofi_error(). */
int fy_ofi_probe(const char *provider, char *chosen, size_t clen, char *offered, size_t olen);
/* The version of the libfabric this process loads ("1.17"; it is loaded
 * at the first use, not linked), or NULL when it cannot be loaded
 * (fy_ofi_error() says why). */
const char *fy_ofi_version(void);

typedef struct fy_ofi_stats {
  uint64_t sent, injected, recvd, queued, reads, writes, rma_pieces, mr_hits, mr_misses, early;
  uint64_t landed; /* peers' notified writes into this process's memory */
  uint64_t eagain_inject, eagain_send, eagain_rma; /* FI_EAGAIN, by the call refused */
  uint64_t eagain_connect; /* FI_EAGAIN before a peer took its first message (the
                            * provider still connecting: TCP's refuse until then) */
  uint64_t realigned; /* messages a multi-receive buffer held at an address
                        * not 8-aligned, copied before delivery */
} fy_ofi_stats_t;
extern fy_ofi_stats_t fy_ofi_stats;
#endif
