/* mpiexec command line: see fy_launch_opts.h. */
#include "launcher/fy_launch_opts.h"
#include "fy_build_config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void fy_launch_usage(FILE *f) {
  fprintf(f,
          "Usage: mpiexec [options] program [args...]\n"
          "Runs N copies of program on this node, or on the given hosts, with an\n"
          "embedded PMI-1 server.\n"
          "\n"
          "Options:\n"
          "  -n N, -np N            number of processes (default 1)\n"
          "  -prefix, --prefix-output\n"
          "                         prefix each output line with \"[rank] \" (also FERRY_OUTPUT_PREFIX=1)\n"
          "  -bind-to core|none     pin rank i to the i-th CPU this mpiexec may use (default:\n"
          "                         core when the ranks fit the CPUs, else none; also FERRY_BIND)\n"
          "  -timeout N             end the job after N seconds (also MPIEXEC_TIMEOUT)\n"
          "  -hosts a,b[:slots],... run on these hosts (rank placement as Hydra: each\n"
          "                         host takes its slots, default 1, per round)\n"
          "  -f FILE                host file: lines \"host[:slots]\" ('#' comments)\n"
          "  -ppn P                 ranks per host and round, instead of the slots\n"
          "  -launcher ssh|fork     start remote ranks by ssh (default) or as local\n"
          "                         processes (for tests; also FERRY_LAUNCHER)\n"
          "  -launcher-exec CMD     start remote ranks with \"CMD host command...\" (CMD is\n"
          "                         split at spaces; also FERRY_LAUNCHER_EXEC)\n"
          "  -pmi-host ADDR         address remote ranks use to reach mpiexec's PMI server\n"
          "                         (also FERRY_PMI_HOST; default: this host's address\n"
          "                         toward the first remote host)\n"
          "  -genv NAME VALUE       set NAME=VALUE in every process\n"
          "  -x NAME[=VALUE]        set NAME=VALUE, or forward NAME from this environment\n"
          "  -h, --help             this help\n"
          "  --version              print the version\n"
          "\n"
          "The environment of mpiexec is forwarded to every process. Stdin goes to\n"
          "rank 0. The exit code is 0 when every rank exits 0, else that of the first\n"
          "failing rank (128+signal for a signal). FERRY_KILL_TIMEOUT sets the seconds\n"
          "between SIGTERM and SIGKILL when a failed job is torn down.\n");
}

static int add_env(fy_launch_opts_t *o, const char *name, const char *value, FILE *err) {
  fy_launch_env_t *n = realloc(o->env, (size_t)(o->nenv + 1) * sizeof *n);
  if (!n) {
    fprintf(err, "mpiexec: out of memory\n");
    return -1;
  }
  o->env = n;
  o->env[o->nenv].name = name;
  o->env[o->nenv].value = value;
  o->env[o->nenv].owned = 0;
  o->nenv++;
  return 0;
}

