/* Unit tests of mpiexec's command line (src/launcher/fy_launch_opts.c). */
#include "launcher/fy_launch_opts.h"
#include <stdio.h>
#include <string.h>

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
    EXPECT(!strcmp(o.prog_argv[0], "prog") && !strcmp(o.prog_argv[1], "-n") && o.prog_argv[3] == NULL);
    fy_launch_opts_free(&o);
  }
  {
    char *a[] = {"mpiexec", "prog", NULL};
    EXPECT(parse(&o, a) == 0 && o.np == 1 && o.prefix == -1 && o.nenv == 0);
    fy_launch_opts_free(&o);
  }
  {
    char *a[] = {"mpiexec", "-np", "2", "--prefix-output", "--", "-prog", NULL};
    EXPECT(parse(&o, a) == 0 && o.np == 2 && o.prefix == 1 && !strcmp(o.prog_argv[0], "-prog"));
    fy_launch_opts_free(&o);
  }
  char *bad[][5] = {{"mpiexec", "-n", "0", "p", NULL},    {"mpiexec", "-n", "x", "p", NULL},
                    {"mpiexec", "-n", NULL},              {"mpiexec", "-n", "2", NULL},
                    {"mpiexec", "--bogus", "p", NULL},    {"mpiexec", "-genv", "A", NULL},
                    {"mpiexec", "-x", "=v", "p", NULL},   {"mpiexec", "-genv", "A=B", "v", NULL}};
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
