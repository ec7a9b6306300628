/* Shared-memory path of the blocking Barrier, Bcast, Reduce and Allreduce
 * for small messages on one node (see fy_coll_shm.h). */
#include "coll/fy_coll_shm.h"
#include "coll/fy_coll_impl.h"
#include "binding/fy_impl.h"
#include "core/fy_init.h"
#include "progress/fy_progress.h"
#include "runtime/fy_pmi.h"
#include "transport/shm/fy_shm.h"
#include "datatype/fy_copy.h"
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* One cache line pair per rank: `arrive` = the last operation whose data
 * (or arrival) it published there (a tiny operation's arrival is its
 * slot's sequence word instead, below), `done` = the last one it has
 * finished reading for. Operations are numbered 1, 2, ... in call order
 * (the same on every rank: collectives are called in the same order). */
typedef struct {
  _Atomic uint64_t arrive;
  /* split Reduce: this rank's input and (root) result addresses for the
   * operation it last arrived at, written before `arrive` */
  uint64_t a_in, a_out;
  uint64_t a_err;   /* split Reduce: its part failed (set before `done`) */
  char pad1[32];
  _Atomic uint64_t done;
  char pad2[56];
} ctl_t;

typedef struct fy_coll_shm {
  int on;           /* 1: segment mapped; 0: this communicator uses pt2pt */
  int p, me;
  uint64_t g;       /* number of the current operation */
  uint64_t seen_done; /* every rank's `done` was at least this when last read */
  size_t slot;      /* bytes per rank and parity */
  size_t len;
  void *seg;
  ctl_t *ctl;
  char *data;       /* [2][p][slot] */
  char *small;      /* [SMALL_DEPTH][p][SMALL_SLOT] */
  char *tiny;       /* [SMALL_DEPTH][p][64]: the inline operations' slots */
  char *cur;        /* the current operation's slots: rank j's at cur + j * stride */
  size_t stride;
  int inline_op;    /* the current operation's slots are in the tiny ring */
  char *acc;        /* a private accumulator of `slot` bytes (non-contiguous results) */
  int *local;       /* local (shm) rank of each rank, for the doorbell */
  int cma;          /* every rank can use cross-memory attach (agreed at setup) */
  char *scratch;    /* split Reduce: SPLIT_CHUNK bytes, allocated on first use */
} shm_t;

/* Allreduce and Allgather on two processes: up to this size only (one
 * exchange by cross-memory attach wins beyond: at 32 KiB the segment took
 * 1.9x / 2.2x the point-to-point time in paired runs). */
#define SHM_ALLREDUCE2_MAX 4096
/* Bcast on two processes: up to this size only (beyond, the rendezvous
 * makes one copy where the segment makes two: 16 and 32 KiB 0.89x / 0.90x
 * in paired runs, 8 KiB even). */
#define SHM_BCAST2_MAX 8192
/* Allgather through the segment up to this many processes (each reads
 * p-1 blocks; measured at 2-4 only). */
#define SHM_ALLGATHER_MAXP 16

/* Operations whose data fits SMALL_SLOT bytes per rank (and barriers)
 * take their slots from a ring of SMALL_DEPTH generations instead of the
 * two parities of full slots, so a Bcast root (a Reduce's other ranks)
 * runs up to SMALL_DEPTH operations ahead of the slowest reader instead of
 * one: back-to-back small broadcasts on an oversubscribed node then cost
 * a reader's turn, not a round trip through the scheduler each. */
#define SMALL_DEPTH 32
#define SMALL_SLOT ((size_t)1024)
/* Operations whose slots hold at most SMALL_INLINE bytes (and barriers)
 * take them from a third ring, of one cache line per slot: its sequence
 * word (the number of the operation whose data it holds, stored after the
 * data), then the data from SMALL_HDR bytes in (16: aligned for every
 * predefined type). Such an operation publishes its arrival in the word,
 * so a reader takes the word and the data in one cache miss instead of
 * two (the writer's `arrive` line, then the data): 8 B operations at -n 2
 * 0.60-0.70x in paired runs. Larger ones keep their data at the start of
 * a line and publish in `arrive` (the same layout in one ring with the
 * word in front cost 64-512 B operations 1.03-1.4x). */
#define SMALL_HDR ((size_t)16)
#define SMALL_INLINE (64 - SMALL_HDR)

/* Split Reduce: bytes per cross-memory read and fold. One read of the
 * whole part and one fold measured faster than cache-sized pieces (paired
 * runs, 1 MiB: 0.86x of 128 KiB pieces, which beat 64 KiB and 32 KiB);
 * the scratch buffer (the other rank's part) is only touched as far as it
 * is used. */
#define SPLIT_CHUNK ((size_t)1 << 20)

static int keyval = MPI_KEYVAL_INVALID;
static int world_gone;       /* MPI_COMM_WORLD's attributes deleted: finalizing */
static fy_comm_t *last_comm; /* one-entry cache of the attribute lookup */
static shm_t *last_shm;

static void shm_destroy(shm_t *S) {
  if (!S) return;
  if (S->seg) munmap(S->seg, S->len);
  free(S->acc);
  free(S->scratch);
  free(S->local);
  free(S);
}

static int delete_fn(MPI_Comm comm, int kv, void *val, void *extra) {
  (void)kv;
  (void)extra;
  shm_t *S = val;
  if (last_shm == S) {
    last_shm = NULL;
    last_comm = NULL;
  }
  if (comm == MPI_COMM_WORLD) world_gone = 1;
  shm_destroy(S);
  return MPI_SUCCESS;
}

static int mode(void) {
  static int m = -1; /* 0 off, 1 auto/on */
  if (m < 0) m = strcmp(fy_config.coll_shm, "0") != 0 && strcmp(fy_config.coll_shm, "off") != 0;
  return m;
}

/* Agree on a segment: rank 0 creates it and broadcasts its name, every
 * rank maps it, and a reduction of the outcomes decides (a rank that
 * could not map it turns the path off everywhere). */
static int setup(fy_comm_t *c, shm_t *S) {
  int p = c->size, me = c->rank;
  S->slot = (size_t)fy_config.coll_shm_max;
  if (S->slot < 64) S->slot = 64;
  S->slot = (S->slot + 63) & ~(size_t)63;
  S->len = ((size_t)p * sizeof(ctl_t) + (2 * S->slot + SMALL_DEPTH * (SMALL_SLOT + 64)) * (size_t)p + 4095) &
           ~(size_t)4095;
  char name[128] = {0};
  static unsigned counter;
  if (me == 0) {
    int fd = -1;
    for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
      snprintf(name, sizeof name, "/fy-%s-coll-%d-%u", fy_pmi_kvsname(), (int)getpid(), counter++);
      fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
      if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0 || fy_shm_size_file(fd, S->len) != 0) { /* (no room: point-to-point instead) */
      if (fd >= 0) shm_unlink(name);
      name[0] = 0;
    }
    if (fd >= 0) close(fd);
  }
  fy_datatype_t *byte = fy_type_get(MPI_BYTE), *ity = fy_type_get(MPI_INT);
  fy_sched_t *s;
  TRY(fy_sched_create(c, &s));
  TRY(fy_sched_finish(s, fy_build_bcast(s, name, sizeof name, byte, 0), FY_SCHED_BLOCKING, NULL));
  int ok = 0;
  if (name[0]) {
    int fd = shm_open(name, O_RDWR, 0600);
    void *seg = fd < 0 ? MAP_FAILED : mmap(NULL, S->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0) close(fd);
    S->local = malloc((size_t)p * sizeof *S->local);
    S->acc = malloc(S->slot);
    if (p == 2) S->scratch = malloc(SPLIT_CHUNK);
    if (seg != MAP_FAILED && S->local && S->acc && (p != 2 || S->scratch)) {
      S->seg = seg;
      fy_shm_prefault(seg, S->len, (size_t)fy_config.shm_prefault);
      ok = 1;
    } else if (seg != MAP_FAILED) {
      munmap(seg, S->len);
    }
  }
  /* the outcome, and whether every rank may use cross-memory attach (a
   * split Reduce needs both sides to agree) */
  int mine[2] = {ok, fy_config.cma && fy_shm_cma_available()}, all[2] = {0, 0};
  TRY(fy_sched_create(c, &s));
  TRY(fy_sched_finish(s, fy_build_allreduce(s, mine, all, 2, ity, fy_op_get(MPI_MIN)),
                      FY_SCHED_BLOCKING, NULL));
  if (me == 0 && name[0]) shm_unlink(name); /* everyone has mapped it (or given up) */
  S->cma = all[1];
  if (!all[0]) {
    if (S->seg) munmap(S->seg, S->len);
    S->seg = NULL;
    return MPI_SUCCESS;
  }
  S->ctl = S->seg;
  S->data = (char *)S->seg + (size_t)p * sizeof(ctl_t);
  S->small = S->data + 2 * (size_t)p * S->slot;
  S->tiny = S->small + SMALL_DEPTH * (size_t)p * SMALL_SLOT;
  for (int i = 0; i < p; i++) S->local[i] = fy_state.local_of_world[fy_comm_world_rank(c, i)];
  S->p = p;
  S->me = me;
  S->on = 1;
  return MPI_SUCCESS;
}

