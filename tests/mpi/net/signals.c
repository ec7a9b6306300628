/* net_signals: loading libfabric leaves the application's signals alone.
 *
 * Run with FERRY_NOLOCAL=1, so MPI_Init loads libfabric. Debian's
 * libinfinipath, which libfabric pulls in, installs its own handler for
 * SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGINT and SIGTERM when it is loaded
 * (a backtrace, a .btr file, exit code 1). Here:
 * - the handlers this program sets before MPI_Init (SIGTERM, SIGINT) are
 *   still there after it, and a raised SIGTERM reaches ours;
 * - the signals it left at their default (SIGSEGV, SIGBUS, SIGILL,
 *   SIGABRT) are still at their default, so a crash stays a death by
 *   signal that mpiexec reports as such. */
#include "fytest.h"

static volatile sig_atomic_t got_term, got_int;
static void on_term(int s) { (void)s; got_term++; }
static void on_int(int s) { (void)s; got_int++; }

static void *handler_of(int sig) {
  struct sigaction a;
  if (sigaction(sig, NULL, &a)) return (void *)-1;
  return (a.sa_flags & SA_SIGINFO) ? (void *)a.sa_sigaction : (void *)a.sa_handler;
}

int main(int argc, char **argv) {
  signal(SIGTERM, on_term);
  signal(SIGINT, on_int);
  static const int dfl[] = {SIGSEGV, SIGBUS, SIGILL, SIGABRT};
  void *before[4];
  for (int i = 0; i < 4; i++) before[i] = handler_of(dfl[i]);

  MPI_Init(&argc, &argv);
  fy_init("net_signals");

  CHECK(handler_of(SIGTERM) == (void *)on_term, "SIGTERM handler replaced during MPI_Init");
  CHECK(handler_of(SIGINT) == (void *)on_int, "SIGINT handler replaced during MPI_Init");
  for (int i = 0; i < 4; i++)
    CHECK(handler_of(dfl[i]) == before[i], "signal %d (%s) changed during MPI_Init", dfl[i], strsignal(dfl[i]));
  raise(SIGTERM);
  CHECK(got_term == 1, "raised SIGTERM reached our handler %d times", (int)got_term);

  /* Messages through the fabric still flow. */
  int v = fy_rank_, w = -1, peer = fy_rank_ ^ 1;
  if (peer < fy_size_) {
    CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, peer, 7, &w, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(w == peer, "got %d from %d", w, peer);
  }
  return fy_finish();
}
