/* Unit tests of mpiexec's host list, placement and mapping
 * (src/launcher/fy_launch_hosts.c), the new multi-host options
 * (fy_launch_opts.c) and the proxy spec encoding (fy_launch_proxy.c). */
#include "launcher/fy_launch_hosts.h"
#include "launcher/fy_launch_slurm.h"
#include "launcher/fy_launch_opts.h"
#include "launcher/fy_launch_proxy.h"
#include "runtime/fy_pmi_wire.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../unit/common/fy_expect.h"

static FILE *null;

/* Place np ranks on list (and optional file text) with ppn; host names of
 * the ranks joined by ' ' into out. */
static int place(const char *list, const char *file_text, int np, int ppn, char *out, size_t cap,
                 fy_hosts_t *h) {
  memset(h, 0, sizeof *h);
  if (list && fy_hosts_add_list(h, list, null) < 0) return -1;
  if (file_text) {
    char path[] = "/tmp/fy_test_hostsXXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    ssize_t w = write(fd, file_text, strlen(file_text));
    close(fd);
    int rc = w < 0 ? -1 : fy_hosts_add_file(h, path, null);
    unlink(path);
    if (rc < 0) return -1;
  }
  if (fy_hosts_place(h, np, ppn, null) < 0) return -1;
  out[0] = '\0';
  for (int r = 0; r < np; r++) {
    size_t l = strlen(out);
    snprintf(out + l, cap - l, "%s%s", r ? " " : "", h->h[h->host_of[r]].name);
  }
  return 0;
}

/* The mapping, read back by the client's parser, gives equal node ids
 * exactly for ranks on the same node. */
static int mapping_agrees(const fy_hosts_t *h) {
  char map[FY_PMI_VAL_MAX];
  int *node = calloc((size_t)h->np, sizeof *node), ok = 1;
  if (fy_hosts_mapping(h, map, sizeof map) != 0 || fy_pmi_parse_mapping(map, node, h->np) != 0) ok = 0;
  for (int a = 0; ok && a < h->np; a++)
    for (int b = 0; b < h->np; b++)
      if ((node[a] == node[b]) != (h->h[h->host_of[a]].node == h->h[h->host_of[b]].node)) ok = 0;
  free(node);
  return ok;
}

/* MPMD: programs of np[a] ranks; lists[a] a program's own hosts or NULL
 * (the job's: job, or this host). Host names of the ranks into out. */
static int place_apps(const char *job, int napps, const int *np, const char *const *lists, char *out, size_t cap,
                      fy_hosts_t *h) {
  int first[4], count[4];
  memset(h, 0, sizeof *h);
  if (job && fy_hosts_add_list(h, job, null) < 0) return -1;
  int njob = h->n;
  for (int a = 0; a < napps; a++) {
    first[a] = h->n;
    if (lists[a] && fy_hosts_add_list(h, lists[a], null) < 0) return -1;
    count[a] = h->n - first[a];
  }
  if (fy_hosts_place_apps(h, njob, napps, np, first, count, 0, null) < 0) return -1;
  out[0] = '\0';
  for (int r = 0; r < h->np; r++) {
    size_t l = strlen(out);
    snprintf(out + l, cap - l, "%s%s", r ? " " : "", h->h[h->host_of[r]].name);
  }
  return 0;
}

