/* test_ofi_iface: which interface a fabric job spanning hosts takes
 * (src/transport/ofi/fy_ofi_iface.h), on hosts' lists written by hand: a
 * container's bridge with the same address on every host, listed first,
 * is passed over for the interface the hosts share; link-local
 * addresses reach nothing; ranks of this host and the repeated lists of
 * another host's ranks count once or not at all; no choice, or nothing
 * reached, keeps the provider's first. Hosts on other subnets behind
 * routers, through routes given by hand: the candidate the route to a
 * host leaves from reaches it, asked only for hosts the subnet rule does
 * not reach and never about this host's own, link-local or loopback
 * addresses. No libfabric needed. */
#include "transport/ofi/fy_ofi_iface.h"
#include <stdio.h>
#include <string.h>

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static int pick(const char *mine, int n, const char *p0, const char *p1, const char *p2, const char *p3) {
  const char *peers[] = {p0, p1, p2, p3};
  return fy_ofi_iface_pick(mine, n, peers, 4, NULL, NULL);
}

/* A host's routing table by hand: "peer>source" pairs separated by ' ';
 * the addresses asked about are logged, separated by ' '. */
struct routes {
  const char *table;
  char asked[256];
};

static int fake_route(const char *addr, char *src, size_t len, void *arg) {
  struct routes *r = arg;
  size_t al = strlen(addr);
  snprintf(r->asked + strlen(r->asked), sizeof r->asked - strlen(r->asked), "%s%s", *r->asked ? " " : "", addr);
  for (const char *t = r->table; t && *t;) {
    size_t e = strcspn(t, " ");
    if (e > al && !strncmp(t, addr, al) && t[al] == '>') {
      snprintf(src, len, "%.*s", (int)(e - al - 1), t + al + 1);
      return 0;
    }
    t += e + (t[e] == ' ');
  }
  return -1;
}

static int rpick(const char *table, char *asked, const char *mine, int n, const char *p0, const char *p1,
                 const char *p2, const char *p3) {
  const char *peers[] = {p0, p1, p2, p3};
  struct routes r = {table, ""};
  int i = fy_ofi_iface_pick(mine, n, peers, 4, fake_route, &r);
  strcpy(asked, r.asked);
  return i;
}

