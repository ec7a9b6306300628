/* mpiexec command line: see fy_launch_opts.h. */
#include "launcher/fy_launch_opts.h"
#include "launcher/fy_launch_place.h"
#include "launcher/fy_launch_slurm.h"
#include "fy_build_config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void fy_launch_usage(FILE *f) {
  fprintf(f,
          "Usage: mpiexec [options] [local options] program [args...]\n"
          "         [: [local options] program [args...]]...\n"
          "Runs N copies of program on this node, or on the given hosts, with an\n"
          "embedded PMI-1 server. Several programs separated by \":\" make one job\n"
          "(MPMD): their ranks are numbered in order and MPI_APPNUM tells them apart.\n"
          "\n"
          "Local options (each program its own):\n"
          "  -n N, -np N            number of processes (default 1)\n"
          "  -env NAME VALUE        set NAME=VALUE in this program's processes\n"
          "  -envlist A,B,...       forward these variables to this program's processes\n"
          "  -envall                forward the whole environment (the default)\n"
          "  -envnone               forward none of it to remote ranks (only -genv/-env)\n"
          "  -hosts a,b[:slots],... (after \":\") this program's own hosts\n"
          "  -wdir DIR              working directory of this program's processes\n"
          "                         (relative to mpiexec's; default: mpiexec's)\n"
          "\n"
          "Options (before the first program):\n"
          "  -prefix, --prefix-output\n"
          "                         prefix each output line with \"[rank] \" (also FERRY_OUTPUT_PREFIX=1)\n"
          "  -bind-to B             pin each rank to CPUs: none, hwthread, core, socket or\n"
          "                         numa, with :N for N of them per rank (core:4); default\n"
          "                         auto: OMP_NUM_THREADS cores per rank when every rank gets\n"
          "                         its own, else none (also FERRY_BIND)\n"
          "  -timeout N             end the job after N seconds (also MPIEXEC_TIMEOUT)\n"
          "  -hosts a,b[:slots],... run on these hosts (rank placement as Hydra: each\n"
          "                         host takes its slots, default 1, per round)\n"
          "  -f FILE                host file: lines \"host[:slots]\" ('#' comments)\n"
          "  -ppn P                 ranks per host and round, instead of the slots\n"
          "  -launcher ssh|rsh|slurm|fork\n"
          "                         start remote ranks by ssh (default), rsh, srun (in a\n"
          "                         Slurm job), or as local processes (for tests); also\n"
          "                         -bootstrap, FERRY_LAUNCHER\n"
          "  -launcher-exec CMD     start remote ranks with \"CMD host command...\" (CMD is\n"
          "                         split at spaces; also FERRY_LAUNCHER_EXEC)\n"
          "  -pmi-host ADDR         address the proxies of an srun step connect back to\n"
          "                         (also FERRY_PMI_HOST; default: this host's address\n"
          "                         toward the first remote host; ssh-started proxies\n"
          "                         need none: ranks' PMI goes through their proxy)\n"
          "  -configfile FILE       the programs, one per line (\"[local options] program\n"
          "                         args\"), instead of the rest of the command line\n"
          "  -genv NAME VALUE       set NAME=VALUE in every process\n"
          "  -x NAME[=VALUE]        set NAME=VALUE, or forward NAME from this environment\n"
          "  -genvlist A,B,...      forward these variables (as -x A -x B)\n"
          "  -genvall               forward the whole environment (the default)\n"
          "  -genvnone              -envnone for every program\n"
          "  -gwdir DIR             -wdir of every program that gives none\n"
          "  -outfile-pattern P, -errfile-pattern P\n"
          "                         each rank's stdout/stderr into the file P names on this\n"
          "                         host (%%r rank, %%h host, %%p node index, %%g 0, %%%% a %%)\n"
          "  -iface NAME            the network interface the hosts share: the PMI address\n"
          "                         remote ranks use, and libfabric's (FI_NET_IFACE, ...)\n"
          "  -l                     same as -prefix (Hydra's label)\n"
          "  -h, --help             this help\n"
          "  --version              print the version\n"
          "\n"
          "The environment of mpiexec is forwarded to every process. Stdin goes to\n"
          "rank 0. The exit code is 0 when every rank exits 0, else that of the first\n"
          "failing rank (128+signal for a signal). FERRY_KILL_TIMEOUT sets the seconds\n"
          "between SIGTERM and SIGKILL when a failed job is torn down.\n");
}

