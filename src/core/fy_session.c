/* Sessions (MPI 4.1 ch. 11.3), within the world model: a session is a
 * handle with its own error handler and info, and the process sets it
 * offers are the two the standard names, "mpi://WORLD" and "mpi://SELF";
 * groups made from them build communicators through
 * MPI_Comm_create_from_group. The first session opened before MPI_Init
 * brings the runtime up (core/fy_init.h: that synchronizes with the job's
 * other processes, as MPI_Init does), at the thread level its info asks
 * for ("thread_level", MPI 4.1 11.3.1; default MPI_THREAD_SINGLE); a session
 * opened later runs at the level the runtime has. Without the world model
 * the runtime stays up after the last session closes, so sessions can be
 * opened and closed again (a library's init/finalize cycles), and leaves
 * at process exit without synchronizing (fy_init.c). After MPI_Finalize
 * shut it down, a new session is refused (MPI_ERR_UNSUPPORTED_OPERATION). A buffer
 * attached to a session serves the buffered sends of the communicators
 * derived from it (pt2pt/bsend.c). */
#include "core/fy_comm.h"
#include "core/fy_error.h"
#include "core/fy_errhandler.h"
#include "core/fy_group.h"
#include "core/fy_handle.h"
#include "core/fy_info.h"
#include "core/fy_session.h"
#include "core/fy_init.h"
#include "binding/fy_impl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
  int handle;
  MPI_Errhandler errhandler;
  MPI_Info info;
  struct fy_bpool *bpool; /* MPI_Session_attach_buffer's bookkeeping, or NULL */
} fy_session_t;

static fy_htab_t session_tab = {.obj = FY_OK_SESSION};
static const char *const psets[] = {"mpi://WORLD", "mpi://SELF"};
#define NPSETS 2

static int get(MPI_Session h, fy_session_t **out) {
  *out = h == MPI_SESSION_NULL ? NULL : fy_htab_get(&session_tab, h);
  if (!*out) return fy_err(MPI_ERR_SESSION, "session = %#x is not a valid session", (unsigned)h);
  return MPI_SUCCESS;
}

struct fy_bpool **fy_session_bpool_slot(int h) {
  fy_session_t *s = h == 0 || h == MPI_SESSION_NULL ? NULL : fy_htab_get(&session_tab, h);
  return s ? &s->bpool : NULL;
}

MPI_Errhandler *fy_session_errhandler_slot(MPI_Session h) {
  fy_session_t *s = h == MPI_SESSION_NULL ? NULL : fy_htab_get(&session_tab, h);
  return s ? &s->errhandler : NULL;
}

/* The info key of a session's thread level: the standard's, and the name
 * MPI 4.0 drafts (and Ferry until 2026-11) used, still read. */
static const char *const level_keys[] = {"thread_level", "mpi_thread_support_level"};

/* The thread level a session's info asks for (MPI_THREAD_SINGLE if none). */
static int requested_level(MPI_Info info, int *level) {
  *level = MPI_THREAD_SINGLE;
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  char v[MPI_MAX_INFO_VAL + 1];
  for (int k = 0; k < 2; k++) {
    int flag = 0, len = MPI_MAX_INFO_VAL;
    int err = fy_mpi_info_get_string(info, level_keys[k], &len, v, &flag);
    if (err) return err;
    if (!flag) continue;
    for (int l = MPI_THREAD_SINGLE; fy_thread_level_name(l); l++)
      if (strcmp(v, fy_thread_level_name(l)) == 0) {
        *level = l;
        return MPI_SUCCESS;
      }
    return fy_err(MPI_ERR_INFO, "info \"%s\" = \"%s\" is not one of MPI_THREAD_SINGLE, "
                  "_FUNNELED, _SERIALIZED, _MULTIPLE", level_keys[k], v);
  }
  return MPI_SUCCESS;
}

int fy_mpi_session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session) {
  if (fy_state.finalized)
    return fy_err(MPI_ERR_UNSUPPORTED_OPERATION,
                  "MPI_Session_init after MPI_Finalize shut Ferry's runtime down: it does not start "
                  "a second time in one process");
  int level, err = requested_level(info, &level);
  if (err) return err;
  if (!fy_state.initialized) fy_runtime_start_for_session(level);
  fy_session_t *s = calloc(1, sizeof *s);
  if (!s) return fy_err(MPI_ERR_NO_MEM, "out of memory");
  s->info = MPI_INFO_NULL;
  if (info != MPI_INFO_NULL && (err = fy_info_copy(info, &s->info))) goto fail;
  s->handle = fy_htab_add(&session_tab, s);
  if (!s->handle) {
    err = fy_err(MPI_ERR_NO_MEM, "out of session handles");
    goto fail;
  }
  s->errhandler = errhandler;
  fy_errhandler_retain(errhandler);
  *session = s->handle;
  fy_state.sessions++;
  return MPI_SUCCESS;
fail:
  if (s->info != MPI_INFO_NULL) fy_info_release(s->info);
  free(s);
  return err;
}

