/* The thesis's exact oracles (seed 002 ch. 4): thresholds, span table,
 * rank decomposition, tables 4.2, 4.3, 4.5 and 4.7 (model columns), and the
 * live 4D queue measured against them. */
#include "pt2pt/mq/fy_mq_model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c, ...)                                                     \
  do {                                                                    \
    if (!(c)) {                                                           \
      failures++;                                                         \
      fprintf(stderr, "%s:%d: FAIL %s: ", __FILE__, __LINE__, #c);        \
      fprintf(stderr, __VA_ARGS__);                                       \
      fputc('\n', stderr);                                                \
    }                                                                     \
  } while (0)

/* table 4.5's units */
static const char *human(size_t b, char *buf)
{
  if (b < 1024)
    sprintf(buf, "%zu B", b);
  else if (b < 1024 * 1024)
    sprintf(buf, "%.2f KB", b / 1024.0);
  else
    sprintf(buf, "%.2f MB", b / 1048576.0);
  return buf;
}

static void test_span_threshold(void)
{
  static const struct { long size; unsigned bits; long thr; } t[] = {
      {1, 2, 26},       {16, 2, 26},       {256, 2, 26},         {257, 3, 50},
      {4096, 3, 50},    {4097, 4, 98},     {65536, 4, 98},       {65537, 5, 194},
      {1048576, 5, 194}, {1048577, 6, 386}, {16777216, 6, 386},  {16777217, 7, 770}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    CHECK(fy_mq_span_bits(t[i].size) == t[i].bits, "size %ld bits %u", t[i].size,
          fy_mq_span_bits(t[i].size));
    CHECK(fy_mq_threshold(t[i].size, 2.0) == t[i].thr, "size %ld threshold %ld", t[i].size,
          fy_mq_threshold(t[i].size, 2.0));
  }
  CHECK(fy_mq_threshold(4096, 1.0) == 25, "PointerTraversalLengthThreshold 25");
  unsigned c3, c2, c1, c0;
  fy_mq_coords(1048576, 80000, &c3, &c2, &c1, &c0);
  CHECK(c3 == 2 && c2 == 14 && c1 == 4 && c0 == 0, "80000 -> (%u,%u,%u,%u)", c3, c2, c1, c0);
  CHECK(fy_mq_model_skipped(1048576) == 1048544ULL, "skipped %llu", fy_mq_model_skipped(1048576));
}

static void test_pointer_tables(void)
{
  static const struct { long S; unsigned long long l1, a1, d1, l10, a10, d10; } t[] = {
      {4096, 4095, 3, 26, 40950, 12, 35},
      {65536, 65535, 3, 50, 655350, 12, 59},
      {1048576, 1048575, 3, 98, 10485750, 12, 107}};
  for (int i = 0; i < 3; i++) {
    CHECK(fy_mq_model_pointers(FY_MQ_LIST, t[i].S, 1) == t[i].l1, "4.2 list %ld", t[i].S);
    CHECK(fy_mq_model_pointers(FY_MQ_ARRAY, t[i].S, 1) == t[i].a1, "4.2 array %ld", t[i].S);
    CHECK(fy_mq_model_pointers(FY_MQ_4D, t[i].S, 1) == t[i].d1, "4.2 4d %ld", t[i].S);
    CHECK(fy_mq_model_pointers(FY_MQ_LIST, t[i].S, 10) == t[i].l10, "4.3 list %ld", t[i].S);
    CHECK(fy_mq_model_pointers(FY_MQ_ARRAY, t[i].S, 10) == t[i].a10, "4.3 array %ld", t[i].S);
    CHECK(fy_mq_model_pointers(FY_MQ_4D, t[i].S, 10) == t[i].d10, "4.3 4d %ld", t[i].S);
  }
}

static void test_table_4_5(void)
{
  static const long S[3] = {4096, 65536, 1048576};
  static const char *want[3][5] = {
      {"184 B", "760 B", "6.07 KB", "24.68 KB", "128.05 KB"},
      {"248 B", "536 B", "3.15 KB", "194.30 KB", "2.00 MB"},
      {"376 B", "520 B", "1.82 KB", "1.51 MB", "32.00 MB"}};
  char buf[64];
  for (int i = 0; i < 3; i++) {
    long ns[4] = {1, 100, 1000, S[i]};
    for (int j = 0; j < 4; j++)
      CHECK(!strcmp(human(fy_mq_model_4d_bytes(S[i], ns[j]), buf), want[i][j]),
            "4.5 S=%ld n=%ld: %s, want %s", S[i], ns[j], buf, want[i][j]);
    CHECK(!strcmp(human(fy_mq_model_array_bytes(S[i]), buf), want[i][4]), "4.5 array S=%ld: %s",
          S[i], buf);
  }
  /* the same values exactly in bytes */
  CHECK(fy_mq_model_4d_bytes(4096, 4096) == 25272, "25272");
  CHECK(fy_mq_model_4d_bytes(1048576, 1048576) == 1581624, "1581624");
}

static void test_table_4_7(void)
{
  /* KB as printed by the thesis, and the exact bytes they stand for */
  static const struct { long n; double p4, m4, pt, mt; } t[] = {
      {256, 3.242188, 1.695312, 14.05469, 7.082031},
      {16384, 48.61719, 24.42969, 896.0547, 448.082},
      {131072, 193.117188, 96.742188, 7168.055, 3584.082031}};
  static const double exact[3][4] = {{3320, 1736, 14392, 7252},
                                     {49784, 25016, 917560, 458836},
                                     {197752, 99064, 7340088, 3670100}};
  for (int i = 0; i < 3; i++) {
    double p, m, tp, tm;
    fy_mq_model_4d_peak_mean(t[i].n, t[i].n, &p, &m);
    fy_mq_model_tree_peak_mean(t[i].n, &tp, &tm);
    CHECK(p == exact[i][0] && m == exact[i][1], "4.7 4d n=%ld %.1f %.1f", t[i].n, p, m);
    CHECK(tp == exact[i][2] && tm == exact[i][3], "4.7 tree n=%ld %.1f %.1f", t[i].n, tp, tm);
    /* and the printed KB figures to their printed precision */
    CHECK(abs((int)(p / 1024 * 1e5 + 0.5) - (int)(t[i].p4 * 1e5 + 0.5)) <= 1, "4.7 peak KB");
    CHECK(abs((int)(m / 1024 * 1e5 + 0.5) - (int)(t[i].m4 * 1e5 + 0.5)) <= 1, "4.7 mean KB");
    CHECK(abs((int)(tp / 1024 * 1e3 + 0.5) - (int)(t[i].pt * 1e3 + 0.5)) <= 1, "4.7 tree peak KB");
    CHECK(abs((int)(tm / 1024 * 1e3 + 0.5) - (int)(t[i].mt * 1e3 + 0.5)) <= 1, "4.7 tree mean KB");
  }
}

/* Live queues: one unexpected item per peer (ranks 1..S-1), then a peek at
 * the last rank; the visited objects are the table 4.2 pointer operations. */
static unsigned long long live_pointers(fy_mq_kind_t kind, long S, int comms, fy_mq_item_t *it)
{
  fy_mq_t *q = fy_mq_create_ex(kind, 2.0, 0);
  for (int c = 0; c < comms; c++) {
    fy_mq_ctx_open(q, (uint32_t)c, (int)S);
    for (long r = 1; r < S; r++) {
      fy_mq_item_t *x = &it[c * (S - 1) + r - 1];
      memset(x, 0, sizeof *x);
      x->ctx = (uint32_t)c;
      x->rank = (int32_t)r;
      fy_mq_arrive(q, x);
    }
  }
  fy_mq_reset_stats(q);
  fy_mq_item_t *m = fy_mq_peek_unexpected(q, (uint32_t)(comms - 1), (int)(S - 1), 0);
  CHECK(m && m->rank == S - 1, "peek found the last item");
  fy_mq_stats_t st;
  fy_mq_counts_t ct;
  fy_mq_get_stats(q, &st);
  fy_mq_get_counts(q, &ct);
  fy_mq_destroy(q);
  return st.items_visited + ct.nodes_visited;
}

static void test_live(void)
{
  long S = 65536;
  fy_mq_item_t *it = calloc((size_t)1048576 * 2, sizeof *it);
  CHECK(live_pointers(FY_MQ_LIST, 4096, 1, it) == 4095, "live list 4096");
  CHECK(live_pointers(FY_MQ_ARRAY, 4096, 1, it) == 3, "live array 4096");
  CHECK(live_pointers(FY_MQ_4D, 4096, 1, it) == 26, "live 4d 4096");
  CHECK(live_pointers(FY_MQ_4D, S, 1, it) == 50, "live 4d 65536");
  CHECK(live_pointers(FY_MQ_LIST, 4096, 10, it) == 40950, "live list 4096 x10");
  /* Ferry finds the lead by hash: one visit, not the thesis's k */
  CHECK(live_pointers(FY_MQ_4D, 4096, 10, it) == 26, "live 4d 4096 x10");

  /* rank 80000 in a full 2^20 communicator: the jumps skip 1048544 items */
  fy_mq_t *q = fy_mq_create(FY_MQ_4D, 2.0);
  fy_mq_ctx_open(q, 7, 1048576);
  for (long r = 0; r < 1048576; r++) {
    it[r].ctx = 7;
    it[r].rank = (int32_t)r;
    it[r].tag = 0;
    fy_mq_arrive(q, &it[r]);
  }
  fy_mq_stats_t st;
  fy_mq_counts_t ct;
  fy_mq_get_counts(q, &ct);
  fy_mq_get_stats(q, &st);
  CHECK(ct.cubes == 32 && ct.jumppoints == 32768, "full 2^20: %zu cubes %zu JPs", ct.cubes,
        ct.jumppoints);
  /* Ferry's objects are no larger than table 4.4's: real <= model */
  CHECK(st.mem_bytes <= fy_mq_model_4d_bytes(1048576, 1048576), "real %zu > model",
        st.mem_bytes);
  fy_mq_reset_stats(q);
  fy_mq_item_t *m = fy_mq_peek_unexpected(q, 7, 80000, 0);
  fy_mq_get_stats(q, &st);
  CHECK(m == &it[80000], "peek 80000");
  CHECK(st.items_skipped == 1048544, "skipped %llu", (unsigned long long)st.items_skipped);
  CHECK(st.items_visited == 1, "visited %llu", (unsigned long long)st.items_visited);
  /* drain: every JumpPoint and Cube goes back */
  for (long r = 1048575; r >= 0; r--)
    CHECK(fy_mq_take_unexpected(q, 7, (int)r, FY_MQ_ANY_TAG) == &it[r], "take %ld", r);
  fy_mq_get_counts(q, &ct);
  fy_mq_get_stats(q, &st);
  CHECK(ct.cubes == 0 && ct.jumppoints == 0, "freed when empty");
  CHECK(fy_mq_unexpected_len(q) == 0, "empty");
  fy_mq_destroy(q);

  /* table 4.5 points measured: real bytes within the model */
  static const long Ss[3] = {4096, 65536, 1048576};
  for (int i = 0; i < 3; i++) {
    long ns[4] = {1, 100, 1000, Ss[i]};
    for (int j = 0; j < 4; j++) {
      q = fy_mq_create(FY_MQ_4D, 2.0);
      fy_mq_ctx_open(q, 1, (int)Ss[i]);
      for (long r = 0; r < ns[j]; r++) {
        memset(&it[r], 0, sizeof it[r]);
        it[r].ctx = 1;
        it[r].rank = (int32_t)r;
        fy_mq_arrive(q, &it[r]);
      }
      fy_mq_get_stats(q, &st);
      fy_mq_get_counts(q, &ct);
      CHECK(ct.cubes == fy_mq_model_cubes(Ss[i], ns[j]) &&
                ct.jumppoints == fy_mq_model_jps(Ss[i], ns[j]),
            "S=%ld n=%ld objects", Ss[i], ns[j]);
      CHECK(st.mem_bytes <= fy_mq_model_4d_bytes(Ss[i], ns[j]), "S=%ld n=%ld real %zu model %zu",
            Ss[i], ns[j], st.mem_bytes, fy_mq_model_4d_bytes(Ss[i], ns[j]));
      fy_mq_destroy(q);
    }
  }
  free(it);
}

int main(void)
{
  test_span_threshold();
  test_pointer_tables();
  test_table_4_5();
  test_table_4_7();
  test_live();
  if (failures) {
    fprintf(stderr, "mq_oracles: %d failure(s)\n", failures);
    return 1;
  }
  printf("mq_oracles: ok\n");
  return 0;
}