/* The communicator's state, created by the first eligible call (every
 * rank decides the same: the setting, the group, its ranks' hosts). NULL:
 * use the point-to-point algorithms. */
static shm_t *shm_of(fy_comm_t *c) {
  if (!mode() || c->is_inter || c->size < 2 || world_gone || !fy_state.initialized ||
      fy_state.finalized)
    return NULL;
  if (c == last_comm && last_shm) return last_shm->on ? last_shm : NULL;
  if (keyval == MPI_KEYVAL_INVALID &&
      fy_mpi_comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL) != MPI_SUCCESS)
    return NULL;
  shm_t *S = NULL;
  int flag = 0;
  if (fy_mpi_comm_get_attr(c->handle, keyval, &S, &flag) != MPI_SUCCESS) return NULL;
  if (!flag) {
    S = calloc(1, sizeof *S);
    if (!S) return NULL; /* the same on every rank? no: give up for good below */
    int local = fy_comm_remote_rank(c) < 0;
    /* Only when every rank is on this node; the decision needs no
     * communication, so every rank takes it alike. */
    if (local && setup(c, S) != MPI_SUCCESS) S->on = 0;
    if (fy_mpi_comm_set_attr(c->handle, keyval, S) != MPI_SUCCESS) {
      shm_destroy(S);
      return NULL;
    }
  }
  last_comm = c;
  last_shm = S;
  return S->on ? S : NULL;
}