int main(void) {
  char l[64] = "";
  /* building a list */
  CHECK(fy_ofi_iface_add(l, sizeof l, "10.1.1.0/24", "10.1.1.11") == 0 && !strcmp(l, "10.1.1.0/24|10.1.1.11"), "%s", l);
  CHECK(fy_ofi_iface_add(l, sizeof l, "fe80::/64", "fe80::1") == 0 &&
            !strcmp(l, "10.1.1.0/24|10.1.1.11;fe80::/64|fe80::1"), "%s", l);
  CHECK(fy_ofi_iface_add(l, sizeof l, "172.16.0.0/12", "172.16.0.1234567890123456") == -1 &&
            !strcmp(l, "10.1.1.0/24|10.1.1.11;fe80::/64|fe80::1"), "a full list is left as it was: %s", l);
  CHECK(fy_ofi_iface_add(l, sizeof l, "a|b", "1.2.3.4") == -1 && fy_ofi_iface_add(l, sizeof l, "x", "1;2") == -1,
        "separators refused");

  /* reaching: same subnet, another address; not link-local */
  const char *b = "172.31.0.0/16|172.31.0.1;10.1.1.0/24|10.1.1.12";
  CHECK(fy_ofi_iface_reaches("10.1.1.0/24", "10.1.1.11", b), "same subnet");
  CHECK(!fy_ofi_iface_reaches("172.31.0.0/16", "172.31.0.1", b), "the same address is no other host");
  CHECK(!fy_ofi_iface_reaches("10.2.0.0/16", "10.2.0.5", b), "another subnet");
  CHECK(!fy_ofi_iface_reaches("fe80::/64", "fe80::1", "fe80::/64|fe80::2"), "link-local v6");
  CHECK(!fy_ofi_iface_reaches("169.254.0.0/16", "169.254.3.4", "169.254.0.0/16|169.254.9.9"), "link-local v4");
  CHECK(!fy_ofi_iface_reaches("10.1.1.0/24", "10.1.1.11", ""), "an empty list");

  /* the bridge every host has, listed first, and its link-local twin */
  const char *a = "172.31.0.0/16|172.31.0.1;fe80::/64|fe80::a1;10.1.1.0/24|10.1.1.11;fe80::/64|fe80::a2";
  const char *b2 = "172.31.0.0/16|172.31.0.1;fe80::/64|fe80::b1;10.1.1.0/24|10.1.1.12;fe80::/64|fe80::b2";
  CHECK(pick(a, 4, b2, NULL, NULL, NULL) == 2, "the shared network, not the bridge: %d", pick(a, 4, b2, NULL, NULL, NULL));
  /* ranks of this host (its own list), unread and empty lists: nothing */
  CHECK(pick(a, 4, a, NULL, "", a) == 0, "no other host: the first");
  CHECK(pick(a, 4, a, b2, "", a) == 2, "this host's ranks do not count: %d", pick(a, 4, a, b2, "", a));
  /* one candidate: no choice */
  CHECK(pick("10.9.0.0/16|10.9.0.1", 1, b2, NULL, NULL, NULL) == 0, "one candidate");
  /* the first reaches every host: kept */
  CHECK(pick("10.1.1.0/24|10.1.1.11;10.2.0.0/16|10.2.0.11", 2, b2, NULL, NULL, NULL) == 0, "first kept");
  /* nothing reaches: the provider's first */
  CHECK(pick("10.7.0.0/16|10.7.0.1;10.8.0.0/16|10.8.0.1", 2, b2, NULL, NULL, NULL) == 0, "nothing reached");
  /* three hosts: the one that reaches both, over one that reaches one */
  const char *h1 = "10.1.1.0/24|10.1.1.11;10.2.0.0/16|10.2.0.11";
  const char *h2 = "10.1.1.0/24|10.1.1.12;10.2.0.0/16|10.2.0.12";
  const char *h3 = "10.2.0.0/16|10.2.0.13";
  CHECK(pick(h1, 2, h2, h3, h2, NULL) == 1, "reaches every host: %d", pick(h1, 2, h2, h3, h2, NULL));
  /* none reaches all: the one that reaches most hosts; a host counts once
   * however many of its ranks published, ties go to the first (3 ranks of
   * one host against one of another, each candidate reaching one) */
  const char *h4 = "10.3.0.0/16|10.3.0.14";
  CHECK(pick(h1, 2, h2, h4, h3, NULL) == 1, "most hosts: %d", pick(h1, 2, h2, h4, h3, NULL));
  CHECK(pick("10.1.1.0/24|10.1.1.11;10.2.0.0/16|10.2.0.11", 2, h3, "10.1.1.0/24|10.1.1.12", "10.1.1.0/24|10.1.1.12",
             "10.1.1.0/24|10.1.1.12") == 0,
        "hosts, not ranks");
  CHECK(pick("10.2.0.0/16|10.2.0.11;10.1.1.0/24|10.1.1.11", 2, h3, "10.1.1.0/24|10.1.1.12", "10.1.1.0/24|10.1.1.12",
             "10.1.1.0/24|10.1.1.12") == 0,
        "hosts, not ranks (the other order)");

  /* Routed: each host on its own subnet, a router between them, and the
   * bridge first. The subnet rule reaches nothing (the provider's first,
   * the bridge); the route to the other host's address leaves from the
   * routed interface. The other host's bridge address is this host's own
   * and its link-local address is every link's: neither is asked about. */
  char asked[256];
  const char *ra = "172.31.0.0/16|172.31.0.1;fe80::/64|fe80::a1;10.5.1.64/26|10.5.1.75";
  const char *rb = "172.31.0.0/16|172.31.0.1;fe80::/64|fe80::b1;10.5.1.128/26|10.5.1.139";
  const char *rt = "10.5.1.139>10.5.1.75 172.31.0.1>172.31.0.1 fe80::b1>fe80::a1";
  CHECK(pick(ra, 3, rb, NULL, NULL, NULL) == 0, "routed, subnets alone: the provider's first");
  CHECK(rpick(rt, asked, ra, 3, rb, rb, NULL, NULL) == 2 && !strcmp(asked, "10.5.1.139"),
        "routed: the route's source: %d, asked %s", rpick(rt, asked, ra, 3, rb, rb, NULL, NULL), asked);
  /* no route, or one from an address that is no candidate: nothing reached */
  CHECK(rpick("", asked, ra, 3, rb, NULL, NULL, NULL) == 0, "no route");
  CHECK(rpick("10.5.1.139>10.5.1.99", asked, ra, 3, rb, NULL, NULL, NULL) == 0, "a source that is no candidate");
  /* loopback and unspecified addresses are not asked about */
  CHECK(rpick("127.0.0.1>10.5.1.75 ::1>10.5.1.75 0.0.0.0>10.5.1.75", asked, ra, 3,
              "127.0.0.0/8|127.0.0.1;::1/128|::1;0.0.0.0/0|0.0.0.0;169.254.0.0/16|169.254.1.1", NULL, NULL,
              NULL) == 0 && !*asked,
        "loopback asked: %s", asked);
  /* the subnet rule reaches every host: no route is asked */
  CHECK(rpick("10.1.1.12>172.31.0.1", asked, a, 4, b2, NULL, NULL, NULL) == 2 && !*asked, "asked %s", asked);
  /* a host the subnet rule reaches keeps its answer (only the other one
   * is asked about): each candidate reaches one host, the first wins; and
   * when the route to the other leaves from the candidate that shares a
   * subnet with the first host, that one reaches both */
  const char *m = "10.1.1.0/24|10.1.1.11;10.9.0.0/24|10.9.0.11";
  const char *s2 = "10.1.1.0/24|10.1.1.12", *r3 = "10.7.0.0/24|10.7.0.13";
  CHECK(rpick("10.7.0.13>10.9.0.11 10.1.1.12>10.9.0.11", asked, "10.9.0.0/24|10.9.0.11;10.1.1.0/24|10.1.1.11", 2, s2,
              r3, NULL, NULL) == 0 && !strcmp(asked, "10.7.0.13"),
        "subnet first, then routes: asked %s", asked);
  CHECK(rpick("10.7.0.13>10.1.1.11", asked, "10.9.0.0/24|10.9.0.11;10.1.1.0/24|10.1.1.11", 2, s2, r3, NULL, NULL) == 1,
        "both by subnet and route");
  /* none reaches all: the one that reaches most, counting by both rules;
   * a host reached through two of its addresses counts once */
  const char *r4 = "10.7.0.0/24|10.7.0.14;10.7.1.0/24|10.7.1.14";
  const char *s5 = "10.1.1.0/24|10.1.1.15";
  const char *t2 = "10.7.0.14>10.9.0.11 10.7.1.14>10.9.0.11";
  CHECK(rpick(t2, asked, "10.9.0.0/24|10.9.0.11;10.1.1.0/24|10.1.1.11", 2, r4, s2, s5, "10.8.0.0/24|10.8.0.16") == 1,
        "a host counts once: %d",
        rpick(t2, asked, "10.9.0.0/24|10.9.0.11;10.1.1.0/24|10.1.1.11", 2, r4, s2, s5, "10.8.0.0/24|10.8.0.16"));
  CHECK(rpick("10.7.0.14>10.9.0.11 10.8.0.16>10.9.0.11", asked, m, 2, r4, s2, "10.8.0.0/24|10.8.0.16", NULL) == 1,
        "most, by routes: %d",
        rpick("10.7.0.14>10.9.0.11 10.8.0.16>10.9.0.11", asked, m, 2, r4, s2, "10.8.0.0/24|10.8.0.16", NULL));
  if (fails) return 1;
  printf("PASS test_ofi_iface\n");
  return 0;
}
