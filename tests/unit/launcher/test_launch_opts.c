/* Unit tests of mpiexec's command line (src/launcher/fy_launch_opts.c). */
#include "launcher/fy_launch_opts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/fy_expect.h"

static int parse(fy_launch_opts_t *o, char **argv) {
  int argc = 0;
  while (argv[argc]) argc++;
  FILE *null = fopen("/dev/null", "w");
  int rc = fy_launch_opts_parse(o, argc, argv, null, null);
  fclose(null);
  return rc;
}

int main(void) {
  fy_launch_opts_t o;
  {
    char *a[] = {"mpiexec", "-n", "4", "-prefix", "-genv", "A", "1", "-x", "B=2", "-x", "C",
                 "prog", "-n", "x", NULL};
    EXPECT(parse(&o, a) == 0);
    EXPECT(o.np == 4 && o.prefix == 1 && o.nenv == 3);
    EXPECT(!strcmp(o.env[0].name, "A") && !strcmp(o.env[0].value, "1"));
    EXPECT(!strcmp(o.env[1].name, "B") && !strcmp(o.env[1].value, "2"));
    EXPECT(!strcmp(o.env[2].name, "C") && o.env[2].value == NULL);
    EXPECT(o.napps == 1 && o.apps[0].np == 4);
    EXPECT(!strcmp(o.apps[0].argv[0], "prog") && !strcmp(o.apps[0].argv[1], "-n") && o.apps[0].argv[3] == NULL);
    fy_launch_opts_free(&o);
  }
  {
    char *a[] = {"mpiexec", "prog", NULL};
    EXPECT(parse(&o, a) == 0 && o.np == 1 && o.prefix == -1 && o.nenv == 0);
    fy_launch_opts_free(&o);
  }
  {
    char *a[] = {"mpiexec", "-np", "2", "--prefix-output", "--", "-prog", NULL};
    EXPECT(parse(&o, a) == 0 && o.np == 2 && o.prefix == 1 && !strcmp(o.apps[0].argv[0], "-prog"));
    fy_launch_opts_free(&o);
  }
  {
    /* MPMD: local options per program, the job's options before the first */
    char *a[] = {"mpiexec", "-genv", "G", "1", "-n", "2", "-env", "A", "x", "-wdir", "/tmp", "ocean", "-v", ":",
                 "atmos", ":", "-np", "3", "-env", "B", "y", "--", "-land", "z", NULL};
    EXPECT(parse(&o, a) == 0);
    EXPECT(o.napps == 3 && o.np == 6 && o.nenv == 1 && !strcmp(o.env[0].name, "G"));
    EXPECT(o.apps[0].np == 2 && o.apps[0].nenv == 1 && !strcmp(o.apps[0].env[0].name, "A") &&
           !strcmp(o.apps[0].env[0].value, "x") && !strcmp(o.apps[0].wdir, "/tmp"));
    EXPECT(!strcmp(o.apps[0].argv[0], "ocean") && !strcmp(o.apps[0].argv[1], "-v") && !o.apps[0].argv[2]);
    EXPECT(o.apps[1].np == 1 && o.apps[1].nenv == 0 && !o.apps[1].wdir && !strcmp(o.apps[1].argv[0], "atmos") &&
           !o.apps[1].argv[1]);
    EXPECT(o.apps[2].np == 3 && !strcmp(o.apps[2].env[0].value, "y") && !strcmp(o.apps[2].argv[0], "-land") &&
           !strcmp(o.apps[2].argv[1], "z") && !o.apps[2].argv[2]);
    int want[] = {0, 0, 1, 2, 2, 2};
    for (int r = 0; r < 6; r++) EXPECT(fy_launch_app_of(&o, r) == want[r]);
    fy_launch_opts_free(&o);
  }
  {
    /* Hydra's spellings: -l, -genvall, -genvlist, -gwdir (a program's own
     * -wdir wins), and per program -envlist, -envall */
    char *a[] = {"mpiexec", "-l", "-genvall", "-genvlist", "A,B", "-gwdir", "/g", "-n", "2", "p", ":",
                 "-envall", "-envlist", "C", "-wdir", "/w", "q", NULL};
    EXPECT(parse(&o, a) == 0);
    EXPECT(o.prefix == 1 && o.nenv == 2 && !strcmp(o.env[0].name, "A") && !o.env[0].value &&
           !strcmp(o.env[1].name, "B") && !o.env[1].value);
    EXPECT(o.napps == 2 && !strcmp(o.apps[0].wdir, "/g") && !strcmp(o.apps[1].wdir, "/w"));
    EXPECT(o.apps[1].nenv == 1 && !strcmp(o.apps[1].env[0].name, "C") && !o.apps[1].env[0].value);
    fy_launch_opts_free(&o);
  }
  {
    char *a[] = {"mpiexec", "-bind-to", "core:4", "p", NULL}, *b[] = {"mpiexec", "-bind-to", "socket:", "p", NULL};
    char *c[] = {"mpiexec", "-bind-to", "none:2", "p", NULL}, *d[] = {"mpiexec", "-bind-to", "cores", "p", NULL};
    EXPECT(parse(&o, a) == 0 && !strcmp(o.bind, "core:4"));
    fy_launch_opts_free(&o);
    EXPECT(parse(&o, b) == -1 && parse(&o, c) == -1 && parse(&o, d) == -1);
  }
  {
    /* -genvnone: every program's -envnone, unless it says -envall */
    char *a[] = {"mpiexec", "-genvnone", "-n", "1", "p", ":", "-envall", "q", ":", "r", NULL};
    char *b[] = {"mpiexec", "-n", "1", "p", ":", "-envnone", "q", NULL};
    EXPECT(parse(&o, a) == 0 && o.napps == 3 && o.apps[0].envnone == 1 && o.apps[1].envnone == 0 &&
           o.apps[2].envnone == 1);
    fy_launch_opts_free(&o);
    EXPECT(parse(&o, b) == 0 && o.apps[0].envnone == 0 && o.apps[1].envnone == 1);
    fy_launch_opts_free(&o);
  }
  {
    /* -iface: the interface variables first, so that a -genv wins */
    char *a[] = {"mpiexec", "-genv", "A", "1", "-iface", "ib0", "-genv", "FI_TCP_IFACE", "x", "p", NULL};
    EXPECT(parse(&o, a) == 0 && !strcmp(o.iface, "ib0") && o.nenv == 5);
    EXPECT(!strcmp(o.env[0].name, "FI_NET_IFACE") && !strcmp(o.env[0].value, "ib0") &&
           !strcmp(o.env[1].name, "FI_TCP_IFACE") && !strcmp(o.env[2].name, "FI_SOCKETS_IFACE") &&
           !strcmp(o.env[3].name, "A") && !strcmp(o.env[4].value, "x"));
    fy_launch_opts_free(&o);
    char *b[] = {"mpiexec", "-iface", "", "p", NULL}, *c[] = {"mpiexec", "-iface", NULL};
    EXPECT(parse(&o, b) == -1 && parse(&o, c) == -1);
  }
  {
    /* -configfile: a program per line, comments, quotes, blank lines */
    char path[] = "/tmp/fy_cfgXXXXXX";
    int fd = mkstemp(path);
    const char *txt = "# coupled run\n-n 2 -env A 'x y' ocean -v\n\n  atmos \"a b\" c\t''\n";
    EXPECT(fd >= 0 && write(fd, txt, strlen(txt)) == (ssize_t)strlen(txt));
    close(fd);
    char *a[] = {"mpiexec", "-genv", "G", "1", "-configfile", path, NULL};
    EXPECT(parse(&o, a) == 0);
    EXPECT(o.napps == 2 && o.np == 3 && o.nenv == 1 && !strcmp(o.env[0].name, "G"));
    EXPECT(o.apps[0].np == 2 && o.apps[0].nenv == 1 && !strcmp(o.apps[0].env[0].value, "x y"));
    EXPECT(!strcmp(o.apps[0].argv[0], "ocean") && !strcmp(o.apps[0].argv[1], "-v") && !o.apps[0].argv[2]);
    EXPECT(o.apps[1].np == 1 && !strcmp(o.apps[1].argv[0], "atmos") && !strcmp(o.apps[1].argv[1], "a b") &&
           !strcmp(o.apps[1].argv[2], "c") && !strcmp(o.apps[1].argv[3], "") && !o.apps[1].argv[4]);
    fy_launch_opts_free(&o);
    char *b[] = {"mpiexec", "-configfile", path, "extra", NULL}, *c[] = {"mpiexec", "-configfile", "/no/such/file", NULL};
    EXPECT(parse(&o, b) == -1);
    EXPECT(parse(&o, c) == -1);
    const char *bad_txt[] = {"# nothing but a comment\n\n", "prog 'open\n", "-genv A 1 p\n-prefix q\n", "-configfile x\n"};
    for (size_t k = 0; k < sizeof bad_txt / sizeof *bad_txt; k++) {
      FILE *f = fopen(path, "w");
      fputs(bad_txt[k], f);
      fclose(f);
      char *d[] = {"mpiexec", "-configfile", path, NULL};
      int rc = parse(&o, d);
      if (rc != -1) fprintf(stderr, "bad config file %zu accepted\n", k);
      EXPECT(rc == -1);
    }
    unlink(path);
  }
  char *bad[][7] = {{"mpiexec", "-n", "0", "p", NULL},    {"mpiexec", "-n", "x", "p", NULL},
                    {"mpiexec", "-n", NULL},              {"mpiexec", "-n", "2", NULL},
                    {"mpiexec", "--bogus", "p", NULL},    {"mpiexec", "-genv", "A", NULL},
                    {"mpiexec", "-x", "=v", "p", NULL},   {"mpiexec", "-genv", "A=B", "v", NULL},
                    /* MPMD: an empty program, a job option after ':', an -env without a value */
                    {"mpiexec", "p", ":", NULL},          {"mpiexec", ":", "p", NULL},
                    {"mpiexec", "p", ":", ":", "q", NULL}, {"mpiexec", "p", ":", "-genv", "A", "1"},
                    {"mpiexec", "p", ":", "-n", "2", NULL}, {"mpiexec", "-env", "A", "p", NULL},
                    {"mpiexec", "-wdir", "a", "-wdir", "b", "p"}, {"mpiexec", "p", ":", "-prefix", "q", NULL},
                    /* lists: empty, an empty name, '=', an option taken for one, none; job's after ':' */
                    {"mpiexec", "-genvlist", "", "p", NULL}, {"mpiexec", "-genvlist", "A,,B", "p", NULL},
                    {"mpiexec", "-envlist", "A=1", "p", NULL}, {"mpiexec", "-genvlist", "-n", "1", "p", NULL},
                    {"mpiexec", "-envlist", NULL}, {"mpiexec", "p", ":", "-genvlist", "A", "q", NULL},
                    {"mpiexec", "-gwdir", NULL}, {"mpiexec", "p", ":", "-gwdir", "/", "q", NULL}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = parse(&o, bad[i]);
    if (rc != -1) fprintf(stderr, "bad command line %zu accepted\n", i);
    EXPECT(rc == -1);
  }
  char *h[] = {"mpiexec", "--help", NULL}, *v[] = {"mpiexec", "--version", NULL};
  EXPECT(parse(&o, h) == 1);
  EXPECT(parse(&o, v) == 1);
  if (failures) return 1;
  printf("test_launch_opts: ok\n");
  return 0;
}