/* ---- waiting: the progress engine's blocking wait (spin, yield, doorbell
 * sleep), so other requests advance meanwhile and an oversubscribed node
 * does not spin; every store below rings the peers' doorbells. ---- */
typedef struct {
  shm_t *S;
  int who;      /* -1: every rank */
  int done;     /* 0: arrive, 1: done */
  uint64_t g;
} cond_t;

/* Slot j's sequence word (tiny operations only). */
static _Atomic uint64_t *seq_of(shm_t *S, int j) {
  return (_Atomic uint64_t *)(void *)(S->cur + (size_t)j * S->stride);
}

/* Arrival in an inline operation is slot `who`'s sequence word (written
 * by whoever fills that slot), in others rank `who`'s `arrive` line. */
static int cond_met(void *arg) {
  cond_t *k = arg;
  shm_t *S = k->S;
  for (int i = k->who < 0 ? 0 : k->who; i < (k->who < 0 ? S->p : k->who + 1); i++) {
    _Atomic uint64_t *w = k->done ? &S->ctl[i].done : S->inline_op ? seq_of(S, i) : &S->ctl[i].arrive;
    if (atomic_load_explicit(w, memory_order_acquire) < k->g) return 0;
  }
  return 1;
}

static void wait_for(shm_t *S, int who, int done, uint64_t g) {
  cond_t k = {S, who, done, g};
  if (!cond_met(&k)) fy_progress_wait(cond_met, &k);
}

static void ring_all(shm_t *S) {
  for (int i = 0; i < S->p; i++)
    if (i != S->me && S->local[i] >= 0) fy_shm_doorbell_ring(S->local[i]);
}

/* Publish slot j of the current inline operation (its data is in place). */
static void publish(shm_t *S, int j) { atomic_store_explicit(seq_of(S, j), S->g, memory_order_release); }

static void set_arrive(shm_t *S) {
  if (S->inline_op)
    publish(S, S->me);
  else
    atomic_store_explicit(&S->ctl[S->me].arrive, S->g, memory_order_release);
  ring_all(S);
}

static void set_done(shm_t *S) {
  atomic_store_explicit(&S->ctl[S->me].done, S->g, memory_order_release);
  ring_all(S);
}

static char *slot_of(shm_t *S, int rank) {
  return S->cur + (size_t)rank * S->stride + (S->inline_op ? SMALL_HDR : 0);
}

/* Begin operation g, which puts up to `need` bytes in each rank's slot:
 * a small one takes generation g % SMALL_DEPTH of the small ring (of the
 * tiny one if at most SMALL_INLINE bytes), last read in operation
 * g - SMALL_DEPTH or before, a larger one the full slots of g's
 * parity, last read in operation g-2 or before; every rank must be done
 * with that one. */
static void begin(shm_t *S, size_t need) {
  S->g++;
  uint64_t depth = need <= SMALL_SLOT ? SMALL_DEPTH : 2;
  /* The other ranks' `done` lines are written at every operation: reading
   * them only when what was last seen is not enough saves a cache miss per
   * small operation (on the critical path of back-to-back broadcasts). */
  if (S->g > depth && S->seen_done < S->g - depth) {
    wait_for(S, -1, 1, S->g - depth);
    uint64_t m = UINT64_MAX;
    for (int i = 0; i < S->p; i++) {
      uint64_t d = atomic_load_explicit(&S->ctl[i].done, memory_order_acquire);
      if (d < m) m = d;
    }
    S->seen_done = m;
  }
  S->inline_op = need <= SMALL_INLINE;
  if (depth == 2) {
    S->cur = S->data + (size_t)(S->g & 1) * (size_t)S->p * S->slot;
    S->stride = S->slot;
  } else if (S->inline_op) {
    S->cur = S->tiny + (size_t)(S->g % SMALL_DEPTH) * (size_t)S->p * 64;
    S->stride = 64;
  } else {
    S->cur = S->small + (size_t)(S->g % SMALL_DEPTH) * (size_t)S->p * SMALL_SLOT;
    S->stride = SMALL_SLOT;
  }
}

