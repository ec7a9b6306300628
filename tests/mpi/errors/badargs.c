/* Bad arguments under MPI_ERRORS_RETURN return the right error class:
 * rank (dest/source out of range), tag (negative, above MPI_TAG_UB), count
 * (negative), datatype (MPI_DATATYPE_NULL with a positive count,
 * uncommitted; with count 0 it is accepted), communicator
 * (MPI_COMM_NULL), buffer (NULL with count > 0), request (a handle never
 * given or already completed, on Ferry). Each code's Error_string is
 * non-empty; on Ferry it also names the argument. Nothing is sent by a
 * failing call, and communication works afterwards. */
#include "fytest.h"
#include <ctype.h>
#include <limits.h>

static int on_ferry;

static void expect(int rc, int cls, const char *clsname, const char *what, const char *argname)
{
    int c = -1, len = 0;
    char s[MPI_MAX_ERROR_STRING] = "";
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
    else c = MPI_SUCCESS;
    CHECK(c == cls, "%s: class %d, expected %s (%d)", what, c, clsname, cls);
    if (rc == MPI_SUCCESS) return;
    CHECK_OK(MPI_Error_string(rc, s, &len));
    CHECK(len > 0 && (size_t)len == strlen(s), "%s: empty error string", what);
    if (on_ferry && argname) {
        char low[MPI_MAX_ERROR_STRING];
        for (int i = 0; i <= len; i++) low[i] = (char)tolower((unsigned char)s[i]);
        CHECK(strstr(low, argname) != NULL, "%s: message \"%s\" does not name \"%s\"", what, s, argname);
    }
}
#define EXPECT(call, cls, arg) expect((call), cls, #cls, #call, arg)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("errors_badargs");
    on_ferry = fy_is_ferry();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors on COMM_NULL */
    int rank = fy_rank_, size = fy_size_;
    int buf[4] = {0}, *ub, flag = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Status st;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    int tag_ub = flag ? *ub : 32767;

    /* rank */
    EXPECT(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "dest");
    EXPECT(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "dest");
    EXPECT(MPI_Ssend(buf, 1, MPI_INT, size + 10, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "dest");
    EXPECT(MPI_Isend(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK, "dest");
    EXPECT(MPI_Recv(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK, "source");
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK, "source");
    EXPECT(MPI_Probe(size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK, "source");
    EXPECT(MPI_Iprobe(size, 0, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK, "source");
    EXPECT(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "dest");
    /* tag */
    EXPECT(MPI_Send(buf, 1, MPI_INT, rank, -1, MPI_COMM_WORLD), MPI_ERR_TAG, "tag");
    EXPECT(MPI_Send(buf, 1, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG, "tag");
    if (tag_ub < INT_MAX)
        EXPECT(MPI_Send(buf, 1, MPI_INT, rank, tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG, "tag");
    EXPECT(MPI_Isend(buf, 1, MPI_INT, rank, -3, MPI_COMM_WORLD, &r), MPI_ERR_TAG, "tag");
    EXPECT(MPI_Recv(buf, 1, MPI_INT, rank, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG, "tag");
    /* count */
    EXPECT(MPI_Send(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "count");
    EXPECT(MPI_Irecv(buf, -2, MPI_INT, rank, 0, MPI_COMM_WORLD, &r), MPI_ERR_COUNT, "count");
    /* datatype */
    EXPECT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "datatype");
    EXPECT(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE, "datatype");
    /* ...but an empty message may name it: the type is checked only for a
     * positive count, as MPICH does (its pt2pt/recvnull) */
    CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, rank, 5, NULL, 0, MPI_DATATYPE_NULL, rank, 5, MPI_COMM_WORLD,
                          &st));
    int n0 = -1;
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &n0));
    CHECK(n0 == 0 && st.MPI_SOURCE == rank, "empty message with MPI_DATATYPE_NULL: count %d from %d", n0,
          st.MPI_SOURCE);
    CHECK_OK(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "receive from MPI_PROC_NULL: source %d", st.MPI_SOURCE);
    MPI_Datatype unc;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &unc));
    EXPECT(MPI_Send(buf, 1, unc, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "datatype");
    EXPECT(MPI_Irecv(buf, 1, unc, rank, 0, MPI_COMM_WORLD, &r), MPI_ERR_TYPE, "datatype");
    MPI_Type_free(&unc);
    /* communicator */
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "comm");
    EXPECT(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM, "comm");
    EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &flag), MPI_ERR_COMM, "comm");
    EXPECT(MPI_Comm_size(MPI_COMM_NULL, &flag), MPI_ERR_COMM, "comm");
    /* buffer */
    EXPECT(MPI_Send(NULL, 1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "buf");
    EXPECT(MPI_Recv(NULL, 4, MPI_INT, rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER, "buf");
    CHECK(r == MPI_REQUEST_NULL, "a failed nonblocking call returned a request");
    /* request handles Ferry never gave, or took back: MPI_ERR_REQUEST (only
     * checked on Ferry: elsewhere a request may be a pointer) */
    if (on_ferry) {
        MPI_Request bad = (MPI_Request)(intptr_t)0x12345, high = (MPI_Request)(intptr_t)(int)0xafffffffu;
        EXPECT(MPI_Wait(&bad, &st), MPI_ERR_REQUEST, "request");
        EXPECT(MPI_Test(&high, &flag, &st), MPI_ERR_REQUEST, "request");
        MPI_Request rr, stale;
        CHECK_OK(MPI_Irecv(buf, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &rr));
        stale = rr;
        CHECK_OK(MPI_Send(buf, 1, MPI_INT, rank, 77, MPI_COMM_WORLD));
        CHECK_OK(MPI_Wait(&rr, &st));
        EXPECT(MPI_Wait(&stale, &st), MPI_ERR_REQUEST, "request");
        EXPECT(MPI_Request_free(&stale), MPI_ERR_REQUEST, "request");
    }

    /* nothing was sent by the failing calls to self (only self: a neighbour
     * may already be in the exchange below) */
    flag = 1;
    CHECK_OK(MPI_Iprobe(rank, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a failing call left a message (tag %d)", st.MPI_TAG);
    /* still works; NULL buffer with count 0 and the largest tag are fine */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, v = rank, w = -1;
    CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, right, tag_ub, &w, 1, MPI_INT, left, tag_ub, MPI_COMM_WORLD, &st));
    CHECK(w == left && st.MPI_TAG == tag_ub, "exchange with tag MPI_TAG_UB got %d tag %d", w, st.MPI_TAG);
    CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_INT, right, 1, NULL, 0, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
    return fy_finish();
}
