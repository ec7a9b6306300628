/* Randomized differential test: one stream of random operations (arrivals,
 * posts, mprobe takes, probes, cancels, wildcards, contexts of many sizes
 * opened late, closed and reopened) applied to every back end; all must
 * return the same item for every operation, and the same lengths.
 *
 * usage: mq_diff [operations (default 1000000)] [seed (default 1)] */
#include "pt2pt/mq/fy_mq_model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { fy_mq_kind_t kind; unsigned flags; double adj; const char *name; } cfg_t;
static const cfg_t cfgs[] = {{FY_MQ_LIST, 0, 2.0, "list"},
                             {FY_MQ_ARRAY, 0, 2.0, "array"},
                             {FY_MQ_4D, 0, 2.0, "4d"},
                             {FY_MQ_4D, FY_MQ_FLAG_FORCE_4D, 2.0, "4d-forced"},
                             {FY_MQ_AUTO, 0, 1.0, "auto-adj1"}};
#define NCFG (int)(sizeof cfgs / sizeof cfgs[0])
#define NSLOT 60000
#define NCTX 10

static uint64_t rng_state;
static uint64_t rnd(void)
{ /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static unsigned rn(unsigned n) { return (unsigned)(rnd() % n); }

static fy_mq_t *qs[NCFG];
static fy_mq_item_t *items[NCFG]; /* items[c][slot] */
static int free_slots[NSLOT], nfree;
static int posted[NSLOT], nposted, posted_pos[NSLOT]; /* live posted slots */
static int slot_ctx[NSLOT];

static const int ctx_sizes[NCTX] = {1, 2, 5, 25, 26, 27, 100, 300, 4097, 70000};
static int ctx_open_[NCTX], ctx_live[NCTX], ctx_size[NCTX];
static int hot[NCTX][12]; /* ranks most traffic uses, so matches happen */
static long ops, fails;

static void fail(const char *what, long op)
{
  if (fails++ < 10)
    fprintf(stderr, "mq_diff: op %ld: %s\n", op, what);
}

static int pick_rank(int c)
{
  if (rn(8) == 0)
    return (int)rn((unsigned)ctx_size[c]);
  return hot[c][rn(12)];
}

static void posted_add(int s)
{
  posted_pos[s] = nposted;
  posted[nposted++] = s;
}
static void posted_del(int s)
{
  int i = posted_pos[s], last = posted[--nposted];
  posted[i] = last;
  posted_pos[last] = i;
}

/* result of one operation on every config: the slot index or -1 */
static int slot_of(int c, fy_mq_item_t *x) { return x ? (int)(x - items[c]) : -1; }

static void open_ctx(int c)
{
  ctx_size[c] = ctx_sizes[c];
  ctx_open_[c] = 1;
  for (int i = 0; i < 12; i++)
    hot[c][i] = (int)rn((unsigned)ctx_size[c]);
  for (int k = 0; k < NCFG; k++)
    fy_mq_ctx_open(qs[k], (uint32_t)(100 + c), ctx_size[c]);
}

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
  for (int k = 0; k < NCFG; k++) {
    qs[k] = fy_mq_create_ex(cfgs[k].kind, cfgs[k].adj, cfgs[k].flags);
    items[k] = calloc(NSLOT, sizeof(fy_mq_item_t));
  }
  for (int s = NSLOT - 1; s >= 0; s--)
    free_slots[nfree++] = s;
  /* half the contexts are opened now; the others receive early messages */
  for (int c = 0; c < NCTX; c++) {
    ctx_size[c] = ctx_sizes[c];
    for (int i = 0; i < 12; i++)
      hot[c][i] = (int)rn((unsigned)ctx_size[c]);
    if (c % 2 == 0)
      open_ctx(c);
  }
  long counts[8] = {0};
  for (ops = 0; ops < n && fails == 0; ops++) {
    int c = (int)rn(NCTX);
    /* the big context gets less traffic: ANY_SOURCE costs O(size) in array */
    if (c == NCTX - 1 && rn(4))
      c = (int)rn(NCTX - 1);
    uint32_t ctx = (uint32_t)(100 + c);
    unsigned op = rn(100);
    /* alternate phases so that both queues grow long and shrink again */
    unsigned a_cut = (ops / 20000) % 2 ? 25 : 50, p_cut = 80;
    int res[NCFG];
    if (!ctx_open_[c] && rn(300) == 0) {
      open_ctx(c);
      counts[5]++;
      continue;
    }
    if (ctx_open_[c] && ctx_live[c] == 0 && rn(20) == 0) {
      for (int k = 0; k < NCFG; k++)
        fy_mq_ctx_close(qs[k], ctx);
      ctx_open_[c] = 0; /* reopened later, maybe before which early messages come */
      counts[6]++;
      continue;
    }
    if (op < a_cut && nfree > 0) { /* arrival */
      int s = free_slots[--nfree];
      int rank = pick_rank(c), tag = (int)rn(4);
      for (int k = 0; k < NCFG; k++) {
        fy_mq_item_t *x = &items[k][s];
        x->ctx = ctx;
        x->rank = rank;
        x->tag = tag;
        res[k] = slot_of(k, fy_mq_arrive(qs[k], x));
      }
      for (int k = 1; k < NCFG; k++)
        if (res[k] != res[0])
          fail(cfgs[k].name, ops);
      if (res[0] >= 0) { /* matched a posted receive: both slots free */
        for (int k = 0; k < NCFG; k++) /* a matched receive cannot be cancelled */
          if (fy_mq_cancel_posted(qs[k], &items[k][res[0]]))
            fail("cancel after match", ops);
        posted_del(res[0]);
        ctx_live[c]--;
        free_slots[nfree++] = res[0];
        free_slots[nfree++] = s;
      } else {
        ctx_live[c]++;
        slot_ctx[s] = c;
      }
      counts[0]++;
    } else if (op < p_cut && nfree > 0 && ctx_open_[c]) { /* receive post */
      int s = free_slots[--nfree];
      int rank = rn(6) == 0 ? FY_MQ_ANY_SOURCE : pick_rank(c);
      int tag = rn(5) == 0 ? FY_MQ_ANY_TAG : (int)rn(4);
      for (int k = 0; k < NCFG; k++) {
        fy_mq_item_t *x = &items[k][s];
        x->ctx = ctx;
        x->rank = rank;
        x->tag = tag;
        res[k] = slot_of(k, fy_mq_post(qs[k], x));
      }
      for (int k = 1; k < NCFG; k++)
        if (res[k] != res[0])
          fail(cfgs[k].name, ops);
      if (res[0] >= 0) {
        ctx_live[c]--;
        free_slots[nfree++] = res[0];
        free_slots[nfree++] = s;
      } else {
        posted_add(s);
        slot_ctx[s] = c;
        ctx_live[c]++;
      }
      counts[1]++;
    } else if (op < 88) { /* probe or mprobe */
      int rank = rn(3) == 0 ? FY_MQ_ANY_SOURCE : pick_rank(c);
      int tag = rn(3) == 0 ? FY_MQ_ANY_TAG : (int)rn(4);
      bool take = rn(2);
      for (int k = 0; k < NCFG; k++)
        res[k] = slot_of(k, take ? fy_mq_take_unexpected(qs[k], ctx, rank, tag)
                                 : fy_mq_peek_unexpected(qs[k], ctx, rank, tag));
      for (int k = 1; k < NCFG; k++)
        if (res[k] != res[0])
          fail(cfgs[k].name, ops);
      if (take && res[0] >= 0) {
        ctx_live[c]--;
        free_slots[nfree++] = res[0];
      }
      counts[take ? 2 : 3]++;
    } else if (nposted > 0) { /* cancel a live posted receive, or a stale one */
      int s = rn(10) ? posted[rn((unsigned)nposted)] : (int)rn(NSLOT);
      bool live = posted_pos[s] < nposted && posted[posted_pos[s]] == s;
      bool r0 = false;
      for (int k = 0; k < NCFG; k++) {
        /* a stale slot may be an unexpected message: never cancel those */
        if (!live)
          break;
        bool r = fy_mq_cancel_posted(qs[k], &items[k][s]);
        if (k == 0)
          r0 = r;
        else if (r != r0)
          fail(cfgs[k].name, ops);
      }
      if (live) {
        if (!r0)
          fail("cancel of a queued receive failed", ops);
        posted_del(s);
        ctx_live[slot_ctx[s]]--;
        free_slots[nfree++] = s;
      }
      counts[4]++;
    }
    for (int k = 1; k < NCFG; k++)
      if (fy_mq_posted_len(qs[k]) != fy_mq_posted_len(qs[0]) ||
          fy_mq_unexpected_len(qs[k]) != fy_mq_unexpected_len(qs[0]))
        fail("lengths differ", ops);
  }
  /* drain everything through probes and cancels: all must agree to the end */
  for (int c = 0; c < NCTX && !fails; c++) {
    for (;;) {
      int res[NCFG];
      for (int k = 0; k < NCFG; k++)
        res[k] = slot_of(k, fy_mq_take_unexpected(qs[k], (uint32_t)(100 + c), FY_MQ_ANY_SOURCE,
                                                  FY_MQ_ANY_TAG));
      for (int k = 1; k < NCFG; k++)
        if (res[k] != res[0])
          fail("drain", ops);
      if (res[0] < 0 || fails)
        break;
    }
  }
  while (nposted && !fails) {
    int s = posted[0];
    for (int k = 0; k < NCFG; k++)
      if (!fy_mq_cancel_posted(qs[k], &items[k][s]))
        fail("drain cancel", ops);
    posted_del(s);
  }
  for (int k = 0; k < NCFG && !fails; k++) {
    fy_mq_stats_t st;
    fy_mq_counts_t ct;
    for (int c = 0; c < NCTX; c++)
      fy_mq_ctx_close(qs[k], (uint32_t)(100 + c));
    fy_mq_get_stats(qs[k], &st);
    fy_mq_get_counts(qs[k], &ct);
    if (fy_mq_posted_len(qs[k]) || fy_mq_unexpected_len(qs[k]) || st.mem_bytes || ct.cubes ||
        ct.jumppoints || ct.leads)
      fail("not empty at the end", ops);
    printf("%-10s searches=%llu visited=%llu skipped=%llu max_prq=%llu max_umq=%llu "
           "mem_peak=%zu\n",
           cfgs[k].name, (unsigned long long)st.searches, (unsigned long long)st.items_visited,
           (unsigned long long)st.items_skipped, (unsigned long long)st.max_prq,
           (unsigned long long)st.max_umq, st.mem_peak);
  }
  printf("mq_diff: %ld operations (arrive %ld post %ld take %ld peek %ld cancel %ld open %ld "
         "close %ld) on %d back ends: %s\n",
         ops, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], NCFG,
         fails ? "MISMATCH" : "identical");
  for (int k = 0; k < NCFG; k++) {
    fy_mq_destroy(qs[k]);
    free(items[k]);
  }
  return fails ? 1 : 0;
}