static int add_env(fy_launch_env_t **env, int *nenv, const char *name, const char *value, FILE *err) {
  fy_launch_env_t *n = realloc(*env, (size_t)(*nenv + 1) * sizeof *n);
  if (!n) {
    fprintf(err, "mpiexec: out of memory\n");
    return -1;
  }
  *env = n;
  n[*nenv].name = name;
  n[*nenv].value = value;
  n[*nenv].owned = 0;
  (*nenv)++;
  return 0;
}

const char *fy_launcher_cmd(const char *kind) {
  /* (ssh: no X11; BatchMode: fail instead of asking for a password nobody
   * sees. slurm: srun -w host, within a Slurm job) */
  static const char *const k[][2] = {
      {"ssh", "ssh -x -o BatchMode=yes"}, {"rsh", "rsh"}, {"slurm", FY_SLURM_LAUNCHER}, {"fork", ""}};
  for (size_t i = 0; kind && i < sizeof k / sizeof k[0]; i++)
    if (!strcmp(kind, k[i][0])) return k[i][1];
  return NULL;
}

/* A variable whose name is the first len bytes of name (copied, owned by
 * the entry), set to value (NULL: forwarded); 0, or -1 with a message. */
static int add_named(fy_launch_env_t **env, int *nenv, const char *name, size_t len, const char *value, FILE *err) {
  char *n = strndup(name, len);
  if (!n) {
    fprintf(err, "mpiexec: out of memory\n");
    return -1;
  }
  if (add_env(env, nenv, n, value, err) < 0) {
    free(n);
    return -1;
  }
  (*env)[*nenv - 1].owned = 1;
  return 0;
}

/* -genvlist / -envlist A,B,...: each name forwarded with mpiexec's value
 * (as -x NAME); 0, or -1 with a message. */
static int add_list(fy_launch_env_t **env, int *nenv, const char *a, const char *list, FILE *err) {
  if (!list || !*list) {
    fprintf(err, "mpiexec: %s needs NAME[,NAME...]\n", a);
    return -1;
  }
  for (const char *p = list;;) {
    size_t n = strcspn(p, ",");
    if (!n || memchr(p, '=', n) || *p == '-') {
      fprintf(err, "mpiexec: %s %s: invalid variable name \"%.*s\"\n", a, list, (int)n, p);
      return -1;
    }
    if (add_named(env, nenv, p, n, NULL, err) < 0) return -1;
    if (!p[n]) return 0;
    p += n + 1;
  }
}

/* A number of processes after option a: 1..100000, else -1 with a message. */
static int parse_np(const char *a, const char *v, FILE *err) {
  if (!v) {
    fprintf(err, "mpiexec: %s needs a number of processes\n", a);
    return -1;
  }
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (!*v || *end || errno || n < 1 || n > 100000) {
    fprintf(err, "mpiexec: %s %s: not a valid number of processes (1..100000)\n", a, v);
    return -1;
  }
  return (int)n;
}

static fy_launch_app_t *new_app(fy_launch_opts_t *o, FILE *err) {
  fy_launch_app_t *n = realloc(o->apps, (size_t)(o->napps + 1) * sizeof *n);
  if (!n) {
    fprintf(err, "mpiexec: out of memory\n");
    return NULL;
  }
  o->apps = n;
  memset(&n[o->napps], 0, sizeof n[o->napps]);
  n[o->napps].np = 1;
  n[o->napps].envnone = -1; /* (not given: the job's) */
  return &n[o->napps++];
}

/* An application's local option at argv[*i] (-n, -env, -wdir): 1 taken
 * (*i moved past its values), 0 not a local option, -1 error (printed). */