int fy_launch_opts_parse(fy_launch_opts_t *o, int argc, char **argv, FILE *out, FILE *err) {
  memset(o, 0, sizeof *o);
  o->np = 1;
  o->prefix = -1;
  o->bind = -1;
  o->timeout = -1;
  int i;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || !a[1]) break;
    if (!strcmp(a, "--")) {
      i++;
      break;
    }
    if (!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--n") || !strcmp(a, "--np")) {
      if (i + 1 >= argc) {
        fprintf(err, "mpiexec: %s needs a number of processes\n", a);
        goto fail;
      }
      char *end;
      errno = 0;
      long n = strtol(argv[++i], &end, 10);
      if (!*argv[i] || *end || errno || n < 1 || n > 100000) {
        fprintf(err, "mpiexec: %s %s: not a valid number of processes (1..100000)\n", a, argv[i]);
        goto fail;
      }
      o->np = (int)n;
    } else if (!strcmp(a, "-prefix") || !strcmp(a, "--prefix-output") || !strcmp(a, "-prefix-output")) {
      o->prefix = 1;
    } else if (!strcmp(a, "-bind-to") || !strcmp(a, "--bind-to")) {
      if (i + 1 >= argc || (strcmp(argv[i + 1], "core") && strcmp(argv[i + 1], "none"))) {
        fprintf(err, "mpiexec: %s needs core or none\n", a);
        goto fail;
      }
      o->bind = !strcmp(argv[++i], "core");
    } else if (!strcmp(a, "-timeout") || !strcmp(a, "--timeout")) {
      char *end;
      errno = 0;
      long t = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : -1;
      if (i + 1 >= argc || !*argv[i + 1] || *end || errno || t < 0) {
        fprintf(err, "mpiexec: %s needs a number of seconds (0: no limit)\n", a);
        goto fail;
      }
      o->timeout = t;
      i++;
    } else if (!strcmp(a, "-hosts") || !strcmp(a, "--hosts") || !strcmp(a, "-host") || !strcmp(a, "-f") ||
               !strcmp(a, "-hostfile") || !strcmp(a, "--hostfile") || !strcmp(a, "-machinefile") ||
               !strcmp(a, "-launcher") || !strcmp(a, "--launcher") || !strcmp(a, "-launcher-exec") ||
               !strcmp(a, "--launcher-exec") || !strcmp(a, "-pmi-host")) {
      if (i + 1 >= argc || !*argv[i + 1]) {
        fprintf(err, "mpiexec: %s needs a value\n", a);
        goto fail;
      }
      const char *v = argv[++i];
      const char *b = a[1] == '-' ? a + 2 : a + 1;
      if (!strcmp(b, "hosts") || !strcmp(b, "host")) {
        if (o->hosts) {
          fprintf(err, "mpiexec: %s given twice\n", a);
          goto fail;
        }
        o->hosts = v;
      } else if (!strcmp(b, "f") || !strcmp(b, "hostfile") || !strcmp(b, "machinefile")) {
        if (o->hostfile) {
          fprintf(err, "mpiexec: %s given twice\n", a);
          goto fail;
        }
        o->hostfile = v;
      } else if (!strcmp(b, "launcher")) {
        if (strcmp(v, "ssh") && strcmp(v, "fork")) {
          fprintf(err, "mpiexec: %s %s: not ssh or fork\n", a, v);
          goto fail;
        }
        o->launcher = v;
      } else if (!strcmp(b, "launcher-exec")) {
        o->launcher_exec = v;
      } else {
        o->pmi_host = v;
      }
    } else if (!strcmp(a, "-ppn") || !strcmp(a, "--ppn")) {
      char *end;
      errno = 0;
      long p = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : -1;
      if (i + 1 >= argc || !*argv[i + 1] || *end || errno || p < 1 || p > 100000) {
        fprintf(err, "mpiexec: %s needs a number of processes per host (1..100000)\n", a);
        goto fail;
      }
      o->ppn = (int)p;
      i++;
    } else if (!strcmp(a, "-genv") || !strcmp(a, "--genv")) {
      if (i + 2 >= argc) {
        fprintf(err, "mpiexec: %s needs NAME VALUE\n", a);
        goto fail;
      }
      if (!*argv[i + 1] || strchr(argv[i + 1], '=')) {
        fprintf(err, "mpiexec: %s: invalid variable name \"%s\"\n", a, argv[i + 1]);
        goto fail;
      }
      if (add_env(o, argv[i + 1], argv[i + 2], err) < 0) goto fail;
      i += 2;
    } else if (!strcmp(a, "-x")) {
      if (i + 1 >= argc) {
        fprintf(err, "mpiexec: -x needs NAME[=VALUE]\n");
        goto fail;
      }
      char *eq = strchr(argv[++i], '=');
      if (eq == argv[i] || !*argv[i]) {
        fprintf(err, "mpiexec: -x: invalid variable \"%s\"\n", argv[i]);
        goto fail;
      }
      char *name = strndup(argv[i], eq ? (size_t)(eq - argv[i]) : strlen(argv[i]));
      if (!name || add_env(o, name, eq ? eq + 1 : NULL, err) < 0) {
        free(name);
        goto fail;
      }
      o->env[o->nenv - 1].owned = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "-help")) {
      fy_launch_usage(out);
      return 1;
    } else if (!strcmp(a, "--version") || !strcmp(a, "-version")) {
      fprintf(out, "mpiexec (Ferry) %s\n", FY_VERSION_STRING);
      return 1;
    } else {
      fprintf(err, "mpiexec: unknown option \"%s\" (see mpiexec --help)\n", a);
      goto fail;
    }
  }
  if (i >= argc) {
    fprintf(err, "mpiexec: no program given (see mpiexec --help)\n");
    goto fail;
  }
  o->prog_argv = argv + i;
  return 0;
fail:
  fy_launch_opts_free(o);
  return -1;
}

void fy_launch_opts_free(fy_launch_opts_t *o) {
  for (int i = 0; i < o->nenv; i++)
    if (o->env[i].owned) free((char *)o->env[i].name);
  free(o->env);
  o->env = NULL;
  o->nenv = 0;
}
