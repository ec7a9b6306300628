/* Fortran side of tests/mpi/common/fytest.h, callable from all three
 * bindings (every argument by address, CHARACTER lengths appended).
 *
 *   call fyt_init('name')        after MPI_INIT: watchdog, MPI_ERRORS_RETURN
 *   call fyt_check(cond, 'what') count and report a failure (LOGICAL cond)
 *   call fyt_ok(ierr, 'what')    ierr must be MPI_SUCCESS; a function the C
 *                                side does not implement yet
 *                                (MPI_ERR_UNSUPPORTED_OPERATION) ends the
 *                                test as skipped (exit 77, CTest SKIP)
 *   call fyt_avail(ierr, 'what', avail)  like fyt_ok, but an unimplemented
 *                                function only sets avail = .false. (that
 *                                part of the test is left out, said so)
 *   call fyt_finish()            gather, finalize, PASS/FAIL, exit status
 * and, for the handle conversion test, fyt_c_side, a C function that is
 * handed Fortran handles and a Fortran status, and fyt_c_ignores, which
 * tells whether C sees the Fortran MPI_STATUS_IGNORE as MPI_F_STATUS_IGNORE
 * (mpif.h, mpi) or MPI_F08_STATUS_IGNORE (mpi_f08). */
#include "fytest.h"

static char test_name[128];

static void fstr(char *dst, size_t cap, const char *s, size_t len) {
  while (len > 0 && s[len - 1] == ' ')
    len--;
  if (len >= cap)
    len = cap - 1;
  memcpy(dst, s, len);
  dst[len] = '\0';
}

void fyt_init_(const char *name, size_t len);
void fyt_init_(const char *name, size_t len) {
  fstr(test_name, sizeof test_name, name, len);
  fy_init(test_name);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

void fyt_check_(const int *cond, const char *what, size_t len);
void fyt_check_(const int *cond, const char *what, size_t len) {
  char w[256];
  fstr(w, sizeof w, what, len);
  if (!*cond)
    fy_fail("fortran", 0, "%s", w);
}

void fyt_ok_(const int *ierr, const char *what, size_t len);
void fyt_ok_(const int *ierr, const char *what, size_t len) {
  char w[256];
  fstr(w, sizeof w, what, len);
  if (*ierr == MPI_SUCCESS)
    return;
  int cls = -1;
  MPI_Error_class(*ierr, &cls);
  if (cls == MPI_ERR_UNSUPPORTED_OPERATION) {
    if (fy_rank_ == 0) {
      printf("SKIP %s: %s returned MPI_ERR_UNSUPPORTED_OPERATION (not implemented in "
             "Ferry yet); the test runs once it is\n", test_name, w);
      fflush(stdout);
    }
    _exit(77);
  }
  char es[MPI_MAX_ERROR_STRING];
  int el = 0;
  es[0] = 0;
  MPI_Error_string(*ierr, es, &el);
  fy_fail("fortran", 0, "%s returned %d (%s)", w, *ierr, es);
}

void fyt_avail_(const int *ierr, const char *what, int *avail, size_t len);
void fyt_avail_(const int *ierr, const char *what, int *avail, size_t len) {
  int cls = -1;
  *avail = 1;
  if (*ierr == MPI_SUCCESS)
    return;
  MPI_Error_class(*ierr, &cls);
  if (cls == MPI_ERR_UNSUPPORTED_OPERATION) {
    *avail = 0;
    if (fy_rank_ == 0) {
      char w[256];
      fstr(w, sizeof w, what, len);
      printf("%s: %s not implemented in Ferry yet, that part left out\n", test_name, w);
      fflush(stdout);
    }
    return;
  }
  fyt_ok_(ierr, what, len);
}

void fyt_finish_(void);
void fyt_finish_(void) { exit(fy_finish()); }

/* Handle conversion from C: comm and datatype as Fortran INTEGERs, status
 * as the Fortran INTEGER array; ok = 1 when everything converts back. */
void fyt_c_side_(const MPI_Fint *fcomm, const MPI_Fint *ftype, const MPI_Fint *fstatus,
                 const int *expect_source, int *ok);
void fyt_c_side_(const MPI_Fint *fcomm, const MPI_Fint *ftype, const MPI_Fint *fstatus,
                 const int *expect_source, int *ok) {
  MPI_Comm c = MPI_Comm_f2c(*fcomm);
  MPI_Datatype t = MPI_Type_f2c(*ftype);
  MPI_Status st;
  int size = 0, cmp = MPI_UNEQUAL;
  *ok = 1;
  if (MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp) != MPI_SUCCESS || cmp != MPI_IDENT)
    *ok = 0;
  if (MPI_Type_size(t, &size) != MPI_SUCCESS || size != 8)
    *ok = 0;
  if (MPI_Comm_c2f(c) != *fcomm || MPI_Type_c2f(t) != *ftype)
    *ok = 0;
  if (MPI_Status_f2c(fstatus, &st) != MPI_SUCCESS || st.MPI_SOURCE != *expect_source)
    *ok = 0;
  MPI_Fint back[MPI_F_STATUS_SIZE];
  if (MPI_Status_c2f(&st, back) != MPI_SUCCESS || memcmp(back, fstatus, sizeof back))
    *ok = 0;
}

void fyt_c_ignores_(const void *st, const int *f08, int *same);
void fyt_c_ignores_(const void *st, const int *f08, int *same) {
  *same = *f08 ? st == (const void *)MPI_F08_STATUS_IGNORE : st == (const void *)MPI_F_STATUS_IGNORE;
}
