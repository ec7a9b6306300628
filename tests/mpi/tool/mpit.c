/* MPI_T: control variables are Ferry's FERRY_* settings, performance
 * variables its counters.
 * - before MPI_Init: MPI_T_init_thread; every cvar listed, names unique
 *   and FERRY_ / MPIEXEC_, the settings ferry-info documents found by name;
 *   the string length rules (len in = buffer size, out = length + 1, a
 *   short buffer truncates with a NUL); a double and a string cvar set
 *   through the environment (see CMakeLists) read back; writes refused
 *   with MPI_T_ERR_CVAR_SET_NEVER; bad index / name / handle errors;
 * - categories cover every cvar and pvar exactly once; no events, no
 *   sources;
 * - after MPI_Init: a pvar session counts the eager messages this rank
 *   sends between start and stop (exactly), reset, write, readreset,
 *   MPI_T_PVAR_ALL_HANDLES;
 * - the fabric's counters (category ferry_net): rank 0 sends rank 1 five
 *   eager messages of 8 bytes, an MPI_Isend of 16 KiB, an MPI_Send of
 *   8 KiB and one of 1 MiB. Over the fabric (FERRY_NOLOCAL=1, read through
 *   its cvar, default provider, which wants no registered local buffers)
 *   rank 0 counts exactly 7 eager sends, of which exactly the 2 of 8 KiB
 *   and more went out of the user's buffer uncopied (from 2026-11-28 to
 *   12-03 MPI_Send's and MPI_Isend's request-free path copied them), and
 *   hands libfabric at least 8 messages; rank 1 receives at least 8, each
 *   with its content, and makes exactly one rendezvous receive (by read or
 *   by the sender's write); over shared memory every one of them stays 0;
 * - after MPI_Finalize MPI_T still answers until the last MPI_T_finalize;
 *   then MPI_T_ERR_NOT_INITIALIZED. */
#include "fytest.h"
#include <string.h>

