/* Unit tests of mpiexec's PMI-1 server (src/launcher/fy_pmi_server.c),
 * driven through socketpairs without processes. */
#include "launcher/fy_pmi_server.h"
#include "runtime/fy_pmi_wire.h"
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/fy_expect.h"

#define N 3
static fy_pmi_server_t *srv;
static int cli[N];
static fy_pmi_reader_t rd[N];
static fy_pmi_msg_t m;

static void send_str(int r, const char *s) {
  if (write(cli[r], s, strlen(s)) != (ssize_t)strlen(s)) abort();
  EXPECT(fy_pmi_server_handle(srv, r) == 0);
}

/* 1 and the next response of rank r in m, or 0 if none is pending. */
static int recv_msg(int r) {
  const char *line;
  size_t len;
  for (;;) {
    if (fy_pmi_reader_next(&rd[r], &line, &len) == 1) return fy_pmi_msg_parse(&m, line, len) == 0;
    struct pollfd p = {cli[r], POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) return 0;
    size_t avail;
    char *b = fy_pmi_reader_space(&rd[r], &avail);
    ssize_t n = read(cli[r], b, avail);
    if (n <= 0) return 0;
    fy_pmi_reader_commit(&rd[r], (size_t)n);
  }
}

/* What the server wrote to a relayed rank, and the next message of it. */
static struct {
  char buf[4096];
  size_t len, at;
  int rank;
} relayed;

static void relay_out(void *ctx, int rank, const char *p, size_t n) {
  (void)ctx;
  relayed.rank = rank;
  if (relayed.len + n > sizeof relayed.buf) abort();
  memcpy(relayed.buf + relayed.len, p, n);
  relayed.len += n;
}

static int relayed_msg(void) {
  char *nl = memchr(relayed.buf + relayed.at, '\n', relayed.len - relayed.at);
  if (!nl) return 0;
  size_t len = (size_t)(nl - (relayed.buf + relayed.at));
  int ok = fy_pmi_msg_parse(&m, relayed.buf + relayed.at, len) == 0;
  relayed.at += len + 1;
  return ok;
}

static int is(const char *k, const char *v) {
  const char *x = fy_pmi_msg_get(&m, k);
  return x && !strcmp(x, v);
}

