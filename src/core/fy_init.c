/* MPI_Init/Finalize and the environment calls (Abort, Wtime, versions,
 * processor name, thread level queries): see fy_init.h. */
#include "core/fy_init.h"
#include "core/fy_api.h"
#include "core/fy_comm.h"
#include "coll/sched/fy_sched.h"
#include "datatype/fy_datatype.h"
#include "core/fy_error.h"
#include "core/fy_request.h"
#include "core/fy_stats.h"
#include "pt2pt/fy_pt2pt.h"
#include "progress/fy_progress.h"
#include "runtime/fy_config.h"
#include "runtime/fy_pmi.h"
#include "transport/shm/fy_shm.h"
#include "fy_build_config.h"
#include "binding/fy_impl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

fy_state_t fy_state;
int fy_async_start(void);   /* progress agents (src/progress/async) */
void fy_async_stop(void);
int fy_coll_barrier(fy_comm_t *c);

static struct timespec t0;

void fy_abort(int code, const char *msg) {
  fprintf(stderr, "ferry: rank %d: %s\n", fy_state.world_rank, msg);
  fflush(stderr);
  if (fy_state.initialized || !fy_pmi_is_singleton()) fy_pmi_abort(code, msg);
  _exit(code ? code : 1);
}

static int barrier_pmi(void) { return fy_pmi_barrier(); }

const char *fy_thread_level_name(int level) {
  static const char *const name[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                     "MPI_THREAD_MULTIPLE"};
  return level >= 0 && level <= 3 ? name[level] : NULL;
}

void fy_runtime_start(int required, const char *caller) {
  char msg[MPI_MAX_ERROR_STRING + 64];
  int *local = NULL;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  fy_config_load();
  fy_state.main_thread = pthread_self();
  fy_state.thread_level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
  if (fy_state.thread_level < MPI_THREAD_SINGLE) fy_state.thread_level = MPI_THREAD_SINGLE;
  fy_thread_multiple = fy_state.thread_level == MPI_THREAD_MULTIPLE;

  if (fy_pmi_init(&fy_state.world_rank, &fy_state.world_size, &fy_state.appnum) != 0) {
    snprintf(msg, sizeof msg, "%s: cannot reach the process manager: %s", caller, fy_pmi_error());
    goto fail;
  }
  local = malloc((size_t)fy_state.world_size * sizeof *local);
  fy_state.local_of_world = malloc((size_t)fy_state.world_size * sizeof(int));
  if (!local || !fy_state.local_of_world) {
    snprintf(msg, sizeof msg, "%s: out of memory", caller);
    goto fail;
  }
  if (fy_pmi_local_ranks(local, &fy_state.local_size, &fy_state.local_rank) != 0) {
    snprintf(msg, sizeof msg, "%s: cannot find the ranks of this node: %s", caller, fy_pmi_error());
    goto fail;
  }
  /* Ranks on other hosts are reached through the fabric (pt2pt/net.c).
   * FERRY_NOLOCAL=1: every rank behaves as if alone on its node (its own
   * one-rank segment, every peer through the fabric). */
  fy_state.node_size = fy_state.local_size;
  if (fy_config.nolocal) {
    local[0] = fy_state.world_rank;
    fy_state.local_size = 1;
    fy_state.local_rank = 0;
  }
  for (int i = 0; i < fy_state.world_size; i++) fy_state.local_of_world[i] = -1;
  for (int i = 0; i < fy_state.local_size; i++) fy_state.local_of_world[local[i]] = i;
  /* A job on several nodes (or FERRY_NOLOCAL) has a segment per node: its
   * name adds the node's first rank (hosts that share /dev/shm, such as
   * test hosts in network namespaces, keep them apart), after the job's
   * prefix fy-<kvsname>- so that mpiexec's cleanup still finds it. */
  char job_id[256];
  if (fy_state.local_size < fy_state.world_size)
    snprintf(job_id, sizeof job_id, "%s-n%d", fy_pmi_kvsname(), local[0]);
  else
    snprintf(job_id, sizeof job_id, "%s", fy_pmi_kvsname());
  free(local);
  local = NULL;

  fy_shm_boot_t boot = {
    .job_id = job_id,
    .local_rank = fy_state.local_rank,
    .local_size = fy_state.local_size,
    .barrier = barrier_pmi,
    .ring_cells = fy_config.shm_cells,
    .cell_payload = fy_pt2pt_cell_bytes((size_t)fy_config.eager_threshold),
    /* (the former default's 16 KiB cells, if /dev/shm lacks room for the
     * threshold's: fy_pt2pt_init then takes its eager limit from them) */
    .cell_payload_min = fy_pt2pt_cell_bytes(16384),
    .rank_area = fy_pt2pt_area_bytes(fy_state.local_size),
    .pipe_slots = (int)fy_config.shm_pipe_slots,
    .pipe_chunk = (size_t)fy_config.shm_pipe_chunk,
    .prefault_max = (size_t)fy_config.shm_prefault,
  };
  if (fy_shm_init(&boot) != 0) {
    snprintf(msg, sizeof msg, "%s: shared-memory transport: %s", caller, fy_shm_error());
    goto fail;
  }
  fy_shm_set_cma(fy_config.cma != 0); /* (fy_shm_init starts from a clean state) */
  fy_shm_set_kick_grace(fy_config.pef_kick_grace_us);
  int err;
  if ((err = fy_type_init()) || (err = fy_pt2pt_init()) || (err = fy_comm_init(fy_state.world_rank, fy_state.world_size))) {
    int len;
    char es[MPI_MAX_ERROR_STRING];
    fy_err_string(err, es, &len);
    snprintf(msg, sizeof msg, "%s: %s", caller, es);
    goto fail;
  }
  fy_state.initialized = 1;
  if (fy_async_start() != 0) {
    snprintf(msg, sizeof msg, "%s: cannot start the asynchronous progress agent", caller);
    goto fail;
  }
  return;
fail:
  free(local);
  /* Init failures cannot be returned usefully: no communicator exists yet. */
  fy_abort(MPI_ERR_OTHER, msg);
}

