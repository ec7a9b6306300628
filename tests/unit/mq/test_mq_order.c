/* MPI ordering on every back end: the examples of digest section 2.4
 * (seed 002 section 4.2), ANY_SOURCE against ranked receives by age,
 * per-sender FIFO of unexpected messages, cancel, probe, and contexts used
 * before they are opened. */
#include "pt2pt/mq/fy_mq_model.h"
#include <stdio.h>
#include <string.h>

static int failures;
static const char *cur;
#define CHECK(c, ...)                                                           \
  do {                                                                          \
    if (!(c)) {                                                                 \
      failures++;                                                               \
      fprintf(stderr, "%s:%d [%s]: FAIL %s: ", __FILE__, __LINE__, cur, #c);    \
      fprintf(stderr, __VA_ARGS__);                                             \
      fputc('\n', stderr);                                                      \
    }                                                                           \
  } while (0)

typedef struct { fy_mq_kind_t kind; unsigned flags; const char *name; } cfg_t;
static const cfg_t cfgs[] = {{FY_MQ_LIST, 0, "list"},
                             {FY_MQ_ARRAY, 0, "array"},
                             {FY_MQ_4D, 0, "4d"},
                             {FY_MQ_4D, FY_MQ_FLAG_FORCE_4D, "4d-forced"},
                             {FY_MQ_AUTO, 0, "auto"}};

static fy_mq_item_t *mk(fy_mq_item_t *x, uint32_t ctx, int rank, int tag)
{
  memset(x, 0, sizeof *x);
  x->ctx = ctx;
  x->rank = rank;
  x->tag = tag;
  return x;
}

/* posted recv0(0) recv1(0) recv2(ANY) recv3(0); messages from the ranks in
 * src[]: returns in got[k] the receive index each message matched */
static void example(const cfg_t *c, int size, const int src[4], int got[4])
{
  fy_mq_t *q = fy_mq_create_ex(c->kind, 2.0, c->flags);
  fy_mq_ctx_open(q, 3, size);
  fy_mq_item_t r[4], m[4];
  int rs[4] = {0, 0, FY_MQ_ANY_SOURCE, 0};
  for (int i = 0; i < 4; i++)
    CHECK(!fy_mq_post(q, mk(&r[i], 3, rs[i], 5)), "post %d", i);
  for (int k = 0; k < 4; k++) {
    fy_mq_item_t *x = fy_mq_arrive(q, mk(&m[k], 3, src[k], 5));
    got[k] = x ? (int)(x - r) : -1;
  }
  CHECK(fy_mq_posted_len(q) == 0 && fy_mq_unexpected_len(q) == 0, "queues empty");
  fy_mq_destroy(q);
}

static void test_examples(const cfg_t *c, int size)
{
  int got[4];
  static const int a[4] = {0, 0, 0, 0}, b[4] = {0, 8, 0, 0};
  example(c, size, a, got);
  CHECK(got[0] == 0 && got[1] == 1 && got[2] == 2 && got[3] == 3, "example 1: %d %d %d %d",
        got[0], got[1], got[2], got[3]);
  example(c, size, b, got);
  /* recv0<->m0, recv2<->m1(8), recv1<->m2, recv3<->m3 */
  CHECK(got[0] == 0 && got[1] == 2 && got[2] == 1 && got[3] == 3, "example 2: %d %d %d %d",
        got[0], got[1], got[2], got[3]);
}

static void test_more(const cfg_t *c, int size)
{
  fy_mq_t *q = fy_mq_create_ex(c->kind, 2.0, c->flags);
  fy_mq_item_t m[8], r[8];
  fy_mq_ctx_open(q, 1, size);
  fy_mq_ctx_open(q, 2, size);
  /* unexpected: per-sender FIFO and oldest across senders */
  fy_mq_arrive(q, mk(&m[0], 1, 9, 1));
  fy_mq_arrive(q, mk(&m[1], 1, 4, 2));
  fy_mq_arrive(q, mk(&m[2], 1, 9, 2));
  fy_mq_arrive(q, mk(&m[3], 2, 4, 2)); /* other context */
  fy_mq_arrive(q, mk(&m[4], 1, 4, 1));
  CHECK(fy_mq_peek_unexpected(q, 1, FY_MQ_ANY_SOURCE, 2) == &m[1], "peek any/2");
  CHECK(fy_mq_peek_unexpected(q, 1, 9, FY_MQ_ANY_TAG) == &m[0], "peek 9/any");
  CHECK(fy_mq_peek_unexpected(q, 2, FY_MQ_ANY_SOURCE, FY_MQ_ANY_TAG) == &m[3], "peek ctx 2");
  CHECK(fy_mq_peek_unexpected(q, 5, FY_MQ_ANY_SOURCE, FY_MQ_ANY_TAG) == NULL, "peek ctx 5");
  CHECK(fy_mq_post(q, mk(&r[0], 1, FY_MQ_ANY_SOURCE, FY_MQ_ANY_TAG)) == &m[0], "any/any oldest");
  CHECK(fy_mq_post(q, mk(&r[1], 1, 4, 1)) == &m[4], "4/1 skips 4/2");
  CHECK(fy_mq_take_unexpected(q, 1, FY_MQ_ANY_SOURCE, 2) == &m[1], "mprobe any/2");
  CHECK(fy_mq_take_unexpected(q, 1, 4, FY_MQ_ANY_TAG) == NULL, "nothing left from 4");
  CHECK(fy_mq_post(q, mk(&r[2], 1, 9, FY_MQ_ANY_TAG)) == &m[2], "9/any");
  CHECK(fy_mq_unexpected_len(q) == 1, "one left (ctx 2)");
  /* posted: a message matching a ranked and an ANY_SOURCE receive takes the older */
  CHECK(!fy_mq_post(q, mk(&r[3], 1, FY_MQ_ANY_SOURCE, 7)), "post any/7");
  CHECK(!fy_mq_post(q, mk(&r[4], 1, 6, 7)), "post 6/7");
  CHECK(!fy_mq_post(q, mk(&r[5], 1, 6, FY_MQ_ANY_TAG)), "post 6/any");
  CHECK(fy_mq_arrive(q, mk(&m[5], 1, 6, 7)) == &r[3], "older ANY_SOURCE wins");
  CHECK(fy_mq_arrive(q, mk(&m[6], 1, 6, 7)) == &r[4], "then ranked");
  /* cancel */
  CHECK(fy_mq_cancel_posted(q, &r[5]), "cancel queued");
  CHECK(!fy_mq_cancel_posted(q, &r[5]), "cancel twice");
  CHECK(!fy_mq_cancel_posted(q, &r[4]), "cancel matched");
  CHECK(!fy_mq_cancel_posted(q, &r[0]), "cancel matched at post");
  CHECK(!fy_mq_post(q, mk(&r[6], 1, FY_MQ_ANY_SOURCE, FY_MQ_ANY_TAG)), "post any/any");
  CHECK(fy_mq_cancel_posted(q, &r[6]), "cancel any");
  CHECK(fy_mq_arrive(q, mk(&m[7], 1, 6, 3)) == NULL, "nothing posted");
  CHECK(fy_mq_take_unexpected(q, 1, 6, 3) == &m[7], "take");
  CHECK(fy_mq_take_unexpected(q, 2, 4, 2) == &m[3], "take ctx 2");
  CHECK(fy_mq_posted_len(q) == 0 && fy_mq_unexpected_len(q) == 0, "empty");
  fy_mq_ctx_close(q, 1);
  fy_mq_ctx_close(q, 2);
  fy_mq_stats_t st;
  fy_mq_get_stats(q, &st);
  CHECK(st.mem_bytes == 0, "no objects left: %zu", st.mem_bytes);
  fy_mq_destroy(q);
}

/* messages arrive before the context is opened (list fallback), then the
 * communicator appears with a large size: order must survive the move */
static void test_early(const cfg_t *c)
{
  fy_mq_t *q = fy_mq_create_ex(c->kind, 2.0, c->flags);
  fy_mq_item_t m[6], r[6];
  int ranks[6] = {700, 3, 700, 65, 3, 700};
  for (int i = 0; i < 6; i++)
    CHECK(!fy_mq_arrive(q, mk(&m[i], 11, ranks[i], i % 2)), "early %d", i);
  fy_mq_ctx_open(q, 11, 1000);
  const char *s = fy_mq_ctx_structure(q, 11);
  if (c->kind == FY_MQ_ARRAY)
    CHECK(s && !strcmp(s, "array"), "structure %s", s ? s : "-");
  else if (c->kind != FY_MQ_LIST)
    CHECK(s && !strcmp(s, "4d"), "structure %s", s ? s : "-");
  CHECK(fy_mq_post(q, mk(&r[0], 11, 700, FY_MQ_ANY_TAG)) == &m[0], "700 first");
  CHECK(fy_mq_post(q, mk(&r[1], 11, FY_MQ_ANY_SOURCE, 1)) == &m[1], "any/1 oldest");
  CHECK(fy_mq_post(q, mk(&r[2], 11, 700, 1)) == &m[5], "700/1");
  CHECK(fy_mq_post(q, mk(&r[3], 11, FY_MQ_ANY_SOURCE, FY_MQ_ANY_TAG)) == &m[2], "any");
  CHECK(fy_mq_post(q, mk(&r[4], 11, 3, 0)) == &m[4], "3/0");
  CHECK(fy_mq_post(q, mk(&r[5], 11, 65, 1)) == &m[3], "65/1");
  /* out-of-range rank on an array context still works (moves to a list) */
  CHECK(!fy_mq_arrive(q, mk(&m[0], 11, 5000, 0)), "out of range");
  CHECK(fy_mq_post(q, mk(&r[0], 11, FY_MQ_ANY_SOURCE, 0)) == &m[0], "found");
  CHECK(fy_mq_posted_len(q) == 0 && fy_mq_unexpected_len(q) == 0, "empty");
  fy_mq_ctx_close(q, 11);
  fy_mq_destroy(q);
}

int main(void)
{
  static const int sizes[] = {10, 26, 300, 5000, 70000};
  for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
    cur = cfgs[i].name;
    for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
      test_examples(&cfgs[i], sizes[j]);
      test_more(&cfgs[i], sizes[j]);
    }
    test_early(&cfgs[i]);
  }
  fy_mq_kind_t k;
  cur = "parse";
  CHECK(!fy_mq_kind_parse("4d", &k) && k == FY_MQ_4D, "4d");
  CHECK(!fy_mq_kind_parse("auto", &k) && k == FY_MQ_AUTO, "auto");
  CHECK(fy_mq_kind_parse("tree", &k) == -1, "unknown");
  CHECK(!strcmp(fy_mq_kind_name(FY_MQ_ARRAY), "array"), "name");
  if (failures) {
    fprintf(stderr, "mq_order: %d failure(s)\n", failures);
    return 1;
  }
  printf("mq_order: ok\n");
  return 0;
}
