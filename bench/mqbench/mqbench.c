/* ferry-mqbench: offline benchmark of Ferry's message queues (seed 002
 * ch. 4) with synthetic ranks, no MPI launch.
 *
 *   ferry-mqbench memory     table 4.5: 4D objects and bytes, Ferry's and the model's
 *   ferry-mqbench memavg     table 4.7: peak / mean overhead during n insertions
 *   ferry-mqbench pointers   tables 4.2 / 4.3: pointer operations to the last item
 *   ferry-mqbench speed      patterns 1, 3, 5 (thesis section 4.5), per back end
 *
 * speed options: --max-visits N (skip a list run predicted to visit more
 * items than N; default 4e9), --ranks a,b,c  --msgs a,b  --patterns a,b
 * --backends list,array,4d,rbtree  --reps N (best of N, default 1). */
#include "pt2pt/mq/fy_mq_model.h"
#include "rbtree.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *xcalloc(size_t n, size_t s)
{
  void *p = calloc(n, s);
  if (!p) {
    fprintf(stderr, "ferry-mqbench: out of memory (%zu x %zu bytes)\n", n, s);
    exit(2);
  }
  return p;
}

/* ---- memory: table 4.5 ---- */
static int cmd_memory(void)
{
  static const long Ss[3] = {4096, 65536, 1048576};
  fy_mq_item_t *it = xcalloc(1048576, sizeof *it);
  for (int i = 0; i < 3; i++) {
    long ns[4] = {1, 100, 1000, Ss[i]};
    for (int j = 0; j < 4; j++) {
      fy_mq_t *q = fy_mq_create(FY_MQ_4D, 2.0);
      fy_mq_ctx_open(q, 1, (int)Ss[i]);
      for (long r = 0; r < ns[j]; r++) {
        memset(&it[r], 0, sizeof it[r]);
        it[r].ctx = 1;
        it[r].rank = (int32_t)r;
        fy_mq_arrive(q, &it[r]);
      }
      fy_mq_stats_t st;
      fy_mq_counts_t ct;
      fy_mq_get_stats(q, &st);
      fy_mq_get_counts(q, &ct);
      printf("S=%ld n=%ld cubes=%zu jumppoints=%zu overhead_bytes=%zu thesis_model_bytes=%zu\n",
             Ss[i], ns[j], ct.cubes, ct.jumppoints, st.mem_bytes,
             fy_mq_model_4d_bytes(Ss[i], ns[j]));
      fy_mq_destroy(q);
    }
    /* the array column of table 4.5 (independent of n) */
    fy_mq_t *q = fy_mq_create(FY_MQ_ARRAY, 2.0);
    fy_mq_ctx_open(q, 1, (int)Ss[i]);
    memset(&it[0], 0, sizeof it[0]);
    it[0].ctx = 1;
    fy_mq_arrive(q, &it[0]);
    fy_mq_stats_t st;
    fy_mq_get_stats(q, &st);
    printf("# array S=%ld overhead_bytes=%zu thesis_model_bytes=%zu\n", Ss[i], st.mem_bytes,
           fy_mq_model_array_bytes(Ss[i]));
    fy_mq_destroy(q);
  }
  printf("# object sizes: Ferry lead 48, RankHead 16, Cube 16+8*span, JumpPoint 40;"
         " thesis (table 4.4) CIL 56, RankHead 32, Cube 16+8*span, JumpPoint 48\n");
  free(it);
  return 0;
}

/* ---- memavg: table 4.7 ---- */
static int cmd_memavg(void)
{
  static const long Ns[3] = {256, 16384, 131072};
  fy_mq_item_t *it = xcalloc(131072, sizeof *it);
  for (int i = 0; i < 3; i++) {
    long n = Ns[i];
    fy_mq_t *q = fy_mq_create_ex(FY_MQ_4D, 2.0, FY_MQ_FLAG_FORCE_4D);
    fy_mq_ctx_open(q, 1, (int)n);
    fy_rb_t *t = fy_rb_create();
    double sum = 0, tsum = 0;
    size_t peak = 0, tpeak = 0;
    for (long r = 0; r < n; r++) {
      memset(&it[r], 0, sizeof it[r]);
      it[r].ctx = 1;
      it[r].rank = (int32_t)r;
      fy_mq_arrive(q, &it[r]);
      fy_mq_stats_t st;
      fy_mq_get_stats(q, &st);
      sum += (double)st.mem_bytes;
      if (st.mem_bytes > peak)
        peak = st.mem_bytes;
      fy_rb_insert_msg(t, (int)r, 0, NULL);
      size_t tb = fy_rb_bytes(t);
      tsum += (double)tb;
      if (tb > tpeak)
        tpeak = tb;
    }
    double mp, mm, tp, tm;
    fy_mq_model_4d_peak_mean(n, n, &mp, &mm);
    fy_mq_model_tree_peak_mean(n, &tp, &tm);
    printf("ranks=%ld 4d_peak_kb=%.6f 4d_mean_kb=%.6f thesis_4d_peak_kb=%.6f "
           "thesis_4d_mean_kb=%.6f rbtree_peak_kb=%.6f rbtree_mean_kb=%.6f "
           "thesis_tree_peak_kb=%.6f thesis_tree_mean_kb=%.6f\n",
           n, peak / 1024.0, sum / n / 1024.0, mp / 1024, mm / 1024, tpeak / 1024.0,
           tsum / n / 1024.0, tp / 1024, tm / 1024);
    fy_rb_destroy(t);
    fy_mq_destroy(q);
  }
  free(it);
  return 0;
}