/* Packed bytes [off, off+len) of count items at buf into dst (put: into
 * this rank's slot). */
static void put_at(char *dst, const void *buf, MPI_Count count, fy_datatype_t *t, size_t off, size_t len) {
  if (t->is_contig)
    memcpy(dst, (const char *)buf + t->true_lb + off, len);
  else
    fy_type_pack_range(t, count, buf, off, len, dst);
}
static void put(shm_t *S, const void *buf, MPI_Count count, fy_datatype_t *t, size_t off, size_t len) {
  put_at(slot_of(S, S->me), buf, count, t, off, len);
}

static void get(const char *src, void *buf, MPI_Count count, fy_datatype_t *t, size_t off, size_t len) {
  if (t->is_contig)
    memcpy((char *)buf + t->true_lb + off, src, len);
  else
    fy_type_unpack_range(t, count, buf, off, len, src);
}

/* Whether a message of `bytes` takes the segment (the same answer on
 * every rank). Up to FERRY_COLL_SHM_MAX in one piece; Bcast and Reduce on
 * three or more processes also up to FERRY_COLL_SHM_LARGE, in slot-sized
 * pieces (each piece one operation: two slots per rank pipeline them).
 * Measured (paired runs, docs/collectives.md): at -n 4 a 256 KiB / 1 MiB
 * Bcast took 0.36x / 0.74x of point-to-point's time, Reduce 0.72x /
 * 0.64x; Allreduce lost (1.2x), as did most -n 2 cells. */
enum { K_BCAST, K_REDUCE, K_ALLREDUCE };
static int size_ok(const fy_comm_t *c, size_t bytes, int kind) {
  if (bytes == 0) return 0;
  if (bytes <= (size_t)fy_config.coll_shm_max)
    return !(c->size == 2 && ((kind == K_ALLREDUCE && bytes > SHM_ALLREDUCE2_MAX) ||
                              (kind == K_BCAST && bytes > SHM_BCAST2_MAX)));
  return c->size >= 3 && bytes <= (size_t)fy_config.coll_shm_large;
}

int fy_coll_shm_barrier(fy_comm_t *c) {
  shm_t *S = shm_of(c);
  if (!S) return FY_COLL_SHM_DECLINED;
  begin(S, 0);
  set_arrive(S);
  wait_for(S, -1, 0, S->g);
  set_done(S);
  return MPI_SUCCESS;
}

int fy_coll_shm_bcast(fy_comm_t *c, void *buf, MPI_Count count, fy_datatype_t *t, int root) {
  size_t bytes = (size_t)(count * t->size);
  if (!size_ok(c, bytes, K_BCAST)) return FY_COLL_SHM_DECLINED;
  shm_t *S = shm_of(c);
  if (!S) return FY_COLL_SHM_DECLINED;
  for (size_t off = 0; off < bytes; off += S->slot) {
    size_t len = bytes - off < S->slot ? bytes - off : S->slot;
    begin(S, len);
    if (S->me == root) {
      put(S, buf, count, t, off, len);
      set_arrive(S);
    } else {
      wait_for(S, root, 0, S->g);
      get(slot_of(S, root), buf, count, t, off, len);
    }
    set_done(S);
  }
  return MPI_SUCCESS;
}

/* The reductions fold packed data as arrays of one predefined type, in
 * rank order (x0 op (x1 op (... op x_{p-1}))): fine for non-commutative
 * operations too. Taken only for predefined operations on types whose
 * packed form is such an array (not the pair types, whose packed and
 * in-memory strides differ). */
static int reducible(fy_op_t *op, fy_datatype_t *t, fy_datatype_t **basic, MPI_Count *per) {
  if (!op || !op->builtin || op->fn || op->fn_c) return 0;
  if (!fy_type_reduce_basic(t, basic, per) || !*basic) return 0;
  return (*basic)->is_contig && (*basic)->size == (*basic)->extent && (*basic)->size > 0;
}

/* acc = x_0 op (x_1 op (... op x_{p-1})) over n items; x_j is rank j's
 * slot, or `mine` for this rank when not NULL (a Reduce root reads its
 * own contiguous input where it is instead of copying it into its slot,
 * which nobody else reads). */
static void fold(shm_t *S, fy_op_t *op, fy_datatype_t *basic, MPI_Count n, char *acc, const char *mine) {
  size_t bytes = (size_t)(n * basic->size);
#define X(j) ((j) == S->me && mine ? mine : slot_of(S, (j)))
  fy_copy(acc, X(S->p - 1), bytes);
  for (int j = S->p - 2; j >= 0; j--) fy_op_apply(op, X(j), acc, n, basic, NULL);
#undef X
}

