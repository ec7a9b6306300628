/* Error handlers on communicators: MPI_ERRORS_ARE_FATAL is the default on
 * COMM_WORLD and COMM_SELF; MPI_ERRORS_RETURN returns codes; a user handler
 * (Comm_create_errhandler) set with Comm_set_errhandler is returned by
 * Comm_get_errhandler, is called with the communicator and the error code for
 * a failing call and for Comm_call_errhandler, and the call then returns the
 * code; handlers are per communicator; Errhandler_free. */
#include "fytest.h"

static int calls;
static MPI_Comm last_comm;
static int last_code;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_comm = *comm;
    last_code = *code;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("env_errhandler");
    int size = fy_size_, cls;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL, mine, got;

    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler on COMM_WORLD is not ERRORS_ARE_FATAL");
    if (eh != MPI_ERRHANDLER_NULL) CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler on COMM_SELF is not ERRORS_ARE_FATAL");
    if (eh != MPI_ERRHANDLER_NULL) CHECK_OK(MPI_Errhandler_free(&eh));

    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "get after set ERRORS_RETURN");
    MPI_Errhandler_free(&eh);
    int rc = MPI_Send(NULL, 0, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK_CLASS(rc, MPI_ERR_RANK);

    CHECK_OK(MPI_Comm_create_errhandler(handler, &mine));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, mine));
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == mine, "Comm_get_errhandler did not return the user handler");
    CHECK_OK(MPI_Errhandler_free(&got));
    calls = 0;
    rc = MPI_Send(NULL, 0, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
    CHECK(calls == 1, "user handler called %d times for a bad Send", calls);
    CHECK(last_comm == MPI_COMM_WORLD, "handler got another communicator");
    MPI_Error_class(last_code, &cls);
    CHECK(cls == MPI_ERR_RANK, "handler got class %d, expected MPI_ERR_RANK", cls);
    CHECK(rc == last_code, "call returned %d, handler saw %d", rc, last_code);
    rc = MPI_Send(NULL, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(calls == 2, "user handler not called for a bad count");
    CHECK_CLASS(rc, MPI_ERR_COUNT);
    /* Comm_call_errhandler */
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));
    CHECK(calls == 3 && last_code == MPI_ERR_OTHER, "Comm_call_errhandler: calls %d code %d", calls, last_code);
    /* a successful call does not invoke it */
    int x = 1, y;
    CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, 0 == fy_rank_ ? 0 : fy_rank_, 5, &y, 1, MPI_INT, fy_rank_, 5,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(calls == 3, "handler called for a successful operation");
    /* the handler stays in use after Errhandler_free of our reference */
    CHECK_OK(MPI_Errhandler_free(&mine));
    CHECK(mine == MPI_ERRHANDLER_NULL, "Errhandler_free did not null the handle");
    rc = MPI_Recv(&y, 1, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(calls == 4, "freed-but-attached handler not called");
    CHECK_CLASS(rc, MPI_ERR_RANK);
    /* per communicator: COMM_SELF uses its own handler */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    rc = MPI_Send(NULL, 0, MPI_INT, 1, 0, MPI_COMM_SELF);
    CHECK_CLASS(rc, MPI_ERR_RANK);
    CHECK(calls == 4, "COMM_WORLD's handler called for an error on COMM_SELF");
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    return fy_finish();
}