int fy_mpi_session_finalize(MPI_Session *session) {
  fy_session_t *s;
  int err = get(*session, &s);
  if (err) return err;
  if (s->bpool) {
    /* Buffered sends still in the buffer leave it first. */
    void *buf;
    MPI_Count size;
    fy_mpi_session_detach_buffer_c(*session, &buf, &size);
    free(s->bpool);
  }
  fy_htab_remove(&session_tab, s->handle);
  fy_errhandler_release(s->errhandler);
  if (s->info != MPI_INFO_NULL) fy_info_release(s->info);
  free(s);
  *session = MPI_SESSION_NULL;
  /* The last session out after MPI_Finalize (which left the runtime up for
   * it) shuts the runtime down, collectively as MPI_Finalize would have.
   * Without the world model it stays up (see the top of this file). */
  if (--fy_state.sessions == 0 && fy_state.world_fini) fy_runtime_stop();
  return MPI_SUCCESS;
}

int fy_mpi_session_get_info(MPI_Session session, MPI_Info *info_used) {
  fy_session_t *s;
  int err = get(session, &s);
  if (err) return err;
  *info_used = MPI_INFO_NULL;
  if (s->info != MPI_INFO_NULL && (err = fy_info_copy(s->info, info_used))) return err;
  /* the thread level the session runs at: the runtime's, under both keys */
  const char *l = fy_thread_level_name(fy_state.thread_level);
  if (!l) l = fy_thread_level_name(MPI_THREAD_SINGLE);
  for (int k = 0; k < 2 && !err; k++) err = fy_info_put(info_used, level_keys[k], l);
  return err;
}

int fy_mpi_session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names) {
  fy_session_t *s;
  int err = get(session, &s);
  if (err) return err;
  *npset_names = NPSETS;
  return MPI_SUCCESS;
}

int fy_mpi_session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name) {
  fy_session_t *s;
  int err = get(session, &s);
  if (err) return err;
  if (n < 0 || n >= NPSETS) return fy_err(MPI_ERR_ARG, "n = %d: the session has %d process sets", n, NPSETS);
  int need = (int)strlen(psets[n]) + 1;
  if (*pset_len == 0) { /* a query of the length */
    *pset_len = need;
    return MPI_SUCCESS;
  }
  if (*pset_len < 0) return fy_err(MPI_ERR_ARG, "pset_len = %d is negative", *pset_len);
  if (!pset_name) return fy_err(MPI_ERR_ARG, "pset_name = NULL with pset_len = %d", *pset_len);
  snprintf(pset_name, (size_t)*pset_len, "%s", psets[n]);
  *pset_len = need;
  return MPI_SUCCESS;
}

/* Names match regardless of case ("mpi://world" too), as in MPICH. */
static int pset_index(const char *name) {
  for (int i = 0; i < NPSETS; i++)
    if (name && strcasecmp(name, psets[i]) == 0) return i;
  return -1;
}

int fy_mpi_session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info) {
  fy_session_t *s;
  int err = get(session, &s);
  if (err) return err;
  int i = pset_index(pset_name);
  if (i < 0) return fy_err(MPI_ERR_ARG, "pset_name = \"%s\" is not a process set of the session", pset_name ? pset_name : "(null)");
  char v[16];
  snprintf(v, sizeof v, "%d", i == 0 ? fy_comm_world.size : 1);
  *info = MPI_INFO_NULL;
  return fy_info_put(info, "mpi_size", v);
}

int fy_mpi_group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup) {
  fy_session_t *s;
  int err = get(session, &s);
  if (err) return err;
  int i = pset_index(pset_name);
  if (i < 0) return fy_err(MPI_ERR_ARG, "pset_name = \"%s\" is not a process set of the session", pset_name ? pset_name : "(null)");
  if ((err = fy_mpi_comm_group(i == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF, newgroup))) return err;
  fy_group_t *g = fy_group_get(*newgroup);
  if (g) g->session = s->handle;
  return MPI_SUCCESS;
}