void fy_runtime_stop(void) {
  /* Every process must be done with its peers' memory (rendezvous copies)
   * before any of them unmaps: a barrier orders that. */
  fy_coll_barrier(&fy_comm_world);
  fy_async_stop();
  if (fy_config.stats) fy_stats_report();
  fy_coll_barrier(&fy_comm_world);
  fy_state.finalized = 1;
  fy_sched_finalize();
  fy_pt2pt_finalize();
  fy_req_finalize();
  fy_type_finalize();
  fy_shm_finalize();
  fy_pmi_finalize();
}

/* A process that used sessions only leaves without MPI_Finalize's
 * barriers: every communication of a finalized session is complete, so no
 * peer reads this process's memory any more. But packets that completed
 * sends left queued (and ACKs, FINs) must still go out, and its fabric
 * endpoint must stay open while peers still send to it (a peer writing to
 * a closed socket fails with EPIPE): fy_pt2pt_quiesce. Then the process
 * manager hears that the process finished normally. */
static void sessions_exit(void) {
  if (!fy_state.initialized || fy_state.finalized || fy_state.world_init || fy_state.sessions) return;
  fy_async_stop();
  fy_pt2pt_quiesce();
  fy_state.finalized = 1;
  fy_pmi_finalize();
}

void fy_runtime_start_for_session(int required) {
  fy_runtime_start(required, "MPI_Session_init");
  atexit(sessions_exit);
}

static int init(int required, int *provided) {
  if (fy_state.world_init)
    return fy_err(MPI_ERR_OTHER, fy_state.world_fini ? "MPI_Init called after MPI_Finalize"
                                                     : "MPI_Init called twice");
  /* A session may have brought the runtime up already: the world model then
   * runs at its thread level. */
  if (!fy_state.initialized) fy_runtime_start(required, "MPI_Init");
  if (provided) *provided = fy_state.thread_level;
  fy_state.world_init = 1;
  return MPI_SUCCESS;
}

int fy_mpi_init(int *argc, char ***argv) { return init(MPI_THREAD_SINGLE, NULL); }

int fy_mpi_init_thread(int *argc, char ***argv, int required, int *provided) {
  return init(required, provided);
}