int main(void) {
  srv = fy_pmi_server_create(N, "kvs_test");
  for (int r = 0; r < N; r++) {
    int sp[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sp);
    fcntl(sp[0], F_SETFL, O_NONBLOCK);
    fy_pmi_server_attach(srv, r, sp[0]);
    cli[r] = sp[1];
    fy_pmi_reader_init(&rd[r]);
  }
  /* Several commands in one write, one split across writes. */
  send_str(0, "cmd=init pmi_version=1 pmi_subversion=1\ncmd=get_maxes\ncmd=get_my_kv");
  EXPECT(recv_msg(0) && is("cmd", "response_to_init") && is("rc", "0"));
  EXPECT(recv_msg(0) && is("cmd", "maxes") && is("vallen_max", "1024") && is("keylen_max", "64"));
  EXPECT(!recv_msg(0));
  send_str(0, "sname\ncmd=get_appnum\ncmd=get_universe_size\n");
  EXPECT(recv_msg(0) && is("cmd", "my_kvsname") && is("kvsname", "kvs_test"));
  EXPECT(recv_msg(0) && is("cmd", "appnum") && is("appnum", "0"));
  EXPECT(recv_msg(0) && is("cmd", "universe_size") && is("size", "3"));
  EXPECT(fy_pmi_server_rank(srv, 0)->inited);

  send_str(1, "cmd=init pmi_version=2 pmi_subversion=0\n");
  EXPECT(recv_msg(1) && is("cmd", "response_to_init") && is("rc", "-1"));

  /* put / get / missing key / process mapping. */
  send_str(1, "cmd=put kvsname=kvs_test key=k1 value=v=1\n");
  EXPECT(recv_msg(1) && is("cmd", "put_result") && is("rc", "0"));
  send_str(2, "cmd=get kvsname=kvs_test key=k1\n");
  EXPECT(recv_msg(2) && is("cmd", "get_result") && is("rc", "0") && is("value", "v=1"));
  send_str(2, "cmd=get kvsname=kvs_test key=nope\n");
  EXPECT(recv_msg(2) && is("cmd", "get_result") && is("rc", "-1") && fy_pmi_msg_get(&m, "msg"));
  send_str(2, "cmd=get kvsname=other key=k1\n");
  EXPECT(recv_msg(2) && is("rc", "-1"));
  send_str(2, "cmd=get kvsname=kvs_test key=PMI_process_mapping\n");
  EXPECT(recv_msg(2) && is("value", "(vector,(0,1,3))"));

  /* Barrier: nobody is released until all three entered. */
  send_str(0, "cmd=barrier_in\n");
  send_str(1, "cmd=barrier_in\n");
  EXPECT(!recv_msg(0) && !recv_msg(1));
  send_str(2, "cmd=barrier_in\n");
  for (int r = 0; r < N; r++) EXPECT(recv_msg(r) && is("cmd", "barrier_out"));

  /* Name service: publish, a second publish refused, lookup from another
   * rank, unpublish, then lookup and unpublish refused. */
  send_str(0, "cmd=publish_name service=x port=y:1\n");
  EXPECT(recv_msg(0) && is("cmd", "publish_result") && is("rc", "0") && is("info", "ok"));
  send_str(0, "cmd=publish_name service=x port=z\n");
  EXPECT(recv_msg(0) && is("cmd", "publish_result") && is("rc", "-1") && !is("info", "ok"));
  send_str(1, "cmd=lookup_name service=x\n");
  EXPECT(recv_msg(1) && is("cmd", "lookup_result") && is("info", "ok") && is("port", "y:1"));
  send_str(2, "cmd=unpublish_name service=x\n");
  EXPECT(recv_msg(2) && is("cmd", "unpublish_result") && is("info", "ok"));
  send_str(1, "cmd=lookup_name service=x\n");
  EXPECT(recv_msg(1) && is("cmd", "lookup_result") && is("rc", "-1") && !is("info", "ok"));
  send_str(0, "cmd=unpublish_name service=x\n");
  EXPECT(recv_msg(0) && is("cmd", "unpublish_result") && is("rc", "-1"));

  /* Unknown command answered with rc=-1. */
  send_str(0, "cmd=spawn nprocs=1 execname=x\n");
  EXPECT(recv_msg(0) && is("cmd", "spawn_result") && is("rc", "-1"));

  /* PMI_PORT-style handshake. */
  send_str(1, "cmd=initack pmiid=1\n");
  EXPECT(recv_msg(1) && is("cmd", "initack"));
  EXPECT(recv_msg(1) && is("cmd", "set") && is("size", "3"));
  EXPECT(recv_msg(1) && is("cmd", "set") && is("rank", "1"));
  EXPECT(recv_msg(1) && is("cmd", "set") && is("debug", "0"));

  send_str(0, "cmd=finalize\n");
  EXPECT(recv_msg(0) && is("cmd", "finalize_ack") && fy_pmi_server_rank(srv, 0)->finalized);
  send_str(1, "cmd=abort exitcode=13\n");
  EXPECT(fy_pmi_server_rank(srv, 1)->aborted && fy_pmi_server_rank(srv, 1)->abort_code == 13);

  /* Malformed input is a protocol error that closes the connection. */
  if (write(cli[2], "garbage\n", 8) != 8) abort();
  EXPECT(fy_pmi_server_handle(srv, 2) == -1 && fy_pmi_server_rank(srv, 2)->fd == -1);
  EXPECT(strstr(fy_pmi_server_error(srv), "rank 2") != NULL);
  /* Closing the client end reads as EOF. */
  close(cli[0]);
  EXPECT(fy_pmi_server_handle(srv, 0) == 1 && fy_pmi_server_rank(srv, 0)->fd == -1);

  fy_pmi_server_destroy(srv);

  /* A relayed rank (its proxy carries its connection): bytes fed, answers
   * through the write function; a barrier with a rank on a socket
   * releases both; its close is the proxy's word. */
  srv = fy_pmi_server_create(2, "kvs_relay");
  int sp[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sp);
  fcntl(sp[0], F_SETFL, O_NONBLOCK);
  fy_pmi_server_attach(srv, 0, sp[0]);
  cli[0] = sp[1];
  fy_pmi_reader_init(&rd[0]);
  fy_pmi_server_relay(srv, 1, relay_out, &relayed);
  EXPECT(fy_pmi_server_rank(srv, 1)->fd == FY_PMI_RELAYED);
  const char *init = "cmd=init pmi_version=1 pmi_subversion=1\ncmd=get_my_";
  EXPECT(fy_pmi_server_feed(srv, 1, init, strlen(init)) == 0);
  EXPECT(fy_pmi_server_feed(srv, 1, "kvsname\n", 8) == 0);
  EXPECT(relayed_msg() && is("cmd", "response_to_init") && is("rc", "0") && relayed.rank == 1);
  EXPECT(relayed_msg() && is("cmd", "my_kvsname") && is("kvsname", "kvs_relay"));
  EXPECT(fy_pmi_server_feed(srv, 1, "cmd=barrier_in\n", 15) == 0);
  EXPECT(!relayed_msg());
  send_str(0, "cmd=barrier_in\n");
  EXPECT(recv_msg(0) && is("cmd", "barrier_out"));
  EXPECT(relayed_msg() && is("cmd", "barrier_out"));
  EXPECT(fy_pmi_server_feed(srv, 1, "cmd=abort exitcode=7\n", 21) == 0);
  EXPECT(fy_pmi_server_rank(srv, 1)->aborted && fy_pmi_server_rank(srv, 1)->abort_code == 7);
  fy_pmi_server_close(srv, 1);
  EXPECT(fy_pmi_server_rank(srv, 1)->fd == -1);
  fy_pmi_server_destroy(srv);
  close(cli[0]);
  if (failures) return 1;
  printf("test_pmi_server: ok\n");
  return 0;
}