/* ---- pointers: tables 4.2 and 4.3 ---- */
static int cmd_pointers(void)
{
  static const long Ss[3] = {4096, 65536, 1048576};
  static const fy_mq_kind_t kinds[3] = {FY_MQ_LIST, FY_MQ_ARRAY, FY_MQ_4D};
  for (int comms = 1; comms <= 10; comms += 9) {
    for (int i = 0; i < 3; i++) {
      long S = Ss[i];
      for (int k = 0; k < 3; k++) {
        /* only the list's count depends on the other communicators' items */
        int filled = kinds[k] == FY_MQ_LIST ? comms : 1;
        fy_mq_item_t *it = xcalloc((size_t)filled * (size_t)(S - 1), sizeof *it);
        fy_mq_t *q = fy_mq_create(kinds[k], 2.0);
        for (int c = 0; c < comms; c++)
          fy_mq_ctx_open(q, (uint32_t)c, (int)S);
        for (int c = comms - filled; c < comms; c++)
          for (long r = 1; r < S; r++) {
            fy_mq_item_t *x = &it[(size_t)(c - (comms - filled)) * (size_t)(S - 1) + (size_t)r - 1];
            x->ctx = (uint32_t)c;
            x->rank = (int32_t)r;
            fy_mq_arrive(q, x);
          }
        fy_mq_reset_stats(q);
        fy_mq_item_t *m = fy_mq_peek_unexpected(q, (uint32_t)(comms - 1), (int)(S - 1), 0);
        fy_mq_stats_t st;
        fy_mq_counts_t ct;
        fy_mq_get_stats(q, &st);
        fy_mq_get_counts(q, &ct);
        printf("table=%s S=%ld comms=%d backend=%s pointer_ops=%llu thesis=%llu%s\n",
               comms == 1 ? "4.2" : "4.3", S, comms, fy_mq_kind_name(kinds[k]),
               (unsigned long long)(st.items_visited + ct.nodes_visited),
               fy_mq_model_pointers(kinds[k], S, comms), m ? "" : " (NOT FOUND)");
        fy_mq_destroy(q);
        free(it);
      }
    }
  }
  printf("# Ferry finds a context's lead by hash (1 visit), the thesis walks k leads\n");
  return 0;
}

/* ---- speed: patterns 1, 3, 5 ---- */
enum { B_LIST, B_ARRAY, B_4D, B_RB, NB };
static const char *bnames[NB] = {"list", "array", "4d", "rbtree"};

typedef struct { int rank, tag; } key_t_;

/* insertion order: for each message index m, every rank in order */
static void make_order(key_t_ *ins, long ranks, int msgs)
{
  long i = 0;
  for (int m = 0; m < msgs; m++)
    for (long r = 0; r < ranks; r++) {
      ins[i].rank = (int)r;
      ins[i].tag = m;
      i++;
    }
}

static double run_mq(fy_mq_kind_t kind, int pattern, long ranks, int msgs, bool reverse,
                     fy_mq_item_t *a, fy_mq_item_t *b, const key_t_ *ins, int *bad)
{
  long n = ranks * msgs;
  fy_mq_t *q = fy_mq_create(kind, 2.0);
  fy_mq_ctx_open(q, 1, (int)ranks);
  for (long i = 0; i < n; i++) {
    memset(&a[i], 0, sizeof a[i]);
    a[i].ctx = 1;
    a[i].rank = ins[i].rank;
    a[i].tag = ins[i].tag;
    b[i] = a[i];
  }
  double t0 = now();
  for (long i = 0; i < n; i++) /* n insertions */
    if (pattern == 1 ? fy_mq_post(q, &a[i]) != NULL : fy_mq_arrive(q, &a[i]) != NULL)
      (*bad)++;
  for (long j = 0; j < n; j++) { /* n searches (and deletions) */
    long i = reverse ? n - 1 - j : j;
    fy_mq_item_t *r;
    if (pattern == 1)
      r = fy_mq_arrive(q, &b[i]);
    else if (pattern == 3)
      r = fy_mq_take_unexpected(q, 1, ins[i].rank, ins[i].tag);
    else
      r = fy_mq_peek_unexpected(q, 1, ins[i].rank, ins[i].tag);
    if (r != &a[i])
      (*bad)++;
  }
  double t = now() - t0;
  fy_mq_destroy(q);
  return t;
}