static int reduce_common(fy_comm_t *c, const void *sbuf, void *rbuf, MPI_Count count,
                         fy_datatype_t *t, fy_op_t *op, int root) {
  size_t bytes = (size_t)(count * t->size);
  fy_datatype_t *basic;
  MPI_Count per;
  /* (Allreduce: every rank folds all p slots, which at -n 2 loses to one
   * exchange and one reduction from 32 KiB (1.9x in paired runs) but wins
   * at -n 4 (0.36x); see size_ok.) */
  if (!size_ok(c, bytes, root < 0 ? K_ALLREDUCE : K_REDUCE) || !reducible(op, t, &basic, &per))
    return FY_COLL_SHM_DECLINED;
  shm_t *S = shm_of(c);
  if (!S) return FY_COLL_SHM_DECLINED;
  const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  /* Pieces of a slot each (one operation each: the two slots pipeline
   * them); a Reduce on two processes in FERRY_COLL_SHM_PIECE2 pieces, so
   * that the root folds piece k while the other rank packs piece k+1. */
  size_t piece = S->slot;
  if (root >= 0 && S->p == 2 && fy_config.coll_shm_piece2 > 0 && (size_t)fy_config.coll_shm_piece2 < piece)
    piece = (size_t)fy_config.coll_shm_piece2;
  piece = piece / (size_t)basic->size * (size_t)basic->size; /* whole elements */
  if (piece == 0) piece = (size_t)basic->size;
  /* A Reduce root with a contiguous input of its own (not in place: the
   * result overwrites it) folds it from where it is. */
  int direct = root >= 0 && S->me == root && t->is_contig && sbuf != MPI_IN_PLACE;
  for (size_t off = 0; off < bytes; off += piece) {
    size_t len = bytes - off < piece ? bytes - off : piece;
    begin(S, len);
    if (!direct) put(S, in, count, t, off, len);
    set_arrive(S);
    if (root < 0 || S->me == root) {
      wait_for(S, -1, 0, S->g);
      MPI_Count n = (MPI_Count)(len / (size_t)basic->size);
      const char *mine = direct ? (const char *)in + t->true_lb + off : NULL;
      if (t->is_contig) {
        fold(S, op, basic, n, (char *)rbuf + t->true_lb + off, mine);
      } else {
        fold(S, op, basic, n, S->acc, NULL);
        get(S->acc, rbuf, count, t, off, len);
      }
    }
    set_done(S);
  }
  return MPI_SUCCESS;
}

/* Reduce on two processes (contiguous data larger than
 * FERRY_COLL_SHM_SPLIT), both folding: the root computes bytes [0, h)
 * of the result, the other rank [h, n) (h = FERRY_COLL_SHM_SPLIT_ROOT
 * percent, whole elements). Each publishes its input's address (the root
 * also its result's) in the control line, reads the other's input for its
 * part by cross-memory attach in cache-sized pieces and folds each piece
 * at once, so each byte crosses between the cores once and is folded
 * while it is in cache; the other rank writes its folded pieces into the
 * root's result by cross-memory attach (the root never reads them). The
 * root's share is the larger one because the other rank also writes.
 * Both then wait for each other's `done`: neither buffer may go away
 * while the other still reads or writes it. Predefined operations are
 * commutative: each part is folded as own op other's (as the rotated
 * binomial tree does). Contiguous types only (the same on both ranks: a
 * Reduce's datatype is). */
static int reduce_split(shm_t *S, const void *sbuf, void *rbuf, MPI_Count count, fy_datatype_t *t,
                        fy_op_t *op, int root, fy_datatype_t *basic) {
  size_t es = (size_t)basic->size, bytes = (size_t)(count * t->size);
  int me = S->me, peer = 1 - me, lp = S->local[peer], in_place = sbuf == MPI_IN_PLACE;
  const char *in = (const char *)(in_place ? rbuf : sbuf) + t->true_lb;
  char *out = (char *)rbuf + t->true_lb; /* the root's only */
  long pct = fy_config.coll_shm_split_root;
  if (pct < 0) pct = 0;
  if (pct > 100) pct = 100;
  size_t h = (size_t)((double)bytes * (double)pct / 100.0) / es * es;
  begin(S, 0);
  S->ctl[me].a_in = (uint64_t)(uintptr_t)in;
  S->ctl[me].a_out = me == root ? (uint64_t)(uintptr_t)out : 0;
  S->ctl[me].a_err = 0;
  set_arrive(S);
  wait_for(S, peer, 0, S->g);
  uint64_t pin = S->ctl[peer].a_in, pout = S->ctl[peer].a_out;
  int rc = 0, err_no = 0;
  size_t lo = me == root ? 0 : h, hi = me == root ? h : bytes;
  for (size_t off = lo; off < hi && !rc; off += SPLIT_CHUNK) {
    size_t len = hi - off < SPLIT_CHUNK ? hi - off : SPLIT_CHUNK;
    MPI_Count n = (MPI_Count)(len / es);
    const void *from = (const void *)(uintptr_t)(pin + off);
    if (me == root && !in_place) { /* read straight into the result, fold there */
      rc = fy_shm_cma_read(lp, out + off, from, len);
      if (!rc) fy_op_apply(op, in + off, out + off, n, basic, NULL);
    } else {
      rc = fy_shm_cma_read(lp, S->scratch, from, len);
      if (!rc) fy_op_apply(op, in + off, S->scratch, n, basic, NULL);
      if (!rc && me == root) fy_copy(out + off, S->scratch, len);
      else if (!rc) rc = fy_shm_cma_write(lp, (void *)(uintptr_t)(pout + off), S->scratch, len);
    }
    if (rc) err_no = errno;
  }
  S->ctl[me].a_err = rc != 0;
  set_done(S);
  wait_for(S, peer, 1, S->g);
  if (rc)
    return fy_err(MPI_ERR_OTHER, "reduce: cross-memory copy with rank %d failed: %s", peer, strerror(err_no));
  if (me == root && S->ctl[peer].a_err)
    return fy_err(MPI_ERR_OTHER, "reduce: rank %d could not write its part of the result", peer);
  return MPI_SUCCESS;
}