int main(void) {
  null = fopen("/dev/null", "w");
  char out[1024];
  fy_hosts_t h;
  /* Slurm's per-node counts */
  {
    int c[6];
    EXPECT(fy_slurm_counts("2(x3),1", c, 4) == 0 && c[0] == 2 && c[2] == 2 && c[3] == 1);
    EXPECT(fy_slurm_counts("4", c, 1) == 0 && c[0] == 4);
    EXPECT(fy_slurm_counts("1,2,3", c, 3) == 0 && c[1] == 2 && c[2] == 3);
    EXPECT(fy_slurm_counts("2(x3)", c, 2) == -1); /* more nodes than given */
    EXPECT(fy_slurm_counts("2", c, 2) == -1);     /* fewer */
    EXPECT(fy_slurm_counts("2(3)", c, 3) == -1 && fy_slurm_counts("x", c, 1) == -1 && fy_slurm_counts("0", c, 1) == -1);
    EXPECT(fy_slurm_counts("2(x2", c, 2) == -1 && fy_slurm_counts("1,,1", c, 2) == -1);
  }
  /* MPMD, programs on hosts of their own: each starts at its list's first
   * host; programs on the job's list continue one walk (as without
   * MPMD); node ids and local ranks span the programs; the mapping lists
   * every run of ranks on one node */
  {
    int np[] = {2, 3, 2};
    const char *own[] = {NULL, "c,d:2", NULL};
    EXPECT(place_apps("a,b", 3, np, own, out, sizeof out, &h) == 0 && !strcmp(out, "a b c d d a b"));
    EXPECT(h.own_ranges && h.local_rank[5] == 1 && h.local_rank[6] == 1 && fy_hosts_node_size(&h, 0) == 2);
    EXPECT(fy_hosts_node_size(&h, 3) == 2 && mapping_agrees(&h));
    fy_hosts_free(&h);
    /* a program's own list naming the job's host: one node */
    const char *own2[] = {NULL, "b:3", NULL};
    EXPECT(place_apps("a,b", 3, np, own2, out, sizeof out, &h) == 0 && !strcmp(out, "a b b b b a b"));
    EXPECT(h.local_rank[4] == 3 && h.local_rank[6] == 4 && fy_hosts_node_size(&h, 1) == 5 && mapping_agrees(&h));
    fy_hosts_free(&h);
    /* no job list: the others run on this host */
    const char *own3[] = {NULL, "x", NULL};
    EXPECT(place_apps(NULL, 3, np, own3, out, sizeof out, &h) == 0 && h.h[h.host_of[0]].local &&
           h.host_of[0] == h.host_of[6] && !strcmp(h.h[h.host_of[2]].name, "x") && h.local_rank[6] == 3);
    EXPECT(h.any_remote && fy_hosts_node_size(&h, 0) == 4 && mapping_agrees(&h));
    fy_hosts_free(&h);
    /* no program of its own: the old single walk and its short mapping */
    const char *none[] = {NULL, NULL, NULL};
    EXPECT(place_apps("a,b", 3, np, none, out, sizeof out, &h) == 0 && !strcmp(out, "a b a b a b a"));
    EXPECT(!h.own_ranges && mapping_agrees(&h));
    fy_hosts_free(&h);
  }

  EXPECT(place("a,b,c", NULL, 6, 0, out, sizeof out, &h) == 0 && !strcmp(out, "a b c a b c"));
  EXPECT(h.any_remote && h.local_rank[3] == 1 && h.h[0].nranks == 2 && mapping_agrees(&h));
  fy_hosts_free(&h);
  EXPECT(place("a,b", NULL, 5, 2, out, sizeof out, &h) == 0 && !strcmp(out, "a a b b a"));
  EXPECT(h.local_rank[4] == 2 && fy_hosts_node_size(&h, 4) == 3 && fy_hosts_node_size(&h, 2) == 2);
  EXPECT(mapping_agrees(&h));
  fy_hosts_free(&h);
  EXPECT(place(NULL, "# comment\na:1\n\n  b:3  # three\n", 5, 0, out, sizeof out, &h) == 0 &&
         !strcmp(out, "a b b b a"));
  EXPECT(mapping_agrees(&h));
  fy_hosts_free(&h);
  /* The list first, then the file. */
  EXPECT(place("x:2", "y\n", 4, 0, out, sizeof out, &h) == 0 && !strcmp(out, "x x y x"));
  fy_hosts_free(&h);
  /* Fewer ranks than one round. */
  EXPECT(place("a:4,b:4", NULL, 3, 0, out, sizeof out, &h) == 0 && !strcmp(out, "a a a"));
  EXPECT(mapping_agrees(&h));
  fy_hosts_free(&h);
  /* Hundreds of hosts: nodes in a row with the same count are one triple,
   * so the mapping fits one PMI value (and says the same). */
  {
    char *many = malloc(300 * 8), map[FY_PMI_VAL_MAX];
    size_t ml = 0;
    for (int i = 0; i < 300; i++) ml += (size_t)sprintf(many + ml, "%sn%d%s", i ? "," : "", i, i >= 200 ? ":3" : "");
    EXPECT(place(many, NULL, 1000, 0, out, sizeof out, &h) == 0 && mapping_agrees(&h));
    EXPECT(fy_hosts_mapping(&h, map, sizeof map) == 0 && !strcmp(map, "(vector,(0,200,1),(200,100,3))"));
    fy_hosts_free(&h);
    /* counts that alternate merge nothing: 300 triples do not fit */
    ml = 0;
    for (int i = 0; i < 300; i++) ml += (size_t)sprintf(many + ml, "%sn%d:%d", i ? "," : "", i, 1 + i % 2);
    EXPECT(place(many, NULL, 450, 0, out, sizeof out, &h) == 0 && fy_hosts_mapping(&h, map, sizeof map) < 0);
    fy_hosts_free(&h);
    free(many);
  }
  /* A name repeated is one node. */
  EXPECT(place("a,b,a", NULL, 3, 0, out, sizeof out, &h) == 0 && h.h[0].node == h.h[2].node);
  EXPECT(h.local_rank[2] == 1 && fy_hosts_node_size(&h, 0) == 2 && mapping_agrees(&h));
  fy_hosts_free(&h);
  /* This machine, by any of its names, is one local node. */
  char me[256];
  gethostname(me, sizeof me - 1);
  me[sizeof me - 1] = '\0';
  char list[600];
  snprintf(list, sizeof list, "localhost,far,%s,127.0.0.1", me);
  EXPECT(place(list, NULL, 4, 0, out, sizeof out, &h) == 0);
  EXPECT(h.h[0].local && !h.h[1].local && h.h[2].local && h.h[3].local);
  EXPECT(h.h[0].node == h.h[2].node && h.h[0].node == h.h[3].node && h.h[0].node != h.h[1].node);
  EXPECT(h.local_rank[3] == 2 && fy_hosts_node_size(&h, 0) == 3 && mapping_agrees(&h));
  fy_hosts_free(&h);
  /* No host: everything here, no remote rank. */
  EXPECT(place(NULL, NULL, 3, 0, out, sizeof out, &h) == 0 && !h.any_remote && h.h[0].local);
  EXPECT(h.local_rank[2] == 2 && fy_hosts_node_size(&h, 1) == 3 && mapping_agrees(&h));
  fy_hosts_free(&h);
  /* Malformed. */
  EXPECT(place("a:0", NULL, 1, 0, out, sizeof out, &h) < 0);
  fy_hosts_free(&h);
  EXPECT(place("a:x", NULL, 1, 0, out, sizeof out, &h) < 0);
  fy_hosts_free(&h);
  EXPECT(place("", NULL, 1, 0, out, sizeof out, &h) < 0);
  fy_hosts_free(&h);
  EXPECT(place(NULL, "# only a comment\n", 1, 0, out, sizeof out, &h) < 0);
  fy_hosts_free(&h);
  EXPECT(place(NULL, "a b\n", 1, 0, out, sizeof out, &h) < 0);
  fy_hosts_free(&h);

  /* Options. */
  {
    fy_launch_opts_t o;
    char *a[] = {"mpiexec", "-hosts", "a,b", "-f", "hf", "-ppn", "2", "-launcher", "fork",
                 "-launcher-exec", "ip netns exec", "-pmi-host", "10.0.0.1", "-n", "3", "prog", NULL};
    EXPECT(fy_launch_opts_parse(&o, 16, a, null, null) == 0);
    EXPECT(!strcmp(o.hosts, "a,b") && !strcmp(o.hostfile, "hf") && o.ppn == 2 && o.np == 3);
    EXPECT(!strcmp(o.launcher, "fork") && !strcmp(o.launcher_exec, "ip netns exec"));
    EXPECT(!strcmp(o.pmi_host, "10.0.0.1") && !strcmp(o.apps[0].argv[0], "prog"));
    fy_launch_opts_free(&o);
    char *b[] = {"mpiexec", "-launcher", "rsx", "prog", NULL};
    EXPECT(fy_launch_opts_parse(&o, 4, b, null, null) < 0);
    /* Hydra's names: rsh and slurm, and -bootstrap(-exec) for -launcher(-exec) */
    char *b2[] = {"mpiexec", "-bootstrap", "slurm", "-bootstrap-exec", "x y", "prog", NULL};
    EXPECT(fy_launch_opts_parse(&o, 6, b2, null, null) == 0 && !strcmp(o.launcher, "slurm") &&
           !strcmp(o.launcher_exec, "x y"));
    fy_launch_opts_free(&o);
    char *c[] = {"mpiexec", "-ppn", "0", "prog", NULL};
    EXPECT(fy_launch_opts_parse(&o, 4, c, null, null) < 0);
    char *d[] = {"mpiexec", "-hosts", "a", "-hosts", "b", "prog", NULL};
    EXPECT(fy_launch_opts_parse(&o, 6, d, null, null) < 0);
  }

  /* The proxy spec is hex only (no quoting needed anywhere). */
  {
    const char *env[] = {"A=x y", "B='\"$"};
    const char *argv[] = {"prog", "a b", "", "c$d"};
    fy_proxy_app_t app = {.cwd = "/tmp", .nenv = 1, .env = env + 1, .nargs = 4, .argv = argv};
    int rank[] = {3, 1}, local[] = {1, 0}, appof[] = {0, 0};
    fy_proxy_spec_t s = {.kvsname = "kvs_1", .host = "h", .size = 4,
                         .local_size = 2, .bind = "auto", .kill_timeout = 3, .nenv = 1, .env = env,
                         .napps = 1, .apps = &app, .nranks = 2, .rank = rank, .local_rank = local,
                         .app = appof};
    char *w = fy_proxy_encode(&s);
    EXPECT(w && strspn(w, "0123456789abcdef") == strlen(w) && strlen(w) % 2 == 0);
    free(w);
  }
  fclose(null);
  return failures != 0;
}
