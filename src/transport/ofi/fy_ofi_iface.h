/* Which interface the fabric takes for a job that spans hosts.
 *
 * Contract
 * - A socket provider (net, tcp, sockets, udp, and ofi_rxm over them) is
 *   listed once per interface address, fastest first, and names each
 *   entry's fabric by its subnet ("10.1.2.0/24"). The first entry may be
 *   an address no other host reaches: a container's or a VM's bridge with
 *   ports (docker0 while containers run, virbr0), sorted first by its
 *   speed, which every host gives the same private address.
 * - A candidate is one entry, written "fabric|address" (the address as
 *   inet_ntop prints it); a host's list is its candidates in the
 *   provider's order, separated by ';' (fy_ofi_iface_add appends one).
 * - Subnet rule: a candidate reaches another host's list when that list
 *   holds an entry of the same fabric at another address. Link-local
 *   addresses (169.254.0.0/16, fe80::/10) reach nothing: every link has
 *   them.
 * - Route rule, for hosts on other subnets joined by routers: a candidate
 *   reaches a host when it is the kernel's source address toward one of
 *   that host's addresses (route(), below). Peer addresses that are
 *   link-local, loopback, unspecified or one of this host's candidates'
 *   are not asked about (every host has them, or they lead back here).
 *   A host counts once for a candidate however many of its addresses
 *   lead to it.
 * - fy_ofi_iface_pick(mine, n, peers, np, route, arg) takes this host's n
 *   candidates and the lists the job's other ranks published. A list
 *   equal to this host's own is a rank on this host and counts for
 *   nothing; so does an empty one (a rank whose provider lists no
 *   addresses); another host counts once however many ranks publish it.
 *   The subnet rule first: its first candidate that reaches every other
 *   host wins (no route is asked). Else each host that no candidate
 *   reaches by subnet is judged by the route rule instead (a host some
 *   candidate shares a subnet with keeps the subnet rule's answer: the
 *   subnet is the likelier way, and routes are asked only where needed),
 *   and of the counts so combined the first candidate that reaches every
 *   other host wins, else the one that reaches most (the first of those),
 *   else 0: the provider's first. route NULL: the subnet rule alone.
 * Pure functions on strings: route is the caller's (fy_ofi.c asks the
 * kernel; the unit test gives hosts' lists and routes by hand). */
#ifndef FY_OFI_IFACE_H
#define FY_OFI_IFACE_H
#include <stddef.h>

/* The local address the kernel sends from toward addr (a peer's address
 * as inet_ntop prints it), written as inet_ntop prints it into src (len
 * bytes); 0, or -1 when there is no route (or no answer). */
typedef int (*fy_ofi_iface_route_fn)(const char *addr, char *src, size_t len, void *arg);

/* Appends "fabric|addr" to list (len bytes, NUL-terminated), ';' between
 * entries; 0, or -1 (list unchanged) when it does not fit or a name holds
 * '|' or ';'. */
int fy_ofi_iface_add(char *list, size_t len, const char *fabric, const char *addr);
/* 1 when candidate (fabric, addr) reaches the host whose list is given,
 * by the subnet rule. */
int fy_ofi_iface_reaches(const char *fabric, const char *addr, const char *list);
/* mine: this host's list; n: its candidates (the entries of mine, in
 * order); peers: np lists (NULL entries are skipped); route, arg: the
 * route rule's lookup and its argument, or NULL. */
int fy_ofi_iface_pick(const char *mine, int n, const char *const *peers, int np, fy_ofi_iface_route_fn route,
                      void *arg);
#endif
