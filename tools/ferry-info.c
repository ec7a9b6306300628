/* ferry-info: report what this Ferry build is and what it will do here.
 * Prints the version, build options (fy_build_config.h), the MPI standard
 * version of mpi.h, the transports usable on this machine and the config
 * table (every FERRY_* variable: default, current value, meaning).
 * It compiles the config table in directly and links no MPI symbol, so it
 * works even where libmpi cannot be loaded. */
#include "fy_build_config.h"
#include "runtime/fy_config.h"
#include "transport/ofi/fy_ofi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Ferry's own mpi.h, never a system MPI's: the build defines FY_HAVE_MPI_H
 * only when include/mpi.h exists in the source tree. */
#ifdef FY_HAVE_MPI_H
#include "mpi.h"
#endif

static void usage(FILE *f, const char *argv0) {
  fprintf(f,
          "usage: %s [--config | --markdown | --version | -h]\n"
          "  (none)      version, build options, transports and the config table\n"
          "  --config    only the table of FERRY_* environment variables\n"
          "  --markdown  the table as Markdown (name | type | default | meaning)\n"
          "  --version   the Ferry version\n"
          "  -h, --help  this text\n",
          argv0);
}

/* Cross-memory attach works if the kernel has it and policy (seccomp in
 * containers, LSMs) lets us use it; reading our own memory tests both
 * without needing a peer. Returns 0 or an errno value. */
static int probe_cma(void) {
  char src[64], dst[64];
  memset(src, 0x5a, sizeof src);
  memset(dst, 0, sizeof dst);
  struct iovec local = {dst, sizeof dst}, remote = {src, sizeof src};
  ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (n < 0) return errno;
  if (n != (ssize_t)sizeof dst || memcmp(src, dst, sizeof dst) != 0) return EIO;
  return 0;
}

static void print_transports(void) {
  printf("Transports:\n");
  printf("  %-26s available (POSIX shared memory segment per node)\n", "shm");
  int err = probe_cma();
  if (err == 0)
    printf("  %-26s available%s\n", "cma (process_vm_readv)",
           fy_config.cma ? "" : ", disabled by FERRY_CMA=0");
  else
    printf("  %-26s unavailable: %s%s\n", "cma (process_vm_readv)", strerror(err),
           err == ENOSYS ? " (kernel without cross-memory attach)"
           : err == EPERM ? " (blocked by seccomp or security policy)" : "");
  /* The fabric: built in or not, what libfabric offers here, and the
   * provider a job would take (ranks on several hosts, or FERRY_NOLOCAL). */
  char chosen[128] = "", offered[1024] = "";
#ifdef FY_HAVE_OFI
  const char *v = fy_ofi_version();
  char label[64];
  snprintf(label, sizeof label, "ofi (libfabric %s)", v ? v : "?");
  int n = fy_ofi_probe(fy_config.ofi_provider, chosen, sizeof chosen, offered, sizeof offered);
  if (n > 0)
    printf("  %-26s available: provider %s (FERRY_OFI_PROVIDER=%s%s%s); offered: %s\n", label, chosen,
           fy_config.ofi_provider, getenv("FI_PROVIDER") ? ", FI_PROVIDER=" : "",
           getenv("FI_PROVIDER") ? getenv("FI_PROVIDER") : "", offered);
  else
    printf("  %-26s unavailable: %s\n", label, fy_ofi_error());
  printf("  %-26s used for ranks on other hosts%s\n", "", fy_config.nolocal ? " and, with FERRY_NOLOCAL=1, for all" : "");
#else
  (void)fy_ofi_probe(NULL, chosen, sizeof chosen, offered, sizeof offered);
  printf("  %-26s not built (no libfabric at build time): jobs run on one host only\n", "ofi");
#endif
  /* Ranks are siblings, not tracer and tracee: Yama scope 1 makes the
   * library ask for permission (PR_SET_PTRACER), scope 2+ forbids CMA. */
  FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
  int scope;
  if (f) {
    if (fscanf(f, "%d", &scope) == 1)
      printf("  %-26s kernel.yama.ptrace_scope = %d%s\n", "", scope,
             scope >= 2 ? " (cross-process attach not permitted)" : "");
    fclose(f);
  }
}

static void print_build(void) {
  printf("Ferry %s\n", FY_VERSION_STRING);
#if defined(MPI_VERSION) && defined(MPI_SUBVERSION)
  printf("  %-18s %d.%d\n", "MPI standard", MPI_VERSION, MPI_SUBVERSION);
#else
  printf("  %-18s %s\n", "MPI standard", "unknown (mpi.h not available when ferry-info was built)");
#endif
  printf("  %-18s %s\n", "ABI", "MPICH (libmpi.so.12)");
  printf("  %-18s %s\n", "Build type", FY_BUILD_TYPE[0] ? FY_BUILD_TYPE : "(none)");
  printf("  %-18s %s\n", "C compiler", FY_C_COMPILER);
  printf("  %-18s %s\n", "Install prefix", FY_INSTALL_PREFIX);
}

static void print_launchers(void) {
  printf("Launchers:\n");
  printf("  %-26s Ferry's mpiexec, MPICH's mpiexec.hydra, srun --mpi=pmi2\n", "PMI-1");
#ifdef FY_HAVE_PMIX
  printf("  %-26s srun --mpi=pmix, Open MPI's mpirun (libpmix.so.2, loaded when one starts the job)\n", "PMIx");
#else
  printf("  %-26s not built (no libpmix headers at build time): PMIx launchers are refused\n", "PMIx");
#endif
}

/* Markdown cell: '|' would end the cell early. */
static void md_cell(const char *s) {
  for (; *s; s++) {
    if (*s == '|') fputc('\\', stdout);
    fputc(*s, stdout);
  }
}

static void print_markdown(void) {
  printf("| Variable | Type | Default | Meaning |\n");
  printf("|---|---|---|---|\n");
#define FY_CFG(field, name, type, def, doc) \
  printf("| `%s` | %s | `%s` | ", name, #type, def); \
  md_cell(doc);                                      \
  printf(" |\n");
#include "runtime/fy_config_table.def"
#undef FY_CFG
}

static void print_config(void) {
  printf("Configuration (environment variables; SIZE accepts k/m/g suffixes):\n");
  fflush(stdout);
  fy_config_print(stdout);
}

int main(int argc, char **argv) {
  if (argc > 2) {
    usage(stderr, argv[0]);
    return 2;
  }
  const char *opt = argc == 2 ? argv[1] : "";
  if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) {
    usage(stdout, argv[0]);
    return 0;
  }
  if (!strcmp(opt, "--version")) {
    printf("Ferry %s\n", FY_VERSION_STRING);
    return 0;
  }
  if (!strcmp(opt, "--markdown")) {
    print_markdown();
    return 0;
  }
  if (!strcmp(opt, "--config")) {
    print_config();
    return 0;
  }
  if (*opt) {
    fprintf(stderr, "%s: unknown option '%s'\n", argv[0], opt);
    usage(stderr, argv[0]);
    return 2;
  }
  fy_config_load();
  print_build();
  printf("\n");
  print_transports();
  printf("\n");
  print_launchers();
  printf("\n");
  print_config();
  return 0;
}