static int local_opt(fy_launch_app_t *app, int argc, char **argv, int *i, FILE *err) {
  const char *a = argv[*i];
  if (!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--n") || !strcmp(a, "--np")) {
    int n = parse_np(a, *i + 1 < argc ? argv[*i + 1] : NULL, err);
    if (n < 0) return -1;
    app->np = n;
    (*i)++;
    return 1;
  }
  if (!strcmp(a, "-env") || !strcmp(a, "--env")) {
    if (*i + 2 >= argc) {
      fprintf(err, "mpiexec: %s needs NAME VALUE\n", a);
      return -1;
    }
    if (!*argv[*i + 1] || strchr(argv[*i + 1], '=')) {
      fprintf(err, "mpiexec: %s: invalid variable name \"%s\"\n", a, argv[*i + 1]);
      return -1;
    }
    if (add_env(&app->env, &app->nenv, argv[*i + 1], argv[*i + 2], err) < 0) return -1;
    *i += 2;
    return 1;
  }
  if (!strcmp(a, "-envlist") || !strcmp(a, "--envlist")) {
    if (add_list(&app->env, &app->nenv, a, *i + 1 < argc ? argv[*i + 1] : NULL, err) < 0) return -1;
    (*i)++;
    return 1;
  }
  if (!strcmp(a, "-envall") || !strcmp(a, "--envall") || !strcmp(a, "-envnone") || !strcmp(a, "--envnone")) {
    app->envnone = strstr(a, "none") != NULL;
    return 1;
  }
  if (!strcmp(a, "-wdir") || !strcmp(a, "--wdir")) {
    if (*i + 1 >= argc || !*argv[*i + 1]) {
      fprintf(err, "mpiexec: %s needs a directory\n", a);
      return -1;
    }
    if (app->wdir) {
      fprintf(err, "mpiexec: %s given twice for one program\n", a);
      return -1;
    }
    app->wdir = argv[++*i];
    return 1;
  }
  return 0;
}

/* -configfile: argv[0..at) (the command line before it) and then FILE's
 * lines joined by ":", parsed as one command line. Its words live in
 * o->cf_text, the array in o->cf_argv. */
static int parse_configfile(fy_launch_opts_t *o, int at, char **argv, const char *path, FILE *out, FILE *err) {
  FILE *f = fopen(path, "r");
  char *text = NULL, **nv = NULL;
  size_t cap = 0, len = 0;
  int nw = 0, rc = -1;
  if (!f) {
    fprintf(err, "mpiexec: -configfile %s: %s\n", path, strerror(errno));
    return -1;
  }
  /* the words, NUL-terminated one after another; a line's end is ":" */
  int c, inword = 0, quote = 0, line_words = 0, comment = 0, at_start = 1;
  for (;;) {
    c = fgetc(f);
    if (len + 4 > cap) {
      size_t nc = cap ? 2 * cap : 4096;
      char *t = realloc(text, nc);
      if (!t) goto oom;
      text = t;
      cap = nc;
    }
    if (c == EOF || (c == '\n' && !quote)) {
      if (quote) {
        fprintf(err, "mpiexec: -configfile %s: a quote is not closed\n", path);
        goto out;
      }
      if (inword) text[len++] = '\0', nw++, line_words++;
      inword = 0;
      if (line_words) {
        text[len++] = ':';
        text[len++] = '\0';
        nw++;
      }
      line_words = 0;
      comment = 0;
      at_start = 1;
      if (c == EOF) break;
      continue;
    }
    if (comment) continue;
    if (at_start && c == '#') {
      comment = 1;
      continue;
    }
    if (!quote && (c == ' ' || c == '\t' || c == '\r')) {
      if (inword) text[len++] = '\0', nw++, line_words++;
      inword = 0;
      continue;
    }
    at_start = 0;
    if (!quote && (c == '\'' || c == '"')) {
      quote = c;
      inword = 1;
      continue;
    }
    if (quote && c == quote) {
      quote = 0;
      continue;
    }
    text[len++] = (char)c;
    inword = 1;
  }
  if (!nw) {
    fprintf(err, "mpiexec: -configfile %s names no program\n", path);
    goto out;
  }
  /* argv[0..at), then the words less the last ":" */
  nv = calloc((size_t)(at + nw) + 1, sizeof *nv);
  if (!nv) goto oom;
  for (int k = 0; k < at; k++) nv[k] = argv[k];
  int n = at;
  for (size_t p = 0; p < len; p += strlen(text + p) + 1) {
    if (!strcmp(text + p, "-configfile") || !strcmp(text + p, "--configfile")) {
      fprintf(err, "mpiexec: -configfile %s: a config file cannot name another\n", path);
      goto out;
    }
    nv[n++] = text + p;
  }
  n--; /* (the trailing ":") */
  nv[n] = NULL;
  rc = fy_launch_opts_parse(o, n, nv, out, err);
  if (rc == 0) {
    o->cf_argv = nv;
    o->cf_text = text;
    nv = NULL;
    text = NULL;
  }
  goto out;
oom:
  fprintf(err, "mpiexec: out of memory\n");
out:
  fclose(f);
  free(nv);
  free(text);
  return rc;
}

