/* net_wait_mixed: blocking receives of a rank with both a shared-memory
 * peer and a fabric peer, each sender late (it sleeps first), so the
 * receiver's wait goes to sleep every time.
 *
 * Rank 0 receives with MPI_ANY_SOURCE; rounds alternate between the last
 * rank (on another host: the fabric) and rank 1 (on rank 0's host: shared
 * memory). Every message arrives, from the rank due, with its content.
 *
 * What the waits slept on is read from rank 0's MPI_T counters around the
 * rounds (not over the whole run: MPI_Init's waits come before the agents
 * start, and nap). "relay" (modes with a fabric agent): the sleeps were
 * relayed (the agent watched the fabric's fd and rang the doorbell), and
 * none napped. "nap" (mode none): none relayed, some napped. Run with
 * FERRY_SPIN=0 FERRY_YIELD=0 (tests/mpi/net/hosts.sh, case progress), so
 * that a wait sleeps at its first idle poll even on a loaded machine. */
#include "fytest.h"
#include <unistd.h>

#define ROUNDS 8
#define LATE_US 50000

enum { RELAYED, RELAYS, NAPS, NCOUNT };
static const char *names[NCOUNT] = {"ferry_net_relayed", "ferry_net_relays", "ferry_net_naps"};

static fy_counter_t counter[NCOUNT];

static void counters_start(void) {
  for (int i = 0; i < NCOUNT; i++) CHECK(fy_counter_start(&counter[i], names[i]), "no MPI_T counter %s", names[i]);
}

static void counters_read(unsigned long long *v) {
  for (int i = 0; i < NCOUNT; i++) v[i] = fy_counter_end(&counter[i]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("net_wait_mixed");
  int rank = fy_rank_, size = fy_size_, prov;
  const char *want = argc > 1 ? argv[1] : "";
  CHECK(!strcmp(want, "relay") || !strcmp(want, "nap"), "usage: net_wait_mixed relay|nap");
  CHECK(size >= 3, "needs 3 ranks (2 on one host, 1 on another), got %d", size);
  if (size < 3 || (strcmp(want, "relay") && strcmp(want, "nap"))) return fy_finish();
  CHECK_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
  if (rank == 0) counters_start();
  for (int i = 0; i < ROUNDS; i++) {
    int from = i % 2 ? 1 : size - 1;
    long v[4];
    if (rank == from) {
      usleep(LATE_US);
      for (int k = 0; k < 4; k++) v[k] = (long)i * 1000 + from * 10 + k;
      CHECK_OK(MPI_Send(v, 4, MPI_LONG, 0, i, MPI_COMM_WORLD));
    } else if (rank == 0) {
      MPI_Status st;
      memset(v, 0, sizeof v);
      CHECK_OK(MPI_Recv(v, 4, MPI_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE == from && st.MPI_TAG == i, "round %d: from %d tag %d, expected %d tag %d", i,
            st.MPI_SOURCE, st.MPI_TAG, from, i);
      for (int k = 0; k < 4; k++)
        CHECK(v[k] == (long)i * 1000 + from * 10 + k, "round %d: word %d is %ld", i, k, v[k]);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  }
  if (rank == 0) {
    unsigned long long c[NCOUNT];
    counters_read(c);
    unsigned long long relayed = c[RELAYED], relays = c[RELAYS], naps = c[NAPS];
    printf("rank 0 over %d rounds: relayed=%llu relays=%llu naps=%llu\n", ROUNDS, relayed, relays, naps);
    if (!strcmp(want, "relay")) {
      CHECK(relayed > 0, "no wait slept relayed");
      CHECK(relays > 0, "the fabric agent never rang a relayed wait");
      CHECK(naps == 0, "%llu waits napped with a fabric agent running", naps);
    } else {
      CHECK(relayed == 0, "%llu waits slept relayed with no fabric agent", relayed);
      CHECK(naps > 0, "no wait napped");
    }
  }
  CHECK_OK(MPI_T_finalize());
  return fy_finish();
}