static double run_rb(int pattern, long ranks, int msgs, bool reverse, const key_t_ *ins, int *bad)
{
  long n = ranks * msgs;
  fy_rb_t *t = fy_rb_create();
  double t0 = now();
  for (long i = 0; i < n; i++)
    fy_rb_insert_msg(t, ins[i].rank, ins[i].tag, (void *)(intptr_t)(i + 1));
  for (long j = 0; j < n; j++) {
    long i = reverse ? n - 1 - j : j;
    void *r = fy_rb_find_msg(t, ins[i].rank, ins[i].tag, pattern != 5);
    if (r != (void *)(intptr_t)(i + 1))
      (*bad)++;
  }
  double s = now() - t0;
  fy_rb_destroy(t);
  return s;
}

static int parse_list(const char *s, long *out, int max)
{
  int n = 0;
  while (s && *s && n < max) {
    out[n++] = strtol(s, (char **)&s, 10);
    if (*s == ',')
      s++;
  }
  return n;
}

static int cmd_speed(int argc, char **argv)
{
  long ranks[8] = {256, 16384, 131072}, msgs[4] = {1, 5}, pats[3] = {1, 3, 5};
  int nr = 3, nm = 2, np = 3, reps = 1;
  double max_visits = 4e9;
  bool use[NB] = {true, true, true, false};
  for (int i = 0; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--max-visits") && v)
      max_visits = atof(v), i++;
    else if (!strcmp(argv[i], "--ranks") && v)
      nr = parse_list(v, ranks, 8), i++;
    else if (!strcmp(argv[i], "--msgs") && v)
      nm = parse_list(v, msgs, 4), i++;
    else if (!strcmp(argv[i], "--patterns") && v)
      np = parse_list(v, pats, 3), i++;
    else if (!strcmp(argv[i], "--reps") && v)
      reps = atoi(v), i++;
    else if (!strcmp(argv[i], "--backends") && v) {
      for (int b = 0; b < NB; b++)
        use[b] = strstr(v, bnames[b]) != NULL;
      i++;
    } else {
      fprintf(stderr, "ferry-mqbench speed: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  use[B_LIST] = true; /* the reference */
  for (int pi = 0; pi < np; pi++)
    for (int ri = 0; ri < nr; ri++)
      for (int mi = 0; mi < nm; mi++)
        for (int rev = 0; rev < 2; rev++) {
          long n = ranks[ri] * msgs[mi];
          key_t_ *ins = xcalloc((size_t)n, sizeof *ins);
          fy_mq_item_t *a = xcalloc((size_t)n, sizeof *a), *b = xcalloc((size_t)n, sizeof *b);
          make_order(ins, ranks[ri], (int)msgs[mi]);
          double tl = -1;
          for (int be = 0; be < NB; be++) {
            if (!use[be])
              continue;
            /* items the list visits: a quadratic sum unless it matches at the head */
            double pred = (pats[pi] == 5 || rev) ? (double)n * (double)(n + 1) / 2 : (double)n;
            if (be == B_LIST && pred > max_visits) {
              printf("pattern=%ld ranks=%ld msgs=%ld order=%s backend=list seconds=skipped "
                     "speedup_vs_list=n/a # predicted %.3g item visits > --max-visits %.3g\n",
                     pats[pi], ranks[ri], msgs[mi], rev ? "reverse" : "forward", pred,
                     max_visits);
              continue;
            }
            double best = 1e300;
            int bad = 0;
            for (int k = 0; k < reps; k++) {
              double t = be == B_RB ? run_rb((int)pats[pi], ranks[ri], (int)msgs[mi], rev, ins, &bad)
                                    : run_mq(be == B_LIST ? FY_MQ_LIST
                                             : be == B_ARRAY ? FY_MQ_ARRAY : FY_MQ_4D,
                                             (int)pats[pi], ranks[ri], (int)msgs[mi], rev, a, b,
                                             ins, &bad);
              if (t < best)
                best = t;
            }
            if (be == B_LIST)
              tl = best;
            char sp[32];
            if (tl > 0)
              snprintf(sp, sizeof sp, "%.2f", tl / best);
            else
              snprintf(sp, sizeof sp, "n/a");
            printf("pattern=%ld ranks=%ld msgs=%ld order=%s backend=%s seconds=%.6f "
                   "speedup_vs_list=%s%s\n",
                   pats[pi], ranks[ri], msgs[mi], rev ? "reverse" : "forward", bnames[be], best,
                   sp, bad ? " WRONG_MATCHES" : "");
            fflush(stdout);
          }
          free(ins);
          free(a);
          free(b);
        }
  return 0;
}

static void usage(void)
{
  fprintf(stderr,
          "usage: ferry-mqbench memory | memavg | pointers | speed [--max-visits N]\n"
          "       [--ranks 256,16384,131072] [--msgs 1,5] [--patterns 1,3,5]\n"
          "       [--backends list,array,4d,rbtree] [--reps N]\n");
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    usage();
    return 2;
  }
  if (!strcmp(argv[1], "memory"))
    return cmd_memory();
  if (!strcmp(argv[1], "memavg"))
    return cmd_memavg();
  if (!strcmp(argv[1], "pointers"))
    return cmd_pointers();
  if (!strcmp(argv[1], "speed"))
    return cmd_speed(argc - 2, argv + 2);
  usage();
  return 2;
}
