/* Error handlers on every object kind: a user handler on a communicator
 * receives the communicator and the code (errors of calls and of
 * MPI_Comm_call_errhandler), is inherited by dup and split, outlives
 * MPI_Errhandler_free while attached; handlers of the wrong kind are
 * refused; MPI_FILE_NULL has MPI_ERRORS_RETURN and takes file handlers;
 * window and session handlers can be created. */
#include "fytest.h"
#include <string.h>

static int calls, last_code;
static MPI_Comm last_comm;

static void comm_handler(MPI_Comm *c, int *code, ...) {
  calls++;
  last_comm = *c;
  last_code = *code;
}

static int fcalls;
static void file_handler(MPI_File *f, int *code, ...) {
  fcalls++;
  last_code = *code;
}

static void win_handler(MPI_Win *w, int *code, ...) {}
static void session_handler(MPI_Session *s, int *code, ...) {}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("comm_errhandler");
  int rank, size, rc, cls;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Errhandler eh, got;
  CHECK_OK(MPI_Comm_create_errhandler(comm_handler, &eh));
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  CHECK_OK(MPI_Comm_set_errhandler(c, eh));
  CHECK_OK(MPI_Errhandler_free(&eh)); /* still attached: lives on */
  CHECK(eh == MPI_ERRHANDLER_NULL, "free did not null the handle");
  int x = 0;
  rc = MPI_Send(&x, 1, MPI_INT, size, 0, c);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK, "bad rank gave class %d", cls);
  CHECK(calls == 1 && last_comm == c, "handler calls %d, comm ok %d", calls, last_comm == c);
  MPI_Error_class(last_code, &cls);
  CHECK(cls == MPI_ERR_RANK, "handler saw class %d", cls);
  CHECK_OK(MPI_Comm_call_errhandler(c, MPI_ERR_TAG));
  CHECK(calls == 2 && last_code == MPI_ERR_TAG, "call_errhandler: calls %d code %d", calls, last_code);
  /* inherited */
  MPI_Comm d, s;
  MPI_Comm_dup(c, &d);
  MPI_Comm_split(c, 0, rank, &s);
  CHECK_OK(MPI_Comm_get_errhandler(d, &got));
  MPI_Comm_call_errhandler(d, MPI_ERR_COUNT);
  MPI_Comm_call_errhandler(s, MPI_ERR_COUNT);
  CHECK(calls == 4, "dup/split did not inherit the handler (%d calls)", calls);
  CHECK_OK(MPI_Errhandler_free(&got));
  MPI_Comm_free(&d);
  MPI_Comm_free(&s);
  MPI_Comm_free(&c);
  /* predefined ones */
  CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
  CHECK(got == MPI_ERRORS_RETURN, "world handler %#x", (unsigned)got);
  CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER)); /* returns: nothing happens */

  /* kinds */
  MPI_Errhandler weh, feh, seh;
  CHECK_OK(MPI_Win_create_errhandler(win_handler, &weh));
  CHECK_OK(MPI_File_create_errhandler(file_handler, &feh));
  CHECK_OK(MPI_Session_create_errhandler(session_handler, &seh));
  rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, weh);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  rc = MPI_Comm_create_errhandler(NULL, &eh);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  /* MPI_FILE_NULL: default ERRORS_RETURN, takes a file handler */
  CHECK_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
  CHECK(got == MPI_ERRORS_RETURN, "MPI_FILE_NULL handler %#x", (unsigned)got);
  rc = MPI_File_set_errhandler(MPI_FILE_NULL, eh = weh);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, feh));
  CHECK_OK(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO));
  CHECK(fcalls == 1 && last_code == MPI_ERR_IO, "file handler calls %d", fcalls);
  CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  /* user error classes and codes: above MPI_ERR_LASTCODE, MPI_LASTUSEDCODE follows */
  int ucls, ucode, ocode, *last, flag;
  char str[MPI_MAX_ERROR_STRING];
  int slen;
  CHECK_OK(MPI_Add_error_class(&ucls));
  CHECK(ucls > MPI_ERR_LASTCODE, "user class %d", ucls);
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
  CHECK(flag && *last == ucls, "MPI_LASTUSEDCODE %d, class %d", *last, ucls);
  CHECK_OK(MPI_Add_error_code(ucls, &ucode));
  CHECK_OK(MPI_Add_error_code(MPI_ERR_OTHER, &ocode));
  MPI_Error_class(ucode, &cls);
  CHECK(cls == ucls, "class of the user code %d", cls);
  MPI_Error_class(ocode, &cls);
  CHECK(cls == MPI_ERR_OTHER, "class of a code of MPI_ERR_OTHER: %d", cls);
  CHECK_OK(MPI_Add_error_string(ucode, "my code"));
  MPI_Error_string(ucode, str, &slen);
  CHECK(strcmp(str, "my code") == 0, "string '%s'", str);
  MPI_Error_string(ucls, str, &slen);
  CHECK(slen == 0, "class string '%s'", str);
  rc = MPI_Add_error_code(12345678, &ucode);
  CHECK_CLASS(rc, MPI_ERR_ARG);
  CHECK_OK(MPI_Errhandler_free(&weh));
  CHECK_OK(MPI_Errhandler_free(&feh));
  CHECK_OK(MPI_Errhandler_free(&seh));
  return fy_finish();
}