int fy_coll_shm_reduce(fy_comm_t *c, const void *sbuf, void *rbuf, MPI_Count count,
                       fy_datatype_t *t, fy_op_t *op, int root) {
  size_t bytes = (size_t)(count * t->size);
  fy_datatype_t *basic;
  MPI_Count per;
  if (c->size == 2 && fy_config.coll_shm_split > 0 && bytes > (size_t)fy_config.coll_shm_split &&
      t->is_contig && reducible(op, t, &basic, &per)) {
    shm_t *S = shm_of(c);
    if (!S) return FY_COLL_SHM_DECLINED;
    if (S->cma) return reduce_split(S, sbuf, rbuf, count, t, op, root, basic);
  }
  return reduce_common(c, sbuf, rbuf, count, t, op, root);
}

int fy_coll_shm_allreduce(fy_comm_t *c, const void *sbuf, void *rbuf, MPI_Count count,
                          fy_datatype_t *t, fy_op_t *op) {
  size_t bytes = (size_t)(count * t->size);
  if (bytes <= (size_t)fy_config.coll_shm_max) return reduce_common(c, sbuf, rbuf, count, t, op, -1);
  /* Beyond one slot every rank folding every piece costs p times the
   * reads: reduce to rank 0, then broadcast, both in pieces. */
  if (!size_ok(c, bytes, K_ALLREDUCE)) return FY_COLL_SHM_DECLINED;
  int e = reduce_common(c, sbuf, rbuf, count, t, op, 0); /* (declines alike everywhere) */
  if (e) return e;
  return fy_coll_shm_bcast(c, rbuf, count, t, 0);
}

static int gather_cma(shm_t *S, int all, const void *sbuf, MPI_Count scount, fy_datatype_t *st, void *rbuf,
                      MPI_Count rcount, fy_datatype_t *rt, size_t B);

/* Allgather: every rank packs its block into its slot once and unpacks
 * everyone else's (a copy in and p-1 copies out per rank, no messages).
 * Paired runs against FERRY_COLL_SHM=0: 0.39-0.87x at -n 2 (8 B-4 KiB),
 * 0.25-0.66x at -n 4 (8 B-32 KiB). Larger blocks (FERRY_COLL_SHM_AG) by
 * cross-memory attach, below. */
int fy_coll_shm_allgather(fy_comm_t *c, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                          void *rbuf, MPI_Count rcount, fy_datatype_t *rt) {
  size_t B = (size_t)(rcount * rt->size);
  /* Decided on the receive side only (the same everywhere); a send side
   * that does not match it is reported here after taking part. */
  if (B == 0) return FY_COLL_SHM_DECLINED;
  if (B > (size_t)fy_config.coll_shm_max || c->size > SHM_ALLGATHER_MAXP ||
      (c->size == 2 && B > SHM_ALLREDUCE2_MAX)) {
    if (fy_config.coll_shm_ag <= 0 || B < (size_t)fy_config.coll_shm_ag) return FY_COLL_SHM_DECLINED;
    shm_t *S = shm_of(c);
    if (!S || !S->cma) return FY_COLL_SHM_DECLINED;
    return gather_cma(S, 1, sbuf, scount, st, rbuf, rcount, rt, B);
  }
  shm_t *S = shm_of(c);
  if (!S) return FY_COLL_SHM_DECLINED;
  char *mine = fy_at(rbuf, (MPI_Aint)(S->me * rcount), rt);
  size_t own = sbuf == MPI_IN_PLACE ? B : (size_t)(scount * st->size);
  begin(S, B);
  if (sbuf == MPI_IN_PLACE)
    put(S, mine, rcount, rt, 0, B);
  else
    put(S, sbuf, scount, st, 0, own < B ? own : B);
  set_arrive(S);
  if (sbuf != MPI_IN_PLACE) get(slot_of(S, S->me), mine, rcount, rt, 0, own < B ? own : B);
  wait_for(S, -1, 0, S->g);
  for (int k = 1; k < S->p; k++) {
    int j = (S->me + k) % S->p; /* start at different slots: spread the reads */
    get(slot_of(S, j), fy_at(rbuf, (MPI_Aint)(j * rcount), rt), rcount, rt, 0, B);
  }
  set_done(S);
  if (own != B)
    return fy_err(MPI_ERR_TRUNCATE, "allgather: this process sends %zu bytes, the receive blocks hold %zu",
                  own, B);
  return MPI_SUCCESS;
}

