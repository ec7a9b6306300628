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
 * - A candidate reaches another host's list when that list holds an entry
 *   of the same fabric at another address. Link-local addresses
 *   (169.254.0.0/16, fe80::/10) reach nothing: every link has them.
 * - fy_ofi_iface_pick(mine, n, peers, np) takes this host's n candidates
 *   and the lists the job's other ranks published, and returns the index
 *   of the first candidate that reaches every other host, else the one
 *   that reaches most (the first of those), else 0: the provider's first.
 *   A list equal to this host's own is a rank on this host and counts for
 *   nothing; so does an empty one (a rank whose provider lists no
 *   addresses).
 * Pure functions on strings: the unit test gives them hosts' lists. */
#ifndef FY_OFI_IFACE_H
#define FY_OFI_IFACE_H
#include <stddef.h>

/* Appends "fabric|addr" to list (len bytes, NUL-terminated), ';' between
 * entries; 0, or -1 (list unchanged) when it does not fit or a name holds
 * '|' or ';'. */
int fy_ofi_iface_add(char *list, size_t len, const char *fabric, const char *addr);
/* 1 when candidate (fabric, addr) reaches the host whose list is given. */
int fy_ofi_iface_reaches(const char *fabric, const char *addr, const char *list);
/* mine: this host's list; n: its candidates (the entries of mine, in
 * order); peers: np lists (NULL entries are skipped). */
int fy_ofi_iface_pick(const char *mine, int n, const char *const *peers, int np);
#endif
