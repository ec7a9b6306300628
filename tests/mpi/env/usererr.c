/* User error classes, codes and strings (MPI 4.1 9.5): numbered above
 * MPI_ERR_LASTCODE, MPI_LASTUSEDCODE follows them, codes map to their class,
 * strings start empty and can be set, removed and replaced; removal rules
 * and bad input give MPI_ERR_ARG. */
#include <mpi.h>
#include <string.h>
#include "fytest.h"

static int last_used(void) {
  int *v, flag;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
  return flag ? *v : -1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("usererr");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char s[MPI_MAX_ERROR_STRING];
  int len, cls, code, code2, c;
  CHECK(last_used() >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d below MPI_ERR_LASTCODE", last_used());
  CHECK_OK(MPI_Add_error_class(&cls));
  CHECK(cls >= MPI_ERR_LASTCODE && cls == last_used(), "class %d, last used %d", cls, last_used());
  CHECK_OK(MPI_Error_string(cls, s, &len));
  CHECK(len == 0 && s[0] == 0, "a new class has an empty string, got '%s'", s);
  CHECK_OK(MPI_Add_error_string(cls, "my class"));
  CHECK_OK(MPI_Error_string(cls, s, &len));
  CHECK(strcmp(s, "my class") == 0 && len == 8, "class string '%s'", s);
  CHECK_OK(MPI_Add_error_code(cls, &code));
  CHECK(code > cls && code == last_used(), "code %d", code);
  CHECK_OK(MPI_Error_class(code, &c));
  CHECK(c == cls, "class of the code %d, want %d", c, cls);
  CHECK_OK(MPI_Add_error_code(MPI_ERR_OTHER, &code2));
  CHECK_OK(MPI_Error_class(code2, &c));
  CHECK(c == MPI_ERR_OTHER, "code of a predefined class maps to %d", c);
  CHECK_OK(MPI_Add_error_string(code2, "other, in detail"));
  CHECK_OK(MPI_Error_string(code2, s, &len));
  CHECK(strcmp(s, "other, in detail") == 0, "code string '%s'", s);

  /* the user's error code travels through an error handler */
  CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code)); /* MPI_ERRORS_RETURN: handled */

  /* bad input */
  CHECK_CLASS(MPI_Add_error_string(MPI_ERR_ARG, "no"), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Add_error_code(code, &c), MPI_ERR_ARG);      /* a code is not a class */
  CHECK_CLASS(MPI_Error_class(cls + 1000, &c), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG);       /* it still has a code */
  CHECK_CLASS(MPI_Remove_error_class(code), MPI_ERR_ARG);      /* not a class */

  CHECK_CLASS(MPI_Remove_error_code(code2), MPI_ERR_ARG);     /* it still has a string */
  CHECK_OK(MPI_Remove_error_string(code));
  CHECK_OK(MPI_Remove_error_code(code));
  CHECK_CLASS(MPI_Error_class(code, &c), MPI_ERR_ARG);
  CHECK_OK(MPI_Remove_error_string(cls));
  CHECK_OK(MPI_Remove_error_class(cls));
  CHECK_OK(MPI_Remove_error_string(code2));
  CHECK_OK(MPI_Remove_error_code(code2));
  return fy_finish();
}