/* Gather and Scatter of small blocks: rank j's block travels in rank j's
 * slot of the operation, behind its byte count (a Scatter's root fills
 * every slot, a Gather's root reads every slot), with no message at all.
 * The count lets a receive smaller than what was sent fail with
 * MPI_ERR_TRUNCATE, as the point-to-point transfer would; it sits in the
 * slot, not in the control line, because a writer may run up to
 * SMALL_DEPTH operations ahead of the reader. The root's own block is the
 * caller's (rooted.c). */
#define ROOTED_HDR ((size_t)16)
int fy_coll_shm_rooted(fy_comm_t *c, int gather, const void *sbuf, MPI_Count sn, fy_datatype_t *st,
                       void *rbuf, MPI_Count rn, fy_datatype_t *rt, int root) {
  int is_root = c->rank == root;
  /* Each rank's view of one block (the same on every rank of a correct
   * program, like every size decision of this file). */
  size_t B = gather == is_root ? (size_t)(rn * rt->size) : (size_t)(sn * st->size);
  if (B == 0 || B > SMALL_SLOT - ROOTED_HDR || B > (size_t)fy_config.coll_shm_max) return FY_COLL_SHM_DECLINED;
  shm_t *S = shm_of(c);
  if (!S) return FY_COLL_SHM_DECLINED;
  begin(S, B + ROOTED_HDR);
  int err = MPI_SUCCESS;
  if (gather != is_root) { /* a writer: a Gather's sender, a Scatter's root */
    for (int j = is_root ? 0 : S->me; j < (is_root ? S->p : S->me + 1); j++) {
      if (is_root && j == S->me) continue;
      char *slot = slot_of(S, j);
      const void *src = is_root ? fy_at(sbuf, (MPI_Aint)(j * sn), st) : sbuf;
      memcpy(slot, &B, sizeof B);
      put_at(slot + ROOTED_HDR, src, sn, st, 0, B);
      if (S->inline_op) publish(S, j);
    }
    /* nothing to read: done at once, one ring */
    if (!S->inline_op) atomic_store_explicit(&S->ctl[S->me].arrive, S->g, memory_order_release);
    set_done(S);
    return MPI_SUCCESS;
  }
  size_t cap = (size_t)(rn * rt->size);
  for (int k = 0; k < S->p; k++) {
    int j = gather ? k : S->me, from = gather ? k : root;
    if (gather && j == S->me) continue;
    wait_for(S, S->inline_op ? j : from, 0, S->g); /* (slot j, which `from` filled) */
    const char *slot = slot_of(S, j);
    size_t n;
    memcpy(&n, slot, sizeof n);
    get(slot + ROOTED_HDR, gather ? fy_at(rbuf, (MPI_Aint)(j * rn), rt) : rbuf, rn, rt, 0, n < cap ? n : cap);
    if (n > cap && !err)
      err = fy_err(MPI_ERR_TRUNCATE, "%s: %zu bytes sent by rank %d, the receive block holds %zu",
                   gather ? "gather" : "scatter", n, from, cap);
    if (!gather) break;
  }
  set_done(S);
  return err;
}

/* Alltoall and Allgather of large blocks by cross-memory attach: every
 * rank publishes where its send blocks are (base and stride in its control
 * line, with a flag: contiguous send and receive blocks, not in place for
 * an alltoall), then reads its block from every other rank's send buffer
 * straight into its receive buffer, one call per block, in no particular
 * pairing: a rank never waits for a partner to be scheduled between its
 * reads, only at the start (everyone has published) and at the end
 * (everyone has read, so the send buffers may be reused). An allgather's
 * stride is 0 (every reader takes the same block), and in place its block
 * is read from the receive buffer, which its owner does not write. When
 * any rank's flag is off, every rank sees it and all decline together
 * (point-to-point instead). */