int fy_mpi_finalize(void) {
  /* First, MPI_COMM_SELF's attributes are deleted as if it were freed (the
   * standard's hook for libraries to clean up); a failing delete callback
   * is reported once the library is finalized. */
  if (!fy_state.world_init)
    return fy_err(MPI_ERR_OTHER, "MPI_Finalize called without MPI_Init (a session ends with MPI_Session_finalize)");
  if (fy_state.world_fini) return fy_err(MPI_ERR_OTHER, "MPI_Finalize called twice");
  int attr_err = fy_comm_finalize_attrs();
  fy_state.world_fini = 1;
  /* Open sessions keep the runtime up; the last one's finalize stops it. */
  if (!fy_state.sessions) fy_runtime_stop();
  return attr_err;
}

int fy_mpi_initialized(int *flag) {
  *flag = fy_state.world_init;
  return MPI_SUCCESS;
}

int fy_mpi_finalized(int *flag) {
  *flag = fy_state.world_fini;
  return MPI_SUCCESS;
}

int fy_mpi_query_thread(int *provided) {
  *provided = fy_state.thread_level;
  return MPI_SUCCESS;
}

int fy_mpi_is_thread_main(int *flag) {
  *flag = pthread_equal(pthread_self(), fy_state.main_thread);
  return MPI_SUCCESS;
}

int fy_mpi_abort(MPI_Comm comm, int errorcode) {
  char msg[256];
  fy_comm_t *c = fy_comm_get(comm);
  snprintf(msg, sizeof msg, "MPI_Abort(%s, %d) called", c ? c->name : "<invalid communicator>", errorcode);
  fy_abort(errorcode, msg);
}

double fy_mpi_wtime(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9;
}

double fy_mpi_wtick(void) {
  struct timespec r;
  clock_getres(CLOCK_MONOTONIC, &r);
  return (double)r.tv_sec + (double)r.tv_nsec * 1e-9;
}

int fy_mpi_get_processor_name(char *name, int *resultlen) {
  if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0) snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
  name[MPI_MAX_PROCESSOR_NAME - 1] = 0;
  *resultlen = (int)strlen(name);
  return MPI_SUCCESS;
}

int fy_mpi_get_version(int *version, int *subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int fy_mpi_get_library_version(char *version, int *resultlen) {
  snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
           "Ferry %s (MPI %d.%d, MPICH ABI, libmpi.so.12) build %s", FY_VERSION_STRING,
           MPI_VERSION, MPI_SUBVERSION, FY_BUILD_TYPE);
  *resultlen = (int)strlen(version);
  return MPI_SUCCESS;
}

/* MPI 5.0's standard ABI is not the one Ferry speaks (MPICH's): the
 * version is -1.-1, as the standard asks of a library without it. */
int fy_mpi_abi_get_version(int *abi_major, int *abi_minor) {
  if (!abi_major || !abi_minor) return fy_err(MPI_ERR_ARG, "abi_major or abi_minor = NULL");
  *abi_major = *abi_minor = -1;
  return MPI_SUCCESS;
}

/* The sizes of the integer types of this ABI, in a new info object. */
int fy_mpi_abi_get_info(MPI_Info *info) {
  if (!info) return fy_err(MPI_ERR_ARG, "info = NULL");
  static const struct { const char *key; size_t size; } kv[] = {
      {"mpi_aint_size", sizeof(MPI_Aint)}, {"mpi_count_size", sizeof(MPI_Count)},
      {"mpi_offset_size", sizeof(MPI_Offset)}};
  MPI_Info n;
  int err = fy_mpi_info_create(&n);
  if (err) return err;
  for (size_t i = 0; i < sizeof kv / sizeof kv[0] && !err; i++) {
    char v[8];
    snprintf(v, sizeof v, "%zu", kv[i].size);
    err = fy_mpi_info_set(n, kv[i].key, v);
  }
  if (err) {
    fy_mpi_info_free(&n);
    return err;
  }
  *info = n;
  return MPI_SUCCESS;
}

int fy_mpi_barrier(MPI_Comm comm) { return fy_coll_barrier(fy_comm_get(comm)); }