int fy_launch_opts_parse(fy_launch_opts_t *o, int argc, char **argv, FILE *out, FILE *err) {
  memset(o, 0, sizeof *o);
  o->prefix = -1;
  o->bind = NULL;
  o->timeout = -1;
  fy_launch_app_t *app = new_app(o, err);
  if (!app) goto fail;
  /* One application per pass: its options (the job's too, in the first),
   * its program and the words up to ":". */
  int i = 1;
  for (;;) {
    for (; i < argc; i++) {
      const char *a = argv[i];
      if (!strcmp(a, ":") || a[0] != '-' || !a[1]) break;
      if (!strcmp(a, "--")) {
        i++;
        break;
      }
      if (o->napps > 1 && (!strcmp(a, "-hosts") || !strcmp(a, "--hosts") || !strcmp(a, "-host"))) {
        /* (after ':' a program's own; before the first program the job's) */
        if (i + 1 >= argc || !*argv[i + 1]) {
          fprintf(err, "mpiexec: %s needs a value\n", a);
          goto fail;
        }
        if (app->hosts) {
          fprintf(err, "mpiexec: %s given twice for one program\n", a);
          goto fail;
        }
        app->hosts = argv[++i];
        continue;
      }
      int lo = local_opt(app, argc, argv, &i, err);
      if (lo < 0) goto fail;
      if (lo) continue;
      if (o->napps > 1) {
        fprintf(err, "mpiexec: %s: not an option of a program after \":\" (those take -n, -env, -envlist, "
                     "-envall, -envnone, -wdir and -hosts; "
                     "the job's options go before the first program)\n", a);
        goto fail;
      }
      if (!strcmp(a, "-prefix") || !strcmp(a, "--prefix-output") || !strcmp(a, "-prefix-output") ||
          !strcmp(a, "-l")) {
        o->prefix = 1;
      } else if (!strcmp(a, "-genvall") || !strcmp(a, "--genvall")) {
        o->genvnone = 0;
      } else if (!strcmp(a, "-genvnone") || !strcmp(a, "--genvnone")) {
        o->genvnone = 1;
      } else if (!strcmp(a, "-genvlist") || !strcmp(a, "--genvlist")) {
        if (add_list(&o->env, &o->nenv, a, i + 1 < argc ? argv[i + 1] : NULL, err) < 0) goto fail;
        i++;
      } else if (!strcmp(a, "-iface") || !strcmp(a, "--iface")) {
        if (i + 1 >= argc || !*argv[i + 1] || strpbrk(argv[i + 1], " \t/")) {
          fprintf(err, "mpiexec: %s needs an interface name\n", a);
          goto fail;
        }
        o->iface = argv[++i];
        /* (first: a later -genv or -x of the same variable wins) */
        static const char *const vars[] = {"FI_NET_IFACE", "FI_TCP_IFACE", "FI_SOCKETS_IFACE"};
        for (int v = 0; v < 3; v++) {
          if (add_env(&o->env, &o->nenv, vars[v], o->iface, err) < 0) goto fail;
          fy_launch_env_t e = o->env[o->nenv - 1];
          memmove(o->env + v + 1, o->env + v, (size_t)(o->nenv - 1 - v) * sizeof *o->env);
          o->env[v] = e;
        }
      } else if (!strcmp(a, "-outfile-pattern") || !strcmp(a, "--outfile-pattern") ||
                 !strcmp(a, "-errfile-pattern") || !strcmp(a, "--errfile-pattern")) {
        const char *p = i + 1 < argc ? argv[i + 1] : NULL, *bad = NULL;
        for (const char *c = p; c && *c && !bad; c++)
          if (*c == '%') {
            if (!c[1] || !strchr("rhpg%", c[1])) bad = c;
            else c++;
          }
        if (!p || !*p || bad) {
          fprintf(err, "mpiexec: %s needs a file name pattern (%%r rank, %%h host, %%p node, %%g 0, %%%% a %%)%s%.2s\n",
                  a, bad ? ", not " : "", bad ? bad : "");
          goto fail;
        }
        if (strstr(a, "outfile")) o->outfile = argv[++i];
        else o->errfile = argv[++i];
      } else if (!strcmp(a, "-gwdir") || !strcmp(a, "--gwdir")) {
        if (i + 1 >= argc || !*argv[i + 1]) {
          fprintf(err, "mpiexec: %s needs a directory\n", a);
          goto fail;
        }
        o->gwdir = argv[++i];
      } else if (!strcmp(a, "-bind-to") || !strcmp(a, "--bind-to")) {
        if (i + 1 >= argc || fy_bind_check(argv[i + 1]) != 0) {
          fprintf(err, "mpiexec: %s needs none, auto, or hwthread, core, socket or numa, with :N for N of them "
                       "per rank\n", a);
          goto fail;
        }
        o->bind = argv[++i];
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
                 !strcmp(a, "--launcher-exec") || !strcmp(a, "-bootstrap") || !strcmp(a, "-bootstrap-exec") ||
                 !strcmp(a, "-pmi-host")) {
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
        } else if (!strcmp(b, "launcher") || !strcmp(b, "bootstrap")) { /* (-bootstrap: Hydra's old name) */
          if (!fy_launcher_cmd(v)) {
            fprintf(err, "mpiexec: %s %s: not ssh, rsh, slurm or fork\n", a, v);
            goto fail;
          }
          o->launcher = v;
        } else if (!strcmp(b, "launcher-exec") || !strcmp(b, "bootstrap-exec")) {
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
        if (add_env(&o->env, &o->nenv, argv[i + 1], argv[i + 2], err) < 0) goto fail;
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
        if (add_named(&o->env, &o->nenv, argv[i], eq ? (size_t)(eq - argv[i]) : strlen(argv[i]), eq ? eq + 1 : NULL,
                      err) < 0)
          goto fail;
      } else if (!strcmp(a, "-configfile") || !strcmp(a, "--configfile")) {
        if (i + 1 >= argc || !*argv[i + 1]) {
          fprintf(err, "mpiexec: %s needs a file\n", a);
          goto fail;
        }
        if (i + 2 < argc) {
          fprintf(err, "mpiexec: %s FILE must end the command line (its programs replace the rest)\n", a);
          goto fail;
        }
        fy_launch_opts_free(o);
        return parse_configfile(o, i, argv, argv[i + 1], out, err);
      } else if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "-help")) {
        fy_launch_usage(out);
        fy_launch_opts_free(o);
        return 1;
      } else if (!strcmp(a, "--version") || !strcmp(a, "-version")) {
        fprintf(out, "mpiexec (Ferry) %s\n", FY_VERSION_STRING);
        fy_launch_opts_free(o);
        return 1;
      } else {
        fprintf(err, "mpiexec: unknown option \"%s\" (see mpiexec --help)\n", a);
        goto fail;
      }
    }
    if (i >= argc || !strcmp(argv[i], ":")) {
      if (o->napps > 1) fprintf(err, "mpiexec: no program after \":\"\n");
      else if (i < argc) fprintf(err, "mpiexec: no program before \":\"\n");
      else fprintf(err, "mpiexec: no program given (see mpiexec --help)\n");
      goto fail;
    }
    int start = i;
    while (i < argc && strcmp(argv[i], ":")) i++;
    app->argv = calloc((size_t)(i - start) + 1, sizeof *app->argv);
    if (!app->argv) {
      fprintf(err, "mpiexec: out of memory\n");
      goto fail;
    }
    memcpy(app->argv, argv + start, (size_t)(i - start) * sizeof *argv);
    if (o->np > 100000 - app->np) {
      fprintf(err, "mpiexec: more than 100000 processes in all\n");
      goto fail;
    }
    o->np += app->np;
    if (!app->wdir) app->wdir = o->gwdir;
    if (app->envnone < 0) app->envnone = o->genvnone;
    if (i++ >= argc) break;
    if (!(app = new_app(o, err))) goto fail;
  }
  return 0;
fail:
  fy_launch_opts_free(o);
  return -1;
}

static void free_env(fy_launch_env_t *env, int nenv) {
  for (int i = 0; i < nenv; i++)
    if (env[i].owned) free((char *)env[i].name);
  free(env);
}

void fy_launch_opts_free(fy_launch_opts_t *o) {
  free_env(o->env, o->nenv);
  o->env = NULL;
  o->nenv = 0;
  for (int a = 0; a < o->napps; a++) {
    free_env(o->apps[a].env, o->apps[a].nenv);
    free(o->apps[a].argv);
  }
  free(o->apps);
  o->apps = NULL;
  o->napps = 0;
  free(o->cf_argv);
  free(o->cf_text);
  o->cf_argv = NULL;
  o->cf_text = NULL;
}

int fy_launch_app_of(const fy_launch_opts_t *o, int rank) {
  for (int a = 0; a < o->napps; a++) {
    if (rank < o->apps[a].np) return a;
    rank -= o->apps[a].np;
  }
  return o->napps - 1;
}
