/* mpiexec's host list and rank placement.
 *
 * Contract
 * - fy_hosts_add_list("a,b:2,c") and fy_hosts_add_file(path) (lines
 *   "host[:slots]", '#' starts a comment, blank lines ignored) append hosts;
 *   slots default to 1. Both return 0 or -1 with a message on err.
 * - fy_hosts_place(h, np, ppn) places np ranks as Hydra does: walking the
 *   host list round after round, each host takes ppn ranks per round (or
 *   its slots when ppn <= 0) until np are placed. With no host given every
 *   rank goes to this host. Fills host_of[], local_rank[] and per host
 *   nranks; hosts naming this machine ("localhost", its host name, with or
 *   without domain, loopback addresses) are marked local and share one node
 *   id; other hosts get a node id per distinct name.
 * - fy_hosts_mapping() writes PMI_process_mapping for the placement
 *   ("(vector,(node,nodes,count),...)" for one round, nodes in a row with
 *   the same count as one triple, as Hydra; the client repeats it; with
 *   programs on hosts of their own, every run of ranks on a node); -1 when
 *   it does not fit cap.
 * - fy_host_is_local(name): 1 if name is this machine. */
#ifndef FY_LAUNCH_HOSTS_H
#define FY_LAUNCH_HOSTS_H
#include <stddef.h>
#include <stdio.h>

typedef struct fy_host {
  char *name;
  int slots;
  int local;   /* this machine: ranks are forked, not launched remotely */
  int node;    /* node id (same for equal names) */
  int nranks;  /* ranks placed on this node (over all entries of the node) */
  int round;   /* ranks this entry takes per round */
} fy_host_t;

typedef struct fy_hosts {
  fy_host_t *h;
  int n;
  int np;
  int *host_of;    /* per rank: index into h */
  int *local_rank; /* per rank: index among the ranks of its node */
  int any_remote;
  int own_ranges; /* a program placed on hosts of its own (MPMD) */
} fy_hosts_t;

int fy_hosts_add_list(fy_hosts_t *h, const char *list, FILE *err);
int fy_hosts_add_file(fy_hosts_t *h, const char *path, FILE *err);
int fy_hosts_place(fy_hosts_t *h, int np, int ppn, FILE *err);
/* MPMD: program a places np[a] ranks, numbered after those of the programs
 * before it, on the entries [first[a], first[a] + count[a]) of the list
 * (count[a] == 0: the job's, its first njob entries, added before the
 * programs' own; this host when there are none). Programs on the job's list continue
 * one walk through it, as one program would; a list of a program's own
 * starts at its first entry. fy_hosts_place is one program on the job's
 * list. */
int fy_hosts_place_apps(fy_hosts_t *h, int njob, int napps, const int *np, const int *first, const int *count,
                        int ppn, FILE *err);
int fy_hosts_mapping(const fy_hosts_t *h, char *buf, size_t cap);
/* Ranks on the node of rank r. */
int fy_hosts_node_size(const fy_hosts_t *h, int r);
int fy_host_is_local(const char *name);
void fy_hosts_free(fy_hosts_t *h);
#endif