#define EQ(call, want)                                                             \
    do {                                                                           \
        int r_ = (call);                                                           \
        if (r_ != (want)) fy_fail(__FILE__, __LINE__, "%s returned %d, expected %d", #call, r_, (int)(want)); \
    } while (0)

static const char *known[] = {"FERRY_STATS", "FERRY_EAGER_THRESHOLD", "FERRY_PROGRESS", "FERRY_MQ",
                              "FERRY_PEF_PERIOD_US", "FERRY_COLL_BCAST", "FERRY_CMA", "MPIEXEC_TIMEOUT"};

static int cvar_index(const char *name)
{
    int i = -1;
    EQ(MPI_T_cvar_get_index(name, &i), MPI_SUCCESS);
    return i;
}

static void cvars(void)
{
    int n = 0;
    EQ(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    CHECK(n >= 40, "only %d cvars", n);
    char (*names)[128] = calloc((size_t)n, 128);
    for (int i = 0; i < n; i++) {
        int nl = 128, dl = 0, verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        EQ(MPI_T_cvar_get_info(i, names[i], &nl, &verb, &dt, &en, NULL, &dl, &bind, &scope), MPI_SUCCESS);
        CHECK(nl == (int)strlen(names[i]) + 1, "cvar %d name_len %d for '%s'", i, nl, names[i]);
        CHECK(!strncmp(names[i], "FERRY_", 6) || !strncmp(names[i], "MPIEXEC_", 8), "cvar name '%s'", names[i]);
        CHECK(dl > 1, "cvar %s: no description (desc_len %d)", names[i], dl);
        CHECK(bind == MPI_T_BIND_NO_OBJECT && scope == MPI_T_SCOPE_READONLY && en == MPI_T_ENUM_NULL,
              "cvar %s: bind %d scope %d", names[i], bind, scope);
        CHECK(dt == MPI_LONG || dt == MPI_INT || dt == MPI_DOUBLE || dt == MPI_CHAR, "cvar %s type", names[i]);
        for (int j = 0; j < i; j++) CHECK(strcmp(names[i], names[j]), "cvar %s twice", names[i]);
        CHECK(cvar_index(names[i]) == i, "get_index(%s) != %d", names[i], i);
    }
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) CHECK(cvar_index(known[k]) >= 0, "%s missing", known[k]);
    free(names);

    /* string rules: a 6-byte buffer gets 5 characters and a NUL */
    char small[6] = "xxxxxx";
    int sl = 6;
    EQ(MPI_T_cvar_get_info(cvar_index("FERRY_EAGER_THRESHOLD"), small, &sl, NULL, NULL, NULL, NULL, NULL, NULL,
                           NULL), MPI_SUCCESS);
    CHECK(!strcmp(small, "FERRY") && sl == 6, "truncated name '%s' len %d", small, sl);

    /* values set through the environment (CMakeLists: FERRY_MQ_ADJUSTMENT=3.5, FERRY_COLL_BCAST=binomial) */
    MPI_T_cvar_handle h;
    int count = 0;
    EQ(MPI_T_cvar_handle_alloc(cvar_index("FERRY_MQ_ADJUSTMENT"), NULL, &h, &count), MPI_SUCCESS);
    double d = 0;
    EQ(MPI_T_cvar_read(h, &d), MPI_SUCCESS);
    CHECK(count == 1 && d == 3.5, "FERRY_MQ_ADJUSTMENT read %g (count %d)", d, count);
    EQ(MPI_T_cvar_write(h, &d), MPI_T_ERR_CVAR_SET_NEVER);
    EQ(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle not nulled");
    EQ(MPI_T_cvar_handle_alloc(cvar_index("FERRY_COLL_BCAST"), NULL, &h, &count), MPI_SUCCESS);
    char s[64] = "";
    CHECK(count == 9, "string count %d", count);
    if (count <= 64) EQ(MPI_T_cvar_read(h, s), MPI_SUCCESS);
    CHECK(!strcmp(s, "binomial"), "FERRY_COLL_BCAST read '%s'", s);
    EQ(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    EQ(MPI_T_cvar_handle_alloc(cvar_index("FERRY_CMA"), NULL, &h, &count), MPI_SUCCESS);
    int b = -1;
    EQ(MPI_T_cvar_read(h, &b), MPI_SUCCESS);
    CHECK(b == 0 || b == 1, "FERRY_CMA read %d", b);
    EQ(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);

    int i;
    EQ(MPI_T_cvar_get_index("FERRY_NO_SUCH_THING", &i), MPI_T_ERR_INVALID_NAME);
    EQ(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    EQ(MPI_T_cvar_handle_alloc(-1, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    EQ(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &b), MPI_T_ERR_INVALID_HANDLE);
}

static void categories(void)
{
    int nc = 0, ncv = 0, npv = 0, sc = 0, sp = 0;
    EQ(MPI_T_category_get_num(&nc), MPI_SUCCESS);
    EQ(MPI_T_cvar_get_num(&ncv), MPI_SUCCESS);
    EQ(MPI_T_pvar_get_num(&npv), MPI_SUCCESS);
    int *seen = calloc((size_t)ncv + 1, sizeof(int)), *pseen = calloc((size_t)npv + 1, sizeof(int));
    for (int c = 0; c < nc; c++) {
        char name[64];
        int nl = 64, a, p, sub, ne = -1;
        EQ(MPI_T_category_get_info(c, name, &nl, NULL, NULL, &a, &p, &sub), MPI_SUCCESS);
        int idx = -1;
        EQ(MPI_T_category_get_index(name, &idx), MPI_SUCCESS);
        CHECK(idx == c, "category %s index %d", name, idx);
        int *ix = malloc(sizeof(int) * (size_t)(a + p + 1));
        EQ(MPI_T_category_get_cvars(c, a, ix), MPI_SUCCESS);
        for (int k = 0; k < a; k++) seen[ix[k]]++;
        EQ(MPI_T_category_get_pvars(c, p, ix), MPI_SUCCESS);
        for (int k = 0; k < p; k++) pseen[ix[k]]++;
        free(ix);
        EQ(MPI_T_category_get_num_events(c, &ne), MPI_SUCCESS);
        CHECK(ne == 0 && sub == 0, "category %s: %d events %d subcategories", name, ne, sub);
        sc += a;
        sp += p;
    }
    CHECK(nc >= 5 && sc == ncv && sp == npv, "%d categories hold %d/%d cvars, %d/%d pvars", nc, sc, ncv, sp, npv);
    for (int i = 0; i < ncv; i++) CHECK(seen[i] == 1, "cvar %d in %d categories", i, seen[i]);
    for (int i = 0; i < npv; i++) CHECK(pseen[i] == 1, "pvar %d in %d categories", i, pseen[i]);
    free(seen);
    free(pseen);
    int x = -1;
    EQ(MPI_T_category_get_index("nope", &x), MPI_T_ERR_INVALID_NAME);
    EQ(MPI_T_source_get_num(&x), MPI_SUCCESS);
    CHECK(x == 0, "%d sources", x);
    EQ(MPI_T_event_get_num(&x), MPI_SUCCESS);
    CHECK(x == 0, "%d events", x);
    EQ(MPI_T_event_get_index("x", &x), MPI_T_ERR_INVALID_NAME);
}

static void pvars(int rank, int size)
{
    int idx = -1, cls, ro, cont, at, count;
    MPI_Datatype dt;
    EQ(MPI_T_pvar_get_index("ferry_pt2pt_eager_sent", MPI_T_PVAR_CLASS_COUNTER, &idx), MPI_SUCCESS);
    EQ(MPI_T_pvar_get_index("ferry_pt2pt_eager_sent", MPI_T_PVAR_CLASS_LEVEL, &cls), MPI_T_ERR_INVALID_NAME);
    EQ(MPI_T_pvar_get_info(idx, NULL, NULL, NULL, &cls, &dt, NULL, NULL, NULL, NULL, &ro, &cont, &at), MPI_SUCCESS);
    CHECK(cls == MPI_T_PVAR_CLASS_COUNTER && dt == MPI_UNSIGNED_LONG_LONG && !cont, "pvar info");
    MPI_T_pvar_session ses;
    MPI_T_pvar_handle h, h2;
    EQ(MPI_T_pvar_session_create(&ses), MPI_SUCCESS);
    EQ(MPI_T_pvar_handle_alloc(ses, idx, NULL, &h, &count), MPI_SUCCESS);
    EQ(MPI_T_pvar_handle_alloc(ses, idx, NULL, &h2, &count), MPI_SUCCESS);
    CHECK(count == 1, "count %d", count);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    unsigned long long v = 99;
    char buf[8] = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    EQ(MPI_T_pvar_read(ses, h, &v), MPI_SUCCESS);
    CHECK(v == 0, "a stopped handle counted %llu", v);
    EQ(MPI_T_pvar_start(ses, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    MPI_Request rq[10];
    for (int i = 0; i < 10; i++) MPI_Irecv(buf, 8, MPI_BYTE, from, 40 + i, MPI_COMM_WORLD, &rq[i]);
    for (int i = 0; i < 10; i++) MPI_Send(buf, 8, MPI_BYTE, to, 40 + i, MPI_COMM_WORLD);
    MPI_Waitall(10, rq, MPI_STATUSES_IGNORE);
    EQ(MPI_T_pvar_stop(ses, h), MPI_SUCCESS);
    EQ(MPI_T_pvar_read(ses, h, &v), MPI_SUCCESS);
    CHECK(v == 10, "eager_sent counted %llu, expected 10", v);
    MPI_Send(buf, 8, MPI_BYTE, to, 60, MPI_COMM_WORLD); /* h stopped, h2 running */
    MPI_Recv(buf, 8, MPI_BYTE, from, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EQ(MPI_T_pvar_read(ses, h, &v), MPI_SUCCESS);
    CHECK(v == 10, "stopped handle moved to %llu", v);
    EQ(MPI_T_pvar_readreset(ses, h2, &v), MPI_SUCCESS);
    CHECK(v == 11, "running handle %llu, expected 11", v);
    EQ(MPI_T_pvar_read(ses, h2, &v), MPI_SUCCESS);
    CHECK(v == 0, "after readreset %llu", v);
    unsigned long long w = 1000;
    EQ(MPI_T_pvar_write(ses, h, &w), MPI_SUCCESS);
    EQ(MPI_T_pvar_read(ses, h, &v), MPI_SUCCESS);
    CHECK(v == 1000, "written handle reads %llu", v);
    EQ(MPI_T_pvar_reset(ses, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    EQ(MPI_T_pvar_read(ses, h, &v), MPI_SUCCESS);
    CHECK(v == 0, "reset handle reads %llu", v);
    EQ(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, h, &v), MPI_T_ERR_INVALID_SESSION);
    EQ(MPI_T_pvar_handle_alloc(ses, 9999, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    EQ(MPI_T_pvar_handle_free(ses, &h), MPI_SUCCESS);
    CHECK(h == MPI_T_PVAR_HANDLE_NULL, "pvar handle not nulled");
    EQ(MPI_T_pvar_session_free(&ses), MPI_SUCCESS); /* frees h2 with it */
    CHECK(ses == MPI_T_PVAR_SESSION_NULL, "session not nulled");
}

static unsigned long long pvar_delta(MPI_T_pvar_session ses, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    EQ(MPI_T_pvar_read(ses, h, &v), MPI_SUCCESS);
    return v;
}

static void fabric(int rank, int size)
{
    enum { EAGER, REF, SENT, INJECTED, RECVD, RGET, RPUT, AHEAD, N };
    static const char *names[N] = {"ferry_net_eager", "ferry_net_eager_ref", "ferry_ofi_sent", "ferry_ofi_injected",
                                   "ferry_ofi_recvd", "ferry_net_rget", "ferry_net_rput", "ferry_net_ahead"};
    int nolocal = 0, idx, count, cat = -1, np = 0;
    MPI_T_cvar_handle ch;
    EQ(MPI_T_cvar_handle_alloc(cvar_index("FERRY_NOLOCAL"), NULL, &ch, &count), MPI_SUCCESS);
    EQ(MPI_T_cvar_read(ch, &nolocal), MPI_SUCCESS);
    EQ(MPI_T_cvar_handle_free(&ch), MPI_SUCCESS);
    EQ(MPI_T_category_get_index("ferry_net", &cat), MPI_SUCCESS);
    EQ(MPI_T_category_get_info(cat, NULL, NULL, NULL, NULL, NULL, &np, NULL), MPI_SUCCESS);
    CHECK(np >= N, "ferry_net holds %d pvars", np);
    MPI_T_pvar_session ses;
    MPI_T_pvar_handle h[N];
    EQ(MPI_T_pvar_session_create(&ses), MPI_SUCCESS);
    for (int i = 0; i < N; i++) {
        EQ(MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &idx), MPI_SUCCESS);
        EQ(MPI_T_pvar_handle_alloc(ses, idx, NULL, &h[i], &count), MPI_SUCCESS);
    }
    enum { BIG = 1 << 20, MID = 16384 };
    char *buf = calloc(BIG, 1), *mid = malloc(MID), small[8] = {0};
    EQ(MPI_T_pvar_start(ses, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    /* Rank 0 sends only once rank 1 counts: after a barrier alone, rank 1 may
     * still be polling for the barrier when the messages arrive, and take
     * them all before its handles start. The go-ahead is a receive on rank 0
     * and a send on rank 1, which neither side's checks below count. */
    if (rank == 0 && size > 1) {
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 69, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 5; i++) MPI_Send(small, 8, MPI_BYTE, 1, 70 + i, MPI_COMM_WORLD);
        /* (the buffer is rewritten as soon as each send completes: a send
         * out of it must not complete before the provider is done) */
        MPI_Request rq;
        memset(mid, 'a', MID);
        MPI_Isend(mid, MID, MPI_BYTE, 1, 76, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        memset(mid, 'b', MID);
        MPI_Send(mid, MID / 2, MPI_BYTE, 1, 77, MPI_COMM_WORLD);
        memset(mid, 'c', MID);
        MPI_Send(buf, BIG, MPI_BYTE, 1, 80, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Send(NULL, 0, MPI_BYTE, 0, 69, MPI_COMM_WORLD);
        for (int i = 0; i < 5; i++) MPI_Recv(small, 8, MPI_BYTE, 0, 70 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int m = 0; m < 2; m++) {
            int n = m ? MID / 2 : MID, bad = -1;
            memset(mid, 0, MID);
            MPI_Recv(mid, n, MPI_BYTE, 0, 76 + m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < n && bad < 0; i++)
                if (mid[i] != "ab"[m]) bad = i;
            CHECK(bad < 0, "message of %d bytes: byte %d is %d, expected '%c'", n, bad, bad < 0 ? 0 : mid[bad],
                  "ab"[m]);
        }
        MPI_Recv(buf, BIG, MPI_BYTE, 0, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    EQ(MPI_T_pvar_stop(ses, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    unsigned long long v[N];
    for (int i = 0; i < N; i++) v[i] = pvar_delta(ses, h[i]);
    if (nolocal && size > 1 && rank == 0) {
        CHECK(v[EAGER] == 7, "rank 0 counted %llu fabric eager sends, expected 7", v[EAGER]);
        CHECK(v[REF] == 2, "rank 0 sent %llu eager messages out of the user's buffer, expected 2 (8 and 16 KiB)",
              v[REF]);
        CHECK(v[SENT] + v[INJECTED] >= 8, "rank 0 handed libfabric %llu + %llu messages", v[SENT], v[INJECTED]);
        CHECK(v[AHEAD] <= 1, "rank 0 sent %llu messages' data ahead, expected at most 1", v[AHEAD]);
        MPI_Send(&v[AHEAD], 1, MPI_UNSIGNED_LONG_LONG, 1, 81, MPI_COMM_WORLD); /* (counters read) */
    } else if (nolocal && rank == 1) {
        unsigned long long ahead = 0;
        MPI_Recv(&ahead, 1, MPI_UNSIGNED_LONG_LONG, 0, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(v[RECVD] >= 8, "rank 1 received %llu fabric messages", v[RECVD]);
        /* 1 MiB: all of it ahead with the default FERRY_OFI_AHEAD over net
         * or tcp, else one read or write */
        if (ahead)
            CHECK(v[RGET] + v[RPUT] == 0, "rank 1: %llu rendezvous by read, %llu by write after data ahead",
                  v[RGET], v[RPUT]);
        else
            CHECK(v[RGET] + v[RPUT] == 1, "rank 1: %llu rendezvous by read, %llu by write, expected 1 in all",
                  v[RGET], v[RPUT]);
    } else if (!nolocal) {
        for (int i = 0; i < N; i++) CHECK(v[i] == 0, "%s counted %llu over shared memory", names[i], v[i]);
    }
    EQ(MPI_T_pvar_session_free(&ses), MPI_SUCCESS);
    free(buf);
    free(mid);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int provided = -1, n = 0;
    EQ(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EQ(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    EQ(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS); /* reference counted */
    CHECK(provided == MPI_THREAD_SINGLE, "provided %d", provided);
    cvars();
    EQ(MPI_T_finalize(), MPI_SUCCESS);
    MPI_Init(&argc, &argv);
    fy_init("tool_mpit");
    categories();
    pvars(fy_rank_, fy_size_);
    fabric(fy_rank_, fy_size_);
    int rc = fy_finish();
    EQ(MPI_T_cvar_get_num(&n), MPI_SUCCESS); /* still open after MPI_Finalize */
    EQ(MPI_T_finalize(), MPI_SUCCESS);
    EQ(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EQ(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    return rc || fy_errs;
}