static int gather_cma(shm_t *S, int all, const void *sbuf, MPI_Count scount, fy_datatype_t *st, void *rbuf,
                      MPI_Count rcount, fy_datatype_t *rt, size_t B) {
  int me = S->me, p = S->p;
  char *out = (char *)rbuf + rt->true_lb;
  size_t rstride = (size_t)(rcount * rt->extent);
  int in_place = sbuf == MPI_IN_PLACE;
  int ok = rt->is_contig && (in_place ? all : st->is_contig && (size_t)(scount * st->size) == B);
  const char *base = !ok ? NULL : in_place ? out + (size_t)me * rstride : (const char *)sbuf + st->true_lb;
  begin(S, 0);
  S->ctl[me].a_in = (uint64_t)(uintptr_t)base;
  S->ctl[me].a_out = ok && !all ? (uint64_t)(scount * st->extent) : 0;
  S->ctl[me].a_err = !ok;
  set_arrive(S);
  wait_for(S, -1, 0, S->g);
  int agreed = 1;
  for (int j = 0; j < p; j++) agreed &= S->ctl[j].a_err == 0;
  if (!agreed) {
    set_done(S); /* nobody reads anybody's buffers */
    return FY_COLL_SHM_DECLINED;
  }
  if (!in_place) fy_copy(out + (size_t)me * rstride, base + (all ? 0 : (size_t)me * (size_t)(scount * st->extent)), B);
  int rc = 0, err_no = 0, bad = -1;
  for (int k = 1; k < p && !rc; k++) {
    int j = (me + k) % p;
    const void *from = (const void *)(uintptr_t)(S->ctl[j].a_in + (uint64_t)me * S->ctl[j].a_out);
    rc = fy_shm_cma_read(S->local[j], out + (size_t)j * rstride, from, B);
    if (rc) {
      err_no = errno;
      bad = j;
    }
  }
  set_done(S);
  wait_for(S, -1, 1, S->g);
  if (rc)
    return fy_err(MPI_ERR_OTHER, "%s: cross-memory read from rank %d failed: %s", all ? "allgather" : "alltoall", bad,
                  strerror(err_no));
  return MPI_SUCCESS;
}

/* Alltoall: every rank packs its p blocks into its slot (block j for rank
 * j at j*B), then unpacks block `me` of every slot. In place needs no
 * copy-out: the blocks are in the slot before anything is written back.
 * Larger blocks (FERRY_COLL_SHM_A2A) by cross-memory attach, above. */
int fy_coll_shm_alltoall(fy_comm_t *c, const void *sbuf, MPI_Count scount, fy_datatype_t *st,
                         void *rbuf, MPI_Count rcount, fy_datatype_t *rt) {
  size_t B = (size_t)(rcount * rt->size), p = (size_t)c->size;
  if (B == 0) return FY_COLL_SHM_DECLINED;
  if (B * p > (size_t)fy_config.coll_shm_max || c->size > SHM_ALLGATHER_MAXP ||
      (c->size == 2 && B * p > SHM_ALLREDUCE2_MAX)) {
    if (fy_config.coll_shm_a2a <= 0 || B < (size_t)fy_config.coll_shm_a2a) return FY_COLL_SHM_DECLINED;
    shm_t *S = shm_of(c);
    if (!S || !S->cma) return FY_COLL_SHM_DECLINED;
    return gather_cma(S, 0, sbuf, scount, st, rbuf, rcount, rt, B);
  }
  shm_t *S = shm_of(c);
  if (!S) return FY_COLL_SHM_DECLINED;
  int in_place = sbuf == MPI_IN_PLACE;
  size_t own = in_place ? B : (size_t)(scount * st->size), len = own < B ? own : B;
  begin(S, B * p);
  char *slot = slot_of(S, S->me);
  for (int j = 0; j < S->p; j++) {
    const void *src = in_place ? (const void *)fy_at(rbuf, (MPI_Aint)(j * rcount), rt)
                               : (const void *)fy_at(sbuf, (MPI_Aint)(j * scount), st);
    fy_datatype_t *t = in_place ? rt : st;
    MPI_Count n = in_place ? rcount : scount;
    if (t->is_contig)
      memcpy(slot + (size_t)j * B, (const char *)src + t->true_lb, len);
    else
      fy_type_pack_range(t, n, src, 0, len, slot + (size_t)j * B);
  }
  set_arrive(S);
  wait_for(S, -1, 0, S->g);
  for (int k = 0; k < S->p; k++) {
    int j = (S->me + k) % S->p;
    const char *from = slot_of(S, j) + (size_t)S->me * B;
    get(from, fy_at(rbuf, (MPI_Aint)(j * rcount), rt), rcount, rt, 0, B);
  }
  set_done(S);
  if (own != B)
    return fy_err(MPI_ERR_TRUNCATE, "alltoall: this process sends %zu bytes per block, the receive blocks hold %zu",
                  own, B);
  return MPI_SUCCESS;
}
