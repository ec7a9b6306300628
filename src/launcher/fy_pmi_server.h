/* mpiexec's embedded PMI-1 server: one stream socket per rank, one KVS per
 * job, barriers over all ranks.
 *
 * Contract
 * - fy_pmi_server_create(size, kvsname); fy_pmi_server_attach(s, rank, fd)
 *   gives the server its end of rank's socket (the server owns and closes it).
 * - fy_pmi_server_handle(s, rank) is called when rank's fd is readable: it
 *   reads once, answers every complete command and returns 0, 1 when the
 *   rank closed its end (fd closed by the server), or -1 on a protocol error
 *   (message in fy_pmi_server_error(); the fd is closed).
 * - Commands: init, initack, get_maxes, get_appnum, get_my_kvsname,
 *   get_universe_size, put, get (PMI_process_mapping answered as
 *   "(vector,(0,1,size))" or the string set for a multi-host job; rc=-1 with a msg for a missing key), barrier_in
 *   (barrier_out to all once every rank entered), finalize, abort
 *   (exitcode=N). Anything else gets rc=-1. get_appnum answers what
 *   fy_pmi_server_set_appnum() set for the rank (default 0).
 * - State per rank is read with fy_pmi_server_rank().
 * - A relayed rank (fy_pmi_server_relay: a remote rank whose host's proxy
 *   carries its connection) has no fd here: its bytes come through
 *   fy_pmi_server_feed(), its answers go to the write function given, and
 *   fy_pmi_server_close() says its connection ended. */
#ifndef FY_PMI_SERVER_H
#define FY_PMI_SERVER_H
#include <stddef.h>

typedef struct fy_pmi_server fy_pmi_server_t;

/* the fd of a rank whose connection is relayed (open) */
#define FY_PMI_RELAYED (-2)

typedef struct fy_pmi_rank_state {
  int fd;            /* -1 once closed; FY_PMI_RELAYED while relayed */
  int inited;        /* sent init */
  int finalized;     /* sent finalize */
  int aborted;       /* sent abort */
  int abort_code;
} fy_pmi_rank_state_t;

fy_pmi_server_t *fy_pmi_server_create(int size, const char *kvsname);
void fy_pmi_server_destroy(fy_pmi_server_t *s);
void fy_pmi_server_attach(fy_pmi_server_t *s, int rank, int fd);
typedef void (*fy_pmi_write_fn)(void *ctx, int rank, const char *p, size_t n);
void fy_pmi_server_relay(fy_pmi_server_t *s, int rank, fy_pmi_write_fn fn, void *ctx);
void fy_pmi_server_close(fy_pmi_server_t *s, int rank);
void fy_pmi_server_set_appnum(fy_pmi_server_t *s, int rank, int appnum);
int fy_pmi_server_handle(fy_pmi_server_t *s, int rank);
/* Bytes already read from rank's connection (by whoever accepted it):
 * answered like data read by fy_pmi_server_handle(); 0 or -1 likewise. */
int fy_pmi_server_feed(fy_pmi_server_t *s, int rank, const char *data, size_t n);
const fy_pmi_rank_state_t *fy_pmi_server_rank(const fy_pmi_server_t *s, int rank);
const char *fy_pmi_server_error(const fy_pmi_server_t *s);
/* on = 0: answer PMI_process_mapping like any missing key (for testing the
 * clients' fallback). Default on. */
void fy_pmi_server_set_mapping(fy_pmi_server_t *s, int on);
/* The PMI_process_mapping value to answer (copied; NULL: the one-node
 * default). For jobs placed on several hosts. */
void fy_pmi_server_set_mapping_string(fy_pmi_server_t *s, const char *map);
#endif
